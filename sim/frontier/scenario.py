"""Scenarios for Wild Frontier: a declared position, actions written as words, and a snapshot
of the state that expectations are checked against.

Words for actions (what ``describe`` prints and ``parse_action`` reads):
    end                       end the turn
    play <card> <lane>        a creature into one of your lanes (m1..m5, hr1, hr2)
    play <card>               a spell
    attack <lane> <p?.target> the creature in your lane attacks p1.m3, p1.hr1 or p1.sheriff
    choose <p?.target>        the target of the effect being resolved (p1.m2, p0.sheriff, p0.m4)
    choose pass               decline an optional choice (Stampede's shove, Overdrive)
    choose overdrive          pay Overdrive's extra Gold
    choose mode <n>           the n-th mode of a modal effect (1 = the first)
    summon <deputy> <lane>    a Deputy from the Deputy Zone into an empty lane
    ability <deputy>          an off-board Deputy's ability
    sheriff discard <card>    Zix's discard-for-2 draw

Setup: ``start: true`` begins the match from the written position instead of joining it in
the middle: sheriffs' starting passives apply, opening hands are drawn from the top of each
written deck (no shuffle), and seat 0's first turn starts (Draw and Resource phases); a written
``turn``, ``active`` or seat ``turns`` is refused, as it would be ignored.
"""
from __future__ import annotations

from typing import Any

from sim.core.position import Fields, seat_specs, whole_number
from sim.core.scenario import Slot, WholeNumbers, card_id, literal
from sim.core.setup import draw_opening
from sim.frontier.actions import ABILITY, ATTACK, CHOOSE, END, PLAY, SHERIFF_ACT, SUMMON, Action
from sim.frontier.blank import blank_state, set_deputies, set_sheriff
from sim.frontier.combat import power
from sim.frontier.pool import CREATURE, DEPUTY, FLAG_KEYWORDS, Pool
from sim.frontier.sheriffs import NO_SHERIFF, SHERIFF_NAMES
from sim.frontier.state import ACTION, MODE, ON_FIELD, OVERDRIVE, PASS, SHERIFF, FrontierState, Unit, decode
from sim.frontier.turns import attacks_per_turn, opening_hand_size, start_turn

SEAT_KEYS = {"hp", "max_hp", "mana", "gold", "gold_bonus", "turns", "hand", "deck", "discard", "lanes", "cover",
             "sheriff", "deputies", "deputy_ready", "deputy_used", "mana_bonus", "discard_uses_left"}
UNIT_KEYS = {"card", "atk", "def", "max_def", "damage", "attacks_left", "ready", "fresh", "skip", "charged"}


def target_name(state: FrontierState, target: int) -> str:
    if target == PASS:
        return "pass"
    if target == OVERDRIVE:
        return "overdrive"
    if target <= MODE:
        return f"mode {MODE - target + 1}"
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
        fx = state.pending.fx if state.pending else None
        if fx is not None and fx.kind == "lane" and fx.side == "any" and action.a >= 0:
            return f"choose {pool.lane_names[decode(action.a).lane]}"  # a lane of both sides
        return f"choose {target_name(state, action.a)}"
    if action.kind == SUMMON:
        slug = pool.cards[state.sides[state.active].deputies[action.a]].slug
        return f"summon {slug} {pool.lane_names[action.b]}"
    if action.kind == ABILITY:
        return f"ability {pool.cards[state.sides[state.active].deputies[action.a]].slug}"
    if action.kind == SHERIFF_ACT:
        return f"sheriff discard {pool.cards[action.a].slug}"
    return repr(action)


def action_forms(state: FrontierState) -> list[tuple[Slot, ...]]:
    """The forms of the words ``describe`` prints (the module's note), each place with the words
    that may stand there: what a step's words are read against before anything plays."""
    pool = state.pool
    card = Slot("a card id", frozenset(c.slug for c in pool.cards))
    lane = Slot("a lane", tuple(pool.lane_names))
    target = Slot("a target", tuple(f"p{seat}.{place}" for seat in range(len(state.sides))
                                    for place in (*pool.lane_names, "sheriff")))
    choice = Slot("a choice", ("pass", "overdrive"))
    return [(literal("end"),), (literal("play"), card, lane), (literal("attack"), lane, target),
            *((literal("choose"), slot) for slot in (target, lane, choice)),
            (literal("choose"), literal("mode"), Slot("a mode's number", WholeNumbers())),
            (literal("summon"), card, lane), (literal("ability"), card),
            (literal("sheriff"), literal("discard"), card)]


# The largest number a position may hold: the bound cardsdb/frontier/schema.py sets on the game's
# data (HP 30, costs and stats in ones and tens), far below the store's 32-bit columns.
MAX_NUMBER = 99_999
GAME = "Wild Frontier"  # a duel: two seats
MAX_ATTACKS = 2  # a Double Barrel creature's attacks in a turn, the most any creature gets (invariants)


def scenario_state(pool: Pool, setup: dict, seed: int) -> FrontierState:
    fields = Fields(setup, "setup", ("active", "turn", "seats", "start"), MAX_NUMBER)
    seats = seat_specs(setup, 2, 2, GAME)
    state = blank_state(pool, len(seats), seed, log=True)
    start = fields.flag("start")
    for key in ("turn", "active") if start else ():
        if fields.given(key):  # the match begins at seat 0's first turn: a written turn would be ignored
            raise ValueError(f"setup.{key}: start: true begins the match at turn 0, seat 0 to act (leave {key} out)")
    turn_limit = pool.consts.turn_limit
    state.turn = 0 if start else fields.whole("turn", 1, most=turn_limit, why=" (the rules' turn_limit)")
    state.active = state.to_act = 0 if start else fields.whole("active", 0, most=len(seats) - 1)
    state.phase = ACTION
    n = len(seats)
    for seat, spec in enumerate(seats):
        _fill_seat(state, seat, spec, n, start)
    if start:
        _start_match(state)
    return state


def _start_match(state: FrontierState) -> None:
    """Opening hands from the top of each written deck, then seat 0's first turn."""
    for seat, side in enumerate(state.sides):
        set_sheriff(state, seat, side.sheriff)
        draw_opening(side, opening_hand_size(state.pool, seat, side.sheriff))
    start_turn(state, 0)


def _fill_seat(state: FrontierState, seat: int, spec: dict, n_seats: int, start: bool = False) -> None:
    pool, consts = state.pool, state.pool.consts
    where = f"setup.seats[{seat}]"
    fields = Fields(spec, where, SEAT_KEYS, MAX_NUMBER)
    side = state.sides[seat]
    sheriff = spec.get("sheriff")
    if sheriff is not None and sheriff not in SHERIFF_NAMES:
        raise ValueError(f"{where}.sheriff: unknown sheriff {sheriff!r} (use {', '.join(SHERIFF_NAMES)})")
    side.sheriff = NO_SHERIFF if sheriff is None else SHERIFF_NAMES.index(sheriff)
    passives = pool.sheriffs[side.sheriff]
    default_hp = passives.start_hp
    side.max_hp = fields.whole("max_hp", default_hp, least=1)
    # a sheriff at 0 HP has lost; above max_hp is more than the seat can ever hold
    side.hp = fields.whole("hp", side.max_hp, least=1, most=side.max_hp, why=" (its max_hp)")
    side.discard_uses_left = fields.whole("discard_uses_left", passives.discard_uses)
    side.mana_bonus = fields.whole("mana_bonus", 0)
    # a seat's own turns so far: the turns go round the table from seat 0, so by turn 3 seat 0
    # has had two and seat 1 one; more is a position no match reaches (``turns: 40`` at turn 3
    # was accepted), and the default is the most
    turn_limit = consts.turn_limit
    default_turns = max(1, (state.turn - seat + n_seats - 1) // n_seats)
    if start and fields.given("turns"):
        raise ValueError(f"{where}.turns: start: true begins the match, each seat at 0 turns (leave turns out)")
    side.turns = 0 if start else fields.whole("turns", default_turns, most=default_turns,
                                              why=f" (seat {seat}'s own turns by turn {state.turn}, seat 0 first)")
    active = seat == state.active
    # Mana and Gold have no cap in the guide: only the game's largest number bounds them
    side.mana = fields.whole("mana", side.turns if active else 0)
    side.gold = fields.whole("gold", consts.gold_per_turn if active else 0)
    side.gold_bonus = fields.whole("gold_bonus", 0)
    hand = fields.names("hand", most=consts.hand_limit, why=" (the rules' hand_limit)")
    side.hand = [card_id(pool, s, f"{where}.hand") for s in hand]
    # the deck is written top card first; the engine draws from the end of its list
    side.deck = [card_id(pool, s, f"{where}.deck") for s in reversed(fields.names("deck"))]
    side.discard = [card_id(pool, s, f"{where}.discard") for s in fields.names("discard")]
    for lane_name, unit_spec in fields.mapping("lanes", "lane names to units").items():
        if lane_name not in pool.lane_index:
            raise ValueError(f"{where}.lanes: unknown lane {lane_name!r} (use {', '.join(pool.lane_names)})")
        lane = pool.lane_index[lane_name]
        side.lanes[lane] = _unit(state, seat, lane, unit_spec, f"{where}.lanes.{lane_name}")
    for lane_name, count in fields.mapping("cover", "middle lanes to Cover tokens").items():
        if lane_name not in pool.lane_index or pool.lane_index[lane_name] >= pool.n_middle:
            raise ValueError(f"{where}.cover: Cover goes in a middle lane, not {lane_name!r}")
        side.cover[pool.lane_index[lane_name]] = whole_number(
            count, f"{where}.cover.{lane_name}", 0, consts.max_cover_per_lane, " (the rules' max_cover_per_lane)")
    deputy_names = fields.names("deputies", most=consts.deputies_per_deck, why=" (the rules' deputies_per_deck)")
    deputies = [card_id(pool, s, f"{where}.deputies") for s in deputy_names]
    if any(pool.cards[d].type != DEPUTY for d in deputies):
        raise ValueError(f"{where}.deputies: only Deputy cards go there")
    set_deputies(side, tuple(deputies))
    slugs = [pool.cards[d].slug for d in deputies]
    for slug, turn in fields.mapping("deputy_ready", "Deputy ids to the turn each is ready").items():
        if slug not in slugs:
            raise ValueError(f"{where}.deputy_ready: {slug!r} is not one of this seat's deputies")
        side.dzone[slugs.index(slug)] = whole_number(turn, f"{where}.deputy_ready.{slug}", 0, turn_limit,
                                                     " (the rules' turn_limit)")
    for slug in fields.names("deputy_used", "Deputy ids"):
        if slug not in slugs:
            raise ValueError(f"{where}.deputy_used: {slug!r} is not one of this seat's deputies")
        side.dused[slugs.index(slug)] = side.turns
    on_board = []
    for u in side.lanes:
        if u is None:
            continue
        if pool.cards[u.card].type == DEPUTY:
            if u.card not in deputies:
                raise ValueError(f"{where}.lanes: Deputy {pool.cards[u.card].slug} is not one of this seat's deputies")
            side.dzone[deputies.index(u.card)] = ON_FIELD
        else:
            on_board.append(u.card)
    side.decklist = tuple(sorted(side.hand + side.deck + side.discard + on_board))


def _unit(state: FrontierState, seat: int, lane: int, spec: Any, where: str) -> Unit:
    if isinstance(spec, str):
        spec = {"card": spec}
    fields = Fields(spec, where, UNIT_KEYS, MAX_NUMBER)
    card = state.pool.cards[card_id(state.pool, spec.get("card"), where)]
    if card.type not in (CREATURE, DEPUTY):
        raise ValueError(f"{where}: {card.slug} is not a creature or a Deputy")
    u = Unit.__new__(Unit)
    u.card, u.uid, u.owner, u.lane = card.id, state.next_uid, seat, lane
    state.next_uid += 1
    u.atk = fields.whole("atk", card.atk)
    printed = card.hp + card.fortify
    u.max_hp = fields.whole("max_def", fields.whole("def", printed, least=1), least=1)
    written = fields.whole("def", u.max_hp, least=1, most=u.max_hp, why=" (its max_def)")
    # a unit with no DEF left is dead: it cannot stand in a lane
    u.hp = written - fields.whole("damage", 0, most=written - 1, why=" (one less than its DEF)")
    u.kw = card.kw
    ready = fields.flag("ready", True)
    u.attacks_left = fields.whole("attacks_left", attacks_per_turn(card.kw) if ready else 0, most=MAX_ATTACKS,
                                  why=" (attacks a turn)")
    # a High-Rise unit that has not attacked yet is fresh, unless the scenario says otherwise;
    # only High-Rise has fresh units (the guide), so fresh in a middle lane is refused, not dropped
    high_rise = lane >= state.pool.n_middle
    u.fresh = fields.flag("fresh", high_rise)
    if u.fresh and not high_rise:
        raise ValueError(f"{where}.fresh: only a High-Rise unit ({', '.join(state.pool.lane_names[state.pool.n_middle:])})"
                         " is fresh, not one in a middle lane")
    u.skip = fields.whole("skip", 0)
    u.charged = fields.flag("charged")
    u.gen, u.value = state.gen, None
    return u


def keyword_names(kw: int) -> list[str]:
    return [name for name, bit in FLAG_KEYWORDS.items() if kw & bit]


def _deputy_state(side, slot: int) -> str:
    z = side.dzone[slot]
    if z == ON_FIELD:
        return "field"
    return "ready" if z <= side.turns else "resting"


def snapshot(state: FrontierState) -> dict:
    pool = state.pool
    out: dict[str, Any] = {
        "turn": state.turn, "active": state.active, "to_act": state.to_act, "phase": state.phase,
        "over": state.over, "winner": state.winner, "reason": state.reason or None,
        "choice": [describe(state, Action(CHOOSE, t))[7:] for t in state.pending.options] if state.pending else None,
    }
    for seat, side in enumerate(state.sides):
        lanes = {}
        for lane, u in enumerate(side.lanes):
            lanes[pool.lane_names[lane]] = None if u is None else {
                "card": pool.cards[u.card].slug, "atk": u.atk, "power": power(state, u), "def": u.hp,
                "max_def": u.max_hp, "attacks_left": u.attacks_left, "fresh": u.fresh, "skip": u.skip,
                "charged": u.charged, "keywords": keyword_names(u.kw)}
        out[f"p{seat}"] = {
            "hp": side.hp, "max_hp": side.max_hp, "mana": side.mana, "gold": side.gold,
            "gold_bonus": side.gold_bonus, "turns": side.turns,
            "hand": [pool.cards[c].slug for c in side.hand], "hand_size": len(side.hand),
            "deck_size": len(side.deck), "discard": [pool.cards[c].slug for c in side.discard],
            "lanes": lanes, "cover": {pool.lane_names[i]: n for i, n in enumerate(side.cover)},
            "creatures": sum(u is not None for u in side.lanes),
            "sheriff": pool.sheriffs[side.sheriff].id or None,  # the seat may have none
            "mana_bonus": side.mana_bonus, "discard_uses_left": side.discard_uses_left,
            "deputies": {pool.cards[d].slug: _deputy_state(side, i) for i, d in enumerate(side.deputies)},
            "deputy_ready": {pool.cards[d].slug: side.dzone[i] for i, d in enumerate(side.deputies)},
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
