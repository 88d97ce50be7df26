"""The Cards page's tests and intervals computed over arrays give the figures of the scalar
methods they replaced: scipy's binomtest, statsmodels' Newcombe interval, the per-card stratified
difference; and card_metrics split by run matches a per-row recomputation from the raw rows with
those scalar methods, on a store with tiny groups, cards never played and one-sided strata."""

import duckdb
import numpy as np
import polars as pl
from scipy.stats import binomtest
from statsmodels.stats.proportion import confint_proportions_2indep

from reports.cards import card_metrics, with_metrics
from reports.filters import Filters
from reports.stats import (
    benjamini_hochberg,
    beta_prior,
    binomial_pvalues,
    diff_interval,
    shrink,
    stratified_difference,
    stratified_differences,
)
from tests.hand_store import insert_card_games, insert_run
from workbench.store import SCHEMA


def _same(actual, expected, rtol=1e-12, atol=0.0):
    actual, expected = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    assert (np.isnan(actual) == np.isnan(expected)).all()
    np.testing.assert_allclose(actual[~np.isnan(actual)], expected[~np.isnan(expected)], rtol=rtol, atol=atol)


def _binomtest_reference(k, n, p0):
    return np.array([binomtest(int(a), int(b), float(p)).pvalue if b > 0 and 0 < p < 1 else np.nan
                     for a, b, p in zip(k, n, p0)])


def test_binomial_pvalues_equal_binomtest_on_edge_cases():
    cases = [(k, n, p) for n in (0, 1, 2, 3, 4, 7, 10, 50, 333, 5000) for k in sorted({0, 1, n // 3, n // 2, n - 1, n})
             for p in (0.5, 0.3, 0.7, 0.01, 0.99, 1 / 3, (k / n if n else 0.5), 0.0, 1.0, np.nan) if 0 <= k <= n]
    k, n, p = (np.array(x, dtype=float) for x in zip(*cases))
    _same(binomial_pvalues(k, n, p), _binomtest_reference(k, n, p))
    assert binomial_pvalues([4], [8], 0.5)[0] == 1.0  # at the mode exactly
    assert np.isnan(binomial_pvalues([0], [0], 0.5)[0])


def test_binomial_pvalues_equal_binomtest_on_random_counts_with_one_p0():
    rng = np.random.default_rng(3)
    n = rng.integers(0, 3000, 300)
    k = rng.binomial(n, rng.uniform(0.2, 0.8, n.size))
    _same(binomial_pvalues(k, n, 0.47), _binomtest_reference(k, n, np.full(n.size, 0.47)))


def test_newcombe_interval_equals_statsmodels_row_by_row():
    rng = np.random.default_rng(4)
    n1, n2 = rng.integers(0, 40, 800), rng.integers(0, 40, 800)
    k1 = np.where(rng.random(800) < 0.2, n1, rng.integers(0, 41, 800) % (n1 + 1))  # some k = n
    k2 = np.where(rng.random(800) < 0.2, 0, rng.integers(0, 41, 800) % (n2 + 1))  # some k = 0
    lo, hi = diff_interval(k1, n1, k2, n2)
    ref = np.full((800, 2), np.nan)
    for i in range(800):
        if n1[i] > 0 and n2[i] > 0:
            ref[i] = confint_proportions_2indep(float(k1[i]), float(n1[i]), float(k2[i]), float(n2[i]),
                                                method="newcomb", compare="diff")
    _same(lo, ref[:, 0])
    _same(hi, ref[:, 1])
    assert np.isnan(lo[(n1 == 0) | (n2 == 0)]).all()


def test_stratified_differences_equal_the_scalar_version_per_group():
    rng = np.random.default_rng(5)
    groups, rows = [], []
    for g in range(200):
        for _ in range(rng.integers(1, 14)):
            n1, n0 = rng.choice([0, 1, 2, 3, 40, 500]), rng.choice([0, 1, 2, 60, 800])
            k1 = rng.choice([0, n1, rng.integers(0, n1 + 1)])  # never won, always won, or between
            k0 = rng.choice([0, n0, rng.integers(0, n0 + 1)])
            groups.append(g)
            rows.append((k1, n1, k0, n0))
    groups = np.array(groups)
    k1, n1, k0, n0 = (np.array(x) for x in zip(*rows))
    got = stratified_differences(groups, k1, n1, k0, n0)
    ref = np.array([stratified_difference(k1[groups == g], n1[groups == g], k0[groups == g], n0[groups == g])
                    for g in range(200)])
    for i, name in enumerate(("diff", "lo", "hi", "p")):
        # sums in another order: equal to rounding; the p-value is 1 - cdf, so absolute
        _same(getattr(got, name), ref[:, i], rtol=1e-12, atol=1e-12)
    interval_p = [_interval_p(k1[groups == g], n1[groups == g], k0[groups == g], n0[groups == g]) for g in range(200)]
    _same(got.interval_p, np.array(interval_p, dtype=float), rtol=1e-12, atol=1e-12)
    assert np.isnan(got.diff).any() and np.isnan(got.p).sum() > np.isnan(got.diff).sum()  # both NaN cases met
    assert stratified_differences([], [], [], [], []).diff.size == 0


def _store(tmp_path):
    """Three runs of two decks: a large one, a small one and a five-match one; card 'never' is never
    played, 'always' wins whenever it is in the opening hand, 'rare' is seldom drawn."""
    rng = np.random.default_rng(6)
    path = tmp_path / "cards.duckdb"
    con = duckdb.connect(str(path))
    con.execute(SCHEMA)
    for run in (1, 2, 3):
        insert_run(con, run)
    con.execute("INSERT INTO cards (game, rules_version, rules_hash, card, name, type, faction, budget_cost) VALUES "
                + ", ".join(f"('g', 'base', 'h1', '{c}', 'Card {c}', 'creature', 'f', {i})"
                            for i, c in enumerate(("a", "b", "never", "always", "rare"))))
    rows = []
    for run, matches in ((1, 300), (2, 40), (3, 5)):
        for match in range(matches):
            first_won = bool(rng.random() < 0.55)
            for seat, deck in ((0, "x"), (1, "y")):
                won = first_won if seat == 0 else not first_won
                for card in (("a", "never", "always") if deck == "x" else ("b", "rare", "a")):
                    opening = int(rng.random() < 0.3)
                    drawn = int(not opening and rng.random() < (0.05 if card == "rare" else 0.4))
                    played = int(card != "never" and (opening or drawn) and rng.random() < 0.7)
                    rows.append((run, match, seat, deck, "p", card, 1 + int(rng.random() < 0.5), opening, drawn,
                                 3 if drawn else None, played, int(rng.integers(1, 9)) if played else None,
                                 seat == 0, won or (card == "always" and opening == 1)))
    frame = insert_card_games(con, rows)
    con.close()
    return path, frame


def _reference_row(raw: pl.DataFrame, run: int, card: str) -> dict:
    """One card of one run from its raw rows, with the scalar methods."""
    rows = raw.filter((pl.col("run_id") == run) & (pl.col("card") == card))
    won = rows["won"].to_numpy()
    in_hand = ((rows["in_opening_hand"] > 0) | (rows["drawn"] > 0)).to_numpy()
    never_seen = ((rows["in_opening_hand"] == 0) & (rows["drawn"] == 0)).to_numpy()
    strata = rows.group_by("deck", "on_play").agg(
        k1=((pl.col("in_opening_hand") > 0) & pl.col("won")).sum(), n1=(pl.col("in_opening_hand") > 0).sum(),
        k0=((pl.col("in_opening_hand") == 0) & pl.col("won")).sum(), n0=(pl.col("in_opening_hand") == 0).sum())
    excess = stratified_difference(*(strata[c].to_numpy() for c in ("k1", "n1", "k0", "n0")))
    excess = (*excess[:3], _interval_p(*(strata[c].to_numpy() for c in ("k1", "n1", "k0", "n0"))))
    iwd = (np.nan, np.nan)
    if in_hand.sum() and never_seen.sum():
        iwd = confint_proportions_2indep(float(won[in_hand].sum()), float(in_hand.sum()), float(won[never_seen].sum()),
                                         float(never_seen.sum()), method="newcomb", compare="diff")
    played = rows.filter(pl.col("played") > 0)
    return {"games": rows.height, "played_won": int(played["won"].sum()), "played_games": played.height,
            "avg_turn_played": played["first_turn_played"].mean() if played.height else None,
            "iwd_lo": iwd[0], "iwd_hi": iwd[1], "oh_excess": excess[0], "oh_excess_lo": excess[1],
            "oh_excess_hi": excess[2], "oh_excess_p": excess[3]}


def _interval_p(k1, n1, k0, n0) -> float:
    """The p-value of the statistic the OH excess interval is built on, stratum by stratum in plain
    Python (reports/stats.py ``StratifiedDifferences.interval_p``, the OH excess p): the Mantel-Haenszel difference
    of the tables with one win and one loss per arm spread over the strata by weight, over its
    Sato standard error."""
    from scipy.stats import norm

    cells = [(a, n, b, m) for a, n, b, m in zip(k1, n1, k0, n0) if n > 0 and m > 0]
    if not any(0 < a + b < n + m for a, n, b, m in cells):
        return np.nan
    w_sum = sum(n * m / (n + m) for _, n, _, m in cells)
    num = v_sum = sato_p = sato_q = 0.0
    for a, n, b, m in cells:
        share = n * m / (n + m) / w_sum
        a, n, b, m = a + share, n + 2 * share, b + share, m + 2 * share
        v = n * m / (n + m)
        num += v * (a / n - b / m)
        v_sum += v
        sato_p += (n * n * b - m * m * a + n * m * (m - n) / 2) / (n + m) ** 2
        sato_q += (a * (m - b) + b * (n - a)) / (2 * (n + m))
    centre = num / v_sum
    return 2 * norm.sf(abs(centre) / ((centre * sato_p + sato_q) ** 0.5 / v_sum))


def _nan(x):
    return np.nan if x is None else x


def test_card_metrics_split_by_run_equal_the_scalar_reference(tmp_path):
    path, raw = _store(tmp_path)
    got = card_metrics(path, Filters(runs=[1, 2, 3]), ("rules_version", "run_id"))
    assert got.height == 3 * 5 and got["run_id"].to_list() == sorted(got["run_id"].to_list())
    for run, part in got.group_by("run_id", maintain_order=True):
        ref = [_reference_row(raw, run[0], card) for card in part["card"]]
        for column in ("games", "played_won", "played_games"):
            assert part[column].to_list() == [r[column] for r in ref]
        for column in ("avg_turn_played", "iwd_lo", "iwd_hi", "oh_excess", "oh_excess_lo", "oh_excess_hi"):
            _same(part[column].fill_null(np.nan), [_nan(r[column]) for r in ref])
        _same(part["oh_excess_p"].fill_null(np.nan), [_nan(r["oh_excess_p"]) for r in ref], atol=1e-12)
        k, n = part["played_won"].to_numpy(), part["played_games"].to_numpy()
        pooled = k.sum() / n.sum()
        p = _binomtest_reference(k, n, np.full(k.size, pooled))
        _same(part["played_wr_p"].fill_null(np.nan), p)
        q, significant = benjamini_hochberg(p)
        _same(part["played_wr_q"].fill_null(np.nan), q)
        assert part["significant"].to_list() == significant.tolist()
        # a card of no played games has no rate to shrink (not the prior mean)
        _same(part["played_wr_shrunk"].fill_null(np.nan), np.where(n > 0, shrink(k, n, beta_prior(k, n)), np.nan))
    never = got.filter(pl.col("card") == "never")
    assert never["played_wr_p"].is_null().all() and never["example_win"].is_null().all()
    assert got.filter(pl.col("card") == "always")["oh_excess_p"].is_not_null().any()


def test_with_metrics_keeps_each_group_apart_when_its_rows_are_not_adjacent(tmp_path):
    path, _ = _store(tmp_path)
    whole = card_metrics(path, Filters(runs=[1, 2, 3]), ("run_id",)).drop("example_win", "example_loss")
    counts = whole.select([c for c in whole.columns if c in _COUNT_COLUMNS])
    shuffled = counts.with_columns(pl.lit(None, pl.Int64).alias("example_win_key"),
                                   pl.lit(None, pl.Int64).alias("example_loss_key")).sample(fraction=1.0, shuffle=True,
                                                                                            seed=2)
    mixed = with_metrics(shuffled, ("game", "run_id"))
    first_seen = list(dict.fromkeys(shuffled["run_id"].to_list()))
    assert list(dict.fromkeys(mixed["run_id"].to_list())) == first_seen
    for run in first_seen:
        alone = with_metrics(shuffled.filter(pl.col("run_id") == run), ("game", "run_id"))
        assert mixed.filter(pl.col("run_id") == run).equals(alone)


_COUNT_COLUMNS = ("game", "run_id", "card", "name", "games", "games_won", "oh_games", "oh_won", "not_oh_games",
                  "not_oh_won", "gd_games", "gd_won", "gih_games", "gih_won", "gns_games", "gns_won", "played_games",
                  "played_won", "dead_games", "avg_turn_played", "oh_excess", "oh_excess_lo", "oh_excess_hi",
                  "oh_excess_p")
