"""Information hygiene (issue 12, item 4): a pilot's choice depends only on what its seat may know.

Every engine in the registry, every pilot in ``PILOTS`` (a budgeted one at a small budget): at
positions reached by seeded play, the hidden information of the other seats is scrambled in every
way the acting seat could not tell apart (their hands and decks permuted, hand cards swapped with
deck cards, face-down identities swapped with other unseen Hustles and Ambushes, the acting seat's
own deck order permuted), and a pilot built afresh on the same stream must choose the same action.
In a duel every card entering or leaving a hidden zone is seen doing so, so the multiset of a
seat's hidden cards is its open deck list minus the copies seen elsewhere: every swap consistent
with what the acting seat saw is such a permutation (cards it was shown stay where they are).
"""
from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest

from sim.core.match import play_match
from sim.core.pilots import PILOTS, make_pilot
from sim.registry import ENGINES, engine

DATA = Path(__file__).resolve().parents[1] / "cardsdb"
DECKS = {  # decks with the game's hidden-information features (AlleyWay: PLUNDER, face-down cards)
    "frontier": ("goblin-gold-gang", "lawmen-posse"),
    "alleyway": ("marlows-crew", "vales-high-rollers"),
    "allegiance": ("citadel-wardens", "forge-reapers"),
}
POSITIONS = 12  # per game
# a budgeted pilot at a small budget: mcts 8 playouts, the planner 2 worlds (so a line averaged
# over worlds is checked too)
SMALL_BUDGET = {"planner": 2}
PILOT_NAMES = [f"{name}:{SMALL_BUDGET.get(name, 8)}" if getattr(cls, "takes_budget", False) else name
               for name, cls in PILOTS.items()]


@lru_cache(maxsize=None)
def game(name: str):
    from cardsdb.loader import load_ruleset

    data, ruleset = load_ruleset(name, "base", DATA)
    eng = engine(name)
    pool = eng.compile_pool(ruleset)
    ids = DECKS.get(name) or sorted(d for d in data.decks)[:2]
    return eng, pool, [eng.compile_deck(pool, data.decks[d]) for d in ids]


@lru_cache(maxsize=None)
def positions(name: str) -> tuple:
    """Decision points of seeded greedy matches with more than one choice, spread over the match
    (mid-game ones with cards in hands and decks, and face-down cards where the game has them)."""
    eng, pool, decks = game(name)
    found = []
    for seed in (3, 8):
        seen = []
        play_match(eng, pool, decks, seed, ["greedy", "greedy"], log=False,
                   on_decision=lambda state, action, seen=seen: seen.append(state.clone())
                   if len(eng.legal_actions(state)) > 1 and _hides(state) else None)
        rich = [s for s in seen if _face_down(s) or getattr(s, "known", ())]
        step = max(1, len(seen) // (POSITIONS // 2))
        picked = seen[step // 2::step][:POSITIONS // 2 - 1] + rich[len(rich) // 2:len(rich) // 2 + 1]
        found.extend(picked)
    return tuple(found)


def _hides(state) -> bool:
    """Another seat than the one to act holds cards in its hand and deck."""
    return any(side.hand and side.deck for t, side in enumerate(state.sides) if t != state.to_act)


def _face_down(state) -> int:
    return sum(1 for side in state.sides for b in getattr(side, "back", ()) if b is not None and not b.face_up)


# --- scrambling what the acting seat cannot see --------------------------------------------------

def scramble(name: str, state, seat: int, rng: random.Random):
    s = state.clone()
    if name == "alleyway":
        _scramble_alleyway(s, seat, rng)
        return s
    for t, side in enumerate(s.sides):
        if t == seat:
            rng.shuffle(side.deck)
        else:
            pool = side.hand + side.deck
            rng.shuffle(pool)
            n = len(side.hand)
            side.hand, side.deck = pool[:n], pool[n:]
        if name == "allegiance" and len(side.strongholds) > 2:
            rest = side.strongholds[1:]
            rng.shuffle(rest)
            side.strongholds[1:] = rest
    return s


def _scramble_alleyway(s, seat: int, rng: random.Random) -> None:
    from sim.alleyway import hidden
    from sim.alleyway.state import Back

    cards = s.pool.cards
    marked = hidden.sees_hidden(s, seat)
    for t, side in enumerate(s.sides):
        see_hand = t == seat or marked or hidden.shown_hand(s, seat, t)
        see_back = t == seat or marked
        slots = [("hand", i) for i in range(len(side.hand))] if not see_hand else []
        slots += [("deck", i) for i in range(len(side.deck))]
        if not see_back:
            slots += [("back", i) for i, b in enumerate(side.back) if b is not None and not b.face_up]
        zone = {"hand": side.hand, "deck": side.deck}
        get = lambda z, i, side=side, zone=zone: side.back[i].card if z == "back" else zone[z][i]  # noqa: E731
        fixed = set()
        for e in s.known:  # what the seat was shown stays where it is
            if e[0] != seat or e[1] != t:
                continue
            if e[2] == hidden.HAND and not see_hand:
                i = next((i for i, c in enumerate(side.hand) if c == e[3] and ("hand", i) not in fixed), None)
                if i is not None:
                    fixed.add(("hand", i))
            elif e[2] == hidden.DECK and e[4] < len(side.deck) and side.deck[e[4]] == e[3]:
                fixed.add(("deck", e[4]))
            elif e[2] == hidden.BACK and not see_back:
                fixed.add(("back", e[4]))
        free = [p for p in slots if p not in fixed]
        pool = [get(*p) for p in free]
        rng.shuffle(pool)
        for z, i in free:
            if z == "back":  # a face-down card is some unseen Hustle or Ambush
                k = next(k for k, c in enumerate(pool) if cards[c].type in hidden.SETTABLE)
                b = side.back[i]
                side.back[i] = Back(pool.pop(k), False, b.set_turn, b.host, b.owner)
        for z, i in free:
            if z != "back":
                zone[z][i] = pool.pop()


# --- the tests -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(ENGINES))
def test_positions_hold_hidden_cards(name):
    """The positions are worth testing: cards in hands and decks, face-down cards where there are."""
    found = positions(name)
    assert len(found) >= 6
    assert all(any(side.hand for side in s.sides) and any(side.deck for side in s.sides) for s in found)
    if name == "alleyway":
        assert any(_face_down(s) for s in found)


@pytest.mark.parametrize("pilot", PILOT_NAMES)
@pytest.mark.parametrize("name", list(ENGINES))
def test_choice_ignores_what_the_seat_cannot_see(name, pilot):
    eng = game(name)[0]
    for k, state in enumerate(positions(name)):
        seat = state.to_act
        actions = eng.legal_actions(state)
        chosen = make_pilot(pilot, eng, seat, random.Random(1000 + k)).choose(state.clone(), actions)
        for trial in range(3):
            other = scramble(name, state, seat, random.Random(77 * k + trial))
            assert eng.legal_actions(other) == actions, f"{name} position {k}: the seat's options changed"
            again = make_pilot(pilot, eng, seat, random.Random(1000 + k)).choose(other, actions)
            assert again == chosen, (f"{name} position {k} (turn {state.turn}, p{seat}): {pilot} chose "
                                     f"{eng.describe(state, chosen)} but {eng.describe(state, again)} "
                                     f"when the other seats' hidden cards were scrambled")


def _hidden(name: str, side) -> Counter:
    cards = Counter(side.hand) + Counter(side.deck)
    if name == "alleyway":
        cards += Counter(b.card for b in side.back if b is not None and not b.face_up)
    return cards


@pytest.mark.parametrize("name", list(ENGINES))
def test_beliefs_are_possible(name):
    """A belief holds the same number of cards in every zone, every card conserved against the
    declared lists (the engine's invariants), each seat's hidden cards the same multiset (its list
    minus what was seen), face-down cards Hustles or Ambushes, and depends on no hidden order."""
    eng = game(name)[0]
    for k, state in enumerate(positions(name)):
        for seat in range(len(state.sides)):
            belief = eng.determinize(state, seat, random.Random(k))
            problems = [p for p in eng.check_invariants(belief) if "conserved" in p]
            assert not problems, f"{name} position {k}, p{seat}'s belief: {problems}"
            for t, (real, side) in enumerate(zip(state.sides, belief.sides)):
                assert len(side.hand) == len(real.hand) and len(side.deck) == len(real.deck)
                assert _hidden(name, side) == _hidden(name, real), f"{name} position {k}: p{t} as p{seat} believes it"
                if t == seat:
                    assert side.hand == real.hand
                if name == "alleyway":
                    from sim.alleyway.hidden import SETTABLE
                    for b, rb in zip(side.back, real.back):
                        assert (b is None) == (rb is None)
                        if b is not None:
                            assert b.face_up == rb.face_up and (b.face_up <= (b.card == rb.card))
                            assert b.face_up or state.pool.cards[b.card].type in SETTABLE
            again = eng.determinize(scramble(name, state, seat, random.Random(k + 50)), seat, random.Random(k))
            view = lambda st: [(s.hand, s.deck, [b and b.card for b in getattr(s, "back", ())]) for s in st.sides]  # noqa: E731
            assert view(again) == view(belief), f"{name} position {k}: p{seat}'s belief depends on hidden order"


# --- a card shown to a seat stays in its beliefs (AlleyWay: Frontier and Allegiance show none) ----

def _alleyway_position():
    state = next(s for s in positions("alleyway") if all(side.hand and side.deck for side in s.sides)
                 and not s.over)
    return state.clone()


def _beliefs(state, seat: int, n: int = 12):
    eng = game("alleyway")[0]
    return [eng.determinize(state, seat, random.Random(i)) for i in range(n)]


def test_a_plundered_card_stays_known_to_its_victim():
    from sim.alleyway.effects import plunder_card

    state = _alleyway_position()
    thief, victim = 0, 1
    card = state.sides[victim].hand[0]
    plunder_card(state, thief, victim, "hand", card)
    for belief in _beliefs(state, victim):
        assert belief.sides[thief].hand.count(card) >= 1
    # without the record the belief forgets it at some point (the test can tell)
    forgetful = state.clone()
    forgetful.known = ()
    assert any(b.sides[thief].hand.count(card) < state.sides[thief].hand.count(card)
               for b in _beliefs(forgetful, victim, 30))


def test_a_card_sent_back_is_known_in_the_hand_and_on_the_deck_top():
    from sim.alleyway.field import DECK, HAND, draw, leave

    state = _alleyway_position()
    for owner in (0, 1):
        unit = next((u for side in state.sides for u in side.lanes
                     if u is not None and u.owner == owner and not u.token and not u.leader and not u.under), None)
        if unit is None:
            continue
        card = unit.card
        watcher = 1 - owner
        state2 = state.clone()
        before = state2.sides[owner].hand.count(card)
        leave(state2, state2.find(unit.uid), HAND)
        for belief in _beliefs(state2, watcher):
            assert belief.sides[owner].hand.count(card) >= before + 1
        state3 = state.clone()
        leave(state3, state3.find(unit.uid), DECK)
        for seat in (watcher, owner):  # the owner does not know its deck order, but saw this
            for belief in _beliefs(state3, seat):
                assert belief.sides[owner].deck[-1] == card
        draw(state3, owner)
        for belief in _beliefs(state3, watcher):
            assert belief.sides[owner].hand.count(card) >= 1 + before
        return
    pytest.skip("no character to send back at this position")


def test_a_shown_hand_is_remembered_and_forgotten_when_redrawn():
    from sim.alleyway import hidden

    state = _alleyway_position()
    hand = sorted(state.sides[1].hand)
    hidden.show_hand(state, 0, 1)
    for belief in _beliefs(state, 0):
        assert sorted(belief.sides[1].hand) == hand
    hidden.forget_hand(state, 1)
    assert any(sorted(b.sides[1].hand) != hand for b in _beliefs(state, 0, 30))


def test_marked_is_remembered_after_it_lapses(monkeypatch):
    from sim.alleyway import hidden

    state = _alleyway_position()
    monkeypatch.setattr(hidden, "sees_hidden", lambda s, seat: seat == 0)
    hidden.remember_marked(state)
    monkeypatch.undo()
    hand = sorted(state.sides[1].hand)
    down = [b.card if b is not None and not b.face_up else None for b in state.sides[1].back]
    for belief in _beliefs(state, 0):
        assert sorted(belief.sides[1].hand) == hand
        assert [b.card if b is not None and not b.face_up else None for b in belief.sides[1].back] == down
