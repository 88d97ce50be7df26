"""The state of an AlleyWay match: plain slotted objects and integer ids, cheap to clone.

Lookahead copies (``AlleyState.fork``) share their characters (``Unit``) copy-on-write: a
candidate move changes one or two characters, and copying every character of every seat (48
slots each) for each candidate was most of what a fork cost. Each state has a generation number
(``gen``); a unit may be written in place only by the state whose ``gen`` it carries, and the
engine asks ``state.own(u)`` for a writable unit before it changes one (and goes on with the
returned unit). A fork gives both itself and its source new generations, so neither writes into
the units they now share.

The turn's chance stream is shared the same way (``chance_gen``; ``rng`` copies it before a draw
in a state that does not own it): copying a ``random.Random`` (625 words) cost more than all the
characters together, and most candidate moves draw no luck.

Target codes are one integer per thing an effect or attack can point at (the field of an
action and the options of a choice, so they stay plain integers): ``seat * 32 + lane`` for a
character, ``seat * 32 + 16 + slot`` for a back-row card, ``seat * 32 + DIRECT`` for the player (a
direct attack) and ``seat * 32 + LEADER`` for a Dormant leader. ``code`` makes one; ``decode``
reads one as a ``Place`` (seat, index), ``back_slot`` the back-row slot of one: nothing else
takes them apart.
"""
from __future__ import annotations

import random
from typing import Any, NamedTuple

from sim.core.events import EventBuffer
from sim.core.ledger import CardLedger
from sim.core.rng import copy_stream
from sim.core.state import GenerationCopies, MatchState, copy_on_write_rng, new_generation, unit_by_uid
from sim.core.target_codes import TargetCodes

# phases of a turn (MULLIGAN before the first turn)
MULLIGAN, DEPLOYMENT, BRAWL, REGROUP, ENDING = "mulligan", "deployment", "brawl", "regroup", "ending"

# a leader's place
DORMANT, ON_FIELD, DEFEATED = 0, 1, 2

BACK_BASE = 16
DIRECT = 30
LEADER = 31


class Place(NamedTuple):
    """What a target code points at: a seat, and an index there (a lane, ``BACK_BASE`` + a slot,
    ``DIRECT`` or ``LEADER``)."""
    seat: int
    index: int


# every code of up to 16 seats decoded once (sim/core/target_codes.py): decoding is a tuple index,
# as cheap as the bit operations it names (attacks and effects decode their targets on every
# lookahead move)
TARGET_CODES = TargetCodes(32, Place, 16)
code, decode = TARGET_CODES.code, TARGET_CODES.decode


def back_slot(target: int) -> int:
    """The back-row slot a back-row code points at."""
    return (target & 31) - BACK_BASE


class TimedChange(NamedTuple):
    """An ATK/DEF change that runs out at the end of ``seat``'s turn numbered ``last`` (its own
    turn count): "until the end of the turn", "until the end of your next turn"."""
    uid: int
    atk: int
    df: int
    seat: int
    last: int


class Rising(NamedTuple):
    """An UNDEAD card KO'd this turn, to rise at its end; ``under``: the lower levels of a
    promoted Striver, which went to the Gutter with it and rise under it."""
    owner: int
    card: int
    under: tuple = ()


class Bounty(NamedTuple):
    """A BOUNTY on a character (``Unit.bounty``): when it is KO'd, ``seat`` draws ``amount``."""
    seat: int
    amount: int


class AbilityUse(NamedTuple):
    """A once-per-turn ability used this turn (``state.once``): ability number ``index``, fired
    on ``when``, of ``seat``'s ``card`` (the character ``uid``, or 0 off the field)."""
    seat: int
    card: int
    uid: int
    index: int
    when: str


class GutterUse(NamedTuple):
    """A Gutter ability used this turn (``state.once``), one entry per use: a copy of ``seat``'s
    ``card`` used and still in its Gutter (a copy EXILED by its cost is not recorded; never equal
    to an AbilityUse: a tuple of another length)."""
    seat: int
    card: int


class Unit:
    """A character on the field. ``seat`` is the side it stands on (its controller), ``owner``
    whose Gutter, hand and deck it goes back to. Stats: the printed ``base`` plus permanent
    ``mod`` (POISON, BLEED, effects), ``tmp`` (until the end of a turn), ``eq`` (Equips), minus
    ``sup`` (SUPPRESS); ``atk``/``df`` hold the result (auras are added when read). Timed statuses
    hold the owner's turn count they last through (0 = none)."""
    __slots__ = ("card", "uid", "seat", "owner", "lane", "atk_pos", "downed", "down_turn",
                 "base_atk", "base_def", "mod_atk", "mod_def", "tmp_atk", "tmp_def", "eq_atk", "eq_def",
                 "sup_atk", "atk", "df", "kw", "immune", "entered", "switched", "attacks", "extra",
                 "acted", "no_attack", "under", "token", "wins", "kos", "turns_on", "shield", "undead_used",
                 "poison", "poison_left", "burn", "burn_left", "burn_by", "bleed", "freeze", "stasis", "stun",
                 "silence", "suppress", "bounty", "charm_home", "leader", "gen", "memo")

    # Bookkeeping, not game state: ``gen`` is the generation of the one state that may write
    # the unit in place (see the module's note); ``memo`` is what evaluate.side_value last
    # worked out for the unit (evaluate._unit_memo, under a key of its seat's auras, the enemy's
    # threat and the weight set), or None; kept only on a unit no state may write any more (its
    # ``gen`` is not the evaluated state's), so a unit shared by many lookahead forks is valued
    # once per key. A copy starts without one.

    def copy(self, gen: int) -> "Unit":
        """A copy writable by the state of generation ``gen``."""
        # One statement per slot: the hottest code of a lookahead clone (a unit per character on
        # the field, per candidate move). Measured 10% faster on whole greedy matches than packing
        # the 48 slots into one tuple and unpacking it (CPython specializes each plain attribute
        # load and store). Every slot must be listed (test_alleyway_speed_equivalence checks).
        u = Unit.__new__(Unit)
        u.card = self.card
        u.uid = self.uid
        u.seat = self.seat
        u.owner = self.owner
        u.lane = self.lane
        u.atk_pos = self.atk_pos
        u.downed = self.downed
        u.down_turn = self.down_turn
        u.base_atk = self.base_atk
        u.base_def = self.base_def
        u.mod_atk = self.mod_atk
        u.mod_def = self.mod_def
        u.tmp_atk = self.tmp_atk
        u.tmp_def = self.tmp_def
        u.eq_atk = self.eq_atk
        u.eq_def = self.eq_def
        u.sup_atk = self.sup_atk
        u.atk = self.atk
        u.df = self.df
        u.kw = self.kw
        u.immune = self.immune
        u.entered = self.entered
        u.switched = self.switched
        u.attacks = self.attacks
        u.extra = self.extra
        u.acted = self.acted
        u.no_attack = self.no_attack
        u.under = self.under
        u.token = self.token
        u.wins = self.wins
        u.kos = self.kos
        u.turns_on = self.turns_on
        u.shield = self.shield
        u.undead_used = self.undead_used
        u.poison = self.poison
        u.poison_left = self.poison_left
        u.burn = self.burn
        u.burn_left = self.burn_left
        u.burn_by = self.burn_by
        u.bleed = self.bleed
        u.freeze = self.freeze
        u.stasis = self.stasis
        u.stun = self.stun
        u.silence = self.silence
        u.suppress = self.suppress
        u.bounty = self.bounty
        u.charm_home = self.charm_home
        u.leader = self.leader
        u.gen = gen
        u.memo = None
        return u

    @property
    def active(self) -> bool:
        """Its effects work: not Downed, not in STASIS, not SILENCED."""
        return not (self.downed or self.stasis or self.silence)

    @property
    def standing(self) -> bool:
        """Blocks a direct attack: on the field, not Downed, not in STASIS."""
        return not (self.downed or self.stasis)

    def __repr__(self) -> str:
        pos = "down" if self.downed else "atk" if self.atk_pos else "def"
        return f"Unit(card={self.card} p{self.seat}.l{self.lane + 1} {self.atk}/{self.df} {pos})"


class Back:
    """A card in a back row (immutable: replaced when it changes, so clones share it)."""
    __slots__ = ("card", "face_up", "set_turn", "host", "owner")

    def __init__(self, card: int, face_up: bool, set_turn: int, host: int, owner: int):
        self.card, self.face_up, self.set_turn, self.host, self.owner = card, face_up, set_turn, host, owner

    def __repr__(self) -> str:
        return f"Back(card={self.card} {'up' if self.face_up else 'down'} host={self.host})"


class Side:
    """One seat: Morale, Authority and its zones."""
    __slots__ = ("morale", "authority", "turns", "hand", "deck", "gutter", "exile", "hideout", "lanes", "back",
                 "leader", "leader_state", "influence", "barricade", "tax", "jam", "loaded_turn", "redraws",
                 "kos", "flips", "plundered", "burn_dealt", "out", "cards", "aura_atk", "aura_def")

    cards: tuple  # every card the seat brought (deck and Hideout), sorted: for the conservation check

    def copy(self, gen: int | None = None) -> "Side":
        """A copy of the seat, its zones copied by slice. With ``gen`` its characters are copied
        too (writable by that generation); without, its lanes hold the same units, shared
        copy-on-write (see the module's note)."""
        # one statement per slot, as in Unit.copy
        s = Side.__new__(Side)
        s.morale = self.morale
        s.authority = self.authority
        s.turns = self.turns
        s.hand = self.hand[:]
        s.deck = self.deck[:]
        s.gutter = self.gutter[:]
        s.exile = self.exile[:]
        s.hideout = self.hideout[:]
        if gen is None:
            s.lanes = self.lanes[:]
        else:
            s.lanes = [None if u is None else u.copy(gen) for u in self.lanes]
        s.back = self.back[:]
        s.leader = self.leader
        s.leader_state = self.leader_state
        s.influence = self.influence
        s.barricade = self.barricade
        s.tax = self.tax
        s.jam = self.jam
        s.loaded_turn = self.loaded_turn
        s.redraws = self.redraws
        s.kos = self.kos
        s.flips = self.flips
        s.plundered = self.plundered
        s.burn_dealt = self.burn_dealt
        s.out = self.out
        s.cards = self.cards
        s.aura_atk = self.aura_atk
        s.aura_def = self.aura_def
        return s

    def units(self):
        return [u for u in self.lanes if u is not None]


class Pending:
    """A choice being waited on: who decides, what kind of choice (``what``), the options
    (integers: target codes, card ids, seats), and what to do with the answer: the effect ``fx``
    and its ``ctx`` (frames.Ctx), the count ``left`` to choose, and ``data`` (frames.CardChoice for
    a card from a zone, frames.EquipChoice for an Equip's host). ``actions`` is the CHOOSE action
    of each option, made when first asked for (legal.py): a Pending is never changed once made,
    so the clones sharing it share those too."""
    __slots__ = ("seat", "what", "options", "fx", "ctx", "left", "data", "actions")

    def __init__(self, seat: int, what: str, options: tuple, fx: Any = None, ctx: Any = None, left: int = 1,
                 data: Any = None):
        self.seat, self.what, self.options, self.fx, self.ctx = seat, what, tuple(options), fx, ctx
        self.left, self.data = left, data
        self.actions = None

    def __repr__(self) -> str:
        return f"Pending(p{self.seat} {self.what} {self.options})"


class AlleyState(GenerationCopies, MatchState):
    __slots__ = ("pool", "sides", "active", "to_act", "turn", "phase", "over", "winner", "reason", "stack",
                 "pending", "temp", "next_uid", "chance_key", "chance", "events", "ledger", "risen", "once",
                 "first", "auras_stale", "discounts", "discounts_stale", "known", "gen", "chance_gen", "outs")

    pool: Any
    sides: list[Side]
    stack: list               # frames still resolving (frames.py; resolve.py runs them)
    pending: Pending | None
    temp: list[TimedChange]   # timed ATK/DEF changes
    risen: list[Rising]       # UNDEAD cards to rise at the end of the turn
    once: list[tuple]         # once-per-turn uses this turn: AbilityUse and GutterUse
    chance: random.Random | None
    events: EventBuffer | None
    ledger: CardLedger | None
    # cards a seat was shown in another seat's hidden zones: a tuple of hidden.Known entries,
    # replaced when it changes, so clones share it
    known: tuple
    # what each seat's working sources take off each cost kind (pool.COST_KINDS; field.discounts),
    # valid while not ``discounts_stale``: a tuple of tuples, replaced when it changes, so clones share it
    discounts: tuple
    # the seats that went out, earliest first (sim/core/standings.Out): a tuple, replaced when it
    # changes, so clones share it
    outs: tuple

    # Turf Defense (TurfState below): a plain AlleyState has no teams and no boss. Class
    # attributes, not slots: the duel and the free-for-all neither store nor copy them.
    teams = None   # the team of each seat, or None: each for itself
    boss = -1      # the boss's seat, or -1
    prize = None   # the boss's prize card (its id as written in the data), or None

    def alive(self) -> list[int]:
        return [s for s, side in enumerate(self.sides) if not side.out]

    def next_seat(self, seat: int) -> int:
        """The next seat still playing in turn order after ``seat`` (partners included), or -1."""
        sides = self.sides
        n = len(sides)
        for k in range(1, n):
            s = (seat + k) % n
            if not sides[s].out:
                return s
        return -1

    def reachable(self, seat: int) -> list[int]:
        """The seats whose cards an effect of ``seat`` on "any" side may reach: every seat still
        playing (with teams, not a partner's)."""
        return [s for s, side in enumerate(self.sides) if not side.out]

    def opponents(self, seat: int) -> list[int]:
        """Every seat still playing other than ``seat``, in turn order after it."""
        sides = self.sides
        n = len(sides)
        if n == 2:  # the duel, on the hot path
            other = 1 - seat
            return [] if sides[other].out else [other]
        return [(seat + k) % n for k in range(1, n) if not sides[(seat + k) % n].out]

    def unit(self, target: int) -> Unit | None:
        seat, index = target >> 5, target & 31  # decode, inlined here: the hottest reader of codes
        if index >= BACK_BASE:
            return None
        lanes = self.sides[seat].lanes
        return lanes[index] if index < len(lanes) else None

    find = unit_by_uid  # the unit whose uid is ``uid``, or None

    rng = copy_on_write_rng  # this turn's chance stream, shared by forks until one draws

    def own(self, u: Unit) -> Unit:
        """``u`` made writable in this state: the unit itself if this state may write it, else a
        copy, put in its place on the field if it stands there. Every change the engine makes
        to a unit goes through here first; callers go on with the returned unit, never the one
        they passed (a unit already owned is returned as it is, so owning early is free)."""
        if u.gen == self.gen:
            return u
        c = u.copy(self.gen)
        lanes = self.sides[u.seat].lanes
        if u.lane < len(lanes) and lanes[u.lane] is u:
            lanes[u.lane] = c
        return c

    def _copy(self, deep: bool) -> "AlleyState":
        cls = type(self)
        s = cls.__new__(cls)
        s.gen = gen = new_generation()
        s.pool = self.pool
        s.sides = [side.copy(gen if deep else None) for side in self.sides]
        s.active = self.active
        s.to_act = self.to_act
        s.turn = self.turn
        s.phase = self.phase
        s.over = self.over
        s.winner = self.winner
        s.reason = self.reason
        s.stack = [frame.copy() for frame in self.stack] if self.stack else []
        s.pending = self.pending  # never mutated in place: replaced when it changes
        s.temp = self.temp[:]
        s.risen = self.risen[:]
        s.once = self.once[:]
        s.next_uid = self.next_uid
        s.chance_key = self.chance_key
        s.first = self.first
        s.auras_stale = self.auras_stale
        s.discounts = self.discounts
        s.discounts_stale = self.discounts_stale
        s.known = self.known
        s.outs = self.outs
        if deep:
            s.chance = copy_stream(self.chance)
            s.chance_gen = gen
        else:
            s.chance = self.chance  # shared until one of the two draws (``rng``)
            s.chance_gen = 0        # no state's generation
        s.events = None
        s.ledger = None
        s.hold = self.hold  # copy_hold, inlined: every AlleyWay state has a hold (None: not held)
        return s


class TurfState(AlleyState):
    """Turf Defense: two partners (teams 0) against a clan boss (team 1, the last seat). A
    partner is not an opponent (``opponents``) and its cards are out of reach of its partner's
    effects (``reachable``); the boss has its own Morale cap (``caps``) and its phase
    (``boss_phase``: 0 at the start, one more at each mark of ``boss_def.marks`` its Morale
    falls to)."""
    __slots__ = ("teams", "boss", "boss_def", "boss_phase", "caps")

    teams: tuple      # the team of each seat
    boss: int         # the boss's seat
    boss_def: Any     # pool.BossDef
    boss_phase: int
    caps: tuple       # each seat's Morale cap: the rules' morale_cap, the boss's Morale for the boss

    @property
    def prize(self) -> str:
        """The boss's prize card (its id as written in the data): the partners' reward when they
        win (the guide: "The first win on Street pays the boss's prize card")."""
        return self.pool.slug(self.boss_def.prize)

    def seat_boss(self, boss: Any, teams: tuple, boss_seat: int) -> None:
        """The TurfState's own fields, once its seats are filled: the teams, the boss
        (pool.BossDef) in ``boss_seat``, each seat's Morale cap, the phase its Morale is in."""
        self.teams, self.boss, self.boss_def = teams, boss_seat, boss
        caps = [self.pool.consts.morale_cap] * len(self.sides)
        caps[boss_seat] = boss.morale
        self.caps = tuple(caps)
        self.boss_phase = boss.phase_at(self.sides[boss_seat].morale)

    def opponents(self, seat: int) -> list[int]:
        """Every seat still playing of another team than ``seat``'s, in turn order after it."""
        sides, teams = self.sides, self.teams
        n = len(sides)
        team = teams[seat]
        out = []
        for k in range(1, n):
            s = (seat + k) % n
            if not sides[s].out and teams[s] != team:
                out.append(s)
        return out

    def reachable(self, seat: int) -> list[int]:
        teams = self.teams
        team = teams[seat]
        return [s for s, side in enumerate(self.sides) if not side.out and (s == seat or teams[s] != team)]

    def _copy(self, deep: bool) -> "TurfState":
        s = AlleyState._copy(self, deep)
        s.teams = self.teams
        s.boss = self.boss
        s.boss_def = self.boss_def
        s.boss_phase = self.boss_phase
        s.caps = self.caps
        return s
