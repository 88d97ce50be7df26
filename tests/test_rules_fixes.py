"""Issue 15's rules fixes, beyond their scenarios (collateral-defender.yaml, high-noon-deputy.yaml,
deploy-and-positions.yaml, switch-before-attacking.yaml): AlleyWay's base rules offer what the
rules version switch-before-attacking offers plus only the switches the guide adds; COLLATERAL
spreads nothing from a tie; every High Noon card loses exactly its draw when summoned as a Deputy."""
from functools import lru_cache

from sim.alleyway.actions import SWITCH
from sim.alleyway.state import BRAWL
from sim.core.match import play_match
from sim.core.scenario import run_scenario
from tests.alleyway_common import alleyway
from tests.conftest import DATA


@lru_cache(maxsize=None)
def switch_before_attacking_pool():
    from cardsdb.loader import load_ruleset

    eng, *_ = alleyway()
    return eng.compile_pool(load_ruleset("alleyway", "switch-before-attacking", DATA)[1])


def test_base_offers_the_old_reading_plus_only_the_switches_the_guide_adds():
    """At every decision of seeded random matches under base, the same position read under
    switch-before-attacking offers the same actions, less switches in the Brawl phase or of a
    character that attacked this turn; and those switches do come up (and get played)."""
    eng, pool, _data, _ruleset, decks = alleyway()
    old_pool = switch_before_attacking_pool()
    added_seen, added_played = set(), 0

    def compare(state, action):
        nonlocal added_played
        now = eng.legal_actions(state)
        old_view = eng.clone(state)
        old_view.pool = old_pool  # the same position under the old reading
        before = eng.legal_actions(old_view)
        added = [a for a in now if a not in before]
        assert [a for a in now if a not in added] == before
        for a in added:
            u = state.sides[state.active].lanes[a.a]
            assert a.kind == SWITCH and state.pending is None and (state.phase == BRAWL or u.attacks), a
            added_seen.add("brawl" if state.phase == BRAWL else "after attack")
        added_played += action in added

    ids = sorted(decks)
    for seed in range(6):
        a, b = ids[seed % len(ids)], ids[(seed + 2) % len(ids)]
        r = play_match(eng, pool, [decks[a], decks[b]], 40 + seed, ["random", "random"], log=False,
                       on_decision=compare)
        assert r.error is None, r.error
    assert added_seen == {"brawl", "after attack"} and added_played > 0


def test_switch_before_attacking_plays_as_before_never_switching_in_brawl_or_after_an_attack():
    eng, _pool, data, _ruleset, _decks = alleyway()
    old_pool = switch_before_attacking_pool()
    decks = {d.id: eng.compile_deck(old_pool, d) for d in data.decks.values() if d.starter}
    switches = 0

    def watch(state, action):
        nonlocal switches
        if action.kind == SWITCH and state.pending is None:
            switches += 1
            assert state.phase != BRAWL and not state.sides[state.active].lanes[action.a].attacks

    ids = sorted(decks)
    for seed in range(4):
        r = play_match(eng, old_pool, [decks[ids[seed]], decks[ids[-1 - seed]]], 70 + seed, ["random", "random"],
                       log=False, on_decision=watch)
        assert r.error is None, r.error
    assert switches > 0


def test_a_tie_spreads_no_collateral():
    """Two Mortar Crews tie: both are Downed, their effects stop, and neither side's neighbours
    go Down (RULES.md: decided)."""
    eng, pool, *_ = alleyway()
    setup = {"phase": "brawl",
             "seats": [{"lanes": {"l1": "street-rat", "l2": "mortar-crew", "l3": "street-rat"}, "deck": ["static"]},
                       {"lanes": {"l1": "street-rat", "l2": "mortar-crew", "l3": "street-rat"}, "deck": ["static"]}]}
    steps = [{"do": "attack l2 p1.l2"},
             {"expect": {f"p{s}.lanes.{lane}.downed": lane == "l2" for s in (0, 1) for lane in ("l1", "l2", "l3")}}]
    assert run_scenario(eng, pool, setup, steps) == []


def test_every_high_noon_card_draws_from_hand_and_not_as_a_summoned_deputy(frontier):
    """A card's on-play list from hand and as a Deputy from its Zone differ by High Noon's one
    draw exactly: nothing else a keyword or a printed ability does is lost."""
    _eng, pool, _data, ruleset, _decks = frontier
    high_noon = 0
    for card, spec in zip(pool.cards, ruleset.cards.values()):
        played, summoned = list(card.on_played), list(card.on_summoned)
        if spec.keywords.high_noon:
            high_noon += 1
            draws = [fx for fx in played if fx.op == "draw" and fx.quiet]
            assert draws and [fx for fx in played if fx is not draws[0]] == summoned, card.slug
        else:
            assert played == summoned, card.slug
    assert high_noon >= 5
