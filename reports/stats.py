"""Statistics used across the reports. Where statsmodels or scipy has the method, it is used;
each function says what it computes so a reader can check it by hand."""
from __future__ import annotations

import math
from contextlib import contextmanager, nullcontext
from functools import cache
from typing import NamedTuple

import numpy as np

# scipy and statsmodels are imported where they are used, not here: together they take about two
# seconds to import, which every `workbench` command that reaches the reports (an export, a
# report, the CLI's tests) would otherwise pay before doing anything

try:  # see one_blas_thread
    from threadpoolctl import ThreadpoolController
except ImportError:  # pragma: no cover - the same figures, only slower
    ThreadpoolController = None

Z95 = 1.959963984540054


def rate(successes, trials) -> np.ndarray:
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, k / n, np.nan)


def wilson(successes, trials, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval per row (95% by default); NaN where there are no trials."""
    from statsmodels.stats.proportion import proportion_confint
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    lo = np.full(n.shape, np.nan)
    hi = np.full(n.shape, np.nan)
    ok = n > 0
    if ok.any():
        lo[ok], hi[ok] = proportion_confint(k[ok], n[ok], alpha=alpha, method="wilson")
        # exactly 0 with no success and 1 with no failure (the formula's rounding left 3.5e-18 in exports)
        lo[ok & (k == 0)], hi[ok & (k == n)] = 0.0, 1.0
    return lo, hi


def diff_interval(k1, n1, k2, n2, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's hybrid score interval for p1 - p2 of two independent proportions, per row
    (statsmodels, over the arrays at once); NaN where either side has no trials."""
    from statsmodels.stats.proportion import confint_proportions_2indep
    k1, n1, k2, n2 = (np.asarray(x, dtype=float) for x in (k1, n1, k2, n2))
    lo = np.full(k1.shape, np.nan)
    hi = np.full(k1.shape, np.nan)
    ok = (n1 > 0) & (n2 > 0)
    if ok.any():
        lo[ok], hi[ok] = confint_proportions_2indep(k1[ok], n1[ok], k2[ok], n2[ok], method="newcomb",
                                                    compare="diff", alpha=alpha)
    return lo, hi


@contextmanager
def quiet_fit():
    """A context for a statsmodels fit on data that may be degenerate (a singular design,
    perfect separation, all alike): its warnings are not printed. The callers turn those cases
    into no estimate and the pages say so. A filter at import does not hold: statsmodels
    sets its ModelWarnings to "always" when it is imported, ahead of earlier filters."""
    import warnings

    from statsmodels.tools.sm_exceptions import ModelWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


@cache
def _blas_controller():
    return ThreadpoolController() if ThreadpoolController is not None else None


def one_blas_thread():
    """A context in which BLAS runs on one thread, for many small fits (``beta_prior``): L-BFGS-B
    on two parameters makes many tiny BLAS calls, and OpenBLAS hands each to its threads; on two
    busy cores that cost ten times the fit itself (51 against 5 CPU-ms per fit, measured). Setting
    the limit costs about a millisecond, so it is taken once around a loop of fits, not per fit.
    Without threadpoolctl: no limit (the same figures, slower)."""
    controller = _blas_controller()
    return controller.limit(limits=1, user_api="blas") if controller is not None else nullcontext()


PRIOR_STRENGTH = (0.5, 1e5)  # bounds of a + b: from flatter than uniform to "every card alike"


def beta_prior(successes, trials, min_trials: int = 1) -> tuple[float, float]:
    """Empirical-Bayes Beta(a, b) prior for a family of rates: the maximum of the beta-binomial
    likelihood sum(betaln(k + a, n - k + b) - betaln(a, b)) over the family (scipy), in the mean
    m = a / (a + b) (as a logit) and the log-precision log(a + b), bounded by PRIOR_STRENGTH.

    Each card's count weighs by its own binomial noise, so a few cards seen 3 to 10 times
    neither widen the prior nor, as the method of moments' averaged noise did, collapse it to
    "every card alike". When the family is no wider than noise the fit runs to the upper bound:
    every rate is shrunk almost fully to the mean, which is what the data support. Fewer than two
    cards, or a failed fit: a weak prior (a + b = 2) at the pooled rate. Many fits in a row: run
    them under ``one_blas_thread``."""
    from scipy.optimize import minimize
    from scipy.special import betaln, expit, logit
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
    of differences, so the sign and the test always agree. The interval is Sato's (1989) for the
    Mantel-Haenszel difference, consistent when there are many small strata as well as a few large
    ones, taken after Agresti-Caffo's adjustment made once for the whole card: a win and a loss
    added to each arm, spread over the strata in proportion to their weights (a stratum of weight
    w gets w / sum(w) of each), so a card won 3 times of 3 does not claim certainty; the interval
    is centred on the Mantel-Haenszel difference of those adjusted tables, clipped to -1..1.
    Adding the win and the loss in every stratum instead, as this did before, pulls every small
    arm toward 50% and the bias adds up over strata. Coverage of the true difference (4000 cards
    per regime, fixed seed), per-stratum adjustment -> this: 15 strata of 1-3 opening-hand games
    against 8-19 at win rates 80% / 95%, 70.0% / 6.3% -> 95.3% / 99.2% (80% with a true 5-15
    point difference: 65.8% -> 95.4%); 1-4 small strata (2-24 games) at rates 0.2-0.8, 97.3% ->
    96.1% (with a difference 97.1% -> 95.8%); 1-4 large strata (60-600 games), 94.5% -> 94.5%
    (95.3% -> 95.3%). Strata lacking either arm carry no information and are dropped; NaN when
    none is left, and a NaN p-value when no stratum has both a win and a loss.

    The reference definition: the reports compute it for every card at once with
    ``stratified_differences``, which the tests hold to it."""
    from statsmodels.stats.contingency_tables import StratifiedTable
    k1, n1, k0, n0 = (np.asarray(x, dtype=float) for x in (k1, n1, k0, n0))
    both = (n1 > 0) & (n0 > 0)
    if not both.any():
        return math.nan, math.nan, math.nan, math.nan
    k1, n1, k0, n0 = k1[both], n1[both], k0[both], n0[both]
    w = n1 * n0 / (n1 + n0)
    diff = float(np.sum(w * (k1 / n1 - k0 / n0)) / w.sum())
    a = w / w.sum()  # the card's one win and one loss per arm, spread over its strata by weight
    a1, m1, a0, m0 = k1 + a, n1 + 2 * a, k0 + a, n0 + 2 * a
    m = m1 + m0
    v = m1 * m0 / m
    centre = float(np.sum(v * (a1 / m1 - a0 / m0)) / v.sum())
    sato_p = float(np.sum((m1 * m1 * a0 - m0 * m0 * a1 + m1 * m0 * (m0 - m1) / 2) / (m * m)))
    sato_q = float(np.sum((a1 * (m0 - a0) + a0 * (m1 - a1)) / (2 * m)))
    se = math.sqrt(max(centre * sato_p + sato_q, 0.0)) / v.sum()
    tables = np.array([[k1, n1 - k1], [k0, n0 - k0]])  # 2 x 2 x strata, as StratifiedTable takes them
    wins, losses = k1 + k0, n1 + n0 - k1 - k0
    p = math.nan
    if ((wins > 0) & (losses > 0)).any():
        p = float(StratifiedTable(tables).test_null_odds(correction=False).pvalue)
    return diff, max(centre - Z95 * se, -1.0), min(centre + Z95 * se, 1.0), p


class StratifiedDifferences(NamedTuple):
    """``stratified_difference`` of many groups: one entry per group, and ``interval_p``, the
    two-sided p-value of the statistic the interval is built on (its centre over its standard
    error): below 0.05 exactly when the interval leaves out 0, NaN where ``p`` is."""
    diff: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    p: np.ndarray
    interval_p: np.ndarray


def stratified_differences(groups, k1, n1, k0, n0) -> StratifiedDifferences:
    """``stratified_difference`` of every group at once: ``groups`` numbers each stratum's group
    0, 1, ... with the strata of a group adjacent (sorted by group). The same weights, interval
    and Cochran-Mantel-Haenszel test, the test's sums written as statsmodels'
    ``StratifiedTable.test_null_odds(correction=False)`` computes them; NaN where the scalar
    version gives NaN. The interval's centre and standard error are ``_adjusted_sato``'s."""
    from scipy import stats as sps
    groups = np.asarray(groups, dtype=np.int64)
    k1, n1, k0, n0 = (np.asarray(x, dtype=float) for x in (k1, n1, k0, n0))
    size = int(groups.max()) + 1 if groups.size else 0
    out = StratifiedDifferences(*(np.full(size, np.nan) for _ in StratifiedDifferences._fields))
    both = (n1 > 0) & (n0 > 0)
    if not both.any():
        return out
    groups, k1, n1, k0, n0 = (x[both] for x in (groups, k1, n1, k0, n0))
    starts = np.flatnonzero(np.diff(groups, prepend=-1))
    present = groups[starts]

    def total(x):
        return np.add.reduceat(x, starts)

    w = n1 * n0 / (n1 + n0)
    diff = total(w * (k1 / n1 - k0 / n0)) / total(w)
    centre, se = _adjusted_sato(starts, k1, n1, k0, n0)
    wins, losses, n = k1 + k0, n1 + n0 - k1 - k0, n1 + n0
    variance = n1 * wins * losses * n0
    variance /= n ** 2 * (n - 1)
    testable = np.logical_or.reduceat((wins > 0) & (losses > 0), starts)
    with np.errstate(invalid="ignore", divide="ignore"):
        statistic = np.abs(total(k1 - n1 * wins / n)) ** 2 / total(variance)
        away = np.abs(centre) / se  # se > 0 in practice: the adjusted tables' Sato Q is positive
    out.diff[present] = diff
    out.lo[present], out.hi[present] = np.maximum(centre - Z95 * se, -1.0), np.minimum(centre + Z95 * se, 1.0)
    # sf: a tiny p is not rounded to 0
    out.p[present] = np.where(testable, sps.chi2.sf(statistic, 1), np.nan)
    out.interval_p[present] = np.where(testable, 2 * sps.norm.sf(away), np.nan)
    return out


def _adjusted_sato(starts: np.ndarray, k1, n1, k0, n0) -> tuple[np.ndarray, np.ndarray]:
    """The centre and standard error of ``stratified_difference``'s interval for each group of
    strata (every stratum with both arms; a group's strata from ``starts`` to the next start),
    the scalar version's sums over arrays."""
    def total(x):
        return np.add.reduceat(x, starts)

    w = n1 * n0 / (n1 + n0)
    a = w / np.repeat(total(w), np.diff(np.append(starts, w.size)))  # one win and one loss per arm, by weight
    a1, m1, a0, m0 = k1 + a, n1 + 2 * a, k0 + a, n0 + 2 * a
    m = m1 + m0
    v = m1 * m0 / m
    v_sum = total(v)
    centre = total(v * (a1 / m1 - a0 / m0)) / v_sum
    sato_p = total((m1 * m1 * a0 - m0 * m0 * a1 + m1 * m0 * (m0 - m1) / 2) / (m * m))
    sato_q = total((a1 * (m0 - a0) + a0 * (m1 - a1)) / (2 * m))
    return centre, np.sqrt(np.maximum(centre * sato_p + sato_q, 0.0)) / v_sum


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


def binomial_pvalues(successes, trials, p0) -> np.ndarray:
    """Two-sided exact binomial test of each rate against p0 (one number, or one per row): the
    p-value of scipy's ``binomtest``, computed over the arrays at once. NaN where there are no
    trials or p0 is not strictly between 0 and 1."""
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    p = np.broadcast_to(np.asarray(p0, dtype=float), k.shape)
    out = np.full(k.shape, np.nan)
    ok = (n > 0) & (p > 0) & (p < 1)
    if ok.any():
        out[ok] = _two_sided_binomial(k[ok], n[ok], p[ok])
    return out


BINOM_RERR = 1 + 1e-7  # scipy's tolerance for "as likely as the observed count"


def _two_sided_binomial(k: np.ndarray, n: np.ndarray, p: np.ndarray) -> np.ndarray:
    """scipy.stats.binomtest's two-sided p-value, step for step over arrays: the observed tail
    plus the other side's terms no likelier than the observed count (found by the same binary
    search), so every figure is the one binomtest gives."""
    from scipy import stats as sps
    d = sps.binom.pmf(k, n, p)
    mode = p * n
    pval = np.ones(k.shape)  # k at the mode exactly: 1
    below, above = k < mode, k > mode
    if below.any():
        kb, nb, pb, db = k[below], n[below], p[below], d[below]
        ix = _binom_search(lambda x, i: -sps.binom.pmf(x, nb[i], pb[i]), -db * BINOM_RERR, np.ceil(pb * nb), nb)
        y = nb - ix + (db * BINOM_RERR == sps.binom.pmf(ix, nb, pb))
        pval[below] = sps.binom.cdf(kb, nb, pb) + sps.binom.sf(nb - y, nb, pb)
    if above.any():
        ka, na, pa, da = k[above], n[above], p[above], d[above]
        ix = _binom_search(lambda x, i: sps.binom.pmf(x, na[i], pa[i]), da * BINOM_RERR, np.zeros(ka.shape),
                           np.floor(pa * na))
        pval[above] = sps.binom.cdf(ix, na, pa) + sps.binom.sf(ka - 1, na, pa)
    return np.minimum(1.0, pval)


def _binom_search(a, d: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """scipy's ``_binary_search_for_binom_tst`` in lock step over arrays: per element, the i in
    [lo, hi] with a(i) <= d < a(i + 1), a ascending there; ``a(x, rows)`` evaluates the rows'
    functions at x."""
    lo, hi = lo.astype(float), hi.astype(float)
    found = np.full(lo.shape, np.nan)
    live = np.flatnonzero(lo < hi)
    while live.size:
        mid = lo[live] + (hi[live] - lo[live]) // 2
        value = a(mid, live)
        less, more = value < d[live], value > d[live]
        lo[live[less]] = mid[less] + 1
        hi[live[more]] = mid[more] - 1
        hit = ~less & ~more
        found[live[hit]] = mid[hit]
        live = live[~hit]
        live = live[lo[live] < hi[live]]
    rest = np.flatnonzero(np.isnan(found))
    found[rest] = np.where(a(lo[rest], rest) <= d[rest], lo[rest], lo[rest] - 1)
    return found


def benjamini_hochberg(pvalues, fdr: float = 0.05, any_dependence: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(q-values, rejected) by Benjamini-Hochberg; NaN p-values stay NaN and are not rejected.
    ``any_dependence``: the Benjamini-Yekutieli version, which holds whatever the tests'
    dependence (it divides the rate by 1 + 1/2 + ... + 1/m)."""
    from statsmodels.stats.multitest import multipletests
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
    and not the other). The exact binomial version below 25 discordant pairs (the usual rule),
    the chi-square version without continuity correction above (the exact one is needlessly
    conservative there); the figure statsmodels' ``mcnemar`` gives, as ``mcnemar_pvalues``
    computes it. ``paired_rate_interval`` is the interval that agrees with it on zero."""
    return float(mcnemar_pvalues([only_base], [only_candidate])[0])


def mcnemar_pvalues(only_base, only_candidate) -> np.ndarray:
    """``mcnemar_pvalue`` of every row at once, statsmodels' ``mcnemar(exact=..., correction=False)``
    step for step: 2 P(X <= min(b, c)), X ~ Bin(b + c, 1/2), capped at 1, below
    MCNEMAR_EXACT_BELOW discordant pairs; the chi-square tail of (b - c)^2 / (b + c) from there;
    1 with no discordant pair."""
    from scipy import stats as sps  # here, not at the top: see this module's imports
    b, c = np.broadcast_arrays(np.asarray(only_base, dtype=float), np.asarray(only_candidate, dtype=float))
    m = b + c
    out = np.ones(m.shape)
    exact = (m > 0) & (m < MCNEMAR_EXACT_BELOW)
    out[exact] = np.minimum(1.0, 2 * sps.binom.cdf(np.minimum(b, c)[exact], m[exact], 0.5))
    large = m >= MCNEMAR_EXACT_BELOW
    out[large] = sps.chi2.sf((b - c)[large] ** 2 / m[large], 1)
    return out


def _mean_interval(values, multiplier) -> tuple[float, float, float]:
    """(mean, low, high): the mean +- ``multiplier(n)`` standard errors; NaN bounds under 2 values."""
    d = np.asarray(values, dtype=float)
    if d.size == 0:
        return math.nan, math.nan, math.nan
    mean = float(d.mean())
    if d.size < 2:
        return mean, math.nan, math.nan
    half = multiplier(d.size) * float(d.std(ddof=1)) / math.sqrt(d.size)
    return mean, mean - half, mean + half


def paired_interval(differences) -> tuple[float, float, float]:
    """(mean, low, high) of paired differences, normal 95% interval."""
    return _mean_interval(differences, lambda _n: Z95)


def t_interval(values, alpha: float = 0.05) -> tuple[float, float, float]:
    """(mean, low, high): the t interval of a mean, n - 1 degrees of freedom; the interval that
    agrees with a one-sample t-test's p on whether 0 is excluded (a normal 1.96 beside a t-test's
    p read "+0.1 to +59.9" beside p = 0.08 on ten twins)."""
    from scipy import stats as sps  # here, not at the top: see this module's imports

    return _mean_interval(values, lambda n: float(sps.t.ppf(1 - alpha / 2, n - 1)))


def paired_rate_interval(before, after, alpha: float = 0.05) -> tuple[float, float, float]:
    """(mean, low, high) of ``after - before`` for twins' 0/1 results (win rates, paired): the
    interval of ``paired_rate_intervals`` (which says why it is that one) over the twins' counts,
    the one that agrees on zero with McNemar's p (``mcnemar_pvalue``) beside it."""
    b = np.asarray(before, dtype=bool)
    a = np.asarray(after, dtype=bool)
    n = int(b.size)
    if n == 0:
        return math.nan, math.nan, math.nan
    only_before, only_after = int((b & ~a).sum()), int((~b & a).sum())
    lo, hi = paired_rate_intervals([only_before], [only_after], [n], alpha)
    return (only_after - only_before) / n, float(lo[0]), float(hi[0])


def paired_rate_intervals(only_before, only_after, twins, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """The paired 95% interval of a change of win rate, (c - b) / n over n twins of which b won
    only before and c only after, per row (NaN where n = 0): the interval that leaves out 0
    exactly when McNemar's p beside it (``mcnemar_pvalues``) is below ``alpha`` (any alpha above
    0.0006: see below), so a figure never reads "-11.6 to -0.3" beside p = 0.07. The test is kept
    and the interval made its inverse, not the other way round: the exact test holds its level on
    few discordant twins, and a p read off Newcombe's interval would be a test of no one's.

    From 25 discordant twins (where the p is McNemar's chi-square): Tango's score interval
    (Stat Med 1998;17:891, corrected 1999;18:3511), the differences the score test of "the
    change is d" keeps, with the other cells at their maximum likelihood under that d. At d = 0
    its statistic is McNemar's, (c - b) / sqrt(b + c), so the interval and the p agree on zero by
    construction; it covers close to 95% at any size (Fagerland, Lydersen and Laake, Stat Med
    2014;33:2850, recommend it).

    Below 25 (where the p is the exact conditional test, Bin(b + c, 1/2)): the union of Tango's
    interval and the exact test's own interval: Clopper-Pearson's for the share c / (b + c) of
    the discordant twins, mapped to the change as (b + c) / n (2 share - 1). Alone that one takes
    the number of discordant twins as known, and covered 73% on 100 twins with 7% and 1% won only
    before and only after (the repro of 1 against 7); Tango's, alone, covered 94% there but left
    out 0 beside the exact p of 0.07. Their union covers at least what Tango's does (97% there)
    and leaves out 0 only when both tests reject. The exact p is the larger of the two except
    where both are below 0.0006 (12 or more discordant twins one way, at most 2 the other), so at
    every level in use the union leaves out 0 exactly when the exact p is below alpha (the 325
    tables of fewer than 25 discordant twins are all the cases there are: the number of
    concordant twins moves neither test's verdict on zero). It replaced Newcombe's
    square-and-add interval, the inverse of no test, which left out 0 beside exact p's above
    0.05 (the published example of 16 against 6 of 161: -11.9 to -0.5 points beside p = 0.052;
    now -12.4 to +0.1).

    Each Tango bound is found by bisection over all rows at once, started on the side of 0 the
    test at 0 gives (so even the last bit agrees with the p); the score statistic falls as d
    rises, and the lower bound is the upper bound with b and c swapped."""
    from scipy import stats as sps  # here, not at the top: see this module's imports
    b, c, n = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (only_before, only_after, twins)))
    lo, hi = np.full(n.shape, np.nan), np.full(n.shape, np.nan)
    ok = n > 0
    if not ok.any():
        return lo, hi
    b, c, n = b[ok], c[ok], n[ok]
    z = float(sps.norm.ppf(1 - alpha / 2))
    upper = _tango_upper(np.concatenate([b, c]), np.concatenate([c, b]), np.concatenate([n, n]), z)
    t_hi, t_lo = upper[:b.size], -upper[b.size:]
    m = b + c
    exact = m < MCNEMAR_EXACT_BELOW
    with np.errstate(invalid="ignore", divide="ignore"):
        share_lo = np.where(c > 0, sps.beta.ppf(alpha / 2, c, b + 1), 0.0)
        share_hi = np.where(b > 0, sps.beta.ppf(1 - alpha / 2, c + 1, b), 1.0)
    e_lo, e_hi = m / n * (2 * share_lo - 1), m / n * (2 * share_hi - 1)
    lo[ok] = np.where(exact, np.minimum(t_lo, e_lo), t_lo)
    hi[ok] = np.where(exact, np.maximum(t_hi, e_hi), t_hi)
    return lo, hi


def _tango_score(b: np.ndarray, c: np.ndarray, n: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Tango's score statistic of "the change is d": (c - b - n d) / sqrt(n (2 q + d (1 - d))),
    q the maximum likelihood share of the twins won only before when the change is d (the larger
    root of 2n q^2 - q (b + c - d (2n + b - c)) - b d (1 - d) = 0); 0 where the numerator is,
    +-infinity where the variance vanishes under it (d = +-1 beside other twins). Called under
    ``np.errstate(invalid="ignore", divide="ignore")``."""
    k = (b + c) - d * (2 * n + b - c)
    q = (k + np.sqrt(np.maximum(k * k + 8 * n * b * d * (1 - d), 0.0))) / (4 * n)
    num = c - b - n * d
    score = num / np.sqrt(np.maximum(n * (2 * q + d * (1 - d)), 0.0))  # x / 0: +-inf, 0 / 0: NaN
    score[num == 0] = 0.0
    return score


def _tango_upper(b: np.ndarray, c: np.ndarray, n: np.ndarray, z: float, steps: int = 54) -> np.ndarray:
    """Tango's upper bound per row: the largest d whose score is at least -z, by bisection
    between a kept d and a rejected one (54 halvings of a width of 1: to the last bit), starting
    from d = 0 (kept, up to 1, when McNemar's statistic is at least -z; rejected, down to -1,
    which is always kept, otherwise)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        keep0 = _tango_score(b, c, n, np.zeros(b.shape)) >= -z
        kept = np.where(keep0, 0.0, -1.0)
        rejected = np.where(keep0, 1.0, 0.0)
        whole = keep0 & (_tango_score(b, c, n, np.ones(b.shape)) >= -z)  # nothing rejected up to +1
        for _ in range(steps):
            mid = (kept + rejected) / 2
            keep = _tango_score(b, c, n, mid) >= -z
            kept = np.where(keep, mid, kept)
            rejected = np.where(keep, rejected, mid)
    return np.where(whole, 1.0, kept)


def samples_needed(variance: float, delta: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """How many (paired) observations detect a mean change ``delta`` with a two-sided test:
    n = (z_{1-alpha/2} + z_power)^2 * variance / delta^2."""
    from scipy import stats as sps
    if not (variance > 0 and delta > 0):
        return math.nan
    z = sps.norm.ppf(1 - alpha / 2) + sps.norm.ppf(power)
    return math.ceil(z * z * variance / (delta * delta))
