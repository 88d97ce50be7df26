"""Everything a designer reads: metric queries, statistics, exports, dashboard pages.

Reads the store's documented tables through a DuckDB connection or a path it opens briefly;
imports nothing from ``workbench`` or ``sim``, so analytics can be tested on hand-made tables."""

import warnings

# statsmodels warns (divide by zero, sqrt of a negative rounding error) on degenerate samples,
# e.g. a card type whose every card has the same cost; the functions return NaN there and the
# pages say so, so the console stays for what a person must read.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"statsmodels(\..*)?")
# (its model warnings are silenced around each fit instead: reports/stats.py quiet_fit)
