"""AlleyWay Brawlers as a replay draws it (sim/core/drawn.py) and its events in plain words
(sim/core/words.py).

Each seat's side: its front row of lanes (characters upright in ATK, sideways in DEF, Downed
dimmed), its back row (a set card face-down, without its name, as both players see it; a
Continuous one face-up), its leader beside the field (Dormant, on the field or defeated, with its
Influence) and a panel with Morale and Authority. In a duel p1 sits on top, mirrored, front rows
touching; a free-for-all or Turf Defense table lays the seats out two by two."""
from __future__ import annotations

from functools import partial

from sim.alleyway import field
from sim.alleyway.pool import AMBUSH, HUSTLE, Pool
from sim.alleyway.state import DEFEATED, DORMANT, AlleyState
from sim.core import drawn
from sim.core.words import Said, Words, actor, game_over, owner, say_event

TITLE = "AlleyWay Brawlers"
LEADER_WORDS = {DORMANT: "Dormant", DEFEATED: "defeated"}
STATUSES = ("stasis", "freeze", "stun", "silence", "suppress", "shield", "bleed")
GAP = 0.3  # between seat blocks laid out two by two


def unit_card(state: AlleyState, u) -> dict:
    """A character: its ATK and DEF as they stand (auras included), its position and statuses."""
    tags = ["Downed" if u.downed else "ATK position" if u.atk_pos else "DEF position"]
    tags += [name.title() for name in STATUSES if getattr(u, name)]
    tags += (["Burn"] if u.burn_left else []) + (["Poison"] if u.poison_left else [])
    tags += (["token"] if u.token else []) + (["leader"] if u.leader else [])
    pose = "down" if u.downed else "" if u.atk_pos else "sideways"
    return drawn.card(state.pool.cards[u.card].name, u.seat, [("ATK", field.atk_of(state, u)),
                                                              ("DEF", field.def_of(state, u))], tags, pose=pose)


def back_card(pool: Pool, b, seat: int) -> dict:
    if not b.face_up:
        return drawn.card("face-down", seat, (), ["set"], face_down=True, kind="back")
    c = pool.cards[b.card]
    kind = {HUSTLE: "Hustle", AMBUSH: "Ambush"}.get(c.type, "")
    return drawn.card(c.name, seat, (), ["face-up", kind], kind="back")


def leader_card(pool: Pool, side, seat: int) -> dict | None:
    if side.leader < 0:
        return None
    word = LEADER_WORDS.get(side.leader_state, "on the field")
    return drawn.card(pool.cards[side.leader].name, seat, [("Influence", side.influence)], [word],
                      pose="" if side.leader_state == DORMANT else "down", kind="leader")


def panel_lines(state: AlleyState, seat: int) -> list[str]:
    side = state.sides[seat]
    first = [("Morale", side.morale), ("Authority", side.authority),
             ("Barricade", side.barricade or None)]
    if seat == state.boss:
        first.append(("Phase", f"{state.boss_phase + 1} {state.boss_def.names[state.boss_phase]}".strip()))
    lines = [drawn.numbers_line(first),
             drawn.numbers_line([("Hand", len(side.hand)), ("Deck", len(side.deck)), ("Gutter", len(side.gutter)),
                                 ("Exile", len(side.exile)), ("Hideout", len(side.hideout))])]
    if side.out:
        lines[0] += " · out of the match"
    return lines


def drawn_board(state: AlleyState) -> dict:
    pool: Pool = state.pool
    n = len(state.sides)
    width = max(pool.n_lanes, pool.n_back + 1)
    zones, cells = [], []
    duel = n == 2
    for order, seat in enumerate((1, 0) if duel else range(n)):
        side = state.sides[seat]
        x = 0.0 if duel else (order % 2) * (width + GAP)
        y = (0.0 if order == 0 else drawn.PANEL_H + 2) if duel else (order // 2) * (drawn.PANEL_H + 2 + GAP)
        rows = ["panel", "back", "front"] if duel and order == 0 else ["front", "back", "panel"] if duel \
            else ["panel", "front", "back"]
        label = f"p{seat}" + (" (boss)" if seat == state.boss else "")
        for row in rows:
            if row == "panel":
                zones.append(drawn.zone(label, seat, x, y, width, drawn.PANEL_H, panel_lines(state, seat),
                                        seat == state.to_act))
                y += drawn.PANEL_H
                continue
            if row == "front":
                zones.append(drawn.zone(f"p{seat} front row", seat, x, y, pool.n_lanes, 1))
                for lane, u in enumerate(side.lanes):
                    name = pool.lane_names[lane]
                    cells.append(drawn.cell(f"p{seat}.{name}", name, x + lane, y,
                                            unit_card(state, u) if u is not None else None))
            else:
                zones.append(drawn.zone(f"p{seat} back row", seat, x, y, pool.n_back, 1))
                for slot, b in enumerate(side.back):
                    name = pool.back_names[slot]
                    cells.append(drawn.cell(f"p{seat}.{name}", name, x + slot, y,
                                            back_card(pool, b, seat) if b is not None else None, shade="rear"))
                lx = x + width - 1
                zones.append(drawn.zone(f"p{seat} leader", seat, lx, y, 1, 1))
                cells.append(drawn.cell(f"p{seat}.leader", "leader", lx, y, leader_card(pool, side, seat),
                                        shade="accent"))
            y += 1
    return drawn.board(TITLE, zones, cells)


# --- events in words -----------------------------------------------------------------------------

BRAWL = {"atk>atk": "beats {target} on ATK by {n}", "atk<atk": "loses to {target} on ATK by {n}",
         "tie": "ties with {target}: both go Down", "down": "beats {target}'s DEF by {n}: it goes Down",
         "ko": "beats the Downed {target} by {n}: it is KO'd", "blocked": "is blocked by {target} ({n} short)",
         "blocked even": "is held by {target} (equal)", "direct": "hits directly for {n}",
         "stopped": "stops: the attack does not go on"}


def _target(e: Said) -> str:
    seat_word, _ = owner(e.detail.replace(".", " ", 1))
    if e.target == "player":
        return f"{seat_word} directly" if seat_word else "the player directly"
    if e.target == "leader":
        return f"{seat_word}'s Dormant leader" if seat_word else "the Dormant leader"
    return e.target


def _brawl(e: Said) -> str:
    how = BRAWL.get(e.detail, e.detail)
    return f"Brawl: {actor(e)} " + how.format(target=e.target or "the defender", n=e.n)


def _morale(e: Said) -> str:
    seat_word, cause = owner(e.detail)
    if e.amount == 0:
        return f"{e.who}'s Barricade blocks {cause.partition(' ')[2].lstrip('-') or 'the loss'} Morale"
    verb = "loses" if e.amount < 0 else "gains"
    return f"{seat_word or e.who} {verb} {e.n} Morale" + (f" ({cause})" if cause else "")


def _owned(verb: str):
    def text(e: Said) -> str:
        seat_word, rest = owner(e.detail)
        where = f" in {e.lane}" if e.lane else ""
        return f"{e.card} ({seat_word or e.who}){where} {verb}" + (f" ({rest})" if rest else "")
    return text


def _status(e: Said) -> str:
    what, _, seat_word = e.detail.partition(" ")
    seat_word, rest = owner(seat_word)
    on = f" on {e.target}" if e.target else f" on {seat_word}" if seat_word else ""
    amount = f" {e.n}" if e.amount else ""
    return f"{actor(e)} puts {what.replace('_', ' ')}{amount}{on}" + (f" ({rest})" if rest else "")


def _deploy(e: Said) -> str:
    stats, _, pos = e.detail.partition(" ")
    return f"{e.who} deploys {e.card} in {e.lane} in {pos.upper() or 'ATK'} position ({stats}) for {e.amount} Authority"


def _heavy(e: Said) -> str:
    stats, _, rest = e.detail.partition(" ")
    pos, _, sacrificed = rest.partition(" ")
    return (f"{e.who} plays the Heavy {e.card} in {e.lane} in {pos.upper()} position ({stats}) for {e.amount} "
            f"Authority, {sacrificed}")


def _switch(e: Said) -> str:
    seat_word, pos = owner(e.detail)
    return f"{e.card} ({seat_word or e.who}) in {e.lane} switches to {pos.upper()} position"


WORDS: Words = {
    "turn_start": "{who}'s turn begins with {amount} Authority",
    "draw": "{who} draws {card}",
    "deck_out": "{who} must draw from an empty deck",
    "redraw": "{who} redraws the opening hand ({amount} cards)",
    "deploy": _deploy,
    "heavy": _heavy,
    "set": "{who} sets {card} face-down in {lane}",
    "hustle": "{who} plays the Hustle {card} for {amount} Authority",
    "flip": "{who} flips {card} face-up in {lane} for {amount} Authority",
    "spring": lambda e: f"{e.who} springs the Ambush {e.card} from {e.lane}"
                        + (f" ({e.detail})" if e.detail not in ("", "attack") else ""),
    "attack": lambda e: f"{actor(e)} attacks {_target(e)} with {e.amount} ATK",
    "brawl": _brawl,
    "morale": _morale,
    "down": _owned("goes Down"),
    "stand": "{card} ({who}) in {lane} stands up",
    "ko": _owned("is KO'd"),
    "sacrifice": _owned("is sacrificed"),
    "to_gutter": _owned("goes to the Gutter"),
    "bounce": _owned("goes back to its owner's hand or deck"),
    "exile": _owned("is exiled"),
    "token": "{who} makes a {card} token in {lane} ({detail})",
    "promote": "{who}'s Striver is promoted to {card} in {lane} ({detail})",
    "awaken": "{who}'s leader {card} awakens in {lane} ({detail})",
    "leader_hit": lambda e: f"{actor(e)} hits {_target(e)} for {e.amount}: "
                            f"{owner(e.detail)[1].replace('influence', 'Influence')} left",
    "leader_defeated": "{who}'s leader {card} is defeated",
    "status": _status,
    "buff": lambda e: f"{actor(e)} gives {e.target}" + (f" in {e.lane}" if e.lane else "")
                      + f" {e.detail.replace(' turn', ' this turn')}",
    "coin": "{card} ({who}) flips a coin: {detail}",
    "roll": lambda e: f"{actor(e)} rolls a {e.amount}" + (f" ({e.detail})" if e.detail else ""),
    "bet": lambda e: f"{actor(e)}: the bet is " + ("won" if e.amount else "lost"),
    "discard": lambda e: f"{e.who} discards {e.card}" + (" as a cost" if e.detail == "cost" else ""),
    "plunder": lambda e: f"{actor(e)} plunders {e.detail.replace(' deck', '')}'s deck",
    "search": "{card} ({who}) searches the deck",
    "call": "{who} calls {card} into {lane} ({detail})",
    "revive": "{who} revives {card} into {lane} ({detail})",
    "recover": "{who} recovers {card} from the Gutter",
    "destroy": lambda e: f"{actor(e)} destroys the card in {owner(e.detail)[0]}'s {e.lane}"
                         + (f" ({owner(e.detail)[1].replace('down', 'face-down')})" if owner(e.detail)[1] else ""),
    "charm": lambda e: f"{e.card} goes back to {e.who} in {e.lane}" if e.detail == "returns" else
                       f"{e.who} takes control of {e.card} ({e.detail}) into {e.lane}",
    "switch": _switch,
    "activate": "{card} ({who}) in {lane} activates its ability",
    "gutter_use": "{who} uses {card} from the Gutter",
    "equip": "{who} equips {card} to {target} in {lane} (now {detail})",
    "rise": "{card} ({who}) rises again in {lane} ({detail})",
    "negate": "{card} ({who}) negates the attack",
    "choose": lambda e: f"{actor(e)} chooses its {e.detail or 'target'}",
    "fizzle": lambda e: f"{actor(e)}: its {e.detail.replace('_', ' ')} effect has no target",
    "shield": lambda e: f"{e.card} ({e.who}) in {e.lane} is saved by its shield from going "
                        + ("Down" if e.detail == "down" else "KO'd"),
    "authority": "{who} gains {amount} Authority from {card}",
    "game_over": game_over,
    "aimed": lambda e: f"{e.who} goes after p{e.amount} ({'an attack' if e.detail == 'attack' else 'an effect'})",
    "out": lambda e: f"{e.who} is out of the match ({e.detail})" + (f", put out by p{e.amount}" if e.amount >= 0 else ""),
    "phase": "The boss ({who}) enters phase {amount}: {detail}",
}


event_words = partial(say_event, WORDS)  # engine.event_words (sim/core/game_engine.py)
