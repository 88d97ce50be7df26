"""Allegiance as a replay draws it (sim/core/drawn.py) and its events in plain words
(sim/core/words.py).

The 8 x 6 battlefield as the guide lays it out: p1's back row (D) at the top, the two A rows
touching in the middle, p0's D at the bottom; Warriors with their HP, shields (Absorb, Reflect),
weapon, armor and damage bonus; each seat's Stronghold with its HP; Blight tokens; each seat's
Muster Zone beside its half; a panel per seat with AP, cards and the Blight on its side."""
from __future__ import annotations

from functools import partial

from sim.allegiance.effects import blight_on_side
from sim.allegiance.formations import in_formation
from sim.allegiance.pool import STRONGHOLD, Pool
from sim.allegiance.state import DRAINED, NO_CARD, TAPPED, AllegianceState
from sim.core import drawn
from sim.core.words import Said, Words, actor, game_over, say_event

TITLE = "Allegiance"
TAP_WORDS = {TAPPED: "tapped", DRAINED: "soul drained"}
MUSTER_GAP = 0.3  # between the battlefield and the Muster Zones


def unit_card(state: AllegianceState, cell: int) -> dict:
    """A Warrior or a Stronghold on ``cell``: its HP of its most, shields, gear and bonuses."""
    pool = state.pool
    u = state.cells[cell]
    c = pool.cards[u.card]
    stats = [("HP", f"{u.hp}/{u.max_hp}")]
    if c.type == STRONGHOLD:
        return drawn.card(c.name, u.owner, stats, ["Bastion" if c.bastion else "Stronghold"], kind="stronghold",
                          look="bold")
    bonus = u.power + u.boost
    stats += [("dmg", f"{bonus:+d}")] if bonus else []
    tags = [f"weapon {pool.cards[u.weapon].name}" if u.weapon != NO_CARD else "",
            f"armor {pool.cards[u.armor].name}" if u.armor != NO_CARD else "",
            TAP_WORDS.get(u.tap, ""), "formation" if in_formation(state, cell) else ""]
    return drawn.card(c.name, u.owner, stats, tags, pose="down" if u.tap == TAPPED else "")


def drawn_board(state: AllegianceState) -> dict:
    pool: Pool = state.pool
    board, consts = pool.board, pool.consts
    rows, cols, per_side = board.rows, board.cols, board.rows_per_side
    top = drawn.PANEL_H  # p1's panel above the battlefield, p0's below
    zones, cells = [], []
    for seat in (1, 0):
        side = state.sides[seat]
        stronghold = state.stronghold_cell(seat)
        lines = [drawn.numbers_line([("AP", side.ap), ("Hand", len(side.hand)), ("Deck", len(side.deck)),
                                     ("Discard", len(side.discard))]),
                 drawn.numbers_line([("Strongholds left", len(side.strongholds) + (stronghold >= 0)),
                                     ("Blight on this side", f"{blight_on_side(state, seat)}/{consts.overrun_blight}")])]
        y = 0.0 if seat == 1 else top + rows
        zones.append(drawn.zone(f"p{seat}", seat, 0, y, cols + MUSTER_GAP + 1, drawn.PANEL_H, lines,
                                seat == state.to_act))
        half_y = top + (0 if seat == 1 else per_side)
        zones.append(drawn.zone(f"p{seat}'s half", seat, 0, half_y, cols, per_side))
        zones.append(drawn.zone(f"p{seat} Muster", seat, cols + MUSTER_GAP, half_y, 1, per_side))
        for slot in range(consts.muster_size):
            held = None
            if slot < len(side.muster):
                card_id, arrived = side.muster[slot]
                held = drawn.card(pool.cards[card_id].name, seat, [("HP", pool.cards[card_id].hp)],
                                  [f"mustered on own turn {arrived}"], kind="muster")
            y = half_y + (slot if seat == 1 else per_side - 1 - slot)
            cells.append(drawn.cell(f"p{seat}.muster{slot + 1}", f"muster {slot + 1}", cols + MUSTER_GAP, y, held,
                                    shade="staging"))
    for c in range(board.n):
        y = top + (rows - 1 - board.row[c])  # global row 0 (p0's D) at the bottom
        u = state.cells[c]
        blight = (state.blight >> c) & 1
        held = unit_card(state, c) if u is not None else \
            drawn.card("Blight", None, (), ["blocks movement"], kind="blight", look="dark") if blight else None
        tokens = [("Absorb", u.absorb), ("Reflect", u.reflect)] if u is not None else []
        cells.append(drawn.cell(board.names[c], board.names[c], board.col[c], y, held, tokens,
                                "dark" if blight else ""))
    return drawn.board(TITLE, zones, cells)


# --- events in words -----------------------------------------------------------------------------

def _attack(e: Said) -> str:
    return f"{actor(e)} attacks {e.target} on {e.lane} with {e.detail.replace('-', ' ')}: {e.amount} damage"


def _soul(e: Said) -> str:
    rolls = e.detail.replace("-", " against ")
    result = "wins: the Blight is destroyed" if e.amount else "loses: its soul is drained"
    return f"{actor(e)} challenges the Blight on {e.lane} in Soul Combat (D12 {rolls}) and {result}"


def _move(e: Said) -> str:
    frm, _, to = e.detail.partition(">")
    return f"{actor(e)} moves from {frm} to {to or e.lane} for {e.amount} AP"


def _by(e: Said) -> str:
    return f" by {e.card}" if e.card else ""


WORDS: Words = {
    "turn_start": "{who}'s turn begins with {amount} AP",
    "draw": "{who} draws {card}",
    "no_draw": "{who}'s deck is empty: no card drawn",
    "muster": "{who} musters {card} into the Muster Zone",
    "deploy": lambda e: f"{e.who} deploys {e.card} on {e.lane} from the {'Muster Zone' if e.detail == 'muster' else e.detail} "
                        f"for {e.amount} AP",
    "move": _move,
    "attack": _attack,
    "battle_cry": "{who} plays the Battle Cry {card} with {target}'s attack",
    "tactic": "{who} answers with the Tactic {card} to defend {target} on {lane}",
    "armor": "{target}'s armor {card} blocks {n} damage",
    "formation": "{target}'s formation blocks {n} damage",
    "absorb": lambda e: f"{e.target}'s Absorb shield{'s' if e.detail not in ('', '1') else ''} block{'' if e.detail not in ('', '1') else 's'} {e.n} damage",
    "reflect": "{target}'s Reflect shield blocks {n} damage and strikes back",
    "damage": lambda e: f"{actor(e)} deals {e.n} damage to {e.target} on {e.lane}",
    "heal": lambda e: f"{e.target} on {e.lane} heals {e.n} HP" if e.card == e.target else
                      f"{actor(e)} heals {e.target} on {e.lane} by {e.n} HP",
    "shield": lambda e: f"{e.target} on {e.lane} gains {e.n} {e.detail.title()} shield{'s' if e.n != 1 else ''}{_by(e)}",
    "strip": lambda e: f"{actor(e)} strips {e.n} shield{'s' if e.n != 1 else ''} from {e.target} on {e.lane}",
    "empower": lambda e: f"{actor(e)} empowers {e.target} on {e.lane}: +{e.n} damage ({e.detail.replace('_', ' ')})",
    "destroy": "{card} ({who}) on {lane} is destroyed",
    "blight": lambda e: f"Blight fills {e.lane}" + (f" ({e.card})" if e.card else ""),
    "purge": lambda e: f"The Blight on {e.lane} is purged{_by(e)}",
    "soul_combat": _soul,
    "equip": "{who} equips {target} on {lane} with the {detail} {card} ({amount})",
    "supply": lambda e: f"{e.who} plays the War Supply {e.card}" + (f" on {e.target}" if e.target else "")
                        + (f" at {e.lane}" if e.lane else ""),
    "support": lambda e: f"{actor(e)} uses {e.detail.replace('-', ' ')} on {e.lane} for {e.amount} AP",
    "stronghold": lambda e: f"{e.who} raises the Stronghold {e.card} on {e.lane} (D6 roll {e.amount})",
    "discard": "{who} discards {card} down to the hand limit",
    "game_over": game_over,
    "gain_ap": "{who} gains {amount} AP from {card}",
    "negate": "{who}'s Tactic {card} negates {target}'s attack",
}


event_words = partial(say_event, WORDS)  # engine.event_words (sim/core/game_engine.py)

