"""The heuristic value of a position for one seat, used by the pilots.

Life matters more as it runs low; a creature is worth its stats plus its keywords (a Last Stand
or a Flip-Charged ability still to come included), plus a fresh High-Rise creature's dodge, less
the attacks a shove took; cards in hand, Cover, ready Deputies, Gold due and banked Mana are
potential. With more than two seats (or teams) a seat is compared with its strongest opponent
still playing, and an eliminated seat is worst.

The weights are data: ``weights.yaml`` beside this file, read once at import; keyword masks are
memoised by mask and per-card worths built once per rules version, so the hot path does no
lookups by name."""
from __future__ import annotations

from sim.core.table_value import TableWeights, table_value
from sim.core.weights import load_weights
from sim.frontier.combat import power
from sim.frontier.pool import FLAG_KEYWORDS, FLIP_CHARGED, PACK
from sim.frontier.state import ON_FIELD, FrontierState

WEIGHTS = load_weights(__file__)
_W = WEIGHTS["weights"]

WIN = float(_W["win"])
W_LIFE = float(_W["life"])
W_LOW_LIFE = float(_W["low_life"])
W_BOARD = float(_W["board"])
W_HAND = float(_W["hand"])
W_COVER = float(_W["cover"])
W_GOLD = float(_W["gold"])
W_GOLD_BONUS = float(_W["gold_bonus"])
W_DEPUTY_READY = float(_W["deputy_ready"])
W_MANA_BONUS = float(_W["mana_bonus"])
W_SKIP = float(_W["skip"])
W_FRESH = float(_W["fresh"])
W_BLAST = float(_W["blast"])
W_DECK_LOW = float(_W["deck_low"])
W_OUT = float(_W["out"])
W_PLACEMENT = float(_W["placement"])
TABLE = TableWeights(WIN, W_OUT, W_PLACEMENT)
KW_VALUE = tuple((FLAG_KEYWORDS[name], float(w)) for name, w in WEIGHTS["keywords"].items())
W_CHARGE = float(WEIGHTS["keywords"].get("flip_charged", 0.0))

_KW_WORTH: dict[int, float] = {}


def keyword_worth(kw: int) -> float:
    """The summed worth of a keyword mask (memoised: few masks occur)."""
    worth = _KW_WORTH.get(kw)
    if worth is None:
        worth = _KW_WORTH[kw] = sum(w for bit, w in KW_VALUE if kw & bit)
    return worth


_CARD_WORTH: dict[int, tuple] = {}


def card_worth(pool) -> list[float]:
    """Per card, what it is worth on the field beyond its stats and keyword flags (Blast)."""
    entry = _CARD_WORTH.get(id(pool))
    if entry is None or entry[0] is not pool:
        entry = _CARD_WORTH[id(pool)] = (pool, [W_BLAST * (c.blast or 0) for c in pool.cards])
    return entry[1]


def forget_card_terms() -> None:
    """Drop the per-card worth kept by rules version: a test that edits a card in place calls it."""
    _CARD_WORTH.clear()


def unit_value(state: FrontierState, u, extra=None) -> float:
    if extra is None:
        extra = card_worth(state.pool)
    if u.kw & PACK:  # its Attack depends on the other Beasts on its side: never cached
        return own_value(u, power(state, u)) + extra[u.card]
    # a unit's own worth is cached on it (lookahead clones share unchanged units, so a board is
    # mostly valued once per decision); the engine drops the cache before it changes the unit.
    # Kept with the per-card table of the weights that made it, as the seat's value is: another
    # weight set's pilot (its own copy of this module) values the same shared units with its own
    # weights, and must neither read this one's values nor leave it its own.
    cached = u.value
    if cached is not None and cached[0] is extra:
        return cached[1] + extra[u.card]
    v = own_value(u, u.atk)
    u.value = (extra, v)
    return v + extra[u.card]


def own_value(u, atk: int) -> float:
    """What the unit's stats (``atk`` its Attack as it stands), keywords and statuses are worth;
    the card's own extra (Blast) is added by ``unit_value``, which may see it change."""
    hp = u.hp
    v = atk + hp + 0.5 * (atk if atk < hp else hp)
    if u.kw:
        v += keyword_worth(u.kw)
        if u.charged and u.kw & FLIP_CHARGED:
            v -= W_CHARGE
    if u.skip:
        v -= W_SKIP * u.skip
    if u.fresh:
        v += W_FRESH
    return v


def side_value(state: FrontierState, seat: int, extra=None) -> float:
    """``extra``: card_worth(pool), when the caller has it.

    The value is cached on the seat with the per-card table it used (lookahead clones share the
    seats a move leaves alone, so most candidates value one seat afresh, not two); the engine
    drops it before it changes the seat or one of its units (FrontierState.own_side, own)."""
    side = state.sides[seat]
    pool = state.pool
    if extra is None:
        extra = card_worth(pool)
    cached = side.value
    if cached is not None and cached[0] is extra:
        return cached[1]
    v = _side_value(state, side, extra)
    side.value = (extra, v)
    return v


def _side_value(state: FrontierState, side, extra: list) -> float:
    pool = state.pool
    # danger is measured from the larger of the seat's cap and the rules' starting HP, so a
    # sheriff with few HP (a Frontier Run enemy) is in danger from the start and one with many
    # (trail HP) still minds every point it loses
    hp, cap = side.hp, side.max_hp
    starting = pool.consts.starting_hp
    missing = (cap if cap > starting else starting) - hp
    v = W_LIFE * hp - W_LOW_LIFE * missing * missing / 10.0
    board = 0.0
    for u in side.lanes:
        if u is not None:
            cached = u.value
            if cached is not None and cached[0] is extra and not u.kw & PACK:  # unit_value's cached case, inline
                board += cached[1] + extra[u.card]
            else:
                board += unit_value(state, u, extra)
    v += W_BOARD * board + W_HAND * len(side.hand) + W_COVER * sum(side.cover) + W_GOLD * side.gold
    if side.gold_bonus:
        v += W_GOLD_BONUS * side.gold_bonus
    if side.dzone:
        soon = side.turns + 1
        ready = 0
        for z in side.dzone:
            if z != ON_FIELD and z <= soon:
                ready += 1
        v += W_DEPUTY_READY * ready
    v += W_MANA_BONUS * side.mana_bonus
    if len(side.deck) < 3:
        v -= W_DECK_LOW * (3 - len(side.deck))
    return v


def evaluate(state: FrontierState, seat: int) -> float:
    sides = state.sides
    if len(sides) > 2 or getattr(state, "teams", None) is not None:
        return evaluate_table(state, seat)
    if state.over:
        if state.winner is None:
            return 0.0
        return WIN if state.winner == seat else -WIN
    extra = card_worth(state.pool)
    return side_value(state, seat, extra) - side_value(state, 1 - seat, extra)


def evaluate_table(state: FrontierState, seat: int) -> float:
    """More than two seats (or teams, ``state.teams`` giving a team per seat): sim/core/table_value,
    a seat out being one whose sheriff is at 0 HP."""
    return table_value(state, seat, [side.hp <= 0 for side in state.sides], lambda s: side_value(state, s), TABLE)
