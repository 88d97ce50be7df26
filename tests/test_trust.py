"""Trust: planted truth must be found, null changes must not be, and the numbers behind the
reports must match statsmodels or hand computation."""
import numpy as np
import polars as pl
import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from cardsdb.calibration import PLANTED_VERSION, planted, planted_data
from reports.diff import version_diff
from reports.stats import benjamini_hochberg, beta_prior, mcnemar_pvalue, paired_interval, shrink
from tests.conftest import run_cli
from tests.planted import SEEDS, shared_frontier_store

# The planted truth is Wild Frontier's calibration plant (cardsdb/frontier/calibration.yaml):
# marshal-gunhand, a 3-Mana 3/2 of lawmen-posse, made a 4/3 (+1/+1, one Mana's worth of stats):
# a moderate change, not a card that wins by itself. It is found by the paired diff at the size
# the calibration needs for a +1/+1 (tests/planted.py: 500 seeds, both seats), greedy pilots, on
# the CLI's default seed: the very runs tests/test_planted.py's Frontier class reads (both come
# from tests/planted.shared_frontier_store), so this is one draw, read for other things. Measured on
# seed 1: lawmen-posse +8.2 points (95% +5.6 to +10.7), the card's attributed effect +10.2 points
# (+7.1 to +13.3); on seed 3, +4.4 and +5.2 (the 30-damage card this test planted before moved
# its deck +44.5 points). A card's played win rate within one run does not find such a card (in
# the planted run it ranked 28th of 50 cards on seed 1 and 26th on seed 3, not significant: it
# carries its deck's strength and how long games last), so only the paired diff is asked to.
PLANT = planted("frontier")
PLANTED = PLANT.card
MATCHES = 2 * SEEDS["frontier"]


@pytest.fixture(scope="module")
def planted_diff(tmp_path_factory, worker_id):
    """A store with the paired diff base -> planted (one card one cost step stronger). The base
    and planted runs are the session's shared ones (tests/planted.shared_frontier_store), reused by
    the diff."""
    root = tmp_path_factory.mktemp("planted")
    data = planted_data("frontier", root / "data")
    shared_frontier_store(tmp_path_factory, worker_id, root, ("base", "planted"))
    db = root / "base.duckdb"
    res = run_cli("diff", "frontier", "--base", "base", "--candidate", PLANTED_VERSION, "--matches", str(MATCHES),
                  "--decks", ",".join(PLANT.decks), "--pilots", "greedy", "--db", str(db), "--quiet",
                  env={"WORKBENCH_DATA_DIR": str(data)}, timeout=900)
    assert res.returncode == 0, res.stderr
    assert res.stderr.count("reusing run ") == 2, res.stderr  # the shared runs, not played again
    return db, res.stdout


@pytest.fixture(scope="module")
def reworded_diff(tmp_path_factory):
    """A store with the paired diff base -> a version that only rewords a card (identical in
    effect: the very same matches, so a small size shows it)."""
    root = tmp_path_factory.mktemp("reworded")
    data = planted_data("frontier", root / "data")
    (data / "frontier" / "rules" / "reworded.yaml").write_text("version: reworded\nextends: base\npatch:\n"
                                                               "  bison-bull: {text: 'A very large bison.'}\n")
    db = root / "trust.duckdb"
    res = run_cli("diff", "frontier", "--base", "base", "--candidate", "reworded", "--matches", "200",
                  "--decks", ",".join(PLANT.decks), "--pilots", "greedy", "--db", str(db), "--quiet",
                  env={"WORKBENCH_DATA_DIR": str(data)})
    assert res.returncode == 0, res.stderr
    return db, res.stdout


def _diff(db, candidate):
    from reports import db as store
    row = store.query(db, "SELECT base_run, candidate_run FROM diffs WHERE candidate_version = ?", [candidate]).row(0)
    return row


@pytest.mark.slow
def test_a_card_made_moderately_stronger_ranks_first_in_the_diffs_attribution(planted_diff):
    """Of every card the two decks hold, the +1/+1 card has the smallest attribution p and is the
    only one flagged."""
    db, _ = planted_diff
    r = version_diff(db, *_diff(db, PLANTED_VERSION))
    ranked = r["cards"].sort("p_value")
    top = ranked.row(0, named=True)
    assert top["card"] == PLANTED, ranked.select("card", "effect_points", "p_value").head(3)
    assert top["flagged"] and top["q_value"] < 0.05 and top["effect_lo"] > 0
    assert r["attributed_cards"]["card"].to_list() == [PLANTED]


@pytest.mark.slow
def test_the_diff_finds_what_moved_and_blames_no_unchanged_card(planted_diff):
    """What a +1/+1 moves: its deck by a few points (significant, yet far from the tens of points
    of a card that wins by itself), the card's own paired win rate, and nothing it left alone.
    The nightly batch's alerts (3 points, reports/alerts.py) fire on the card and its deck."""
    from reports.alerts import alerts

    db, out = planted_diff
    base, candidate = _diff(db, PLANTED_VERSION)
    r = version_diff(db, base, candidate)
    assert r["changed_cards"]["card"].to_list() == [PLANTED]
    assert r["touched_decks"] == [PLANT.decks[0]]
    deck = r["decks"].filter(pl.col("deck") == PLANT.decks[0]).row(0, named=True)
    assert deck["mcnemar_p"] < 0.05 and deck["change_lo"] > 0, deck
    assert deck["change"] < 0.15, deck  # moderate: one Mana of stats, not a game-winning card
    cards = r["cards"]
    assert PLANTED in r["significant_cards"]["card"].to_list()
    planted_row = cards.filter(pl.col("card") == PLANTED).row(0, named=True)
    assert planted_row["change"] > 0 and planted_row["change_lo"] > 0 and planted_row["q_value"] < 0.05
    assert r["flagged_cards"].is_empty(), r["flagged_cards"]["card"].to_list()  # no unchanged card blamed
    # the opening-hand test never blames a card the version left alone
    assert set(r["beyond_deck_cards"]["card"].to_list()) <= {PLANTED}
    said = " ".join(out.split())  # (a long line is wrapped)
    assert f"you changed {PLANTED} (changed: " in said and " -> " in said, out  # what changed, then its effect
    assert "): its effect within its deck is +" in said, out
    found, _diff_again = alerts(db, base, candidate, 3.0, 0.05, "baseline")
    assert {("card", PLANTED), ("deck", PLANT.decks[0])} <= set(found.select("kind", "name").iter_rows()), found


def test_a_change_identical_in_effect_moves_nothing(reworded_diff):
    db, out = reworded_diff
    r = version_diff(db, *_diff(db, "reworded"))
    assert r["changed_cards"]["card"].to_list() == ["bison-bull"]
    assert r["significant_cards"].is_empty() and r["beyond_deck_cards"].is_empty()
    assert (r["decks"]["change"] == 0).all()  # common random numbers: the very same matches
    assert "cards whose win rate moved (paired wins in hand, Benjamini-Hochberg, FDR 5%): none" in out
    assert ("other cards whose change differs from their deck's (by how often their place in the shuffled deck "
            "gets them played, Benjamini-Yekutieli, FDR 5%): none") in out


def test_repeated_null_paired_diffs_keep_the_false_positive_rate_near_five_percent():
    """Synthetic paired wins with no effect (correlated twins, as common random numbers give):
    the paired tests reject about 5% of the time, and BH over 40 null cards almost never."""
    rng = np.random.default_rng(7)
    rejections, families_with_any = 0, 0
    trials = 2000
    for _ in range(trials):
        base = rng.random(300) < 0.5
        flip = rng.random(300) < 0.3  # twins diverge 30% of the time, at random: no true change
        cand = np.where(flip, rng.random(300) < 0.5, base)
        b, c = int((base & ~cand).sum()), int((~base & cand).sum())
        rejections += mcnemar_pvalue(b, c) < 0.05
    rate = rejections / trials
    assert 0.03 <= rate <= 0.07, rate
    for _ in range(200):
        # 40 null cards, each with 40 discordant twins split at random
        pvals = [mcnemar_pvalue(int(x), int(40 - x)) for x in rng.binomial(40, 0.5, size=40)]
        families_with_any += benjamini_hochberg(pvals)[1].any()
    assert families_with_any / 200 <= 0.08


def test_mcnemar_matches_statsmodels_and_hand_values():
    # 12 vs 3 discordant pairs: exact binomial (below 25 discordant), as statsmodels computes it
    assert mcnemar_pvalue(3, 12) == pytest.approx(mcnemar([[0, 3], [12, 0]], exact=True).pvalue)
    assert mcnemar_pvalue(3, 12) == pytest.approx(0.03515625)  # 2 * P(X <= 3), X ~ Bin(15, 0.5)
    # 40 vs 20: chi-square without continuity correction: (40-20)^2 / 60 = 6.667, p = 0.00982
    assert mcnemar_pvalue(40, 20) == pytest.approx(0.009823, abs=1e-5)
    assert mcnemar_pvalue(0, 0) == 1.0


def test_benjamini_hochberg_matches_statsmodels_and_hand_values():
    p = [0.01, 0.04, 0.03, 0.5, float("nan")]
    q, reject = benjamini_hochberg(p)
    # by hand: sorted 0.01, 0.03, 0.04, 0.5 -> 0.04, 0.0533, 0.0533, 0.5
    assert q[:4] == pytest.approx([0.04, 0.053333, 0.053333, 0.5], abs=1e-5)
    assert reject.tolist() == [True, False, False, False, False] and np.isnan(q[4])
    assert q[:4] == pytest.approx(multipletests(p[:4], method="fdr_bh")[1])


def test_shrinkage_by_hand():
    # rates 0.6 (n=100) and 0.4 (n=100): by symmetry the mean is 0.5, and a + b is where the
    # beta-binomial likelihood peaks, found here on a grid with scipy's own distribution (the
    # method of moments, which the fit replaced, gave 32.33 on these two cards)
    a, b = beta_prior([60, 40], [100, 100])
    grid = np.linspace(5, 100, 9501)
    loglik = [sps.betabinom.logpmf(60, 100, s / 2, s / 2) + sps.betabinom.logpmf(40, 100, s / 2, s / 2) for s in grid]
    assert a + b == pytest.approx(grid[int(np.argmax(loglik))], abs=0.05) and a == pytest.approx(b, rel=1e-4)
    assert shrink([60], [100], (a, b))[0] == pytest.approx((60 + a) / (100 + a + b))
    # a family no wider than noise is shrunk (almost) all the way to its mean
    a, b = beta_prior([50, 51, 49], [100, 100, 100])
    assert shrink([51], [100], (a, b))[0] == pytest.approx(0.5, abs=0.001)


def test_paired_interval_by_hand():
    mean, lo, hi = paired_interval([1, 0, 0, -1, 1, 0, 1, 0])
    sd = np.std([1, 0, 0, -1, 1, 0, 1, 0], ddof=1)
    assert mean == pytest.approx(0.25) and hi - mean == pytest.approx(1.959964 * sd / np.sqrt(8))


def test_the_paired_rate_interval_agrees_with_mcnemar_and_stays_inside_the_possible():
    """The interval beside McNemar's p (reports/stats.py ``paired_rate_intervals``), on the
    published example (Cavo et al. 2012, as worked in Fagerland, Lydersen and Laake's Statistical
    Analysis of Contingency Tables: -0.0621, Tango's score interval -0.1240 to -0.0054, the exact
    conditional McNemar p 0.052479): with 22 discordant twins the p is the exact one, so the
    interval runs from Tango's lower bound up to the exact test's own (Clopper-Pearson for the
    share of the discordant twins, mapped to the change), past 0 (Newcombe's -0.1186 to -0.0046,
    which it replaced, left 0 out beside p = 0.052); two twins that split (the normal interval
    gave -1.96 to +1.96) stay inside -1..1; hundreds of twins agree with the normal interval."""
    from statsmodels.stats.proportion import proportion_confint

    from reports.stats import paired_rate_interval

    # (both won, only the second won, only the first won, neither) = (59, 6, 16, 80)
    first = np.array([1] * 59 + [0] * 6 + [1] * 16 + [0] * 80)
    second = np.array([1] * 59 + [1] * 6 + [0] * 16 + [0] * 80)
    mean, lo, hi = paired_rate_interval(first, second)
    assert mcnemar_pvalue(16, 6) == pytest.approx(0.052479, abs=1e-6)
    share_hi = proportion_confint(6, 22, method="beta")[1]
    assert (round(mean, 4), round(lo, 4)) == (-0.0621, -0.1240) and hi == pytest.approx(22 / 161 * (2 * share_hi - 1))
    assert lo < 0 < hi
    mean, lo, hi = paired_rate_interval([0, 1], [1, 0])
    assert mean == 0 and -1 < lo < 0 < hi < 1 and paired_interval([1, -1])[1] < -1
    assert paired_rate_interval([0] * 6, [1] * 6)[2] == pytest.approx(1.0)
    rng = np.random.default_rng(3)
    before = rng.random(3000) < 0.5
    after = np.where(rng.random(3000) < 0.8, before, rng.random(3000) < 0.56)
    _m, lo, hi = paired_rate_interval(before, after)
    _n, nlo, nhi = paired_interval(after.astype(float) - before)
    assert abs(lo - nlo) < 0.002 and abs(hi - nhi) < 0.002


def test_the_keyword_model_matches_statsmodels_and_declines_separated_keywords():
    """On estimable data the keyword coefficient is statsmodels' GLM coefficient; a keyword whose
    every exposed seat won (separation) gets no estimate instead of an absurd odds ratio."""
    import statsmodels.api as sm

    from reports.keywords import _fit_logit

    rng = np.random.default_rng(5)
    n = 400
    kw = rng.integers(0, 3, n)            # cards played with the keyword
    cost = rng.integers(5, 40, n)
    on_play = rng.integers(0, 2, n).astype(bool)
    p = 1 / (1 + np.exp(-(-0.5 + 0.6 * kw + 0.1 * on_play)))
    won = rng.random(n) < p
    data = pl.DataFrame({"kw": kw, "sure": (won & (rng.random(n) < 0.3)).astype(int), "cost": cost,
                         "on_play": on_play, "won": won})
    fit = _fit_logit(data, ["kw", "sure"]).to_dicts()
    X = sm.add_constant(np.column_stack([kw, data["sure"].to_numpy(), cost / 10.0, on_play.astype(float)]))
    ref = sm.GLM(won.astype(float), X, family=sm.families.Binomial()).fit()
    estimable, separated = fit
    assert estimable["log_odds"] == pytest.approx(ref.params[1], rel=1e-6)
    assert estimable["odds_ratio"] == pytest.approx(np.exp(ref.params[1]), rel=1e-6)
    assert (estimable["log_odds_lo"], estimable["log_odds_hi"]) == pytest.approx(tuple(ref.conf_int()[1]), rel=1e-6)
    assert 0.3 < estimable["log_odds"] < 0.9
    assert separated["keyword"] == "sure"  # every seat that played it won
    assert separated["log_odds"] is None and separated["odds_ratio"] is None and separated["p_value"] is None


def test_a_pairing_that_saved_no_variance_reads_as_none_not_as_a_negative_share():
    """Two twins gave "pairing removed -100% of the variance ... about 0.5x the matches"."""
    from reports.diff import pairing_effect

    assert pairing_effect(-1.0) == pairing_effect(0.0) == "pairing removed none of the variance of a deck's win-rate change here"
    assert pairing_effect(0.5) == "pairing removed 50% of the variance of a deck's win-rate change"
    assert "could not be measured" in pairing_effect(float("nan"))


def test_a_value_change_interval_and_its_p_agree_on_zero():
    """value_change gives a t-test's p beside its interval; a normal 1.96 interval beside it read
    "+0.1 to +59.9" with p = 0.08 on ten twins. The t interval excludes 0 exactly when p < 0.05."""
    from reports.intervention import _one_sample_p
    from reports.stats import t_interval

    rng = np.random.default_rng(5)
    disagreed_before = 0
    for _ in range(400):
        d = rng.choice([-2.0, -1.0, 0.0, 1.0, 2.0], size=10, p=[0.05, 0.2, 0.4, 0.25, 0.1])
        p = _one_sample_p(d)
        if p != p or d.std() == 0:
            continue
        _m, lo, hi = t_interval(d)
        assert (lo > 0 or hi < 0) == (p < 0.05), (d, lo, hi, p)
        _m, nlo, nhi = paired_interval(d)
        disagreed_before += (nlo > 0 or nhi < 0) != (p < 0.05)
    assert disagreed_before > 0  # the normal interval did disagree on some of these samples


def test_twins_that_all_moved_alike_are_not_read_as_no_evidence():
    """Every twin's value changed by +1: a t-test has no variance to read. It said p = 1 beside
    a zero-width interval at +100 points; now both are empty. No change at all stays p = 1."""
    from reports.intervention import _one_sample_p

    assert np.isnan(_one_sample_p(np.array([1.0, 1.0, 1.0])))
    assert _one_sample_p(np.array([0.0, 0.0])) == 1.0


def test_a_free_for_all_placement_gain_interval_has_width_and_stays_possible():
    """Played twice and placed 1 both times, not played twice and placed 3 both times: the
    plain Welch interval was 2.0 to 2.0; played [1, 1, 1] against not played [4, 4, 1] at a
    four-seat table reached past the possible gain of 3."""
    import polars as pl

    from reports.ffa import gain_interval

    def frame(played, not_played):
        return pl.DataFrame({"placement_played": [float(np.mean(played))],
                             "placement_not_played": [float(np.mean(not_played))],
                             "var_played": [float(np.var(played, ddof=1))],
                             "var_not": [float(np.var(not_played, ddof=1))]})

    for played, not_played in (([1, 1], [3, 3]), ([1, 1, 1], [4, 4, 1])):
        f = frame(played, not_played)
        gain = np.array([np.mean(not_played) - np.mean(played)])
        lo, hi = gain_interval(gain, f, np.array([len(played)], float), np.array([len(not_played)], float),
                               np.array([4.0]))
        assert -3 <= lo[0] < gain[0] < hi[0] <= 3, (played, not_played, lo, hi)


def test_a_degenerate_fit_prints_no_statsmodels_warning():
    """A perfectly separated keyword (every exposed seat won) printed statsmodels'
    PerfectSeparationWarning with its source line under report and batch: an import-time filter
    does not hold, since statsmodels sets its ModelWarnings to "always" when imported."""
    import warnings

    import statsmodels.api as sm

    from reports.stats import quiet_fit

    x = np.array([0.0] * 20 + [1.0] * 20)
    X = sm.add_constant(x)
    y = x.copy()  # separated
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with quiet_fit():
            try:
                sm.GLM(y, X, family=sm.families.Binomial()).fit()
            except Exception:  # noqa: BLE001 - some statsmodels versions raise instead of warning
                pass
    assert not caught, [str(w.message) for w in caught]
    with warnings.catch_warnings(record=True) as caught:  # the same fit, unquieted, does warn
        warnings.simplefilter("always")
        try:
            sm.GLM(y, X, family=sm.families.Binomial()).fit()
        except Exception:  # noqa: BLE001
            pass
    assert caught
