"""Setup as the guide writes it: 30 HP, a 52-card deck, a 7-card opening hand, turn 1."""
from collections import Counter
from dataclasses import replace


def test_new_match_setup(frontier):
    eng, pool, _data, ruleset, decks = frontier
    state = eng.new_match(pool, decks, 1)
    first, second = state.sides
    assert first.hp == second.hp == 30 == ruleset.constants.starting_hp
    assert len(second.hand) == 7 and len(second.deck) == 52 - 7
    # seat 0 is in its first Action Phase: it drew for turn 1 (first_player_draws) and has 1 Mana, 1 Gold
    assert len(first.hand) == 8 and len(first.deck) == 52 - 8
    assert (first.mana, first.gold, state.turn, state.active, state.to_act) == (1, 1, 1, 0, 0)
    assert Counter(first.hand + first.deck) == Counter(decks[0].cards)


def test_shuffles_come_from_the_seed(frontier):
    eng, pool, _data, _rules, decks = frontier
    a, b, c = (eng.new_match(pool, decks, s) for s in (1, 1, 2))
    assert a.sides[0].deck == b.sides[0].deck and a.sides[0].deck != c.sides[0].deck
    # each seat has its own shuffle stream
    mirror = eng.new_match(pool, [decks[0], decks[0]], 1)
    assert mirror.sides[0].hand[:7] != mirror.sides[1].hand


def test_first_player_skips_draw_variant():
    from cardsdb.loader import load_ruleset
    from sim.registry import engine

    data, ruleset = load_ruleset("frontier", "first-player-skips-draw")
    eng = engine("frontier")
    pool = eng.compile_pool(ruleset)
    decks = [eng.compile_deck(pool, data.decks[d]) for d in ("lawmen-posse", "goblin-gold-gang")]
    state = eng.new_match(pool, decks, 1)
    assert len(state.sides[0].hand) == 7


def test_second_seat_extra_cards_deepen_only_the_later_seats_opening_hand(frontier):
    """A rules constant (0 in base): the seat acting second starts with more cards."""
    eng, _pool, _data, ruleset, decks = frontier
    consts = ruleset.constants.model_copy(update={"second_seat_extra_cards": 2})
    pool = eng.compile_pool(replace(ruleset, constants=consts))
    state = eng.new_match(pool, decks, 1)
    first, second = state.sides
    assert len(second.hand) == 7 + 2 and len(second.deck) == 52 - 9
    assert len(first.hand) == 7 + 1, "seat 0 gets no extra card (it drew for its first turn)"
