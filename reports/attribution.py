"""The diff's card attribution: did the change act through this card?

Twins (the same seed and seat under both versions) differ in where the card's first copy lay in
the shuffled deck. The shuffle is the same in both runs and comes before anything they do
differently, so that place is randomised: a change that only made the deck stronger moves every
twin alike, one that made this card stronger moves most the twins whose place gets the card
played. The effect is the slope of the twins' paired change on that dose (how often a card at
that place of that deck is played in the base run, ``PlayRateDose``), within each deck holding the
card (a card both decks play must not compare one deck's twins against the other's) and pooled;
its variance is cluster-robust over seeds (both seats of a match, and both seatings of a seed,
share their luck); few twins get a permutation test within the decks. The cards a version
changed are pre-declared hypotheses, tested in their own Benjamini-Hochberg family; every other
card is exploratory, in a Benjamini-Yekutieli family.

The top/deep split (``PositionContrast``) was the attribution's test until 2026-12-07 and stays
as a description: the change of twins with the card near the top against deep. Its test dropped
the middle of the deck; the dose reads every twin (docs/ARCHITECTURE.md, "Card attribution",
has the calibration that decided).
"""
from __future__ import annotations

import math

import numpy as np
import polars as pl

from reports.stats import benjamini_hochberg

PERMUTATIONS = 4000


class PositionContrast:
    """(Described beside the effect, no longer its test.) Which twins count as "the card near the
    top" and which as "deep in the deck", by the first
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


POSITION_SPLIT = PositionContrast()


def two_families(pvalues: np.ndarray, primary: np.ndarray, fdr: float) -> tuple[np.ndarray, np.ndarray]:
    """Benjamini-Hochberg within the pre-declared cards (``primary``) and, apart, within the rest:
    the cards a version changed do not pay for the dozens of cards nobody touched. The
    exploratory family uses the Benjamini-Yekutieli version: its tests all read the same twins'
    paired changes, each against its own card's dose, a dependence BH is not proven to survive, and in A/A
    calibration BH let one unchanged card through in 3 of 14 diffs (target 5%)."""
    q = np.full(pvalues.shape, np.nan)
    reject = np.zeros(pvalues.shape, dtype=bool)
    for family, any_dependence in ((primary, False), (~primary, True)):
        if family.any():
            q[family], reject[family] = benjamini_hochberg(pvalues[family], fdr, any_dependence)
    return q, reject


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


# --- the dose-response reading: every twin, weighed by how often its place gets the card played --

MIN_DOSE_TWINS = 10  # fewer twins with a dose than this, in a card's decks: no test
SMALL_DOSE_TWINS = 60  # fewer twins than this: the p-value and interval come from permutations
# fewer twins whose result changed than this: the cluster-robust variance reads its spread from too
# few non-zero rows, and (``cautious``) the permutation test is asked too
MIN_DOSE_DIVERGED = 30


class PlayRateDose:
    """How much a twin exposes the card: how often, in the base run, a card whose first copy lay at
    the same place of the same deck's shuffled order was played (over every *other* card of that
    deck, so a card's dose never reads its own games). The place is fixed by the shuffle before the
    versions differ, so the dose is randomised like the top/deep split, but no twin is dropped: the
    split kept the top half and the deepest tenth and threw the middle away, and in AlleyWay, where
    a seat reaches few of its 40-60 cards, that left too few twins (the calibration's +1-Authority
    buff flagged 2 blocks of 3 at 1,000 seeds). The slope of the paired change on the dose is in
    points at full dose: a twin where the card lay where cards always get played against one where
    none do (``per_play`` scales it to a game the card itself is played)."""

    def doses(self, rows: pl.DataFrame) -> np.ndarray:
        """Per row of ``rows`` (card, deck, position, played_base): the play rate of the row's deck
        and place over the deck's other cards; NaN when no other card lay there (or no place is
        known: a store from before deck positions)."""
        keys = ["deck", "position"]
        every = rows.group_by(keys).agg(pl.col("played_base").sum().alias("_plays"), pl.len().alias("_seats"))
        own = rows.group_by(["card", *keys]).agg(pl.col("played_base").sum().alias("_own_plays"),
                                                 pl.len().alias("_own_seats"))
        x = (rows.select("card", *keys).join(every, on=keys, how="left", nulls_equal=True)
             .join(own, on=["card", *keys], how="left", nulls_equal=True)
             .select(((pl.col("_plays") - pl.col("_own_plays")) / (pl.col("_seats") - pl.col("_own_seats")))
                     .alias("dose")))
        out = x["dose"].cast(pl.Float64).fill_null(math.nan).to_numpy().copy()
        out[~np.isfinite(out)] = math.nan  # 0/0: only this card lay there
        out[rows["position"].is_null().to_numpy()] = math.nan  # no place stored: the joins matched nulls to nulls
        return out


DOSE = PlayRateDose()


def dose_response(d: np.ndarray, x: np.ndarray, strata: np.ndarray, clusters: np.ndarray,
                  cautious: bool = True, covariates: np.ndarray | None = None) -> tuple[float, float, float, float]:
    """(effect, 95% low, 95% high, two-sided p) of the slope of the paired changes ``d`` on the
    dose ``x``, within each stratum (deck: a card both decks hold is read against each deck's own
    moves) and pooled as one fixed-effect regression, holding ``covariates`` fixed (columns: the
    doses of the cards the candidate changed, in the same twin). Why those: a deck's first copies
    are dealt without replacement, so a card lying where cards get played pushes a changed
    deck-mate deeper, and without them an unchanged card took its changed deck-mate's effect
    with the opposite sign (the audit of 2026-12-07: mean z -0.12 to -0.26 over the planted
    decks' unchanged cards of four stores, +0.02 to -0.11 with the changed card's dose held
    fixed). The p-value and
    interval are cluster-robust over ``clusters`` (seeds; CR1, t with clusters - 1 degrees of
    freedom), or from a permutation test of the same slope within the strata (4,000
    relabellings of the changes left after the covariates, fixed seed) when the twins are few.
    When fewer than MIN_DOSE_DIVERGED twins changed their result (``cautious``: a card the
    candidate left alone), the larger p and wider interval of the two are kept (a safeguard: on
    synthetic nulls the cluster-robust test alone held its 5%, tests/test_attribution.py); a
    changed card's twins that cannot reach it are 0 by design."""
    known = np.isfinite(x)
    xr, (dr,) = _residuals(x, [d], strata, covariates, known)
    sxx = float(xr @ xr)
    if known.sum() < MIN_DOSE_TWINS or sxx <= 1e-12:
        return math.nan, math.nan, math.nan, math.nan
    slope = float(dr @ xr) / sxx  # as the relabellings compute it, so the two agree to the bit
    diverged = int(np.count_nonzero(d[known]))
    if known.sum() < SMALL_DOSE_TWINS:
        p, half_width = _permuted_slope(dr, xr, strata[known], sxx, slope)
        return (slope, *_snapped(slope - half_width, slope + half_width), p)
    influence = xr * (dr - slope * xr) / sxx
    lo, hi, p = _cluster_robust(slope, influence, clusters[known], np.ones(xr.size, dtype=bool))
    if cautious and diverged < MIN_DOSE_DIVERGED:
        p_perm, half_width = _permuted_slope(dr, xr, strata[known], sxx, slope)
        lo, hi, p = min(lo, slope - half_width), max(hi, slope + half_width), max(p, p_perm)
    return slope, lo, hi, p


# the first stage's t below which a per-play figure is not given: a card played about as rarely
# wherever it lay scales the slope by a near-zero number (the weak-instrument rule of thumb, F > 10,
# asks t above about 3; the stricter bar keeps the interval's delta-method approximation honest)
MIN_FIRST_STAGE_T = 5.0


def per_play(d: np.ndarray, played: np.ndarray, x: np.ndarray, strata: np.ndarray, clusters: np.ndarray,
             covariates: np.ndarray | None = None) -> tuple[float, float, float, float]:
    """(effect a game the card is played, 95% low, 95% high, how much its own play rises with the
    dose): the slope of ``dose_response`` over the slope of the card's own plays (``played``, base
    run) on the same dose, with the same within-deck regression and covariates: an instrumental
    variable reading, the dose the instrument. At full dose a reactive card, played far less often
    than cards at its places, showed a fraction of what a game with it played does; this scales
    that back. Cluster-robust over seeds (the ratio's influence, delta method). NaN figures when
    the twins are few (under SMALL_DOSE_TWINS) or its play barely follows the dose (first-stage t
    under MIN_FIRST_STAGE_T); the test of the card stays ``dose_response``'s."""
    known = np.isfinite(x)
    xr, (dr, pr) = _residuals(x, [d, played], strata, covariates, known)
    sxx, sxp = float(xr @ xr), float(xr @ pr)
    none = (math.nan, math.nan, math.nan, math.nan)
    if known.sum() < SMALL_DOSE_TWINS or sxx <= 1e-12:
        return none
    rise = sxp / sxx
    all_rows = np.ones(xr.size, dtype=bool)
    r_lo, r_hi, _p = _cluster_robust(rise, xr * (pr - rise * xr) / sxx, clusters[known], all_rows)
    if not (r_hi > r_lo) or abs(rise) / ((r_hi - r_lo) / (2 * 1.96)) < MIN_FIRST_STAGE_T:
        return math.nan, math.nan, math.nan, rise
    effect = float(xr @ dr) / sxp
    lo, hi, _p = _cluster_robust(effect, xr * (dr - effect * pr) / sxp, clusters[known], all_rows)
    return effect, lo, hi, rise


def _snapped(lo: float, hi: float) -> tuple[float, float]:
    """An interval end within rounding of 0 is 0: the relabelled slopes and the observed one are
    sums in other orders, and an end at -5.6e-17 read as an interval that leaves out 0."""
    return (0.0 if abs(lo) < 1e-12 else lo), (0.0 if abs(hi) < 1e-12 else hi)


def _residuals(x: np.ndarray, columns: list[np.ndarray], strata: np.ndarray, covariates: np.ndarray | None,
               known: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """The dose ``x`` and ``columns`` over the ``known`` rows, less their stratum's means (the
    fixed-effect regression's within transform) and then less their least-squares fit on the
    equally centred ``covariates`` (Frisch-Waugh-Lovell: a slope on what is left is the
    regression's slope on x with the covariates held fixed); a missing covariate reads 0."""
    strata = strata[known]
    centred = np.column_stack([x[known], *(c[known] for c in columns)]).astype(float)
    _centre(centred, strata)
    if covariates is not None and covariates.size:
        z = np.nan_to_num(covariates[known].astype(float), nan=0.0)
        _centre(z, strata)
        z = z[:, np.abs(z).sum(axis=0) > 1e-12]  # a changed card no deck of this card holds: nothing to hold
        if z.size:
            centred -= z @ np.linalg.lstsq(z, centred, rcond=None)[0]
    return centred[:, 0], [centred[:, i] for i in range(1, centred.shape[1])]


def _centre(values: np.ndarray, strata: np.ndarray) -> None:
    """Each column of ``values`` less its stratum's mean, in place."""
    for k in np.unique(strata):
        m = strata == k
        values[m] -= values[m].mean(axis=0)


def _permuted_slope(d: np.ndarray, xc: np.ndarray, strata: np.ndarray, sxx: float,
                    observed: float) -> tuple[float, float]:
    """(two-sided p, 95% half-width) of the slope under random relabelling within each stratum:
    the changes (``d``, after the covariates) shuffled among the stratum's places (the numerator
    is sum(xc * d), xc summing to 0 in each stratum, so the slope's denominator is the same for
    every relabelling). The half-width is the size of the relabelled slope that 5% of the
    relabellings reach (the k-th largest, k chosen so that a slope beyond it has p below 0.05 and
    one within it does not)."""
    rng = np.random.default_rng(20261201)
    stat = np.zeros(PERMUTATIONS)
    for k in np.unique(strata):
        rows = np.flatnonzero(strata == k)
        if np.ptp(d[rows]) == 0:  # every relabelling of equal changes is the same: 0 to the sum
            continue
        for start in range(0, PERMUTATIONS, 500):  # in slices: 500 shuffled copies at a time
            size = min(500, PERMUTATIONS - start)
            stat[start:start + size] += rng.permuted(np.tile(d[rows], (size, 1)), axis=1) @ xc[rows]
    stat /= sxx
    size = np.sort(np.abs(stat))[::-1]
    p = (1 + np.count_nonzero(size >= abs(observed) - 1e-12)) / (PERMUTATIONS + 1)
    k = math.ceil(0.05 * (PERMUTATIONS + 1) - 1)
    return float(p), float(size[k - 1])
