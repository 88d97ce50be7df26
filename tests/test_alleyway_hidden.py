"""A pilot sees only what its seat may see: hands, face-down cards and deck order are resampled by
``determinize``; MARKED shows its holder (and only it) the opponent's hand and face-down cards."""
import random

from sim.alleyway import hidden
from tests.alleyway_common import act, alleyway, scenario_state

HAND = ["dirty-cop", "gas-can", "sparky", "cash-out"]
DECK = ["static", "street-rat", "tripwire", "the-pit", "sable", "kindle-1", "gas-can", "doorman"]


def position(marked_by: str | None = None):
    """Seat 1 holds a hand and two face-down cards; seat 0 may hold a MARKED source."""
    seat0 = {"deck": ["static", "street-rat", "static"], "hand": ["static"]}
    if marked_by == "corner-lookout":
        seat0["lanes"] = {"l1": "corner-lookout"}
    elif marked_by == "marked-cards":
        seat0["back"] = {"b1": {"card": "marked-cards", "face": "up"}}
    seat1 = {"hand": HAND, "deck": DECK, "back": {"b1": "tripwire", "b2": "gas-can"}}
    return scenario_state({"seats": [seat0, seat1]})


def beliefs(eng, state, seat, n=12):
    return [eng.determinize(state, seat, random.Random(k)) for k in range(n)]


def face_down(side):
    return [b.card for b in side.back if b is not None and not b.face_up]


def test_without_marked_the_opponents_hidden_cards_are_resampled():
    eng, state = position()
    truth = state.sides[1]
    views = beliefs(eng, state, 0)
    assert any(sorted(v.sides[1].hand) != sorted(truth.hand) for v in views)
    assert any(face_down(v.sides[1]) != face_down(truth) for v in views)
    for v in views:
        side = v.sides[1]
        # what the seat knows is kept: sizes, which slots hold a card, the multiset not yet seen
        assert len(side.hand) == len(truth.hand) and len(side.deck) == len(truth.deck)
        assert sorted(side.hand + side.deck + face_down(side)) == sorted(truth.hand + truth.deck + face_down(truth))
        # a face-down card is always some Hustle or Ambush
        assert all(v.pool.cards[c].type in (1, 2) for c in face_down(side))
        # its own hand is known; its own deck order is not
        assert v.sides[0].hand == state.sides[0].hand
        assert v.chance_key != state.chance_key and v.events is None


def test_marked_shows_its_holder_the_hand_and_face_down_cards():
    for source in ("corner-lookout", "marked-cards"):
        eng, state = position(source)
        truth = state.sides[1]
        for v in beliefs(eng, state, 0):
            assert v.sides[1].hand == truth.hand, source
            assert face_down(v.sides[1]) == face_down(truth), source
            assert sorted(v.sides[1].deck) == sorted(truth.deck)
        # deck order stays hidden even from MARKED
        assert any(v.sides[1].deck != truth.deck for v in beliefs(eng, state, 0))


def test_marked_shows_nothing_to_the_other_seat():
    """Only the holder sees: seat 1's view of seat 0 is resampled as usual."""
    eng, state = position("corner-lookout")
    state.sides[0].hand = [state.pool.ids[c] for c in ("static", "gas-can", "sparky")]
    state.sides[0].cards = tuple(sorted(state.sides[0].cards + (state.pool.ids["gas-can"], state.pool.ids["sparky"])))
    views = beliefs(eng, state, 1, 20)
    assert any(v.sides[0].hand != state.sides[0].hand for v in views)


def test_marked_stops_when_its_source_stops_working():
    eng, state = position("corner-lookout")
    state.sides[0].lanes[0].downed = True          # a Downed character's effects are off
    views = beliefs(eng, state, 0, 20)
    assert any(sorted(v.sides[1].hand) != sorted(state.sides[1].hand) for v in views)


def test_a_hand_is_shown_only_while_its_owner_chooses_from_it():
    """Choosing a card to PLUNDER from the opponent's hand shows that hand to the chooser, for the
    choice; a random PLUNDER shows nothing."""
    from sim.alleyway.frames import CardChoice, Ctx
    from sim.alleyway.state import Pending

    eng, state = position()
    fx = type("Fx", (), {"source": "hand"})()
    state.pending = Pending(0, "card", sorted(set(state.sides[1].hand)), fx, Ctx(0, 0), 1, CardChoice("plunder", 1))
    for v in beliefs(eng, state, 0):
        assert v.sides[1].hand == state.sides[1].hand


def test_greedy_pilot_thinking_leaves_the_match_untouched_and_cannot_see_the_coin():
    from sim.core.pilots import make_pilot
    from sim.core.rng import Streams

    eng, pool, _data, _rules, decks = alleyway()
    state = eng.new_match(pool, [decks["cinder-wildfire"], decks["vales-high-rollers"]], 8)
    act(eng, state, "keep", "keep")
    before = eng.snapshot(state)
    chance_before = state.chance
    pilot = make_pilot("greedy", eng, 0, Streams(8).pilot(0))
    pilot.choose(state, eng.legal_actions(state))
    assert eng.snapshot(state) == before and state.chance is chance_before


def test_marked_in_turf_defense_shows_the_opponents_not_the_partner():
    """MARKED: "you can see your opponent's hand". In Turf Defense p0's partner p1 is no opponent:
    p0's belief keeps the boss's (p2's) real hand, and deals p1's afresh as without MARKED."""
    def belief_hands(first_lane: str, seat: int) -> int:
        _eng, state = scenario_state({"mode": "turf", "boss": "the-furnace-king", "seats": [
            {"lanes": {"l1": first_lane}, "deck": ["static"] * 5},
            {"hand": ["sarge"], "deck": ["static"] * 5},
            {"hand": ["sarge"], "deck": ["static"] * 5}]})
        assert hidden.sees_hidden(state, 0) == (first_lane == "corner-lookout")
        return sum(state.pool.slug(hidden.determinize(state, 0, random.Random(k)).sides[seat].hand[0]) == "sarge"
                   for k in range(20))

    assert belief_hands("corner-lookout", 2) == 20  # the boss, an opponent: seen
    seen_partner, unmarked_partner = belief_hands("corner-lookout", 1), belief_hands("static", 1)
    assert seen_partner == unmarked_partner < 20  # the partner: dealt afresh, as with no MARKED at all


def test_a_known_card_set_face_down_is_forgotten_in_hand():
    """p0 PLUNDERs Tripwire from p1's Gutter (shown to both) and sets it face-down. p1 saw a card
    go face-down, not which: the Tripwire it knew in p0's hand may be the one set, so p1's belief
    no longer keeps it in hand (it kept it there for ever, and was sure the face-down card was
    another), and the true world is among p1's beliefs."""
    eng, state = scenario_state({"seats": [
        {"hand": ["tidewater-tess-1", "static"], "deck": ["street-rat", "the-pit", "static", "doorman"], "authority": 5},
        {"gutter": ["tripwire"], "hand": ["static"], "deck": ["static", "street-rat", "static"]}]})
    slug = state.pool.slug
    act(eng, state, "deploy tidewater-tess-1 atk")
    assert [(e.observer, slug(e.card)) for e in state.known] == [(1, "tripwire")]  # shown to both
    act(eng, state, "set tripwire")
    assert not [e for e in state.known if e.observer == 1]
    act(eng, state, "brawl", "regroup", "end")

    def world(s):
        return sorted(slug(c) for c in s.sides[0].hand), face_down(s.sides[0])

    truth = world(state)
    beliefs = [world(b) for b in beliefs_of(eng, state, 1, 60)]
    assert truth in beliefs and any(b != truth for b in beliefs)


def beliefs_of(eng, state, seat, n):
    return [eng.determinize(state, seat, random.Random(k)) for k in range(n)]


def test_a_plundered_card_is_shown_to_every_seat_in_turf_defense():
    """"A plundered card is shown to both players": with three seats, p0 PLUNDERs a card from the
    boss's hand at random; the partner p1 saw it go into p0's hand too, so p1's belief keeps it
    there (it knew the card, yet dealt it into p0's deck most of the time)."""
    eng, state = scenario_state({"mode": "turf", "boss": "the-furnace-king", "seats": [
        {"lanes": {"l1": {"card": "bilge-3", "under": ["bilge-1", "bilge-2"]}}, "hand": ["static"],
         "deck": ["static", "street-rat", "static", "doorman"]},
        {"hand": ["static"], "deck": ["static", "street-rat", "static", "doorman"]},
        {"lanes": {"l1": {"card": "static", "pos": "def"}}, "hand": ["sarge", "sparky", "gas-can"],
         "deck": ["static", "street-rat", "static", "doorman"]}]})
    act(eng, state, "brawl", "attack l1 p2.l1")
    taken = [c for c in state.sides[0].hand if state.pool.slug(c) in ("sarge", "sparky", "gas-can")]
    assert len(taken) == 1
    assert {e.observer for e in state.known if e.card == taken[0] and e.owner == 0} == {1, 2}
    assert all(taken[0] in b.sides[0].hand for b in beliefs_of(eng, state, 1, 40))
