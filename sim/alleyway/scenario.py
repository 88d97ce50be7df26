"""Scenarios for AlleyWay: a declared position, actions written as words, and a snapshot of the
state that expectations are checked against.

Words for actions (what ``describe`` prints and ``parse_action`` reads):
    keep | redraw                    the opening hand
    brawl | regroup | end            end the Deployment phase, the Brawl phase, the turn
    deploy <card> atk|def <lane>     from hand (lanes l1..l5; over one of yours when the row is full)
    heavy <card> atk|def <l1+l3>     a Heavy on the characters in those lanes
    set <card> | play <card>         a Hustle or Ambush face-down; a Hustle from hand
    flip <slot>                      activate a set Hustle / flip a Continuous Ambush (b1..b5)
    switch <lane> | activate <lane> | promote <lane> | gutter <card> | awaken atk|def <lane>
    attack <lane> p1.l3 | p1.direct | p1.leader
    choose p1.l2 | choose p0.b1 | choose <card> | choose p1 | choose skip
    spring b1 | pass                 an Ambush when your character is attacked (or decline)
    flip b1 | pass                   a Continuous Ambush when offered on the opponent's turn
    bet | no bet                     DOUBLE OR NOTHING
"""
from __future__ import annotations

from typing import Any

from sim.alleyway import field
from sim.alleyway.actions import (
    ACTIVATE,
    ATTACK,
    AWAKEN,
    CHOOSE,
    DEPLOY,
    FLIP,
    GUTTER,
    HEAVY,
    KEEP,
    NEXT,
    PLAY,
    PROMOTE,
    REDRAW,
    SET,
    SWITCH,
    Action,
)
from sim.alleyway.blank import blank_state
from sim.alleyway.hidden import sees_hidden
from sim.alleyway.pool import CHARACTER, LEADER_CARD, Pool
from sim.alleyway.state import (
    BACK_BASE,
    BRAWL,
    DEFEATED,
    DEPLOYMENT,
    DIRECT,
    DORMANT,
    LEADER,
    ON_FIELD,
    REGROUP,
    AlleyState,
    Back,
    Bounty,
    TurfState,
    Unit,
    back_slot,
    decode,
)
from sim.core.position import Fields, seat_specs, whole_number
from sim.core.scenario import Slot, card_id, literal
from sim.core.standings import standings_from_outs, standings_from_teams

SEAT_KEYS = {"morale", "authority", "turns", "hand", "deck", "gutter", "exile", "hideout", "lanes", "back",
             "leader", "barricade", "tax", "jam", "kos", "flips", "plundered", "burn_dealt"}
UNIT_KEYS = {"card", "pos", "downed", "down_turn", "atk", "def", "zzz", "attacks", "shield", "under", "wins", "kos",
             "turns_on", "poison", "poison_left", "burn", "burn_left", "burn_by", "bleed", "freeze", "stasis", "stun",
             "silence", "suppress", "bounty", "undead_used"}
LEADER_KEYS = {"card", "influence", "state"}
BACK_KEYS = {"card", "face", "set", "host"}
LEADER_STATES = {"dormant": DORMANT, "field": ON_FIELD, "defeated": DEFEATED}
PHASES = {"deployment": DEPLOYMENT, "brawl": BRAWL, "regroup": REGROUP}
NEXT_WORD = {DEPLOYMENT: "brawl", BRAWL: "regroup", REGROUP: "end"}
# The largest number a position may hold: the bound cardsdb/alleyway/schema.py sets on the game's
# data (Morale 6000, ATK/DEF in thousands), below the store's 32-bit columns.
MAX_NUMBER = 9_999_999
GAME = "AlleyWay"
MAX_SEATS = 4  # the duel and the four-player free-for-all (Turf Defense: three)
TURF_TEAMS, TURF_BOSS = (0, 0, 1), 2  # Turf Defense: the partners, then the boss (engine.py seats it so)


def target_name(state: AlleyState, target: int) -> str:
    if target < 0:
        return "skip"
    seat, index = decode(target)
    if index == DIRECT:
        return f"p{seat}.direct"
    if index == LEADER:
        return f"p{seat}.leader"
    if index >= BACK_BASE:
        return f"p{seat}.{state.pool.back_names[index - BACK_BASE]}"
    return f"p{seat}.{state.pool.lane_names[index]}"


def action_forms(state: AlleyState) -> list[tuple[Slot, ...]]:
    """The forms of the words ``describe`` prints (the module's note), each place with the words
    that may stand there: what a step's words are read against before anything plays."""
    pool = state.pool
    seats = [f"p{seat}" for seat in range(len(state.sides))]
    card = Slot("a card id", frozenset(c.slug for c in pool.cards))
    pos = Slot("a position", ("atk", "def"))
    lane = Slot("a lane", tuple(pool.lane_names))
    # a Heavy's lanes in lane order, joined by "+", as describe writes them
    lanes = Slot("lanes joined by + (l1+l2)", frozenset(
        "+".join(name for i, name in enumerate(pool.lane_names) if mask >> i & 1)
        for mask in range(1, 1 << pool.n_lanes)))
    slot = Slot("a back-row slot", tuple(pool.back_names))
    target = Slot("a target", frozenset(f"{seat}.{place}" for seat in seats
                                        for place in (*pool.lane_names, *pool.back_names, "direct", "leader")))
    forms = [(literal(word),) for word in ("keep", "redraw", "brawl", "regroup", "end", "next", "pass", "bet")]
    forms += [(literal("no"), literal("bet")), (literal("deploy"), card, pos, lane), (literal("heavy"), card, pos, lanes),
              (literal("attack"), lane, target), (literal("awaken"), pos, lane)]
    forms += [(literal(verb), card) for verb in ("set", "play", "gutter")]
    forms += [(literal(verb), lane) for verb in ("switch", "activate", "promote")]
    forms += [(literal(verb), slot) for verb in ("flip", "spring")]
    forms += [(literal("choose"), what) for what in (target, card, Slot("a seat", tuple(seats)), literal("skip"))]
    return forms


def describe(state: AlleyState, action: Action) -> str:
    pool = state.pool
    kind, a, b, c = action
    pos = "atk" if b == 1 else "def"
    if kind == KEEP:
        return "keep"
    if kind == REDRAW:
        return "redraw"
    if kind == NEXT:
        return NEXT_WORD.get(state.phase, "next")
    if kind == DEPLOY:
        return f"deploy {pool.slug(a)} {pos} {pool.lane_names[c]}"
    if kind == HEAVY:
        lanes = "+".join(pool.lane_names[lane] for lane in range(pool.n_lanes) if c >> lane & 1)
        return f"heavy {pool.slug(a)} {pos} {lanes}"
    if kind == SET:
        return f"set {pool.slug(a)}"
    if kind == PLAY:
        return f"play {pool.slug(a)}"
    if kind == FLIP:
        return f"flip {pool.back_names[a]}"
    if kind == SWITCH:
        return f"switch {pool.lane_names[a]}"
    if kind == ATTACK:
        return f"attack {pool.lane_names[a]} {target_name(state, b)}"
    if kind == ACTIVATE:
        return f"activate {pool.lane_names[a]}"
    if kind == GUTTER:
        return f"gutter {pool.slug(a)}"
    if kind == AWAKEN:
        return f"awaken {'atk' if a == 1 else 'def'} {pool.lane_names[b]}"
    if kind == PROMOTE:
        return f"promote {pool.lane_names[a]}"
    if kind == CHOOSE:
        return describe_choice(state, a)
    return repr(action)


def describe_choice(state: AlleyState, option: int) -> str:
    what = state.pending.what if state.pending is not None else ""
    pool = state.pool
    if what in ("spring", "offer"):
        if option < 0:
            return "pass"
        return f"{'spring' if what == 'spring' else 'flip'} {pool.back_names[back_slot(option)]}"
    if what == "bet":
        return "bet" if option == 1 else "no bet"
    if what == "opponent":
        return f"choose p{option}"
    if what in ("card", "limit", "cost_discard"):
        return "choose skip" if option < 0 else f"choose {pool.slug(option)}"
    return f"choose {target_name(state, option)}"


def scenario_state(pool: Pool, setup: dict, seed: int) -> AlleyState:
    """A declared position. ``mode: turf`` with ``boss: ID`` is Turf Defense: three seats, the two
    partners then the boss (its Morale defaults to the boss's, its phase follows its Morale)."""
    fields = Fields(setup, "setup", ("active", "turn", "phase", "first", "seats", "mode", "boss"), MAX_NUMBER)
    mode = fields.word("mode", ("duel", "ffa", "turf"), "duel")
    boss = None
    if mode == "turf":
        boss = pool.bosses.get(setup.get("boss"))
        if boss is None:
            raise ValueError(f"setup.boss: a Turf Defense position names its boss (known: "
                             f"{', '.join(sorted(pool.bosses)) or 'none'}), got {setup.get('boss')!r}")
        seats = seat_specs(setup, 3, 3, f"{GAME} Turf Defense")
    elif setup.get("boss") is not None:
        raise ValueError("setup.boss: only a Turf Defense position (mode: turf) has a boss")
    else:
        seats = seat_specs(setup, 2, MAX_SEATS, GAME)
    state = blank_state(pool, len(seats), seed, log=True, cls=AlleyState if boss is None else TurfState)
    state.turn = fields.whole("turn", 3, most=pool.consts.turn_limit, why=" (the rules' turn_limit)")
    state.first = fields.whole("first", 0, most=len(seats) - 1, why=" (a seat)")
    state.active = state.to_act = fields.whole("active", 0, most=len(seats) - 1, why=" (a seat)")
    state.phase = PHASES[fields.word("phase", PHASES, "deployment")]
    for seat, spec in enumerate(seats):
        if boss is not None and seat == TURF_BOSS:
            _fill_seat(state, seat, spec, len(seats), boss.morale, " (the boss's Morale)")
        else:
            _fill_seat(state, seat, spec, len(seats))
    if boss is not None:
        state.seat_boss(boss, TURF_TEAMS, TURF_BOSS)
    field.update_auras(state)
    return state


def _fill_seat(state: AlleyState, seat: int, spec: dict, n_seats: int, cap: int = 0,
               why: str = " (the rules' morale_cap)") -> None:
    pool, consts = state.pool, state.pool.consts
    where = f"setup.seats[{seat}]"
    fields = Fields(spec, where, SEAT_KEYS, MAX_NUMBER)
    side = state.sides[seat]
    # a seat at 0 Morale is out of the match; above the cap is more than it can ever hold
    cap = cap or consts.morale_cap
    side.morale = fields.whole("morale", cap if cap != consts.morale_cap else consts.starting_morale,
                               least=1, most=cap, why=why)
    # a seat's own turns so far, if the turns went round the table from the first seat
    order = (seat - state.first) % n_seats
    turn_limit = " (the rules' turn_limit)"
    default_turns = max(1, (state.turn - order + n_seats - 1) // n_seats)
    side.turns = fields.whole("turns", default_turns, most=consts.turn_limit, why=turn_limit)
    # Authority above the cap is reachable (gain_authority effects): only the game's largest bounds it
    side.authority = fields.whole("authority", min(consts.authority_cap, side.turns) if seat == state.active else 0)
    for key in ("barricade", "tax", "jam", "kos", "flips", "plundered", "burn_dealt"):
        setattr(side, key, fields.whole(key, 0))
    side.hand = [card_id(pool, s, f"{where}.hand") for s in fields.names("hand")]
    # the deck is written top card first; the engine draws from the end of its list
    side.deck = [card_id(pool, s, f"{where}.deck") for s in reversed(fields.names("deck"))]
    for zone in ("gutter", "exile", "hideout"):
        setattr(side, zone, [card_id(pool, s, f"{where}.{zone}") for s in fields.names(zone)])
    if spec.get("leader") is not None:
        _leader(state, side, spec["leader"], f"{where}.leader")
    on_field = []
    for lane_name, unit_spec in fields.mapping("lanes", "lane names to characters").items():
        if lane_name not in pool.lane_names:
            raise ValueError(f"{where}.lanes: unknown lane {lane_name!r} (use {', '.join(pool.lane_names)})")
        lane = pool.lane_names.index(lane_name)
        u = _unit(state, seat, lane, unit_spec, f"{where}.lanes.{lane_name}")
        if u.leader:
            if side.leader >= 0 and side.leader != u.card:
                raise ValueError(f"{where}.lanes.{lane_name}: a seat has one leader")
            side.leader, side.leader_state = u.card, ON_FIELD
            side.influence = side.influence or pool.cards[u.card].influence
        elif not u.token:
            on_field.extend(u.under + (u.card,))
    backs = []
    for slot_name, back_spec in fields.mapping("back", "back-row slots to cards").items():
        if slot_name not in pool.back_names:
            raise ValueError(f"{where}.back: unknown slot {slot_name!r} (use {', '.join(pool.back_names)})")
        back = _back(state, seat, back_spec, f"{where}.back.{slot_name}")
        side.back[pool.back_names.index(slot_name)] = back
        backs.append(back.card)
    for u in side.units():
        field.recompute_equips(state, u)
    side.cards = tuple(sorted(c for c in side.hand + side.deck + side.gutter + side.exile + side.hideout
                              + on_field + backs if not pool.cards[c].token))


def _leader(state: AlleyState, side, spec: Any, where: str) -> None:
    """A Dormant or Defeated leader (an Awakened one is written in a lane)."""
    pool = state.pool
    if isinstance(spec, str):
        spec = {"card": spec}
    fields = Fields(spec, where, LEADER_KEYS, MAX_NUMBER)
    side.leader = card_id(pool, spec.get("card"), where)
    if pool.cards[side.leader].type != LEADER_CARD:
        raise ValueError(f"{where}: {spec.get('card')} is not a leader")
    printed = pool.cards[side.leader].influence
    side.influence = fields.whole("influence", printed, most=printed, why=" (the leader's printed Influence)")
    state_word = spec.get("state", "dormant")
    if state_word not in LEADER_STATES or state_word == "field":
        raise ValueError(f"{where}.state: use dormant or defeated (put an Awakened leader in a lane)")
    side.leader_state = LEADER_STATES[state_word]


def _back(state: AlleyState, seat: int, spec: Any, where: str) -> Back:
    """A Hustle or Ambush in a back-row slot, face down unless written ``face: up`` (an Equip
    names the lane of its ``host``)."""
    pool = state.pool
    if isinstance(spec, str):
        spec = {"card": spec}
    fields = Fields(spec, where, BACK_KEYS, MAX_NUMBER)
    card = card_id(pool, spec.get("card"), where)
    face_up = fields.word("face", ("down", "up"), "down") == "up"
    host = 0
    if spec.get("host") is not None:
        lane_name = spec["host"]
        if lane_name not in pool.lane_names:
            raise ValueError(f"{where}.host: unknown lane {lane_name!r} (use {', '.join(pool.lane_names)})")
        host_unit = state.sides[seat].lanes[pool.lane_names.index(lane_name)]
        if host_unit is None:
            raise ValueError(f"{where}.host: no character in {lane_name}")
        host = host_unit.uid
    set_turn = fields.whole("set", 1, most=state.pool.consts.turn_limit, why=" (the rules' turn_limit)")
    return Back(card, face_up, set_turn, host, seat)


def _unit(state: AlleyState, seat: int, lane: int, spec: Any, where: str) -> Unit:
    if isinstance(spec, str):
        spec = {"card": spec}
    fields = Fields(spec, where, UNIT_KEYS, MAX_NUMBER)
    pool, consts = state.pool, state.pool.consts
    card = pool.cards[card_id(pool, spec.get("card"), where)]
    if card.type not in (CHARACTER, LEADER_CARD):
        raise ValueError(f"{where}: {card.slug} is not a character")
    pos = fields.word("pos", ("atk", "def"), "atk")
    downed = fields.flag("downed")
    u = field.enter(state, seat, card.id, lane, pos == "atk" and not downed)
    u.downed = downed
    turn_limit = " (the rules' turn_limit)"
    u.down_turn = fields.whole("down_turn", state.turn - 1 if downed else 0, most=consts.turn_limit, why=turn_limit)
    u.mod_atk = fields.whole("atk", card.atk) - card.atk
    u.mod_def = fields.whole("def", card.df) - card.df
    u.entered = state.turn if fields.flag("zzz") else 0
    most_attacks = 1 + consts.max_extra_attacks
    u.attacks = fields.whole("attacks", 0, most=most_attacks, why=" (one plus the rules' max_extra_attacks)")
    if fields.given("shield"):
        u.shield = fields.flag("shield")
    u.under = tuple(card_id(pool, s, f"{where}.under") for s in fields.names("under"))
    for key in ("wins", "kos", "turns_on", "poison", "burn", "bleed", "undead_used"):
        if fields.given(key):
            setattr(u, key, fields.whole(key, 0))
    if u.poison:
        u.poison_left = fields.whole("poison_left", consts.status_turns)
    if u.burn:
        u.burn_left = fields.whole("burn_left", consts.status_turns)
        # the seat whose BURN it is (by default the opponent in a duel; nobody's with more seats)
        n_seats = len(state.sides)
        by = fields.whole("burn_by", 1 - seat if n_seats == 2 else -1, least=-1, most=n_seats - 1,
                          why=" (a seat, or -1 for nobody)")
        u.burn_by = ((by, u.burn),)
    elif fields.given("burn_by"):
        raise ValueError(f"{where}.burn_by: only a burning character (burn: X) has a burner")
    own_turns = state.sides[seat].turns
    for key in ("freeze", "stasis", "silence", "stun"):
        until = _status_turn(fields, key, own_turns, consts.turn_limit)
        if until:
            setattr(u, key, until)
    if spec.get("suppress"):
        u.sup_atk = fields.whole("suppress", 0)
        u.suppress = own_turns + 1
    u.bounty = tuple(_bounty(entry, f"{where}.bounty[{i}]", len(state.sides))
                     for i, entry in enumerate(_listed(spec.get("bounty"), f"{where}.bounty")))
    field.refresh(u)
    return u


def _status_turn(fields: Fields, key: str, own_turns: int, turn_limit: int) -> int:
    """A timed status: ``true`` lasts until the end of its owner's next turn (as if put on during
    the last turn), a number is the owner's turn it lasts to, ``false`` or nothing is none."""
    value = fields.spec.get(key)
    if value is None or value is False:
        return 0
    if value is True:
        return own_turns + 1
    return whole_number(value, fields.path(key), 0, turn_limit, " (the rules' turn_limit), or true")


def _listed(value: Any, where: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"{where}: expected a list, got {value!r}")
    return value


def _bounty(entry: Any, where: str, n_seats: int) -> Bounty:
    """A Bounty on the character: [the seat that draws when it is KO'd, the cards it draws]."""
    if not isinstance(entry, list) or len(entry) != 2:
        raise ValueError(f"{where}: expected [seat, amount], got {entry!r}")
    return Bounty(whole_number(entry[0], f"{where}.seat", 0, n_seats - 1, " (a seat)"),
                  whole_number(entry[1], f"{where}.amount", 0, MAX_NUMBER))


def _statuses(u: Unit) -> list[str]:
    out = []
    for name in ("poison", "burn", "bleed", "freeze", "stasis", "stun", "silence", "suppress"):
        if getattr(u, name):
            out.append(name)
    if u.shield:
        out.append("shield")
    if u.bounty:
        out.append("bounty")
    if u.charm_home >= 0:
        out.append("charmed")
    return out


def _prize_won(state: AlleyState) -> str | None:
    if state.teams is None or not state.over or state.winner is None:
        return None
    return state.prize if state.teams[state.winner] != state.teams[state.boss] else None


def _standings(state: AlleyState) -> list:
    if state.teams is not None:
        return standings_from_teams(state.teams, state.outs, state.winner)
    return standings_from_outs(len(state.sides), state.outs, state.winner)


def snapshot(state: AlleyState) -> dict:
    pool = state.pool
    slug = pool.slug
    p = state.pending
    out: dict[str, Any] = {
        "turn": state.turn, "active": state.active, "to_act": state.to_act, "phase": state.phase,
        "over": state.over, "winner": state.winner, "reason": state.reason or None,
        "choice": [describe_choice(state, o) for o in p.options] if p is not None else None,
        "choice_kind": p.what if p is not None else None,
        # where each seat finished (sim/core/standings.py), once the match is over
        "placements": [st.placement for st in _standings(state)] if state.over else None,
        "results": [st.result for st in _standings(state)] if state.over else None,
        # Turf Defense: the teams, the boss's seat, its phase (1 at the start), its prize card
        "teams": list(state.teams) if state.teams is not None else None,
        "boss": state.boss if state.teams is not None else None,
        "boss_phase": state.boss_phase + 1 if state.teams is not None else None,
        "prize": state.prize,
        "prize_won": _prize_won(state),  # the prize card when the partners won (engine.outcome)
    }
    outs = {o.seat: o for o in state.outs}
    for seat, side in enumerate(state.sides):
        lanes = {}
        for lane, u in enumerate(side.lanes):
            lanes[pool.lane_names[lane]] = None if u is None else {
                "card": slug(u.card), "atk": field.atk_of(state, u), "def": field.def_of(state, u),
                "pos": "atk" if u.atk_pos else "def", "downed": u.downed, "statuses": _statuses(u),
                "attacks": u.attacks, "zzz": u.entered == state.turn, "under": [slug(c) for c in u.under],
                "owner": u.owner, "poison": u.poison, "burn": u.burn, "bleed": u.bleed, "wins": u.wins,
                # whose BURN is how much of it: [seat, amount] in the order they burned it
                "burn_by": [list(share) for share in u.burn_by]}
        back = {}
        for slot, b in enumerate(side.back):
            back[pool.back_names[slot]] = None if b is None else {
                "card": slug(b.card), "face": "up" if b.face_up else "down",
                "host": pool.lane_names[state.find(b.host).lane] if b.host and state.find(b.host) else None}
        out[f"p{seat}"] = {
            "morale": side.morale, "authority": side.authority, "turns": side.turns,
            "hand": [slug(c) for c in side.hand], "hand_size": len(side.hand), "deck_size": len(side.deck),
            "deck": [slug(c) for c in reversed(side.deck)], "gutter": [slug(c) for c in side.gutter],
            "exile": [slug(c) for c in side.exile], "hideout": sorted(slug(c) for c in side.hideout),
            "barricade": side.barricade, "tax": side.tax, "jam": side.jam, "kos": side.kos, "flips": side.flips,
            "plundered": side.plundered, "burn_dealt": side.burn_dealt, "out": side.out,
            "out_turn": outs[seat].turn if seat in outs else None,
            "out_by": outs[seat].by if seat in outs else None,  # -1: nobody put it out
            "leader": None if side.leader < 0 else {
                "card": slug(side.leader), "influence": side.influence,
                "state": {DORMANT: "dormant", ON_FIELD: "field", DEFEATED: "defeated"}[side.leader_state]},
            "lanes": lanes, "back": back, "characters": sum(u is not None for u in side.lanes),
            "sees_hidden": sees_hidden(state, seat),  # MARKED: the opponents' hands and face-down cards
        }
    return out
