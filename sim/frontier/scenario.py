"""Scenarios for Wild Frontier: a declared position, actions written as words, and a snapshot
of the state that expectations are checked against.

Words for actions (what ``describe`` prints and ``parse_action`` reads):
    end                       end the turn
    play <card> <lane>        a creature into one of your lanes (m1..m5, hr1, hr2)
    play <card>               a spell
    attack <lane> <p?.target> the creature in your lane attacks p1.m3, p1.hr1 or p1.sheriff
    choose <p?.target>        the target of the effect being resolved (p1.m2, p0.sheriff, p0.m4)
"""
from __future__ import annotations

from typing import Any

from sim.core.scenario import named_action
from sim.frontier.actions import ATTACK, CHOOSE, END, PLAY, Action
from sim.frontier.pool import CREATURE, Pool
from sim.frontier.state import ACTION, SHERIFF, FrontierState, Unit, decode
from sim.frontier.turns import attacks_per_turn

SEAT_KEYS = {"hp", "max_hp", "mana", "gold", "gold_bonus", "turns", "hand", "deck", "discard", "lanes", "cover"}
UNIT_KEYS = {"card", "atk", "def", "max_def", "damage", "attacks_left", "ready", "fresh"}


def target_name(state: FrontierState, target: int) -> str:
    seat, lane = decode(target)
    return f"p{seat}.{'sheriff' if lane == SHERIFF else state.pool.lane_names[lane]}"


def describe(state: FrontierState, action: Action) -> str:
    pool = state.pool
    if action.kind == END:
        return "end"
    if action.kind == PLAY:
        slug = pool.cards[action.a].slug
        return f"play {slug}" if action.b < 0 else f"play {slug} {pool.lane_names[action.b]}"
    if action.kind == ATTACK:
        return f"attack {pool.lane_names[action.a]} {target_name(state, action.b)}"
    if action.kind == CHOOSE:
        return f"choose {target_name(state, action.a)}"
    return repr(action)


def parse_action(engine, state: FrontierState, text: str) -> Action:
    """The legal action named by ``text``; a unique prefix such as "attack m3" is enough."""
    return named_action(engine, state, text)


def _card(pool: Pool, slug: Any, where: str) -> int:
    if slug not in pool.ids:
        raise ValueError(f"{where}: unknown card {slug!r}")
    return pool.ids[slug]


def scenario_state(pool: Pool, setup: dict, seed: int) -> FrontierState:
    from sim.frontier.engine import blank_state  # engine imports this module

    unknown = set(setup) - {"active", "turn", "seats"}
    if unknown:
        raise ValueError(f"setup: unknown field {sorted(unknown)[0]!r} (use active, turn, seats)")
    seats = setup.get("seats") or [{}, {}]
    state = blank_state(pool, len(seats), seed, log=True)
    state.turn = int(setup.get("turn", 1))
    state.active = state.to_act = int(setup.get("active", 0))
    state.phase = ACTION
    n = len(seats)
    for seat, spec in enumerate(seats):
        _fill_seat(state, seat, spec or {}, n)
    return state


def _fill_seat(state: FrontierState, seat: int, spec: dict, n_seats: int) -> None:
    pool, consts = state.pool, state.pool.consts
    where = f"setup.seats[{seat}]"
    unknown = set(spec) - SEAT_KEYS
    if unknown:
        raise ValueError(f"{where}: unknown field {sorted(unknown)[0]!r} (use {', '.join(sorted(SEAT_KEYS))})")
    side = state.sides[seat]
    side.max_hp = int(spec.get("max_hp", consts.starting_hp))
    side.hp = int(spec.get("hp", side.max_hp))
    # a seat's own turns so far, if the turns went round the table from seat 0
    side.turns = int(spec.get("turns", max(1, (state.turn - seat + n_seats - 1) // n_seats)))
    active = seat == state.active
    side.mana = int(spec.get("mana", side.turns if active else 0))
    side.gold = int(spec.get("gold", consts.gold_per_turn if active else 0))
    side.gold_bonus = int(spec.get("gold_bonus", 0))
    side.hand = [_card(pool, s, f"{where}.hand") for s in spec.get("hand", [])]
    # the deck is written top card first; the engine draws from the end of its list
    side.deck = [_card(pool, s, f"{where}.deck") for s in reversed(spec.get("deck", []))]
    side.discard = [_card(pool, s, f"{where}.discard") for s in spec.get("discard", [])]
    for lane_name, unit_spec in (spec.get("lanes") or {}).items():
        if lane_name not in pool.lane_index:
            raise ValueError(f"{where}.lanes: unknown lane {lane_name!r} (use {', '.join(pool.lane_names)})")
        lane = pool.lane_index[lane_name]
        side.lanes[lane] = _unit(state, seat, lane, unit_spec, f"{where}.lanes.{lane_name}")
    for lane_name, count in (spec.get("cover") or {}).items():
        if lane_name not in pool.lane_index or pool.lane_index[lane_name] >= pool.n_middle:
            raise ValueError(f"{where}.cover: Cover goes in a middle lane, not {lane_name!r}")
        side.cover[pool.lane_index[lane_name]] = int(count)
    on_board = [u.card for u in side.lanes if u is not None]
    side.decklist = tuple(sorted(side.hand + side.deck + side.discard + on_board))


def _unit(state: FrontierState, seat: int, lane: int, spec: Any, where: str) -> Unit:
    if isinstance(spec, str):
        spec = {"card": spec}
    unknown = set(spec) - UNIT_KEYS
    if unknown:
        raise ValueError(f"{where}: unknown field {sorted(unknown)[0]!r} (use {', '.join(sorted(UNIT_KEYS))})")
    card = state.pool.cards[_card(state.pool, spec.get("card"), where)]
    if card.type != CREATURE:
        raise ValueError(f"{where}: {card.slug} is not a creature")
    u = Unit.__new__(Unit)
    u.card, u.uid, u.owner, u.lane = card.id, state.next_uid, seat, lane
    state.next_uid += 1
    u.atk = int(spec.get("atk", card.atk))
    u.max_hp = int(spec.get("max_def", spec.get("def", card.hp + card.fortify)))
    u.hp = int(spec.get("def", u.max_hp)) - int(spec.get("damage", 0))
    u.kw = card.kw
    ready = spec.get("ready", True)
    u.attacks_left = int(spec.get("attacks_left", attacks_per_turn(card.kw) if ready else 0))
    # a High-Rise unit that has not attacked yet is fresh, unless the scenario says otherwise
    u.fresh = bool(spec.get("fresh", lane >= state.pool.n_middle)) and lane >= state.pool.n_middle
    return u


def snapshot(state: FrontierState) -> dict:
    pool = state.pool
    out: dict[str, Any] = {
        "turn": state.turn, "active": state.active, "to_act": state.to_act, "phase": state.phase,
        "over": state.over, "winner": state.winner, "reason": state.reason or None,
        "choice": [target_name(state, t) for t in state.pending[2]] if state.pending else None,
    }
    for seat, side in enumerate(state.sides):
        lanes = {}
        for lane, u in enumerate(side.lanes):
            lanes[pool.lane_names[lane]] = None if u is None else {
                "card": pool.cards[u.card].slug, "atk": u.atk, "def": u.hp, "max_def": u.max_hp,
                "attacks_left": u.attacks_left, "fresh": u.fresh}
        out[f"p{seat}"] = {
            "hp": side.hp, "max_hp": side.max_hp, "mana": side.mana, "gold": side.gold,
            "gold_bonus": side.gold_bonus, "turns": side.turns,
            "hand": [pool.cards[c].slug for c in side.hand], "hand_size": len(side.hand),
            "deck_size": len(side.deck), "discard": [pool.cards[c].slug for c in side.discard],
            "lanes": lanes, "cover": {pool.lane_names[i]: n for i, n in enumerate(side.cover)},
            "creatures": sum(u is not None for u in side.lanes),
        }
    return out


def board(state: FrontierState) -> dict:
    """The table as a person sees it: one row per seat, one per creature or Cover on the field."""
    pool = state.pool
    seats, field = [], []
    for seat, side in enumerate(state.sides):
        seats.append({"seat": f"p{seat}", "hp": side.hp, "mana": side.mana, "gold": side.gold,
                      "hand": len(side.hand), "deck": len(side.deck), "discard": len(side.discard),
                      "to_act": seat == state.to_act})
        for lane, name in enumerate(pool.lane_names):
            u = side.lanes[lane]
            cover = side.cover[lane] if lane < pool.n_middle else 0
            if u is None and not cover:
                continue
            field.append({"seat": f"p{seat}", "lane": name,
                          "card": pool.cards[u.card].name if u is not None else "",
                          "atk": u.atk if u is not None else None, "def": u.hp if u is not None else None,
                          "cover": cover, "fresh": bool(u is not None and u.fresh),
                          "attacks_left": u.attacks_left if u is not None else None})
    return {"seats": seats, "field": field}
