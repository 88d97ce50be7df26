"""Allegiance setup and the turn's start as the guide writes them, the dice from the chance
stream, and what a pilot may see."""
from collections import Counter

from sim.allegiance.state import NORMAL
from sim.core.match import play_match
from sim.core.rng import Streams, stream


def test_new_match_setup(allegiance):
    eng, pool, _data, ruleset, decks = allegiance
    consts = ruleset.constants
    state = eng.new_match(pool, decks, 1)
    first, second = state.sides
    # 7 cards each; the first player skips the draw of its first turn and has 6 AP
    assert len(first.hand) == 7 and len(first.deck) == 40 - 7
    assert len(second.hand) == 7 and len(second.deck) == 40 - 7
    assert (first.ap, state.turn, state.active, state.to_act) == (consts.first_turn_ap, 1, 0, 0) == (6, 1, 0, 0)
    assert Counter(first.hand + first.deck) == Counter(decks[0].cards)
    # each seat's first Stronghold stands on its row B; the Bastion waits at the bottom
    board = pool.board
    for seat, deck in enumerate(decks):
        cell = state.stronghold_cell(seat)
        assert cell in board.row_b[seat]
        side = state.sides[seat]
        assert side.strongholds[0] == deck.bastion and len(side.strongholds) == 2
        assert sorted(side.strongholds + [state.cells[cell].card]) == sorted(deck.strongholds + (deck.bastion,))
    # the second player's first turn: a draw and 7 AP
    eng.apply(state, eng.parse_action(state, "end"))
    assert (len(second.hand), second.ap, state.active) == (8, 7, 1)


def test_stronghold_columns_come_from_the_setup_dice(allegiance):
    """Setup rolls are turn 0's chance stream: one D6 per seat, seat 0 first."""
    eng, pool, _data, _rules, decks = allegiance
    for seed in (1, 2, 3):
        state = eng.new_match(pool, decks, seed)
        dice = stream(seed, "chance", 0)
        for seat in (0, 1):
            assert pool.board.col[state.stronghold_cell(seat)] == dice.randint(1, 6) - 1


def test_shuffles_come_from_the_seed(allegiance):
    eng, pool, _data, _rules, decks = allegiance
    a, b, c = (eng.new_match(pool, decks, s) for s in (1, 1, 2))
    assert a.sides[0].deck == b.sides[0].deck and a.sides[0].deck != c.sides[0].deck


def test_soul_combat_ties_are_rerolled(allegiance):
    """Seed 21, turn 5: both roll 5, then 4 against 3: the Warrior wins on the re-roll."""
    eng, pool, *_ = allegiance
    setup = {"turn": 5, "blight": ["p1.A3"],
             "seats": [{"units": {"p0.A3": "ash-thrall", "p0.D6": "ember-keep"}},
                       {"units": {"p1.D1": "sky-citadel"}}]}
    state = eng.scenario_state(pool, setup, 21)
    eng.apply(state, eng.parse_action(state, "soul p0.A3 p1.A3"))
    ev = state.events
    i = ev.kind.index(eng.kinds.SOUL_COMBAT)
    assert (ev.detail[i], ev.amount[i]) == ("5-5 4-3", 1)
    assert not (state.blight >> pool.board.cell("p1.A3")) & 1


def test_soul_bonus_adds_to_the_warriors_roll(allegiance):
    """Seed 9, turn 5: 8 against 9 loses, but Lantern Keeper's +2 makes it 10 against 9."""
    eng, pool, *_ = allegiance
    for card, won in (("ash-thrall", 0), ("lantern-keeper", 1)):
        setup = {"turn": 5, "blight": ["p1.A3"],
                 "seats": [{"units": {"p0.A3": card, "p0.D6": "ember-keep"}}, {"units": {"p1.D1": "sky-citadel"}}]}
        state = eng.scenario_state(pool, setup, 9)
        eng.apply(state, eng.parse_action(state, "soul p0.A3 p1.A3"))
        i = state.events.kind.index(eng.kinds.SOUL_COMBAT)
        assert state.events.amount[i] == won
        assert state.cells[pool.board.cell("p0.A3")].tap == (NORMAL if won else 2)


def test_determinize_hides_what_the_seat_cannot_see(allegiance):
    eng, pool, _data, _rules, decks = allegiance
    state = eng.new_match(pool, decks, 3)
    belief = eng.determinize(state, 0, Streams(3).pilot(0))
    me, them = belief.sides
    assert me.hand == state.sides[0].hand and sorted(me.deck) == sorted(state.sides[0].deck)
    assert me.deck != state.sides[0].deck
    assert len(them.hand) == len(state.sides[1].hand) and them.hand != state.sides[1].hand
    assert sorted(them.hand + them.deck) == sorted(state.sides[1].hand + state.sides[1].deck)
    assert them.strongholds[0] == state.sides[1].strongholds[0]  # the Bastion stays last
    assert belief.chance_key != state.chance_key and belief.events is None and belief.ledger is None
    # the battlefield is public
    assert belief.cells == state.cells and belief.blight == state.blight


def test_lookahead_does_not_disturb_the_match(allegiance):
    eng, pool, _data, _rules, decks = allegiance
    from sim.core.pilots import make_pilot

    state = eng.new_match(pool, decks, 8)
    for _ in range(3):  # into the second turn, with units on the battlefield
        eng.apply(state, eng.parse_action(state, "end"))
    before = eng.snapshot(state)
    pilot = make_pilot("greedy", eng, state.to_act, Streams(8).pilot(state.to_act))
    pilot.choose(state, eng.legal_actions(state))
    assert eng.snapshot(state) == before


def test_the_same_seed_replays_the_same_match(allegiance):
    eng, pool, _data, _rules, decks = allegiance
    a = play_match(eng, pool, decks, 99, ["greedy", "random"])
    b = play_match(eng, pool, decks, 99, ["greedy", "random"])
    assert a.error is None and a.events.digest() == b.events.digest() and len(a.events) > 100


def test_cards_in_events_and_ledger(allegiance):
    """A real match keeps its card ledger (for card_games) and names cards in the event log."""
    eng, pool, _data, _rules, decks = allegiance
    r = play_match(eng, pool, decks, 4, ["greedy", "greedy"])
    assert r.error is None and r.reason in ("siege", "rout", "overrun")
    rows = list(r.ledger.rows(0))
    assert sum(row[1] for row in rows) == 40 and any(row[5] > 0 for row in rows)
    kinds = {eng.kinds.name(k) for k in r.events.kind}
    assert {"deploy", "attack", "damage", "stronghold", "game_over"} <= kinds
    cells = [lane for lane in r.events.lane if lane >= 0]
    assert cells and max(cells) < pool.board.n


def test_abilities_are_numbered_within_their_kind(allegiance):
    """A card may list a support ability before its attack: actions still name the right one."""
    from cardsdb.loader import Ruleset

    eng, _pool, _data, ruleset, _decks = allegiance
    herald = ruleset.cards["blight-herald"]
    cards = {**ruleset.cards, "blight-herald": herald.model_copy(update={"abilities": herald.abilities[::-1]})}
    pool = eng.compile_pool(Ruleset(ruleset.game, "reordered", ruleset.chain, ruleset.constants, cards,
                                    ruleset.hash, ruleset.schema))
    setup = {"turn": 3, "seats": [{"units": {"p0.A3": "blight-herald", "p0.D6": "ember-keep"}},
                                  {"units": {"p1.A3": "ash-thrall", "p1.B1": "sky-citadel"}}]}
    state = eng.scenario_state(pool, setup, 0)
    eng.apply(state, eng.parse_action(state, "attack p0.A3 strike p1.A3"))
    eng.apply(state, eng.parse_action(state, "support p0.A3 spread-blight p1.B3"))
    snap = eng.snapshot(state)
    assert snap["board"]["p1"]["A3"]["hp"] == 1 and snap["board"]["p1"]["B3"] == "blight"


def test_first_player_full_turn_variant():
    from cardsdb.loader import load_ruleset
    from sim.registry import engine

    data, ruleset = load_ruleset("allegiance", "first-player-full-turn")
    eng = engine("allegiance")
    pool = eng.compile_pool(ruleset)
    decks = [eng.compile_deck(pool, data.decks[d]) for d in ("forge-reapers", "citadel-wardens")]
    state = eng.new_match(pool, decks, 1)
    assert (len(state.sides[0].hand), state.sides[0].ap) == (8, 7)
