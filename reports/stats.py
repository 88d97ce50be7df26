"""Statistics used across the reports (from statsmodels where it has them)."""
from __future__ import annotations

import numpy as np
from statsmodels.stats.proportion import proportion_confint


def wilson(successes, trials, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """95% Wilson score interval per row; NaN where there are no trials."""
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    lo = np.full(n.shape, np.nan)
    hi = np.full(n.shape, np.nan)
    ok = n > 0
    if ok.any():
        lo[ok], hi[ok] = proportion_confint(k[ok], n[ok], alpha=alpha, method="wilson")
    return lo, hi


def rate(successes, trials) -> np.ndarray:
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, k / n, np.nan)
