"""Statistics used across the reports. Where statsmodels or scipy has the method, it is used;
each function says what it computes so a reader can check it by hand."""
from __future__ import annotations

import math

import numpy as np
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar as _mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

Z95 = 1.959963984540054


def rate(successes, trials) -> np.ndarray:
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, k / n, np.nan)


def wilson(successes, trials, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval per row (95% by default); NaN where there are no trials."""
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    lo = np.full(n.shape, np.nan)
    hi = np.full(n.shape, np.nan)
    ok = n > 0
    if ok.any():
        lo[ok], hi[ok] = proportion_confint(k[ok], n[ok], alpha=alpha, method="wilson")
    return lo, hi


def diff_interval(k1, n1, k2, n2, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's hybrid score interval for p1 - p2 of two independent proportions, per row."""
    k1, n1, k2, n2 = (np.asarray(x, dtype=float) for x in (k1, n1, k2, n2))
    lo = np.full(k1.shape, np.nan)
    hi = np.full(k1.shape, np.nan)
    for i in range(k1.size):
        if n1.flat[i] > 0 and n2.flat[i] > 0:
            lo.flat[i], hi.flat[i] = confint_proportions_2indep(
                k1.flat[i], n1.flat[i], k2.flat[i], n2.flat[i], method="newcomb", compare="diff", alpha=alpha)
    return lo, hi


def beta_prior(successes, trials, min_trials: int = 1) -> tuple[float, float]:
    """Empirical-Bayes Beta(a, b) prior for a family of rates, by the method of moments.

    The spread of the observed rates is the spread of the true rates plus binomial noise; the
    noise part (the mean of p(1-p)/n) is removed before the prior's variance is fitted. When the
    observed spread is no wider than noise alone, the prior is made tight (a + b = 10,000): every
    rate is shrunk almost fully to the mean, which is what the data support."""
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    use = n >= max(1, min_trials)
    if use.sum() < 2:
        m = float(k[n > 0].sum() / n[n > 0].sum()) if (n > 0).any() else 0.5
        return m * 2.0, (1 - m) * 2.0  # too few cards to learn from: a weak prior at the mean
    p = k[use] / n[use]
    m = float(np.average(p, weights=n[use]))
    observed = float(np.average((p - m) ** 2, weights=n[use]))
    noise = float(np.mean(m * (1 - m) / n[use]))
    true_var = observed - noise
    m = min(max(m, 1e-6), 1 - 1e-6)
    strength = 10_000.0 if true_var <= 0 else max(m * (1 - m) / true_var - 1.0, 1e-3)
    return m * strength, (1 - m) * strength


def shrink(successes, trials, prior: tuple[float, float]) -> np.ndarray:
    """Posterior mean rate under the Beta prior: (k + a) / (n + a + b)."""
    a, b = prior
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    return (k + a) / (n + a + b)


def zscores(values) -> np.ndarray:
    """How many standard deviations each value sits from the mean of the finite values."""
    v = np.asarray(values, dtype=float)
    ok = np.isfinite(v)
    out = np.full(v.shape, np.nan)
    if ok.sum() >= 2:
        sd = float(np.std(v[ok], ddof=1))
        if sd > 0:
            out[ok] = (v[ok] - float(np.mean(v[ok]))) / sd
    return out


def binomial_pvalues(successes, trials, p0: float) -> np.ndarray:
    """Two-sided exact binomial test of each rate against p0."""
    k = np.asarray(successes, dtype=int)
    n = np.asarray(trials, dtype=int)
    out = np.full(k.shape, np.nan)
    for i in range(k.size):
        if n.flat[i] > 0 and 0 < p0 < 1:
            out.flat[i] = sps.binomtest(int(k.flat[i]), int(n.flat[i]), p0).pvalue
    return out


def benjamini_hochberg(pvalues, fdr: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """(q-values, rejected) by Benjamini-Hochberg; NaN p-values stay NaN and are not rejected."""
    p = np.asarray(pvalues, dtype=float)
    q = np.full(p.shape, np.nan)
    reject = np.zeros(p.shape, dtype=bool)
    ok = np.isfinite(p)
    if ok.any():
        rej, qv, _, _ = multipletests(p[ok], alpha=fdr, method="fdr_bh")
        q[ok], reject[ok] = qv, rej
    return q, reject


MCNEMAR_EXACT_BELOW = 25


def mcnemar_pvalue(only_base: int, only_candidate: int) -> float:
    """McNemar's test on paired wins: only the discordant pairs matter (won under one version
    and not the other). statsmodels' exact binomial version below 25 discordant pairs (the usual
    rule), the chi-square version without continuity correction above (the exact one is needlessly
    conservative there)."""
    if only_base + only_candidate == 0:
        return 1.0
    exact = only_base + only_candidate < MCNEMAR_EXACT_BELOW
    table = [[0, only_base], [only_candidate, 0]]
    return float(_mcnemar(table, exact=exact, correction=False).pvalue)


def paired_interval(differences) -> tuple[float, float, float]:
    """(mean, low, high) of paired differences, normal 95% interval."""
    d = np.asarray(differences, dtype=float)
    if d.size == 0:
        return math.nan, math.nan, math.nan
    mean = float(d.mean())
    if d.size < 2:
        return mean, math.nan, math.nan
    se = float(d.std(ddof=1)) / math.sqrt(d.size)
    return mean, mean - Z95 * se, mean + Z95 * se


def samples_needed(variance: float, delta: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """How many (paired) observations detect a mean change ``delta`` with a two-sided test:
    n = (z_{1-alpha/2} + z_power)^2 * variance / delta^2."""
    if not (variance > 0 and delta > 0):
        return math.nan
    z = sps.norm.ppf(1 - alpha / 2) + sps.norm.ppf(power)
    return math.ceil(z * z * variance / (delta * delta))
