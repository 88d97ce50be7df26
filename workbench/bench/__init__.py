"""``workbench bench --against REV``: today's engines measured against a git revision's, in
interleaved blocks played by two measuring processes (driver.py), each figure a ratio with its
spread. The plain ``workbench bench`` lives in workbench/commands/bench.py."""
