"""The diff's card attribution on synthetic twins: calibrated under the null at every size,
powered when a card acts where it is played, read within each deck, and the changed cards
tested in their own family."""
import numpy as np
import polars as pl

from reports.attribution import POSITION_SPLIT
from reports.attribution import two_families as _two_families


def _null_twins(rng, n: int, diverge: float = 0.3) -> np.ndarray:
    """Paired differences of twins with no effect: a share diverges, each way alike."""
    flips = rng.random(n) < diverge
    return np.where(flips, rng.choice([-1.0, 1.0], n), 0.0)


def test_the_changed_cards_are_their_own_family():
    p = np.array([0.03] + [0.5] * 45)
    changed = np.array([True] + [False] * 45)
    q, flagged = _two_families(p, changed, 0.05)
    assert flagged[0] and q[0] == 0.03 and not flagged[1:].any()
    q_all, flagged_all = _two_families(p, np.zeros(46, dtype=bool), 0.05)
    assert not flagged_all[0], "the same p among 46 exploratory cards is not enough"


def test_near_the_top_and_deep_follow_how_many_cards_a_seat_of_the_deck_sees():
    rows = pl.DataFrame({"deck": ["a"] * 10 + ["b"] * 10, "match_no": list(range(20)), "seat": [0] * 20,
                         "seen": list(range(10, 20)) + list(range(30, 40))})
    depth = POSITION_SPLIT.yardsticks(rows)
    assert depth["a"] == (14.5, np.percentile(range(10, 20), 90))
    top, deep = POSITION_SPLIT.groups(np.array([0, 14, 15, 18.1, 19, np.nan]), *depth["a"])
    assert top.tolist() == [True, True, False, False, False, False]
    assert deep.tolist() == [False, False, False, True, True, False]


def test_each_game_plants_its_buff_on_a_card_only_the_first_deck_holds():
    from cardsdb.calibration import planted
    from cardsdb.loader import load_ruleset
    from tests.conftest import DATA

    for game in ("frontier", "alleyway", "allegiance"):
        plant = planted(game)
        data, ruleset = load_ruleset(game, "base", DATA)
        first, second = (data.decks[d] for d in plant.decks)
        assert plant.card in first.cards and plant.card not in second.cards, game
        assert set(plant.patch) <= set(ruleset.cards[plant.card].model_dump(by_alias=True)), game


# --- the dose-response reading (attribution.dose_response, attribution.PlayRateDose) -------------

def test_the_dose_response_rejects_about_five_percent_under_the_null_at_every_size():
    """Permutations under 60 twins, cluster-robust above, both when few twins diverged: whatever
    the regime, a card that does nothing is flagged about one time in twenty (or less)."""
    from reports.attribution import dose_response

    rng = np.random.default_rng(11)
    for n, diverge, low in ((40, 0.3, 0.02), (1200, 0.3, 0.03), (500, 0.04, 0.0)):
        rejected = 0
        trials = 400
        for _ in range(trials):
            d = _null_twins(rng, n, diverge)
            x = rng.random(n) * 0.6
            *_rest, p = dose_response(d, x, rng.integers(0, 2, n), np.arange(n) // 2)
            rejected += p < 0.05
        assert low <= rejected / trials <= 0.075, (n, diverge, rejected / trials)


def test_the_dose_response_finds_a_card_that_acts_when_played():
    """A buff that turns one game in four the card is played into a win: the slope estimates that
    quarter, and 1,500 twins find it nearly every time."""
    from reports.attribution import dose_response

    rng = np.random.default_rng(5)
    found, slopes = 0, []
    for _ in range(100):
        n = 1500
        x = rng.random(n) * 0.7
        played = rng.random(n) < x
        d = np.where(played & (rng.random(n) < 0.25), 1.0, _null_twins(rng, n))
        slope, lo, hi, p = dose_response(d, x, np.zeros(n), np.arange(n) // 2)
        found += p < 0.05 and lo > 0
        slopes.append(slope)
    assert found >= 90 and 0.15 < float(np.median(slopes)) < 0.35, (found, np.median(slopes))


def test_a_small_dose_response_s_interval_and_p_value_agree_on_zero():
    from reports.attribution import dose_response

    rng = np.random.default_rng(3)
    checked = rejected = 0
    for _ in range(300):
        n = int(rng.integers(12, 59))
        x = rng.random(n)
        d = np.where(rng.random(n) < x * rng.random() * 1.5, 1.0, _null_twins(rng, n))
        slope, lo, hi, p = dose_response(d, x, np.zeros(n), np.arange(n))
        if p != p or abs(p - 0.05) < 1e-3:
            continue
        checked += 1
        rejected += p < 0.05
        assert (p < 0.05) == (lo > 0 or hi < 0), (n, slope, lo, hi, p)
    assert checked > 250 and 30 < rejected < checked - 30


def test_the_dose_response_reads_each_deck_against_its_own_move():
    """One deck got stronger, the other weaker; the card lies where it gets played more in the
    stronger deck. Pooled, the card takes its deck's move; within each deck there is nothing."""
    from reports.attribution import dose_response

    rng = np.random.default_rng(3)
    within = pooled = 0
    for _ in range(200):
        n = 800
        seeds = np.repeat(np.arange(n // 2), 2)
        deck = np.tile(np.array(["strong", "weak"]), n // 2)
        d = np.where(deck == "strong", 1.0, -1.0) * (rng.random(n) < 0.12)
        x = np.where(deck == "strong", 0.3 + 0.4 * rng.random(n), 0.4 * rng.random(n))
        within += dose_response(d, x, deck, seeds)[3] < 0.05
        pooled += dose_response(d, x, np.zeros(n), seeds)[3] < 0.05
    assert within / 200 <= 0.08 and pooled / 200 >= 0.5, (within, pooled)


def test_a_low_dose_group_of_zeros_does_not_make_an_unchanged_card_certain():
    """From a nightly batch, under the top/deep contrast the attribution used before: an
    unchanged card's 36 deep twins had all not diverged, its deck lost ground in the top twins as
    everywhere (the opponent's card was buffed), and the contrast's variance, read from the deep
    group's own zeros, gave p 5e-9. Read by dose, the regression takes its spread from every twin,
    so chance stays chance."""
    from reports.attribution import dose_response

    rng = np.random.default_rng(7)
    u = rng.random(400)
    played = np.where(u < 0.08, -1.0, np.where(u < 0.10, 1.0, 0.0))
    d = np.concatenate([played, np.zeros(36)])
    x = np.concatenate([0.3 + 0.5 * rng.random(400), 0.02 * rng.random(36)])
    slope, lo, hi, p = dose_response(d, x, np.zeros(d.size), np.arange(d.size))
    assert slope < 0 and p > 0.01, (slope, lo, hi, p)


def test_with_few_diverged_twins_an_unchanged_card_takes_the_more_cautious_of_two_tests():
    """Under 30 twins whose result changed, a card the candidate left alone gets the larger p and
    the wider interval of the cluster-robust test and the relabellings; a changed card keeps the
    cluster-robust one (its unreached twins' zeros are the design, not chance)."""
    from reports.attribution import _permuted_slope, _residuals, dose_response

    rng = np.random.default_rng(2)
    x = rng.random(500) * 0.6
    d = np.where(rng.random(500) < 0.03 + 0.05 * x, 1.0, 0.0)
    assert 0 < np.count_nonzero(d) < 30
    seeds = np.arange(500) // 2
    slope, lo, hi, p = dose_response(d, x, np.zeros(500), seeds)
    slope_c, lo_c, hi_c, p_c = dose_response(d, x, np.zeros(500), seeds, cautious=False)
    xc, (dc,) = _residuals(x, [d], np.zeros(500), None, np.ones(500, dtype=bool))
    p_perm, half = _permuted_slope(dc, xc, np.zeros(500), float(xc @ xc), slope)
    assert slope == slope_c and p == max(p_c, p_perm) and lo == min(lo_c, slope - half) and hi == max(hi_c, slope + half)


def test_a_card_s_dose_is_read_over_its_deck_s_other_cards():
    """Place 0 of deck a: card x played in its 2 seats there, card y in 1 of its 3; card x's dose
    there is y's rate (1/3) and y's is x's (2/2), never a card's own games. A place only the card
    itself ever held has no dose, nor a twin whose place was not stored."""
    from reports.attribution import DOSE

    rows = pl.DataFrame({"card": ["x", "x", "y", "y", "y", "x", "x", "y"], "deck": ["a"] * 8,
                         "position": [0, 0, 0, 0, 0, 5, None, None], "played_base": [1, 1, 1, 0, 0, 1, 1, 0]})
    dose = DOSE.doses(rows)
    assert dose[:5].tolist() == [1 / 3, 1 / 3, 1.0, 1.0, 1.0] and np.isnan(dose[5])
    # a store from before deck positions: no place, no dose (the joins had matched null to null)
    assert np.isnan(dose[6:]).all()


def test_a_changed_deck_mate_s_dose_is_held_fixed():
    """A deck's first copies are dealt without replacement: where an unchanged card lies where
    cards get played, the changed card lies deeper. Its twins' changes then follow the changed
    card's dose, and without it held fixed the unchanged card took the changed card's effect with
    the opposite sign (the audit of 2026-12-07); held fixed, it is flagged at the nominal rate."""
    from reports.attribution import dose_response

    rng = np.random.default_rng(13)
    plain = held = 0
    trials = 200
    for _ in range(trials):
        n = 3000
        x = rng.random(n) * 0.8
        changed = np.clip(0.7 - 0.6 * x + 0.15 * rng.standard_normal(n), 0, 1)  # pushed deeper
        d = np.where(rng.random(n) < 0.3 * changed, 1.0, _null_twins(rng, n, 0.2))
        seeds = np.arange(n) // 2
        plain += dose_response(d, x, np.zeros(n), seeds)[3] < 0.05
        held += dose_response(d, x, np.zeros(n), seeds, covariates=changed[:, None])[3] < 0.05
    assert plain / trials > 0.5 and held / trials <= 0.08, (plain / trials, held / trials)


def test_an_interval_end_within_rounding_of_zero_is_zero():
    """One diverged twin among 42: the relabellings' slopes and the observed one are sums in other
    orders, and the interval ended at -5.6e-17 beside p 0.23: an interval that left out 0."""
    from reports.attribution import dose_response

    rng = np.random.default_rng(1)
    disagreed = 0
    for _ in range(400):
        n = int(rng.integers(20, 59))
        d = np.zeros(n)
        d[rng.integers(0, n)] = rng.choice([-1.0, 1.0])
        slope, lo, hi, p = dose_response(d, rng.random(n), np.zeros(n), np.arange(n))
        disagreed += (p < 0.05) != (lo > 0 or hi < 0)
    assert disagreed == 0


def test_a_reactive_card_s_effect_a_game_played_is_scaled_back():
    """A card played far less often than cards at its places (a reaction, a late finisher): its
    slope at full dose is a fraction of what a game with it played does; the per-play figure
    scales it back, and none is given where its play does not follow the dose."""
    from reports.attribution import per_play

    rng = np.random.default_rng(17)
    n = 6000
    x = rng.random(n) * 0.8
    played = rng.random(n) < 0.3 * x  # it gets played in 30% of the games a card at its place does
    d = np.where(played & (rng.random(n) < 0.5), 1.0, _null_twins(rng, n, 0.1))  # half its games turn to wins
    effect, lo, hi, rise = per_play(d, played, x, np.zeros(n), np.arange(n) // 2)
    assert 0.25 < rise < 0.35 and lo < 0.5 < hi and 0.35 < effect < 0.65, (effect, lo, hi, rise)
    never = rng.random(n) < 0.02  # played as rarely wherever it lay
    assert np.isnan(per_play(d, never, x, np.zeros(n), np.arange(n) // 2)[0])
