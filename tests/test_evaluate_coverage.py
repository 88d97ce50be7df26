"""Every keyword and status each game defines is valued by its ``evaluate`` in the right
direction, or declared neutral with a reason in the game's ``weights.yaml``.

The names come from the engines' own definitions (keyword bits, the card schema's Keywords, the
fields of Unit and Side), so a new keyword or status fails here until it is weighted (and a
probe below shows the weight working) or declared neutral. Each probe takes a position from a
short random playout, changes one thing and compares ``evaluate`` before and after."""
from __future__ import annotations

import random
from functools import lru_cache

import pytest

from tests.conftest import DATA

GAMES = ("alleyway", "frontier", "allegiance")


@lru_cache(maxsize=None)
def setup(game):
    from cardsdb.loader import load_ruleset
    from sim.registry import engine

    data, ruleset = load_ruleset(game, "base", DATA)
    eng = engine(game)
    pool = eng.compile_pool(ruleset)
    decks = [eng.compile_deck(pool, d) for d in sorted(data.decks.values(), key=lambda d: d.id) if d.starter]
    return eng, pool, decks


def weights(game):
    import importlib
    return importlib.import_module(f"sim.{game}.evaluate").WEIGHTS


def playout(game, cond, seed=3, steps=3000, n_decks=2):
    """A position from random play where ``cond(state)`` holds and nobody is inside a choice."""
    eng, pool, decks = setup(game)
    for s in range(seed, seed + 40):
        state = eng.new_match(pool, [decks[(s + k) % len(decks)] for k in range(n_decks)], s, log=False)
        rng = random.Random(s)
        for _ in range(steps):
            if state.over:
                break
            if not eng.in_choice(state) and getattr(state, "pending", None) is None and cond(state):
                return eng.clone(state)
            eng.apply(state, rng.choice(eng.legal_actions(state)))
    raise AssertionError(f"{game}: no position found")


# --- the names each engine defines -----------------------------------------------------------------

def keyword_names(game):
    if game == "alleyway":
        from sim.alleyway.pool import KEYWORD_BITS
        return set(KEYWORD_BITS)
    if game == "frontier":
        from cardsdb.frontier.schema import Keywords
        from sim.frontier.pool import FLAG_KEYWORDS
        return set(FLAG_KEYWORDS) | set(Keywords.model_fields)
    from cardsdb.allegiance.schema import Keywords
    return set(Keywords.model_fields)


def status_names(game):
    import importlib
    state = importlib.import_module(f"sim.{game}.state")
    unit = state.Unit._fields if hasattr(state.Unit, "_fields") else state.Unit.__slots__
    return {"unit": set(unit), "side": set(state.Side.__slots__)}


@pytest.mark.parametrize("game", GAMES)
def test_every_name_is_weighted_or_neutral(game):
    w = weights(game)
    neutral = w.get("neutral", {})
    for what, names in (("keywords", keyword_names(game)),):
        valued = set(w.get("keywords", {})) | (set(w.get("immune", {})) if game == "alleyway" else set())
        valued |= {n for n in names if n in w["weights"]}  # per-card numbers weighted by name
        missing = sorted(n for n in names if n not in valued and n not in neutral.get(what, {}))
        assert not missing, f"{game}: keywords neither weighted nor neutral: {missing}"
    for kind, names in status_names(game).items():
        valued = set(w["statuses"][kind])
        missing = sorted(n for n in names if n not in valued and n not in neutral.get(kind, {}))
        assert not missing, f"{game}: {kind} fields neither weighted nor neutral: {missing}"
        both = sorted(n for n in names if n in valued and n in neutral.get(kind, {}))
        assert not both, f"{game}: {kind} fields both weighted and neutral: {both}"
        stale = sorted((valued | set(neutral.get(kind, {}))) - names)
        assert not stale, f"{game}: weights.yaml names {kind} fields the state has not: {stale}"
    for section in neutral.values():
        for name, reason in section.items():
            assert isinstance(reason, str) and len(reason) > 5, f"{game}: neutral {name} needs its reason"
    if game == "alleyway":
        from sim.alleyway.pool import STATUS_BITS
        assert set(w["immune"]) == set(STATUS_BITS)


def _sign(game, kind, name):
    mark = weights(game)["statuses"][kind][name]
    return {"+": 1, "-": -1, "~": 0}[mark[0]]


def _check(game, what, before, after, seat, sign):
    eng = setup(game)[0]
    a, b = eng.evaluate(before, seat), eng.evaluate(after, seat)
    if sign > 0:
        assert b > a, f"{game}: {what} should raise the value ({a} -> {b})"
    elif sign < 0:
        assert b < a, f"{game}: {what} should lower the value ({a} -> {b})"
    else:
        assert b != a, f"{game}: {what} is ignored ({a})"


# --- AlleyWay ------------------------------------------------------------------------------------

def _aw_base():
    from sim.alleyway.state import DEPLOYMENT

    def cond(s):
        return (s.turn >= 5 and s.phase == DEPLOYMENT and not s.stack
                and all(any(u is not None for u in side.lanes) for side in s.sides))
    state = playout("alleyway", cond)
    me = state.active
    state.auras_stale = False
    return state, me


def _aw_clean(u):
    u.downed, u.atk_pos, u.stasis, u.freeze, u.stun, u.silence, u.suppress = False, True, 0, 0, 0, 0, 0
    u.sup_atk = u.poison = u.poison_left = u.burn = u.burn_left = u.bleed = 0
    u.bounty, u.charm_home, u.shield, u.undead_used = (), -1, False, False
    u.attacks = u.extra = u.no_attack = 0
    u.entered = 1
    u.wins = u.kos = u.turns_on = 0
    u.seat = u.owner


def _aw_pair(mutate, before=None, open_enemy=False, brawl=False):
    from sim.alleyway.state import BRAWL
    state, me = _aw_base()
    side = state.sides[me]
    u = next(x for x in side.lanes if x is not None)
    _aw_clean(u)
    if open_enemy:
        for s in state.opponents(me):
            state.sides[s].lanes = [None] * len(state.sides[s].lanes)
    if brawl:
        state.phase = BRAWL
    if before:
        before(state, me, u)
    after = state.clone()
    ua = next(x for x in after.sides[me].lanes if x is not None)
    mutate(after, me, ua)
    return state, after, me


def _promoter(kind):
    from sim.alleyway.pool import CHARACTER
    pool = setup("alleyway")[1]
    for c in pool.cards:
        if c.type == CHARACTER and c.promote and c.promote[0] == kind and c.next >= 0:
            n = pool.cards[c.next]
            if n.atk + n.df > c.atk + c.df:
                return c
    pytest.skip(f"no Striver promotes on {kind}")


def _aw_promote(field, kind):
    def before(s, me, u):
        c = _promoter(kind)
        u.card = c.id
        s.sides[me].hideout.append(c.next)
    return dict(before=before, mutate=lambda s, me, u: setattr(u, field, 1))


def _aw_leader(kind):
    from sim.alleyway.pool import LEADER_CARD
    pool = setup("alleyway")[1]
    for c in pool.cards:
        if c.type == LEADER_CARD and c.awaken and c.awaken[0] == kind:
            return c.id
    pytest.skip(f"no leader awakens on {kind}")


def _aw_awaken(field, kind):
    from sim.alleyway.state import DORMANT

    def before(s, me, u):
        side = s.sides[me]
        side.leader, side.leader_state = _aw_leader(kind), DORMANT
        setattr(side, field, 0)
    return dict(before=before, mutate=lambda s, me, u: setattr(s.sides[me], field, 1))


def _set(field, value):
    return lambda s, me, u: setattr(u, field, value)


def _side_set(field, value):
    return lambda s, me, u: setattr(s.sides[me], field, value)


def _face_down(s, me):
    from sim.alleyway.state import Back
    side = s.sides[me]
    side.back[side.back.index(None) if None in side.back else 0] = Back(side.hand[0] if side.hand else 0, False, 1, -1, me)


def _aw_attack_ready(s, me, u):
    u.entered, u.attacks = 0, 0


AW_UNIT = {
    "atk": dict(mutate=lambda s, me, u: setattr(u, "atk", u.atk + 300)),
    "df": dict(mutate=lambda s, me, u: setattr(u, "df", u.df + 300)),
    "downed": dict(mutate=_set("downed", True)),
    "atk_pos": dict(mutate=_set("atk_pos", False)),
    "entered": dict(before=_aw_attack_ready, mutate=lambda s, me, u: setattr(u, "entered", s.turn),
                    open_enemy=True, brawl=True),
    "attacks": dict(before=_aw_attack_ready, mutate=_set("attacks", 2), open_enemy=True, brawl=True),
    "extra": dict(before=lambda s, me, u: (_aw_attack_ready(s, me, u), setattr(u, "attacks", 1)),
                  mutate=_set("extra", 1), open_enemy=True, brawl=True),
    "no_attack": dict(before=_aw_attack_ready, mutate=lambda s, me, u: setattr(u, "no_attack", s.turn),
                      open_enemy=True, brawl=True),
    "wins": _aw_promote("wins", "wins"),
    "kos": _aw_promote("kos", "kos"),
    "turns_on": _aw_promote("turns_on", "turns"),
    "shield": dict(mutate=_set("shield", True)),
    "undead_used": dict(before=lambda s, me, u: setattr(u, "kw", u.kw | 64), mutate=_set("undead_used", True)),
    "poison": dict(before=_set("poison_left", 3), mutate=_set("poison", 300)),
    "poison_left": dict(before=_set("poison", 300), mutate=_set("poison_left", 3)),
    "burn": dict(before=_set("burn_left", 3), mutate=_set("burn", 300)),
    "burn_left": dict(before=_set("burn", 300), mutate=_set("burn_left", 3)),
    "bleed": dict(mutate=_set("bleed", 200)),
    "freeze": dict(mutate=_set("freeze", 9)),
    "stasis": dict(mutate=_set("stasis", 9)),
    "stun": dict(mutate=_set("stun", 9)),
    "silence": dict(before=lambda s, me, u: setattr(u, "kw", u.kw | 1), mutate=_set("silence", 9)),
    "suppress": dict(mutate=_set("suppress", 9)),
    "sup_atk": dict(before=_set("suppress", 9), mutate=_set("sup_atk", 300)),
    "bounty": dict(mutate=lambda s, me, u: setattr(u, "bounty", ((1 - me, 2),))),
    "charm_home": dict(mutate=_set("charm_home", 5)),
}

AW_SIDE = {
    "morale": dict(before=_side_set("morale", 3000), mutate=_side_set("morale", 4000)),
    "hand": dict(before=lambda s, me, u: s.sides[me].hand.__setitem__(slice(None), s.sides[me].hand[:2]),
                 mutate=lambda s, me, u: s.sides[me].hand.append(s.sides[me].deck[0])),
    "back": dict(before=lambda s, me, u: s.sides[me].back.__setitem__(slice(None), [None] * len(s.sides[me].back)),
                 mutate=lambda s, me, u: _face_down(s, me)),
    "influence": dict(before=lambda s, me, u: (setattr(s.sides[me], "leader_state", 0),
                                               setattr(s.sides[me], "influence", 1000)),
                      mutate=_side_set("influence", 3000)),
    "leader_state": dict(before=_side_set("leader_state", 2), mutate=_side_set("leader_state", 0)),
    "barricade": dict(mutate=_side_set("barricade", 1000)),
    "tax": dict(mutate=_side_set("tax", 2)),
    "jam": dict(before=lambda s, me, u: _face_down(s, me), mutate=_side_set("jam", 99)),
    "kos": _aw_awaken("kos", "kos"),
    "flips": _aw_awaken("flips", "coin_flips"),
    "plundered": _aw_awaken("plundered", "plundered"),
    "burn_dealt": _aw_awaken("burn_dealt", "burn_dealt"),
    "aura_atk": dict(mutate=lambda s, me, u: setattr(s.sides[me], "aura_atk", s.sides[me].aura_atk + 300)),
    "aura_def": dict(mutate=lambda s, me, u: setattr(s.sides[me], "aura_def", s.sides[me].aura_def + 300)),
    "deck": dict(before=lambda s, me, u: s.sides[me].deck.__setitem__(slice(None), s.sides[me].deck[:2]),
                 mutate=lambda s, me, u: s.sides[me].deck.append(s.sides[me].gutter[0] if s.sides[me].gutter
                                                                   else s.sides[me].hand[0])),
}


# --- Frontier ------------------------------------------------------------------------------------

def _fr_base():
    def cond(s):
        return s.turn >= 4 and all(any(u is not None for u in side.lanes) for side in s.sides)
    state = playout("frontier", cond)
    return state, state.active


def _fr_unit(state, me):
    return next(u for u in state.sides[me].lanes if u is not None)


def _fr_pair(mutate, before=None):
    state, me = _fr_base()
    if before:
        before(state, me, _fr_unit(state, me))
    after = state.clone()
    mutate(after, me, _fr_unit(after, me))
    return state, after, me


def _fr_high_rise(s, me, u):
    """Move the unit into a High-Rise lane, not fresh."""
    side = s.sides[me]
    n_mid = s.pool.n_middle
    hr = next(i for i in range(n_mid, len(side.lanes)) if side.lanes[i] is None)
    side.lanes[u.lane] = None
    u.lane = hr
    side.lanes[hr] = u
    u.fresh = False


FR_UNIT = {
    "atk": dict(mutate=lambda s, me, u: setattr(u, "atk", u.atk + 2)),
    "hp": dict(mutate=lambda s, me, u: setattr(u, "hp", u.hp + 2)),
    "fresh": dict(before=_fr_high_rise, mutate=_set("fresh", True)),
    "skip": dict(before=_set("skip", 0), mutate=_set("skip", 1)),
    "charged": dict(before=lambda s, me, u: (setattr(u, "kw", u.kw | (1 << 15)), setattr(u, "charged", False)),
                    mutate=_set("charged", True)),
}

FR_SIDE = {
    "hp": dict(before=_side_set("hp", 10), mutate=_side_set("hp", 12)),
    "hand": dict(mutate=lambda s, me, u: s.sides[me].hand.append(s.sides[me].deck[0])),
    "cover": dict(before=lambda s, me, u: s.sides[me].cover.__setitem__(0, 0),
                  mutate=lambda s, me, u: s.sides[me].cover.__setitem__(0, 1)),
    "gold": dict(mutate=lambda s, me, u: setattr(s.sides[me], "gold", s.sides[me].gold + 2)),
    "gold_bonus": dict(mutate=lambda s, me, u: setattr(s.sides[me], "gold_bonus", s.sides[me].gold_bonus + 1)),
    "dzone": dict(before=lambda s, me, u: s.sides[me].dzone.__setitem__(0, 99),
                  mutate=lambda s, me, u: s.sides[me].dzone.__setitem__(0, 1)),
    "mana_bonus": dict(mutate=lambda s, me, u: setattr(s.sides[me], "mana_bonus", s.sides[me].mana_bonus + 1)),
    "deck": dict(before=lambda s, me, u: s.sides[me].deck.__setitem__(slice(None), s.sides[me].deck[:1]),
                 mutate=lambda s, me, u: s.sides[me].deck.append(s.sides[me].hand[0])),
}


# --- Allegiance ----------------------------------------------------------------------------------

def _al_cell(state, me):
    from sim.allegiance.pool import WARRIOR
    cards = state.pool.cards
    return next(c for c, u in enumerate(state.cells)
                if u is not None and u.owner == me and cards[u.card].type == WARRIOR)


def _al_base():
    from sim.allegiance.pool import WARRIOR

    def cond(s):
        cards = s.pool.cards
        return s.turn >= 3 and any(u is not None and u.owner == s.active and cards[u.card].type == WARRIOR
                                   for u in s.cells)
    state = playout("allegiance", cond)
    return state, state.active


def _al_replace(**kw):
    def mutate(s, me, _u):
        cell = _al_cell(s, me)
        u = s.cells[cell]
        s.cells[cell] = u._replace(**{k: (v(u) if callable(v) else v) for k, v in kw.items()})
    return mutate


def _al_pair(mutate, before=None):
    state, me = _al_base()
    if before:
        before(state, me, None)
    after = state.clone()
    mutate(after, me, None)
    return state, after, me


def _al_card(pred):
    pool = setup("allegiance")[1]
    return next(c.id for c in pool.cards if pred(c))


AL_UNIT = {
    "hp": dict(before=_al_replace(hp=lambda u: max(1, u.max_hp - 2)), mutate=_al_replace(hp=lambda u: u.hp + 1)),
    "absorb": dict(mutate=_al_replace(absorb=lambda u: u.absorb + 1)),
    "reflect": dict(mutate=_al_replace(reflect=lambda u: u.reflect + 1)),
    "weapon": dict(before=_al_replace(weapon=-1),
                   mutate=_al_replace(weapon=lambda u: _al_card(lambda c: c.supply == "weapon" and c.damage > 0))),
    "armor": dict(before=_al_replace(armor=-1),
                  mutate=_al_replace(armor=lambda u: _al_card(lambda c: c.supply == "armor" and c.armor > 0))),
    "power": dict(mutate=_al_replace(power=lambda u: u.power + 1)),
    "boost": dict(mutate=_al_replace(boost=lambda u: u.boost + 1)),
    "tap": dict(before=_al_replace(tap=0), mutate=_al_replace(tap=2)),
}

AL_SIDE = {
    "hand": dict(mutate=lambda s, me, u: s.sides[me].hand.append(s.sides[me].deck[0])),
    "muster": dict(mutate=lambda s, me, u: s.sides[me].muster.append(
        (_al_card(lambda c: c.type == 0 and c.hp > 0), s.sides[me].turns))),
    "strongholds": dict(mutate=lambda s, me, u: s.sides[me].strongholds.append(
        _al_card(lambda c: c.type == 1 and c.hp > 0))),
}

PROBES = {
    "alleyway": ({"unit": AW_UNIT, "side": AW_SIDE}, _aw_pair),
    "frontier": ({"unit": FR_UNIT, "side": FR_SIDE}, _fr_pair),
    "allegiance": ({"unit": AL_UNIT, "side": AL_SIDE}, _al_pair),
}


def _status_cases():
    from pathlib import Path

    import yaml
    out = []
    for game in GAMES:
        w = yaml.safe_load((Path(__file__).parents[1] / "sim" / game / "weights.yaml").read_text())
        for kind in ("unit", "side"):
            for name in w["statuses"][kind]:
                out.append((game, kind, name))
    return out


@pytest.mark.parametrize("game,kind,name", _status_cases())
def test_status_moves_the_value(game, kind, name):
    probes, pair = PROBES[game]
    if name == "out" and game == "alleyway":
        return _alleyway_out()
    assert name in probes[kind], f"{game}: {kind} field {name} is weighted but has no probe here"
    spec = dict(probes[kind][name])
    before, after, me = pair(**spec)
    _check(game, f"{kind}.{name}", before, after, me, _sign(game, kind, name))


def _alleyway_out():
    eng, pool, decks = setup("alleyway")
    state = eng.new_match(pool, decks[:3], 5, log=False)
    after = state.clone()
    after.sides[1].out = True
    _check("alleyway", "side.out", state, after, 1, -1)
    _check("alleyway", "an opponent out", state, after, 0, +1)


# --- keywords ------------------------------------------------------------------------------------

def _kw_cases():
    out = []
    for game in GAMES:
        for name in sorted(keyword_names(game)):
            out.append((game, name))
    return out


@pytest.mark.parametrize("game,name", _kw_cases())
def test_keyword_moves_the_value(game, name):
    w = weights(game)
    if name in w.get("neutral", {}).get("keywords", {}):
        return
    eng, pool, _ = setup(game)
    if game == "alleyway":
        from sim.alleyway.pool import KEYWORD_BITS
        weight = w["keywords"][name]
        bit = KEYWORD_BITS[name]
        before, after, me = _aw_pair(lambda s, me, u: setattr(u, "kw", u.kw | bit),
                                     before=lambda s, me, u: setattr(u, "kw", u.kw & ~bit))
    elif game == "frontier" and name in w["keywords"]:
        from sim.frontier.pool import FLAG_KEYWORDS
        weight = w["keywords"][name]
        bit = FLAG_KEYWORDS[name]
        before, after, me = _fr_pair(lambda s, me, u: setattr(u, "kw", u.kw | bit),
                                     before=lambda s, me, u: (setattr(u, "kw", u.kw & ~bit), setattr(u, "charged", False)))
    else:  # a number on the card (Frontier's Blast, Allegiance's keywords): the card changes
        weight = w["weights"][name]
        return _card_keyword(game, name, weight)
    _check(game, f"keyword {name}", before, after, me, 1 if weight > 0 else -1)


def _card_keyword(game, name, weight):
    import importlib
    ev = importlib.import_module(f"sim.{game}.evaluate")
    eng, pool, _ = setup(game)
    if game == "frontier":
        state, me = _fr_base()
        card = pool.cards[_fr_unit(state, me).card]
    else:
        state, me = _al_base()
        card = pool.cards[state.cells[_al_cell(state, me)].card]
    old = getattr(card, name)
    try:
        setattr(card, name, 0 if not isinstance(old, bool) else False)
        ev.forget_card_terms()
        a = eng.evaluate(state, me)
        setattr(card, name, 1 if not isinstance(old, bool) else True)
        ev.forget_card_terms()
        b = eng.evaluate(state, me)
    finally:
        setattr(card, name, old)
        ev.forget_card_terms()
    assert (b - a) * weight > 0, f"{game}: keyword {name} is ignored or goes the wrong way ({a} -> {b})"


@pytest.mark.parametrize("game", ["alleyway"])
def test_immune_statuses_are_valued(game):
    from sim.alleyway.pool import STATUS_BITS
    for name, bit in STATUS_BITS.items():
        before, after, me = _aw_pair(lambda s, me, u, bit=bit: setattr(u, "immune", u.immune | bit),
                                     before=lambda s, me, u: setattr(u, "immune", 0))
        _check(game, f"IMMUNE {name}", before, after, me, 1)


# --- the redraw ----------------------------------------------------------------------------------

def _greedy_choice(state, seed):
    from sim.core.pilots import make_pilot
    eng = setup("alleyway")[0]
    pilot = make_pilot("greedy", eng, state.to_act, random.Random(seed))
    return pilot.choose(state, eng.legal_actions(state))


def _opening(seed):
    from sim.alleyway.state import MULLIGAN
    eng, pool, decks = setup("alleyway")
    state = eng.new_match(pool, [decks[seed % len(decks)], decks[(seed + 1) % len(decks)]], seed, log=False)
    assert state.phase == MULLIGAN
    return eng, pool, state


def test_redraw_judged_on_content():
    from sim.alleyway.legal import KEEP_HAND, REDRAW_HAND
    from sim.alleyway.pool import CHARACTER
    eng, pool, state = _opening(1)
    seat = state.to_act
    side = state.sides[seat]
    everything = side.hand + side.deck
    cards = pool.cards
    chars = sorted((c for c in set(everything) if cards[c].type == CHARACTER), key=lambda c: cards[c].cost)
    # a bad hand: the five dearest cards of the deck (no early play)
    bad = sorted(everything, key=lambda c: -cards[c].cost)[:5]
    # a good hand: the best body at each of Authority 1, 2, 3, then more cheap ones
    good = []
    for cost in (1, 2, 3, 2, 1):
        options = [c for c in chars if cards[c].cost <= cost and everything.count(c) > good.count(c)]
        good.append(max(options, key=lambda c: cards[c].atk + cards[c].df))
    for hand, want in ((bad, REDRAW_HAND), (good, KEEP_HAND)):
        trial = state.clone()
        s = trial.sides[seat]
        pile = side.hand + side.deck
        for c in hand:
            pile.remove(c)
        s.hand, s.deck = list(hand), pile
        for pilot_seed in range(5):
            assert _greedy_choice(trial, pilot_seed) == want, (hand, want)


def test_redraw_decisions_are_not_ties():
    eng = setup("alleyway")[0]
    ties = 0
    for seed in range(40):
        _, _, state = _opening(seed)
        seat = state.to_act
        belief = eng.determinize(state, seat, random.Random(seed))
        values = []
        for action in eng.legal_actions(state):
            trial = eng.clone(belief)
            eng.apply(trial, action)
            values.append(eng.evaluate(trial, seat))
        ties += values[0] == values[1]
    assert ties < 10, f"{ties} of 40 redraw decisions tie"


# --- more than two seats, teams --------------------------------------------------------------------

def _with_teams(state, teams):
    """The state as one that declares teams (no state does today: the attribute is optional)."""
    from sim.alleyway.state import AlleyState

    class Teamed(AlleyState):
        __slots__ = ("teams",)
    t = Teamed.__new__(Teamed)
    for klass in type(state).__mro__:
        for slot in getattr(klass, "__slots__", ()):
            if hasattr(state, slot):
                setattr(t, slot, getattr(state, slot))
    t.teams = teams
    return t


def test_three_seats_and_teams():
    eng, pool, decks = setup("alleyway")
    state = eng.new_match(pool, decks[:3], 5, log=False)
    base = eng.evaluate(state, 0)
    strong = state.clone()
    strong.sides[2].morale -= 3000  # seat 2 weakened: seat 1 is now the strongest opponent
    assert eng.evaluate(strong, 0) == pytest.approx(base, abs=60)  # compared with the strongest, not the sum
    weak = state.clone()
    weak.sides[1].morale -= 3000
    weak.sides[2].morale -= 3000
    assert eng.evaluate(weak, 0) > base
    # alone, seat 1 weakened is good for seat 0; as seat 0's partner (teams), it is bad
    assert eng.evaluate(weak, 0) > eng.evaluate(strong, 0)
    assert eng.evaluate(_with_teams(weak, [0, 0, 1]), 0) < eng.evaluate(_with_teams(strong, [0, 0, 1]), 0)
    out = state.clone()
    out.sides[0].out = True
    later = state.clone()
    later.sides[0].out = later.sides[2].out = True
    assert eng.evaluate(out, 0) < -50_000
    assert eng.evaluate(later, 0) > eng.evaluate(out, 0)  # outliving a seat places better
