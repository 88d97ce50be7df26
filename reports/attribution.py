"""The diff's card attribution: did the change act through this card?

Twins (the same seed and seat under both versions) are split by where the card's first copy lay
in the shuffled deck: near the top, or too deep to be reached. The shuffle is the same in both
runs and comes before anything they do differently, so the split is randomised: a change that
only made the deck stronger moves both groups alike, one that made this card stronger moves the
top group more. The contrast is taken within each deck that holds the card (a card both decks
play must not compare one deck's twins against the other's) and pooled over the decks; its
variance is cluster-robust over seeds (both seats of a match, and both seatings of a seed, share
their luck); small groups get a permutation test within the decks. The cards a version changed
are pre-declared hypotheses, tested in their own Benjamini-Hochberg family; every other card is
exploratory, in a Benjamini-Yekutieli family.
"""
from __future__ import annotations

import math

import numpy as np
import polars as pl

from reports.stats import benjamini_hochberg

LARGE_GROUP = 30  # below this many twins in a group, the p-value comes from permutations
PERMUTATIONS = 4000
MIN_CONTRAST_GROUP = 5  # fewer twins than this in a group: no contrast at all
# fewer twins than this whose result changed, in a group: its own spread is no estimate of its
# spread (the permutation test is asked too, ``stratified_contrast``)
MIN_DIVERGED = 5


class PositionContrast:
    """Which twins count as "the card near the top" and which as "deep in the deck", by the first
    copy's place in the shuffled deck against how many cards a seat of that deck sees in the base
    run (opening hand plus draws): near the top, within what a typical seat sees (the median);
    deep, beyond what nine seats in ten see (the 90th percentile), where the card is almost never
    reached and a change to it can barely act. The yardsticks come from the base run as a whole,
    not from any card's outcome, so the split stays randomised by the shuffle; and they follow
    each game's length and draw engines (a Wild Frontier seat sees about 18 of its 52 cards, an
    AlleyWay seat fewer of its 40-60). Measured on planted buffs and A/A twins (``workbench bench
    --stats``) against fixed shares of the deck (the top 27% against past 54%), and kept because
    it finds the buff sooner at the same false-positive rate."""

    def __init__(self, top_quantile: float = 50.0, deep_quantile: float = 90.0):
        self.top_quantile, self.deep_quantile = top_quantile, deep_quantile

    def yardsticks(self, rows: pl.DataFrame) -> dict[str, tuple[float, float]]:
        """Per deck: (cards a typical seat sees, cards nine in ten seats see at most)."""
        out = {}
        for (deck,), part in rows.unique(["match_no", "seat"]).group_by(["deck"]):
            seen = part["seen"].to_numpy().astype(float)
            out[deck] = (float(np.percentile(seen, self.top_quantile)), float(np.percentile(seen, self.deep_quantile)))
        return out

    def split(self, part: pl.DataFrame, depth: dict[str, tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
        """(near the top, deep) for a card's twins, each against its own deck's yardsticks (a card
        both decks hold is measured in each against that deck's)."""
        decks = part["deck"].to_numpy()
        typical = np.array([depth[d][0] for d in decks], dtype=float)
        most = np.array([depth[d][1] for d in decks], dtype=float)
        return self.groups(part["position"].to_numpy(), typical, most)

    def groups(self, position: np.ndarray, typical, most) -> tuple[np.ndarray, np.ndarray]:
        pos = np.asarray(position, dtype=float)  # NaN when the store predates deck positions
        known = np.isfinite(pos)
        return known & (pos < typical), known & (pos >= most)


ATTRIBUTION = PositionContrast()


def two_families(pvalues: np.ndarray, primary: np.ndarray, fdr: float) -> tuple[np.ndarray, np.ndarray]:
    """Benjamini-Hochberg within the pre-declared cards (``primary``) and, apart, within the rest:
    the cards a version changed do not pay for the dozens of cards nobody touched. The
    exploratory family uses the Benjamini-Yekutieli version: its tests all read the same twins'
    paired changes, split differently, a dependence BH is not proven to survive, and in A/A
    calibration BH let one unchanged card through in 3 of 14 diffs (target 5%)."""
    q = np.full(pvalues.shape, np.nan)
    reject = np.zeros(pvalues.shape, dtype=bool)
    for family, any_dependence in ((primary, False), (~primary, True)):
        if family.any():
            q[family], reject[family] = benjamini_hochberg(pvalues[family], fdr, any_dependence)
    return q, reject


def stratified_contrast(d: np.ndarray, top: np.ndarray, deep: np.ndarray, strata: np.ndarray,
                        clusters: np.ndarray, cautious: bool = True) -> tuple[float, float, float, float]:
    """(effect, 95% low, 95% high, two-sided p) of mean(d | top) - mean(d | deep), taken within
    each stratum (deck) and pooled with weights n_top n_deep / (n_top + n_deep) (the weights of a
    fixed-effect regression). Its p-value comes from a permutation test of the same statistic
    within the strata (4,000 random relabellings, fixed seed: the same data always give the same
    answer; under the null hypothesis that the card does nothing the groups are exchangeable,
    which is all it needs) when a group is small (paired differences take only -1, 0 and 1, and a
    t-test of a small group of them rejects too easily); else from a CR1 cluster-robust variance
    over ``clusters`` (seeds; t with clusters - 1 degrees of freedom), which follows the seeds'
    shared luck. When fewer than MIN_DIVERGED twins of a group changed their result, that group's
    spread is no estimate of it, and (``cautious``) the larger p and wider interval of the two
    tests are kept. Not for a card the candidate version changed (``cautious=False``): its deep
    twins cannot diverge through it, so their zeros are the design, not chance."""
    parts = _strata(d, top, deep, strata)
    n_top, n_deep = sum(len(a) for a, _b, _ia, _ib in parts), sum(len(b) for _a, b, _ia, _ib in parts)
    if not parts or n_top < MIN_CONTRAST_GROUP or n_deep < MIN_CONTRAST_GROUP:
        diff = float(d[top].mean() - d[deep].mean()) if top.any() and deep.any() else math.nan
        return diff, math.nan, math.nan, math.nan
    weights = np.array([len(a) * len(b) / (len(a) + len(b)) for a, b, _ia, _ib in parts])
    weights /= weights.sum()
    effect = float(sum(w * (a.mean() - b.mean()) for w, (a, b, _ia, _ib) in zip(weights, parts)))
    if min(n_top, n_deep) < LARGE_GROUP:
        p, half_width = _permutation_test(parts, weights, effect)
        return effect, effect - half_width, effect + half_width, p
    influence = np.zeros(d.size)
    for w, (a, b, ia, ib) in zip(weights, parts):
        influence[ia] = w * (a - a.mean()) / a.size
        influence[ib] = -w * (b - b.mean()) / b.size
    lo, hi, p = _cluster_robust(effect, influence, clusters, top | deep)
    if cautious and min(np.count_nonzero(d[top]), np.count_nonzero(d[deep])) < MIN_DIVERGED:
        # the cluster-robust variance reads each group's spread from the group alone: a group of
        # twins that almost all happened not to diverge (36 deep twins, every change 0) gave it no
        # spread, and an unchanged card p 5e-9 where relabelling gives 0.13. Relabelling is valid
        # under the null whatever the spreads, but ignores the seeds' clusters: the more cautious
        p_perm, half_width = _permutation_test(parts, weights, effect)
        lo, hi, p = min(lo, effect - half_width), max(hi, effect + half_width), max(p, p_perm)
    return effect, lo, hi, p


def randomised_contrast(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float, float]:
    """The contrast of two independent groups (one stratum, every row its own cluster)."""
    d = np.concatenate([a, b])
    top = np.arange(d.size) < a.size
    return stratified_contrast(d, top, ~top, np.zeros(d.size), np.arange(d.size))


def _strata(d, top, deep, strata) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Per stratum with both groups: (top values, deep values, their row indices)."""
    parts = []
    for k in np.unique(strata):
        ia, ib = np.flatnonzero(top & (strata == k)), np.flatnonzero(deep & (strata == k))
        if ia.size and ib.size:
            parts.append((d[ia], d[ib], ia, ib))
    return parts


def _cluster_robust(effect: float, influence: np.ndarray, clusters: np.ndarray,
                    used: np.ndarray) -> tuple[float, float, float]:
    """95% interval and two-sided p of an estimate from its per-row influence (CR1 over the
    clusters of the ``used`` rows)."""
    from scipy import stats as sps  # here, not at the top: see reports/stats.py
    _, cluster = np.unique(clusters[used], return_inverse=True)
    sums = np.bincount(cluster, weights=influence[used])
    g = sums.size
    if g < 2:
        return math.nan, math.nan, math.nan
    se = math.sqrt(g / (g - 1) * float(np.sum(sums * sums)))
    if se == 0:
        return effect, effect, 1.0 if effect == 0 else 0.0
    t = sps.t.ppf(0.975, g - 1)
    return effect - t * se, effect + t * se, float(2 * sps.t.sf(abs(effect) / se, g - 1))


def _permutation_test(parts, weights: np.ndarray, observed: float) -> tuple[float, float]:
    """(two-sided p, 95% half-width) of the pooled statistic under random relabelling within each
    stratum. Paired differences take few distinct values (-1, 0, 1), so a stratum's random top
    group is a multivariate hypergeometric draw of how many of each it holds: exact per draw,
    cheap at any size. The half-width is the size of the relabelled statistic that 5% of the
    relabellings reach (the k-th largest, k chosen so that an effect beyond it has p below 0.05
    and one within it does not)."""
    rng = np.random.default_rng(20261201)
    stat = np.zeros(PERMUTATIONS)
    for w, (a, b, _ia, _ib) in zip(weights, parts):
        values = np.concatenate([a, b])
        levels, counts = np.unique(values, return_counts=True)
        first = rng.multivariate_hypergeometric(counts, a.size, size=PERMUTATIONS) @ levels
        stat += w * (first / a.size - (values.sum() - first) / b.size)
    size = np.sort(np.abs(stat))[::-1]
    p = (1 + np.count_nonzero(size >= abs(observed) - 1e-12)) / (PERMUTATIONS + 1)
    # p < 0.05 needs fewer than 0.05 (N + 1) - 1 relabellings at least as large: the k-th largest
    # is the edge (N = 4,000: an effect larger than the 200th largest has p <= 200/4001)
    k = math.ceil(0.05 * (PERMUTATIONS + 1) - 1)
    return float(p), float(size[k - 1])
