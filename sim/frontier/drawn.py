"""Wild Frontier as a replay draws it (sim/core/drawn.py) and its events in plain words
(sim/core/words.py).

The table as the guide lays it out: the opponent (p1) on top, High-Rise lanes and the Deputy
Zone at each seat's outer edge, the five middle lanes facing each other in the centre, Cover
Tokens on the middle lanes, and each seat's sheriff HP, Mana and Gold in its panel."""
from __future__ import annotations

from functools import partial

from sim.core import drawn
from sim.core.words import Said, Words, actor, game_over, owner, say_event
from sim.frontier.combat import power
from sim.frontier.pool import DEPUTY, FLAG_KEYWORDS, Pool
from sim.frontier.state import ON_FIELD, FrontierState

TITLE = "Wild Frontier"
UNTIL = {"end_of_turn": "until the end of the turn", "permanent": "for good"}


def keyword_words(kw: int) -> list[str]:
    return [name.replace("_", " ").title() for name, bit in FLAG_KEYWORDS.items() if kw & bit]


def unit_card(state: FrontierState, u) -> dict:
    """A creature or Deputy on the field: its Attack as it stands (Pack included) and its DEF
    left of its most."""
    pool = state.pool
    tags = (["fresh: dodges"] if u.fresh else []) + (["charged"] if u.charged else []) + \
           ([f"skips {u.skip}"] if u.skip else []) + ([] if u.attacks_left else ["attacked"]) + keyword_words(u.kw)
    return drawn.card(pool.cards[u.card].name, u.owner, [("ATK", power(state, u)), ("DEF", f"{u.hp}/{u.max_hp}")],
                      tags, kind="deputy" if pool.cards[u.card].type == DEPUTY else "unit")


def deputy_word(side, slot: int) -> str:
    z = side.dzone[slot]
    if z == ON_FIELD:
        return "on the field"
    return "ready" if z <= side.turns else f"rests until own turn {z}"


def drawn_board(state: FrontierState) -> dict:
    pool: Pool = state.pool
    n = len(state.sides)
    high = len(pool.lane_names) - pool.n_middle
    deputies = max((len(s.deputies) for s in state.sides), default=0)
    width = max(pool.n_middle, high + 1 + deputies)
    zones, cells = [], []
    y = 0.0
    for order, seat in enumerate(range(n - 1, -1, -1) if n == 2 else range(n)):
        side = state.sides[seat]
        top = n == 2 and order == 0  # the opponent's side, mirrored: its outer edge at the top
        rows = ["panel", "high", "middle"] if top else ["middle", "high", "panel"]
        for row in rows:
            if row == "panel":
                sheriff = pool.sheriffs[side.sheriff]
                gold = f"{side.gold}" + (f" (+{side.gold_bonus} next turn)" if side.gold_bonus else "")
                lines = [drawn.numbers_line([("Sheriff", sheriff.name or "none"), ("HP", f"{side.hp}/{side.max_hp}"),
                                             ("Mana", side.mana), ("Gold", gold)]),
                         drawn.numbers_line([("Hand", len(side.hand)), ("Deck", len(side.deck)),
                                             ("Discard", len(side.discard))])]
                zones.append(drawn.zone(f"p{seat}", seat, 0, y, width, drawn.PANEL_H, lines, seat == state.to_act))
                y += drawn.PANEL_H
                continue
            if row == "middle":
                zones.append(drawn.zone(f"p{seat} middle lanes", seat, 0, y, pool.n_middle, 1))
                for lane in range(pool.n_middle):
                    cells.append(_lane_cell(state, seat, lane, lane, y))
            else:
                zones.append(drawn.zone(f"p{seat} High-Rise", seat, 0, y, high, 1))
                for k in range(high):
                    cells.append(_lane_cell(state, seat, pool.n_middle + k, k, y, shade="raised"))
                if side.deputies:
                    x0 = width - len(side.deputies)
                    zones.append(drawn.zone(f"p{seat} Deputy Zone", seat, x0, y, len(side.deputies), 1))
                    for slot, d in enumerate(side.deputies):
                        c = pool.cards[d]
                        held = drawn.card(c.name, seat, [("ATK", c.atk), ("DEF", c.hp)], [deputy_word(side, slot)],
                                          pose="down" if side.dzone[slot] == ON_FIELD else "", kind="deputy")
                        cells.append(drawn.cell(f"p{seat}.deputy{slot + 1}", f"deputy {slot + 1}", x0 + slot, y, held,
                                                shade="aside"))
            y += 1
    return drawn.board(TITLE, zones, cells)


def _lane_cell(state: FrontierState, seat: int, lane: int, x: float, y: float, shade: str = "") -> dict:
    pool, side = state.pool, state.sides[seat]
    u = side.lanes[lane]
    cover = side.cover[lane] if lane < pool.n_middle else 0
    name = pool.lane_names[lane]
    return drawn.cell(f"p{seat}.{name}", name, x, y, unit_card(state, u) if u is not None else None,
                      [("Cover", cover)], shade)


# --- events in words -----------------------------------------------------------------------------

def _sheriff_or(e: Said, seat_word: str) -> str:
    """The target: "p0's sheriff" for the sheriff pseudo card, else the creature (in its lane)."""
    if e.target == "sheriff":
        return f"{seat_word}'s sheriff" if seat_word else "the sheriff"
    return e.target + (f" in {e.lane}" if e.lane else "")


def _attack(e: Said) -> str:
    """The detail names the defender's place ("p1.m2", "p1.sheriff"); the lane is the attacker's."""
    where, lane = owner(e.detail.replace(".", " ", 1))
    whom = f"{where}'s sheriff" if e.target == "sheriff" else f"{e.target} ({where}, {lane})"
    return f"{actor(e)} attacks {whom}: {e.amount} damage"


def _damage(e: Said) -> str:
    seat_word, _ = owner(e.detail)
    why = "" if e.target == "sheriff" or not e.detail else f" ({e.detail})"
    return f"{actor(e)} deals {e.n} damage to {_sheriff_or(e, seat_word)}{why}"


def _heal(e: Said) -> str:
    seat_word, _ = owner(e.detail)
    return f"{actor(e)} heals {_sheriff_or(e, seat_word)} by {e.n}"


def _buff(e: Said) -> str:
    change, _, until = e.detail.partition(" ")
    return f"{actor(e)} gives {e.target} in {e.lane} {change} {UNTIL.get(until, until.replace('_', ' '))}"


def _play(e: Said) -> str:
    where = f" in {e.lane}" if e.lane else ""
    stats = f" as a {e.detail}" if "/" in e.detail else f" ({e.detail})" if e.detail else ""
    return f"{e.who} plays {e.card}{where} for {e.amount} Mana{stats}"


def _ability(e: Said) -> str:
    if e.detail == "off_board":
        return f"{e.who} uses {e.card}'s off-board ability (from the Deputy Zone) for {e.amount} Gold"
    return f"{e.who} uses the sheriff's action ({e.detail}), discarding {e.card}"


def _choose(e: Said) -> str:
    place = f"{e.detail}.{e.lane}" if e.lane else e.detail
    return f"{actor(e)} chooses " + (f"{e.target} in {place}" if e.target else place or "its target")


WORDS: Words = {
    "turn_start": lambda e: f"{e.who}'s turn begins: {e.amount} Mana, {e.detail.partition('=')[2] or 0} Gold",
    "draw": "{who} draws {card}",
    "burn": "{who}'s hand is full: {card} is burned",
    "deck_out": "{who} must draw from an empty deck",
    "play": _play,
    "summon": "{who} summons {card} from the Deputy Zone into {lane} for {amount} Mana ({detail})",
    "attack": _attack,
    "cover_hit": "{card} ({who}) breaks {detail}'s Cover in {lane}",
    "damage": _damage,
    "heal": _heal,
    "buff": _buff,
    "destroy": lambda e: f"{actor(e)} is destroyed in {e.lane}"
                         + (" and returns to its Deputy Zone" if e.detail == "deputy" else ""),
    "cover_up": "{card} ({who}) raises {n} Cover in {lane}",
    "gold_gain": "{who} gains {n} Gold from {card}",
    "choose": _choose,
    "fizzle": lambda e: f"{actor(e)}: its {e.detail.replace('_', ' ')} effect has no target",
    "game_over": game_over,
    "ability": _ability,
    "deputy_return": "{card} ({who}) rests in the Deputy Zone: it may return from own turn {amount}",
    "grant": lambda e: f"{actor(e)} grants {e.target} in {e.lane} {', '.join(keyword_words(e.amount)) or 'keywords'} "
                       f"{UNTIL.get(e.detail, e.detail)}",
    "overdrive": "{card} ({who}) is overdriven with {n} extra Gold: {detail}",
    "shove": lambda e: f"{actor(e)} shoves {e.target} ({e.detail}) from {e.lane} to m{e.amount + 1}",
    "charge": "{card} ({who}) charges {target} in {lane}",
    "flip": lambda e: f"{actor(e)} flips: {e.amount} charged creature" + ("s fire" if e.amount != 1 else " fires"),
}


event_words = partial(say_event, WORDS)  # engine.event_words (sim/core/game_engine.py)
