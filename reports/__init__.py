"""Everything a designer reads: metric queries, statistics, exports, dashboard pages.

Reads the store's documented tables through a DuckDB connection or a path it opens briefly;
imports nothing from ``workbench`` or ``sim``, so analytics can be tested on hand-made tables."""

import warnings

# statsmodels warns (divide by zero, sqrt of a negative rounding error) on degenerate samples,
# e.g. a card type whose every card has the same cost; the functions return NaN there and the
# pages say so, so the console stays for what a person must read.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"statsmodels(\..*)?")
# and its model warnings (a singular design, perfect separation: statsmodels' ModelWarning family,
# UserWarnings) printed a warning's source line under `report`, `export keywords` and `batch`; the
# fits that meet them return no estimate (keywords.py: separation and over-wide intervals)
warnings.filterwarnings("ignore", category=UserWarning, module=r"statsmodels(\..*)?")
