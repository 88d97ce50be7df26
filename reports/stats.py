"""Statistics used across the reports. Where statsmodels or scipy has the method, it is used;
each function says what it computes so a reader can check it by hand."""
from __future__ import annotations

import math

import numpy as np
from scipy import stats as sps
from scipy.optimize import minimize
from scipy.special import betaln, expit, logit
from statsmodels.stats.contingency_tables import StratifiedTable
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


PRIOR_STRENGTH = (0.5, 1e5)  # bounds of a + b: from flatter than uniform to "every card alike"


def beta_prior(successes, trials, min_trials: int = 1) -> tuple[float, float]:
    """Empirical-Bayes Beta(a, b) prior for a family of rates: the maximum of the beta-binomial
    likelihood sum(betaln(k + a, n - k + b) - betaln(a, b)) over the family (scipy), in the mean
    m = a / (a + b) (as a logit) and the log-precision log(a + b), bounded by PRIOR_STRENGTH.

    Each card's count weighs by its own binomial noise, so a few cards seen 3 to 10 times
    neither widen the prior nor, as the method of moments' averaged noise did, collapse it to
    "every card alike". When the family is no wider than noise the fit runs to the upper bound:
    every rate is shrunk almost fully to the mean, which is what the data support. Fewer than two
    cards, or a failed fit: a weak prior (a + b = 2) at the pooled rate."""
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    seen = n > 0
    pooled = min(max(float(k[seen].sum() / n[seen].sum()) if seen.any() else 0.5, 1e-3), 1 - 1e-3)
    weak = (pooled * 2.0, (1 - pooled) * 2.0)
    use = n >= max(1, min_trials)
    if use.sum() < 2:
        return weak
    k, n = k[use], n[use]

    def minus_loglik(theta):
        m, strength = expit(theta[0]), math.exp(theta[1])
        a, b = m * strength, (1 - m) * strength
        return -float(np.sum(betaln(k + a, n - k + b)) - k.size * betaln(a, b))

    lo, hi = (math.log(s) for s in PRIOR_STRENGTH)
    fit = minimize(minus_loglik, [logit(pooled), math.log(100.0)], method="L-BFGS-B",
                   bounds=[(-10.0, 10.0), (lo, hi)])
    if not np.isfinite(fit.fun) or not np.isfinite(fit.x).all():
        return weak
    m, strength = float(expit(fit.x[0])), math.exp(float(fit.x[1]))
    return m * strength, (1 - m) * strength


def prior_sd(prior: tuple[float, float]) -> float:
    """Standard deviation of the true rates under a Beta(a, b) prior."""
    a, b = prior
    return math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))


def stratified_difference(k1, n1, k0, n0) -> tuple[float, float, float, float]:
    """Difference of two win rates within strata (k1 of n1 games exposed, k0 of n0 not, one
    entry per stratum), pooled with Mantel-Haenszel weights w = n1 n0 / (n1 + n0):
    (difference, 95% low, 95% high, p-value).

    The pooled difference is the OLS coefficient of a linear probability model with one fixed
    effect per stratum. The p-value is the Cochran-Mantel-Haenszel test (statsmodels), the score
    test of the logistic model with those fixed effects; its statistic is the same weighted sum
    of differences, so the sign and the test always agree. The interval holds the weights fixed
    (they depend only on who was exposed) and takes each stratum's variance from Agresti-Caffo's
    adjusted rates (a win and a loss added to each arm), so a stratum won 3 times of 3 does not
    claim certainty. Strata lacking either arm carry no information and are dropped; NaN when
    none is left, and a NaN p-value when no stratum has both a win and a loss."""
    k1, n1, k0, n0 = (np.asarray(x, dtype=float) for x in (k1, n1, k0, n0))
    both = (n1 > 0) & (n0 > 0)
    if not both.any():
        return math.nan, math.nan, math.nan, math.nan
    k1, n1, k0, n0 = k1[both], n1[both], k0[both], n0[both]
    w = n1 * n0 / (n1 + n0)
    diff = float(np.sum(w * (k1 / n1 - k0 / n0)) / w.sum())
    t1, t0 = (k1 + 1) / (n1 + 2), (k0 + 1) / (n0 + 2)
    se = math.sqrt(float(np.sum(w * w * (t1 * (1 - t1) / (n1 + 2) + t0 * (1 - t0) / (n0 + 2))))) / w.sum()
    tables = np.array([[k1, n1 - k1], [k0, n0 - k0]])  # 2 x 2 x strata, as StratifiedTable takes them
    wins, losses = k1 + k0, n1 + n0 - k1 - k0
    p = math.nan
    if ((wins > 0) & (losses > 0)).any():
        p = float(StratifiedTable(tables).test_null_odds(correction=False).pvalue)
    return diff, diff - Z95 * se, diff + Z95 * se, p


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


def benjamini_hochberg(pvalues, fdr: float = 0.05, any_dependence: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(q-values, rejected) by Benjamini-Hochberg; NaN p-values stay NaN and are not rejected.
    ``any_dependence``: the Benjamini-Yekutieli version, which holds whatever the tests'
    dependence (it divides the rate by 1 + 1/2 + ... + 1/m)."""
    p = np.asarray(pvalues, dtype=float)
    q = np.full(p.shape, np.nan)
    reject = np.zeros(p.shape, dtype=bool)
    ok = np.isfinite(p)
    if ok.any():
        rej, qv, _, _ = multipletests(p[ok], alpha=fdr, method="fdr_by" if any_dependence else "fdr_bh")
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
