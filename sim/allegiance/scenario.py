"""Scenarios for Allegiance: a declared position, actions written as words, and a snapshot of
the state that expectations are checked against.

Cells are named by the half they are on and the row letter there: ``p0.B3`` is seat 0's row B,
column 3; ``p1.A1`` is seat 1's front row, column 1 (board.py).

Words for actions (what ``describe`` prints and ``parse_action`` reads):
    end                               end the turn
    muster <card>                     a Warrior from hand into the Muster Zone
    deploy <card>   then   to <cell>  deploy a Warrior (from hand on the first turn, a Blight
                                      Beast, or from the Muster Zone)
    move <cell>     then   to <cell>  move the Warrior on the first cell
    attack <cell> <ability> <cell> [cry <card>]   an attack, with a Battle Cry if named
    soul <cell> <cell>                Soul Combat against the Blight on the second cell
    support <cell> <ability> <cell>   a support ability aimed at the second cell
    supply <card> <cell>              a War Supply onto the cell
    tactic <card> | decline           the defender's answer to the attack under way
    discard <card>                    a discard down to the hand limit

Setup (each key optional):
    active, turn, blight: [cells], blight_destroyed,
    seats: [{ap, turns, hand, deck (top first), discard, muster: [card | {card, ready}],
             strongholds (the Stronghold deck, top first: the Bastion last), fallen,
             supplies, cries, tactics,
             units: {cell: card | {card, hp, max_hp, absorb, reflect, weapon, armor, power, boost,
                                   attacks, moves, used, tap}}}]
"""
from __future__ import annotations

from typing import Any

from sim.allegiance.actions import (
    ATTACK,
    CELL,
    DECLINE,
    DEPLOY,
    DISCARD,
    END,
    MOVE,
    MUSTER,
    P_DEFEND,
    P_DEPLOY,
    P_DISCARD,
    P_MOVE,
    SOUL,
    SUPPLY,
    SUPPORT,
    TACTIC,
    Action,
    Mustered,
)
from sim.allegiance.blank import blank_state
from sim.allegiance.effects import blight_on_side
from sim.allegiance.formations import in_formation
from sim.allegiance.pool import STRONGHOLD, WARRIOR, Pool
from sim.allegiance.state import DRAINED, NO_CARD, NORMAL, TAPPED, AllegianceState, Unit
from sim.core.position import Fields, seat_specs
from sim.core.scenario import Notation, Slot, card_id, literal

SETUP_KEYS = {"active", "turn", "blight", "blight_destroyed", "seats"}
SEAT_KEYS = {"ap", "turns", "hand", "deck", "discard", "muster", "strongholds", "fallen", "supplies",
             "cries", "tactics", "units"}
UNIT_KEYS = {"card", "hp", "max_hp", "absorb", "reflect", "weapon", "armor", "power", "boost", "attacks",
             "moves", "used", "tap"}
MUSTER_KEYS = {"card", "ready"}
# The largest number a position may hold: the bound cardsdb/allegiance/schema.py sets on the game's
# data (HP, damage and AP in ones and tens), far below the store's 32-bit columns.
MAX_NUMBER = 99_999
GAME = "Allegiance"  # a duel: two seats
TAPS = {"normal": NORMAL, "tapped": TAPPED, "drained": DRAINED}
TAP_NAMES = {v: k for k, v in TAPS.items()}


def action_forms(state: AllegianceState) -> list[tuple[Slot, ...]]:
    """The forms of the words ``describe`` prints (the module's note), each place with the words
    that may stand there: what a step's words are read against before anything plays."""
    pool = state.pool
    card = Slot("a card id", frozenset(c.slug for c in pool.cards))
    # a cell by its notation, the seat's half, a row letter and a column: one off the board is an
    # action never legal (the shipped battlefield scenarios pin the board's size so)
    cell = Slot("a cell (like p0.B3)", Notation(r"p[01]\.[A-Z][1-9][0-9]*"))
    attack = Slot("an attack ability", frozenset(a.name for c in pool.cards for a in c.attacks))
    support = Slot("a support ability", frozenset(a.name for c in pool.cards for a in c.supports))
    forms = [(literal("end"),), (literal("decline"),), (literal("soul"), cell, cell), (literal("supply"), card, cell),
             (literal("attack"), cell, attack, cell, literal("cry"), card), (literal("support"), cell, support, cell)]
    forms += [(literal(verb), card) for verb in ("muster", "deploy", "tactic", "discard")]
    forms += [(literal(verb), cell) for verb in ("move", "to")]
    return forms


def describe(state: AllegianceState, action: Action) -> str:
    pool = state.pool
    names, cards = pool.board.names, pool.cards
    kind = action.kind
    if kind == END:
        return "end"
    if kind == MUSTER:
        return f"muster {cards[action.a].slug}"
    if kind == DEPLOY:
        return f"deploy {cards[action.a].slug}"
    if kind == MOVE:
        return f"move {names[action.a]}"
    if kind == CELL:
        return f"to {names[action.a]}"
    if kind == ATTACK:
        ability = cards[state.cells[action.a].card].attacks[action.b].name
        text = f"attack {names[action.a]} {ability} {names[action.c]}"
        return text + (f" cry {cards[action.d].slug}" if action.d >= 0 else "")
    if kind == SOUL:
        return f"soul {names[action.a]} {names[action.b]}"
    if kind == SUPPORT:
        ability = cards[state.cells[action.a].card].supports[action.b].name
        return f"support {names[action.a]} {ability} {names[action.c]}"
    if kind == SUPPLY:
        return f"supply {cards[action.a].slug} {names[action.b]}"
    if kind == TACTIC:
        return f"tactic {cards[action.a].slug}"
    if kind == DECLINE:
        return "decline"
    if kind == DISCARD:
        return f"discard {cards[action.a].slug}"
    return repr(action)


# --- positions ---------------------------------------------------------------------------------------

def scenario_state(pool: Pool, setup: dict, seed: int) -> AllegianceState:
    consts = pool.consts
    fields = Fields(setup, "setup", SETUP_KEYS, MAX_NUMBER)
    seats = seat_specs(setup, 2, 2, GAME)
    state = blank_state(pool, seed, log=True)
    state.turn = fields.whole("turn", 1, most=consts.turn_limit, why=" (the rules' turn_limit)")
    state.active = state.to_act = fields.whole("active", 0, most=len(seats) - 1, why=" (a seat)")
    board = pool.board
    for name in fields.names("blight", "cells", most=consts.blight_tokens, why=" (the rules' blight_tokens)"):
        state.blight |= 1 << _cell(board, name, "setup.blight")
    state.blight_supply = consts.blight_tokens - state.blight.bit_count()
    state.blight_destroyed = fields.whole("blight_destroyed", 0)
    for seat, spec in enumerate(seats):
        _fill_seat(state, seat, spec)
    for cell, u in enumerate(state.cells):
        if u is not None and (state.blight >> cell) & 1:
            raise ValueError(f"setup: {board.names[cell]} holds a unit and Blight")
    return state


def _cell(board, name: Any, where: str) -> int:
    try:
        return board.cell(str(name))
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None


def _fill_seat(state: AllegianceState, seat: int, spec: dict) -> None:
    pool, consts = state.pool, state.pool.consts
    where = f"setup.seats[{seat}]"
    fields = Fields(spec, where, SEAT_KEYS, MAX_NUMBER)
    side = state.sides[seat]
    side.turns = fields.whole("turns", max(1, (state.turn - seat + 1) // 2), most=consts.turn_limit,
                              why=" (the rules' turn_limit)")
    # AP above a turn's allowance is reachable (effects give AP): only the game's largest bounds it
    side.ap = fields.whole("ap", consts.ap_per_turn if seat == state.active else 0)
    side.hand = [card_id(pool, s, f"{where}.hand") for s in fields.names("hand")]
    side.deck = [card_id(pool, s, f"{where}.deck") for s in reversed(fields.names("deck"))]
    side.discard = [card_id(pool, s, f"{where}.discard") for s in fields.names("discard")]
    side.muster = [_mustered(state, side, entry, f"{where}.muster[{i}]")
                   for i, entry in enumerate(_muster_list(spec.get("muster"), f"{where}.muster", consts.muster_size))]
    side.strongholds = [card_id(pool, s, f"{where}.strongholds") for s in reversed(fields.names("strongholds"))]
    side.fallen = [card_id(pool, s, f"{where}.fallen") for s in fields.names("fallen")]
    # what the seat has used this turn (War Supplies, Battle Cries) or this enemy turn (Tactics)
    side.supplies = fields.whole("supplies", 0, most=consts.supplies_per_turn, why=" (the rules' supplies_per_turn)")
    side.cries = fields.whole("cries", 0, most=consts.battle_cries_per_turn, why=" (the rules' battle_cries_per_turn)")
    side.tactics = fields.whole("tactics", 0, most=consts.tactics_per_enemy_turn,
                                why=" (the rules' tactics_per_enemy_turn)")
    for name, unit_spec in fields.mapping("units", "cells to units").items():
        cell = _cell(pool.board, name, f"{where}.units")
        if state.cells[cell] is not None:
            raise ValueError(f"{where}.units: {name} holds two units")
        state.place(cell, _unit(state, seat, unit_spec, f"{where}.units.{name}"))
    main, fortress = list(side.hand + side.deck + side.discard + [m.card for m in side.muster]), list(side.strongholds + side.fallen)
    for u in state.cells:
        if u is not None and u.owner == seat:
            if pool.cards[u.card].type == STRONGHOLD:
                fortress.append(u.card)
            else:
                main.extend(c for c in (u.card, u.weapon, u.armor) if c != NO_CARD)
            if pool.cards[u.card].type == WARRIOR:
                side.faction = pool.cards[u.card].faction
    side.decklist, side.fortress = tuple(sorted(main)), tuple(sorted(fortress))


def _muster_list(value: Any, where: str, room: int) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"{where}: expected a list of cards (a card id, or {{card, ready}}), got {value!r}")
    if len(value) > room:
        raise ValueError(f"{where}: {len(value)} cards, more than the Muster Zone holds ({room}, the rules' "
                         "muster_size)")
    return value


def _mustered(state: AllegianceState, side, entry: Any, where: str) -> Mustered:
    """A Warrior in the Muster Zone and the turn it was mustered (ready: an earlier turn)."""
    entry = entry if isinstance(entry, dict) else {"card": entry}
    fields = Fields(entry, where, MUSTER_KEYS, MAX_NUMBER)
    card = card_id(state.pool, entry.get("card"), where)
    return Mustered(card, side.turns - 1 if fields.flag("ready", True) else side.turns)


def _unit(state: AllegianceState, seat: int, spec: Any, where: str) -> Unit:
    pool, consts = state.pool, state.pool.consts
    if isinstance(spec, str):
        spec = {"card": spec}
    fields = Fields(spec, where, UNIT_KEYS, MAX_NUMBER)
    card = pool.cards[card_id(pool, spec.get("card"), where)]
    if card.type not in (WARRIOR, STRONGHOLD):
        raise ValueError(f"{where}: {card.slug} is not a warrior or a stronghold")
    max_hp = fields.whole("max_hp", card.hp, least=1)
    # a unit at 0 HP is dead: it cannot stand on the battlefield
    hp = fields.whole("hp", max_hp, least=1, most=max_hp, why=" (its max_hp)")
    tap = fields.word("tap", TAPS, "normal")

    def carried(key: str) -> int:
        return card_id(pool, spec[key], f"{where}.{key}") if spec.get(key) else NO_CARD

    def modifier(key: str) -> int:  # an empowered unit's extra damage; a negative one weakens it
        return fields.whole(key, 0, least=-MAX_NUMBER)

    unit = Unit(card.id, seat, state.next_uid, hp, max_hp,
                fields.whole("absorb", card.absorb, most=consts.absorb_cap, why=" (the rules' absorb_cap)"),
                fields.whole("reflect", card.reflect, most=consts.reflect_cap, why=" (the rules' reflect_cap)"),
                carried("weapon"), carried("armor"), modifier("power"), modifier("boost"),
                fields.whole("attacks", 0, most=consts.attacks_per_turn, why=" (the rules' attacks_per_turn)"),
                fields.whole("moves", 0, most=consts.moves_per_turn, why=" (the rules' moves_per_turn)"),
                fields.whole("used", 0, most=(1 << len(card.supports)) - 1,
                             why=" (a bit for each of its support abilities used this turn)"), TAPS[tap])
    state.next_uid += 1
    return unit


# --- what a scenario can check ----------------------------------------------------------------------

def unit_view(state: AllegianceState, cell: int) -> dict:
    pool = state.pool
    u = state.cells[cell]
    cards = pool.cards
    view = {"card": cards[u.card].slug, "owner": f"p{u.owner}", "hp": u.hp, "max_hp": u.max_hp,
            "absorb": u.absorb, "reflect": u.reflect}
    if cards[u.card].type == WARRIOR:
        view.update({
            "weapon": cards[u.weapon].slug if u.weapon != NO_CARD else None,
            "armor": cards[u.armor].slug if u.armor != NO_CARD else None,
            "power": u.power, "boost": u.boost, "attacks": u.attacks, "moves": u.moves,
            "tap": TAP_NAMES[u.tap], "formation": in_formation(state, cell)})
    return view


def pending_view(state: AllegianceState) -> str | None:
    p = state.pending
    if p is None:
        return None
    names, cards = state.pool.board.names, state.pool.cards
    if p.step == P_DEPLOY:
        return f"deploy {cards[p.card].slug}"
    if p.step == P_MOVE:
        return f"move {names[p.cell]}"
    if p.step == P_DEFEND:
        return f"defend {names[p.target]} against {p.dealt}"
    if p.step == P_DISCARD:
        return "discard"
    return repr(p)


def board(state: AllegianceState) -> dict:
    """The table as a person sees it (replays): one row per seat, one per unit or Blight token."""
    pool = state.pool
    names, cards = pool.board.names, pool.cards
    seats, field = [], []
    for seat, side in enumerate(state.sides):
        cell = state.stronghold_cell(seat)
        seats.append({"seat": f"p{seat}", "ap": side.ap, "hand": len(side.hand), "deck": len(side.deck),
                      "discard": len(side.discard), "muster": ", ".join(cards[c].name for c, _ in side.muster),
                      "stronghold": cards[state.cells[cell].card].name if cell >= 0 else "",
                      "stronghold_hp": state.cells[cell].hp if cell >= 0 else None,
                      "strongholds_left": len(side.strongholds), "blight": blight_on_side(state, seat),
                      "to_act": seat == state.to_act})
    for cell in range(pool.board.n):
        u = state.cells[cell]
        if u is not None:
            view = unit_view(state, cell)
            field.append({"cell": names[cell], "seat": view["owner"], "card": cards[u.card].name, "hp": u.hp,
                          "max_hp": u.max_hp, "absorb": u.absorb, "reflect": u.reflect,
                          "weapon": view.get("weapon") or "", "armor": view.get("armor") or "",
                          "tap": view.get("tap", "")})
        elif (state.blight >> cell) & 1:
            field.append({"cell": names[cell], "seat": "", "card": "Blight", "hp": None, "max_hp": None,
                          "absorb": 0, "reflect": 0, "weapon": "", "armor": "", "tap": ""})
    return {"seats": seats, "field": field}


def snapshot(state: AllegianceState) -> dict:
    pool = state.pool
    board, cards = pool.board, pool.cards
    halves: dict[str, dict] = {"p0": {}, "p1": {}}
    for cell in range(board.n):
        half, name = board.names[cell].split(".")
        if state.cells[cell] is not None:
            halves[half][name] = unit_view(state, cell)
        else:
            halves[half][name] = "blight" if (state.blight >> cell) & 1 else None
    out: dict[str, Any] = {
        "turn": state.turn, "active": state.active, "to_act": state.to_act, "over": state.over,
        "winner": state.winner, "reason": state.reason or None, "pending": pending_view(state),
        "board": halves,
        "blight": {"total": state.blight.bit_count(), "p0": blight_on_side(state, 0), "p1": blight_on_side(state, 1),
                   "supply": state.blight_supply, "destroyed": state.blight_destroyed,
                   "cells": [board.names[c] for c in range(board.n) if (state.blight >> c) & 1]},
    }
    for seat, side in enumerate(state.sides):
        cell = state.stronghold_cell(seat)
        warriors = [board.names[c] for c, u in enumerate(state.cells)
                    if u is not None and u.owner == seat and cards[u.card].type == WARRIOR]
        out[f"p{seat}"] = {
            "ap": side.ap, "turns": side.turns, "hand": [cards[c].slug for c in side.hand],
            "hand_size": len(side.hand), "deck_size": len(side.deck),
            "discard": [cards[c].slug for c in side.discard],
            "muster": [cards[c].slug for c, _ in side.muster],
            "stronghold": None if cell < 0 else {"card": cards[state.cells[cell].card].slug, "cell": board.names[cell],
                                                 "hp": state.cells[cell].hp},
            "strongholds_left": len(side.strongholds), "fallen": [cards[c].slug for c in side.fallen],
            "warriors": warriors, "supplies": side.supplies, "cries": side.cries, "tactics": side.tactics,
        }
    return out
