"""Everything a designer reads: metric queries, statistics, exports, dashboard pages.

Reads the store's documented tables through a DuckDB connection or a path it opens briefly;
imports nothing from ``workbench`` or ``sim``, so analytics can be tested on hand-made tables."""
