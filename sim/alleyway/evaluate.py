"""The heuristic value of a position for one seat, used by the pilots.

Everything is in stat points (hundreds of ATK+DEF), the unit of the stat budget: Morale counts a
point per 100 and more as it runs low; a character is worth its stats, its keywords and abilities
while they work, less when Downed (one hit from a KO) or exposed (an enemy attacker would beat
it), less for each status holding it (FREEZE, STUN, SUPPRESS, STASIS, SILENCE, BLEED, BOUNTY, the
BURN and POISON still to come), more for a SHIELD and for progress toward its PROMOTE; cards in
hand, set cards, a Dormant leader's Influence and its AWAKEN progress, Authority kept for an
Ambush, BARRICADE, TAX and JAM are potential. Before the first turns are played the opening
hand's content counts too (the redraw). With more than two seats a seat is compared with its
strongest opponent still playing; an eliminated seat is worst, less for each seat it outlived.

The weights are data: ``weights.yaml`` beside this file, read once at import; keyword masks and
per-card worths are tables built once per rules version (``prepare``), so the hot path does no
lookups by name."""
from __future__ import annotations

from sim.alleyway.field import update_auras
from sim.alleyway.pool import AMBUSH, CHARACTER, KEYWORD_BITS, LEADER_CARD, STATUS_BITS, TWICE, UNDEAD
from sim.alleyway.state import BRAWL, DEPLOYMENT, DORMANT, MULLIGAN, AlleyState
from sim.core.table_value import TableWeights, table_value
from sim.core.weights import load_weights

WEIGHTS = load_weights(__file__)
_W = WEIGHTS["weights"]

WIN = float(_W["win"])
W_DANGER = float(_W["danger"])
W_HAND = float(_W["hand"])
W_SET = float(_W["set"])
W_FACE_UP = float(_W["face_up"])
W_LEADER = float(_W["leader"])
DOWNED = float(_W["downed"])
EXPOSED = float(_W["exposed"])
EXPOSED_BODY = float(_W["exposed_body"])
DEF_BEATEN = float(_W["def_beaten"])
W_READY_AUTHORITY = float(_W["ready_authority"])
DECK_LOW = float(_W["deck_low"])
W_ATTACK = float(_W["attack"])
W_POISON = float(_W["poison"]) / 100
W_BURN = float(_W["burn"]) / 100
W_SHIELD = float(_W["shield"])
W_FROZEN = float(_W["frozen"]) / 100
W_STUNNED = float(_W["stunned"]) / 100
W_SUPPRESSED = float(_W["suppressed"]) / 100
W_SUPPRESS_BACK = float(_W["suppress_back"]) / 100
W_STASIS = float(_W["stasis"])
W_BLEED = float(_W["bleed"]) * 2 / 100
W_BOUNTY = float(_W["bounty"])
W_CHARMED = float(_W["charmed"])
W_ABILITY = float(_W["ability"])
W_PROMOTE = float(_W["promote"])
W_BARRICADE = float(_W["barricade"]) / 100
W_TAX = float(_W["tax"])
W_JAM = float(_W["jam"])
W_OUT = float(_W["out"])
W_PLACEMENT = float(_W["placement"])
TABLE = TableWeights(WIN, W_OUT, W_PLACEMENT, out_in_team=W_OUT / 10)
CURVE = tuple(float(x) for x in _W["curve"])
W_CLUNKY = float(_W["clunky"])


class _MaskWorths(dict):
    """A keyword or IMMUNE mask -> its worth, summed the first time the mask is asked for (the
    14-bit table in full took longer to build than a match's evaluations, and this module is
    executed again for each weight set a pilot thinks with)."""
    __slots__ = ("bit_worth",)

    def __init__(self, bit_worth: list):
        super().__init__()
        self.bit_worth = bit_worth

    def __missing__(self, mask: int) -> float:
        worth = self[mask] = sum(w for bit, w in self.bit_worth if mask & bit)
        return worth


# keyword and IMMUNE masks -> worth, indexed by the mask (14 and 10 bits)
_KW_BIT_WORTH = [(KEYWORD_BITS[name], float(w)) for name, w in WEIGHTS["keywords"].items()]
KW_WORTH = _MaskWorths(_KW_BIT_WORTH)
_IMM_BIT_WORTH = [(STATUS_BITS[name], float(w)) for name, w in WEIGHTS["immune"].items()]
IMMUNE_WORTH = _MaskWorths(_IMM_BIT_WORTH)
UNDEAD_WORTH = float(WEIGHTS["keywords"].get("undead", 0.0))
AWAKEN_KINDS = ("own_turn", "morale_at_most", "gutter_characters", "kos", "coin_flips", "plundered", "burn_dealt")
_AWAKEN_W = tuple(float(WEIGHTS["awaken"][k]) for k in AWAKEN_KINDS)
_PROMOTE_KINDS = {"wins": 1, "kos": 2, "turns": 3}


class Prepared:
    """Per rules version: what each card is worth beyond its stats, computed once."""
    __slots__ = ("pool", "ability", "promote", "awaken", "ambush", "char_cost")

    def __init__(self, pool):
        self.pool = pool
        cards = pool.cards
        # abilities that stop working when it is Downed, in STASIS or SILENCED
        self.ability = [W_ABILITY * (sum(len(v) for v in c.triggers.values()) + (c.activate is not None)
                                     + (c.aura is not None) + (c.discount is not None)) for c in cards]
        # PROMOTE: (counter code, condition, next level, worth of the step) or None
        self.promote = []
        for c in cards:
            kind = _PROMOTE_KINDS.get(c.promote.kind) if c.promote else None
            if kind and c.next >= 0 and c.promote.count > 0:
                nxt = cards[c.next]
                gain = (nxt.atk + nxt.df - c.atk - c.df) / 100
                self.promote.append((kind, c.promote.count, c.next, W_PROMOTE * gain if gain > 0 else 0.0))
            else:
                self.promote.append(None)
        # AWAKEN: (kind index, condition, weight) per leader card
        self.awaken = []
        for c in cards:
            if c.type == LEADER_CARD and c.awaken is not None:
                k = AWAKEN_KINDS.index(c.awaken.kind)
                self.awaken.append((k, c.awaken.count, _AWAKEN_W[k]))
            else:
                self.awaken.append(None)
        self.ambush = [c.type == AMBUSH for c in cards]
        self.char_cost = [c.cost if c.type == CHARACTER else -1 for c in cards]


_PREPARED: dict[int, Prepared] = {}


def prepare(pool) -> Prepared:
    p = _PREPARED.get(id(pool))
    if p is None or p.pool is not pool:
        p = _PREPARED[id(pool)] = Prepared(pool)
    return p


def threat(state: AlleyState, seat: int) -> int:
    """The highest ATK an opponent's character could attack with on its next turn (auras
    included): not Downed, in STASIS, FROZEN, STUNNED or SUPPRESSED."""
    best = 0
    sides = state.sides
    for s in state.opponents(seat):
        side_best = side_threat(sides[s])
        if side_best > best:
            best = side_best
    return best


def side_threat(side) -> int:
    """The highest ATK one seat's characters could attack with on its next turn."""
    best = 0
    bonus = side.aura_atk
    for u in side.lanes:
        if (u is not None and not u.downed and not u.stasis and not u.freeze and not u.stun
                and not u.suppress and u.atk + bonus > best):
            best = u.atk + bonus
    return best


def attack_potential(state: AlleyState, seat: int) -> float:
    """On its own turn, before its attacks are spent, what a seat's ready attackers could still win:
    for each, the best of its brawls against an enemy character or directly (a one-ply pilot
    would otherwise never switch a character to ATK for the attack it makes later)."""
    if state.active != seat or state.phase not in (DEPLOYMENT, BRAWL):
        return 0.0
    sides = state.sides
    turn = state.turn
    consts = state.pool.consts
    if turn <= consts.no_attack_turns:  # no character may attack yet (brawl.can_attack)
        return _NO_ATTACK
    # the ATK of each ready attacker first (brawl.can_attack and attacks_allowed, inlined: past
    # the first test a character is neither Downed nor in STASIS, so "its effects work" is "not
    # SILENCED"); the targets are worked out only when one can attack
    max_extra = consts.max_extra_attacks
    bonus = sides[seat].aura_atk
    ready = []
    for u in sides[seat].lanes:
        if (u is None or u.downed or not u.atk_pos or u.stasis or u.freeze or u.suppress or u.entered == turn
                or u.no_attack == turn or (u.stun and u.stun == sides[u.seat].turns)):
            continue
        extra = u.extra + (1 if u.kw & TWICE and not u.silence else 0)
        if u.attacks < 1 + (max_extra if max_extra < extra else extra):
            ready.append(u.atk + bonus)
    if not ready:
        return _NO_ATTACK
    opponents = state.opponents(seat)
    if len(opponents) == 1:  # a duel: the targets and each attacker's best gain kept (_TARGETS)
        side = sides[opponents[0]]
        key = (side.aura_atk, side.aura_def, *side.lanes)
        kept = _TARGETS.get(key)
        if kept is None:
            kept = _targets(state, side, key)
        targets, open_player, known = kept
        total = 0.0
        for a in ready:
            best = known.get(a)
            if best is None:
                best = known[a] = _best_gain(a, targets, open_player)
            total += best
        return W_ATTACK * total
    targets = []
    open_player = False
    for s in opponents:
        if not _add_targets(sides[s], targets):
            open_player = True
    total = 0.0
    for a in ready:
        total += _best_gain(a, targets, open_player)
    return W_ATTACK * total


_NO_ATTACK = W_ATTACK * 0.0  # what attack_potential gives a seat with no ready attacker


def _best_gain(a: int, targets: list, open_player: bool) -> float:
    """The best an attacker with ATK ``a`` could win: directly, or a brawl with one of ``targets``."""
    best = a / 100 if open_player else 0.0
    for in_atk, d_atk, d_def, downed, worth in targets:
        if in_atk:
            gain = (a - d_atk) / 100 + (1 - DOWNED) * worth if a > d_atk else 0.0
        elif a > d_def:
            gain = worth * (DOWNED if downed else 1 - DOWNED)
        else:
            gain = 0.0
        if gain > best:
            best = gain
    return best


# A duel's targets, by the opponent's auras and the characters in its lanes: (the targets,
# whether the player is open, each attacker ATK's best gain so far). Kept only when no character
# there may change any more (Unit.memo's rule), so the same characters are the same targets in
# every lookahead fork that shares them; the gains are the very floats _best_gain gives.
_TARGETS: dict = {}
_TARGETS_KEPT = 4096


def _add_targets(side, targets: list) -> bool:
    """Append what an attacker may brawl on ``side`` to ``targets``, each (in ATK and standing,
    ATK, DEF, Downed, worth); True if a character of the side stands (its player is covered)."""
    standing = False
    aa, ad = side.aura_atk, side.aura_def
    for v in side.lanes:
        if v is None or v.stasis:
            continue
        d_atk = v.atk + aa
        d_def = v.df + ad
        if v.downed:
            targets.append((False, d_atk, d_def, True, (d_atk + d_def) / 100))
        else:
            standing = True
            targets.append((v.atk_pos, d_atk, d_def, False, (d_atk + d_def) / 100))
    return standing


def _targets(state: AlleyState, side, key: tuple) -> tuple:
    """A duel's targets on ``side`` (``_TARGETS``' entry), kept there when no state may change
    its characters."""
    targets = []
    standing = _add_targets(side, targets)
    kept = (targets, not standing, {})
    gen = state.gen
    if not any(v is not None and v.gen == gen for v in side.lanes):
        if len(_TARGETS) >= _TARGETS_KEPT:
            _TARGETS.clear()
        _TARGETS[key] = kept
    return kept


def hand_quality(state: AlleyState, seat: int, prep: Prepared) -> float:
    """The opening hand's content: a character to deploy on each of its own first three turns
    (the best body the Authority of that turn pays for, each card used once), less the cards it
    can't pay for before its fifth turn."""
    side = state.sides[seat]
    c = state.pool.consts
    cards = state.pool.cards
    char_cost = prep.char_cost
    bonus = c.second_seat_bonus if seat != state.first else 0
    used: list[int] = []
    q = 0.0
    for t, w in enumerate(CURVE):
        authority = min(c.authority_cap, c.authority_start + c.authority_per_turn * t) + (bonus if t == 0 else 0)
        best, best_i = 0.0, -1
        for i, card in enumerate(side.hand):
            cost = char_cost[card]
            if 0 <= cost <= authority and i not in used:
                d = cards[card]
                body = (d.atk + d.df) / 1700
                if body > best:
                    best, best_i = body, i
        if best_i >= 0:
            used.append(best_i)
            q += w * (best if best < 2.0 else 2.0)
    late = min(c.authority_cap, c.authority_start + c.authority_per_turn * 3)
    for card in side.hand:
        if cards[card].cost > late:
            q -= W_CLUNKY
    return q


def _unit_value(u, aa: int, ad: int, enemy: int, ability: list) -> float:
    """A character's worth before its PROMOTE progress and CHARM (side_value adds those)."""
    a = u.atk + aa
    d = u.df + ad
    a = a if a > 0 else 0
    d = d if d > 0 else 0
    body = (a + d) / 100
    value = body
    if u.downed:
        value *= DOWNED
    else:
        if u.stasis:
            value -= W_STASIS * value
        elif not u.silence:
            value += KW_WORTH[u.kw] + ability[u.card]
            if u.undead_used and u.kw & UNDEAD:
                value -= UNDEAD_WORTH
        if u.atk_pos:
            if enemy > a:
                value -= EXPOSED * (enemy - a) / 100 + EXPOSED_BODY * value
        elif enemy > d:
            value *= DEF_BEATEN
        if u.freeze:
            value -= W_FROZEN * a
        if u.stun:
            value -= W_STUNNED * a
        if u.suppress:
            value -= W_SUPPRESSED * a - W_SUPPRESS_BACK * u.sup_atk
    if u.immune:
        value += IMMUNE_WORTH[u.immune]
    if u.shield:
        value += W_SHIELD * body
    if u.burn:
        value -= W_BURN * u.burn * u.burn_left
    if u.poison:
        value -= W_POISON * u.poison * u.poison_left
    if u.bleed:
        value -= W_BLEED * u.bleed
    if u.bounty:
        for _s, amount in u.bounty:
            value -= W_BOUNTY * amount
    return value


_KEYS: dict = {}
_KEYS_KEPT = 4096


def _unit_memo(u, aa: int, ad: int, enemy: int, prep: Prepared, key: tuple) -> tuple:
    """``(key, value, progress, done)``: with no PROMOTE progress to read (``progress`` False),
    the character's whole worth; else its worth before that progress and CHARM, and the
    progress count ``done``."""
    value = _unit_value(u, aa, ad, enemy, prep.ability)
    promo = prep.promote[u.card]
    if promo is not None and u.seat == u.owner:
        kind = promo[0]
        done = u.wins if kind == 1 else u.kos if kind == 2 else u.turns_on
        if done:
            return (key, value, True, done)
    if u.charm_home >= 0:
        value *= W_CHARMED
    return (key, value, False, 0)


def side_value(state: AlleyState, seat: int, enemy: int, prep: Prepared, cap: int = 0) -> float:
    """``cap``: the seat's Morale cap when it is not the rules' (a Turf Defense boss)."""
    side = state.sides[seat]
    consts = state.pool.consts
    cap = cap or consts.morale_cap
    morale = side.morale
    v = morale / 100 + W_DANGER * (morale - cap) / 100 * (1.0 - morale / cap)
    aa, ad = side.aura_atk, side.aura_def
    key = (aa, ad, enemy, prep)  # prep: one per weight set (a pilot's evaluate may be a copy of this module)
    key = _KEYS.setdefault(key, key)  # one object per key, so a unit's memo is matched by identity
    if len(_KEYS) > _KEYS_KEPT:
        _KEYS.clear()  # (a unit keeping an older key object only misses)
    gen = state.gen
    for u in side.lanes:
        if u is None:
            continue
        # a character's worth depends only on its own fields, the seat's auras and the enemy's
        # threat, except its PROMOTE progress (the owner's Hideout): kept on a unit no state may
        # change any more (Unit.memo)
        memo = u.memo
        if memo is None or memo[0] is not key:
            memo = _unit_memo(u, aa, ad, enemy, prep, key)
            if u.gen != gen:
                u.memo = memo
        if memo[2]:
            value = memo[1]
            _kind, n, nxt, gain = prep.promote[u.card]
            done = memo[3]
            if nxt in state.sides[u.owner].hideout:
                value += gain * (done / n if done < n else 1.0)
            if u.charm_home >= 0:
                value *= W_CHARMED
            v += value
        else:
            v += memo[1]
    hand = len(side.hand)
    v += W_HAND * (hand if hand < consts.hand_limit else consts.hand_limit)
    ambush_cost = 99
    face_down = 0
    for b in side.back:
        if b is None:
            continue
        if b.face_up:
            v += W_FACE_UP
        else:
            v += W_SET
            face_down += 1
            if prep.ambush[b.card]:
                cost = state.pool.cards[b.card].cost
                if cost < ambush_cost:
                    ambush_cost = cost
    if ambush_cost < 99 and state.active == seat:
        v += W_READY_AUTHORITY * min(side.authority, ambush_cost)
    if side.leader_state == DORMANT and side.leader >= 0:
        v += W_LEADER + side.influence / 400
        aw = prep.awaken[side.leader]
        if aw is not None and aw[2]:
            k, n, w = aw
            if k == 2:
                cards = state.pool.cards
                done = sum(1 for c in side.gutter if cards[c].type == CHARACTER)
            elif k == 3:
                done = side.kos
            elif k == 4:
                done = side.flips
            elif k == 5:
                done = side.plundered
            elif k == 6:
                done = side.burn_dealt
            else:
                done = 0
            if done > 0 and n > 0:
                v += w * (done / n if done < n else 1.0)
    if side.barricade:
        v += W_BARRICADE * side.barricade
    if side.tax:
        v -= W_TAX * side.tax
    if side.jam and face_down:
        v -= W_JAM * face_down
    if len(side.deck) < 4:
        v -= DECK_LOW * (4 - len(side.deck))
    if state.turn <= 1 and (state.phase == MULLIGAN or side.turns <= 1):
        v += hand_quality(state, seat, prep)
    return v


def _seat_value(state: AlleyState, s: int, prep: Prepared) -> float:
    cap = state.caps[s] if state.boss >= 0 else 0  # a Turf Defense boss's Morale runs on its own scale
    return side_value(state, s, threat(state, s), prep, cap) + attack_potential(state, s)


def evaluate(state: AlleyState, seat: int) -> float:
    sides = state.sides
    # (a plain AlleyState has no ``teams`` slot: only a state class that declares teams is asked,
    # as a failed attribute lookup costs more than the rest of a cheap evaluation)
    if len(sides) > 2 or (type(state) is not AlleyState and getattr(state, "teams", None) is not None):
        return evaluate_table(state, seat)
    if state.over:
        if state.winner is None:
            return 0.0
        return WIN if state.winner == seat else -WIN
    if state.auras_stale:
        update_auras(state)
    prep = prepare(state.pool)
    foe = 1 - seat  # a duel still going: the one opponent is still playing
    mine = side_value(state, seat, side_threat(sides[foe]), prep) + attack_potential(state, seat)
    theirs = side_value(state, foe, side_threat(sides[seat]), prep) + attack_potential(state, foe)
    return mine - theirs


def evaluate_table(state: AlleyState, seat: int) -> float:
    """More than two seats (or teams, when ``state.teams`` gives a team per seat): sim/core/table_value,
    a seat out being one the rules put out (``side.out``)."""
    if not state.over and state.auras_stale:
        update_auras(state)
    prep = prepare(state.pool)
    return table_value(state, seat, [side.out for side in state.sides], lambda s: _seat_value(state, s, prep), TABLE)
