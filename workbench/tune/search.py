"""The field search of ``workbench tune``: the smallest set of card-number changes found that
brings every deck's field win rate into the band, checked by a fresh paired run.

How it searches (greedy, deterministic; the why is in reports/METRICS.md, "Rebalancing proposals"):

1. The starting version plays every pairing of the field on the search seeds (``--matches`` per
   pairing, both seats): each deck's field win rate. Every deck inside the band: nothing to do.
2. Each step takes the deck farthest above the *target* (the band narrowed by ``margin`` on each
   side, room for the verification's own noise), for a nerf, and the deck farthest below it, for
   a buff (the next farthest of each only when none of theirs helps). A deck's cards are ranked
   by the share of its games they were played in (a number moved on a card that is rarely
   played moves nothing), times a budget factor: an over-budget card is nerfed first and an
   under-budget one buffed first (stat points against the game's budget line). Cards a deck on
   the other side also holds are left alone (a nerf would sink it further).
3. For each of the ``width`` best cards, a step of the knob the budget prices highest (a Mana of
   cost before a point of attack; two steps at once when the deck is JUMP_POINTS or more outside
   the target), and within FAR_POINTS of it also of the knob priced lowest: each candidate is the
   current changes plus that step, played only on the pairings whose decks hold that card (the
   others play the same matches as before: common random numbers) and judged by every deck's
   estimate. A step that carries its deck past the other side of the target is followed by the
   same card's next smaller move (``finer``). The objective is the sum over decks of the squared
   points outside the target; the best candidate is taken when it lowers it. A step back towards
   the starting number is a candidate like any other, and undoes the change.
4. The search stops when every deck is inside the target, no candidate helps, ``--max-changes``
   is used up (a change is one card, with one or more of its numbers moved, each at most
   MAX_STEPS from the start: once the limit is reached only the changed cards move further) or
   the next candidate would pass ``--matches-budget``.
5. Verification: a fresh paired run on seeds hashed from the search seed (the starting version
   and the proposal, every pairing, ``--verify-matches`` per pairing, both seats). If a deck is
   still outside the band, its runs become the next round's search seeds and a new verification
   follows (at most ROUNDS rounds; the same proposal is never verified twice): a proposal is only
   ever judged on seeds its search never saw.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import polars as pl
from rich.console import Console

from cardsdb.tune import Step, apply
from reports.tune import card_plays, field_rates, paired_field, seat_rows
from sim.core.rng import derive_seed
from workbench.commands.simulate import new_run, play_or_reuse
from workbench.store import Store
from workbench.tune import versions
from workbench.tune.versions import Start

ROUNDS = 3          # search + verification rounds at most
MAX_STEPS = 3       # steps one number may move from the starting version
FAR_POINTS = 4.0    # a deck this far outside the target tries only the largest knob of each card ...
JUMP_POINTS = 8.0   # ... and this far, two steps of it at once (one change, as two single steps would be)
SEED_MASK = (1 << 63) - 1


@dataclass
class Options:
    band: tuple[float, float]         # 0..1
    margin: float                     # 0..1, the target is the band narrowed by this on both sides
    max_changes: int
    budget: int                       # matches the search may play (evaluations and their base)
    matches: int                      # per pairing in the search
    verify_matches: int               # per pairing in each verification
    seed: int
    pilots: list[str]
    width: int = 3                    # cards tried per step
    workers: int = 1
    quiet: bool = True
    proposal: str = "tuned"           # the rules version the verified proposal is named

    @property
    def target(self) -> tuple[float, float]:
        lo, hi = self.band
        m = min(self.margin, (hi - lo) / 4)
        return lo + m, hi - m


@dataclass
class Seeds:
    """One set of seeds the search measures on, and the starting version's run over it."""
    seed: int
    matches: int
    base_run: int = 0


@dataclass
class Tried:
    """One candidate the search played (a row of ``tune_steps``)."""
    round: int
    step: int
    candidate_no: int
    deck: str
    direction: str
    card: str
    field: str
    before: int
    after: int
    objective: float
    accepted: bool
    run_id: int
    matches: int
    deck_wr: float


class Part(NamedTuple):
    """One pairing's matches in a stored run (what ``reports.tune`` reads): the run, and the
    pairing's index in that run's pairings."""
    run_id: int
    pairing: int


class KnobStep(NamedTuple):
    """A move one knob of a card may take. Sorted as the fields stand: by the budget points the
    move shifts first."""
    points: float                     # budget points the move shifts (its size)
    knob: str
    value: int                        # the knob's new number


class Evaluated(NamedTuple):
    """One candidate played and judged (``Search.evaluate``)."""
    objective: float                  # the sum over decks of the squared points outside the target
    n_changes: int                    # cards its change set changes
    candidate_no: int                 # its number in the step (the last tie-break)
    tried: Tried
    steps: tuple[Step, ...]           # its change set
    parts: dict                       # the parts by pairing it was judged on
    rates: dict[str, float]           # every deck's field win rate with it

    def rank(self) -> tuple[float, int, int]:
        """The best candidate is the smallest: objective, then fewer cards changed, then the
        first tried."""
        return self.objective, self.n_changes, self.candidate_no


@dataclass
class Verified:
    round: int
    seed: int
    base_run: int
    candidate_run: int
    decks: pl.DataFrame               # per deck: before and after with intervals, paired change
    in_band: bool


@dataclass
class Result:
    steps: tuple[Step, ...]
    start_rates: dict[str, float]     # the search's first estimate of each deck
    search_rates: dict[str, float]    # its last
    tried: list[Tried] = field(default_factory=list)
    verified: list[Verified] = field(default_factory=list)
    matches_search: int = 0
    matches_verify: int = 0
    stop: str = ""
    ruleset_hash: str | None = None
    start_table: pl.DataFrame | None = None  # the search's first figures, with their intervals

    @property
    def final(self) -> Verified | None:
        return self.verified[-1] if self.verified else None


class Search:
    def __init__(self, s: Start, store: Store, opts: Options, err: Console):
        self.s, self.store, self.opts, self.err = s, store, opts, err
        n = len(s.deck_ids)
        self.pairings = [(i, j) for i in range(n) for j in range(i + 1, n)]
        self.spent = 0
        self.verify_spent = 0
        self._rows: dict[frozenset, pl.DataFrame] = {}
        self.by = versions.pilots_text(opts.pilots, s.deck_ids)  # every progress line names the pilots its win rates come from

    # --- playing -----------------------------------------------------------------------------

    def play(self, steps, pairings, seeds: Seeds, name: str | None = None) -> dict:
        """Play (or reuse) a version of ``steps`` on ``pairings``; its parts by pairing."""
        s, o = self.s, self.opts
        pairings = sorted(pairings)
        if steps:
            name = name or versions.name_of(s, steps)
            loaded = versions.resolved(s, steps, name)
        else:
            name, loaded = s.version, None
        spec, payload = new_run(s.game, name, s.deck_ids, o.pilots, matches=seeds.matches, seed=seeds.seed, swap=True,
                                events=0.0, chunk_size=None, workers=o.workers, pairings=pairings, loaded=loaded)
        run_id = play_or_reuse(self.store, spec, payload, o.workers, o.quiet, self.err).run_id
        return {p: Part(run_id, k) for k, p in enumerate(pairings)}

    def rows(self, parts: dict) -> pl.DataFrame:
        key = frozenset(parts.values())
        if key not in self._rows:
            self._rows[key] = seat_rows(self.store.path, parts.values())
        return self._rows[key]

    def rates(self, parts: dict) -> dict[str, float]:
        return dict(field_rates(self.rows(parts)).select("deck", "win_rate").iter_rows())

    # --- judging -----------------------------------------------------------------------------

    def outside(self, rate: float, band: tuple[float, float]) -> float:
        """Points (0..100) a rate lies outside a band; 0 inside."""
        lo, hi = band
        return max(0.0, lo - rate, rate - hi) * 100

    def objective(self, rates: dict[str, float]) -> float:
        return sum(self.outside(r, self.opts.target) ** 2 for r in rates.values())

    def touched(self, card: str) -> list[tuple[int, int]]:
        holders = set(self.s.holders(card))
        ids = self.s.deck_ids
        return [p for p in self.pairings if ids[p[0]] in holders or ids[p[1]] in holders]

    # --- the search --------------------------------------------------------------------------

    def run(self) -> Result:
        o = self.opts
        seeds = Seeds(o.seed, o.matches)
        parts = self.play((), self.pairings, seeds)
        seeds.base_run = next(iter(parts.values())).run_id
        self.spent += o.matches * len(self.pairings)
        rates = self.rates(parts)
        result = Result((), rates, rates, start_table=field_rates(self.rows(parts)))
        self.err.print(f"start ({self.by}): " + _rates_line(rates), markup=False, highlight=False)
        if all(self.outside(r, o.band) == 0 for r in rates.values()):
            result.stop = "every deck is already inside the band"
            result.matches_search = self.spent
            return result
        steps: tuple[Step, ...] = ()
        for rnd in range(1, ROUNDS + 1):
            before = steps
            steps, rates, result.stop = self.greedy(rnd, steps, parts, seeds, result.tried)
            result.search_rates = rates
            if not steps or (rnd > 1 and steps == before):
                break  # the same proposal is never verified twice: no shopping for lucky seeds
            v = self.verify(rnd, steps)
            result.verified.append(v)
            if v.in_band or rnd == ROUNDS or not self.room():
                break
            self.err.print(f"round {rnd}: a deck is still outside the band on fresh seeds ({self.by}); searching "
                           "on them", markup=False, highlight=False)
            seeds = Seeds(v.seed, o.verify_matches, v.base_run)
            parts = {p: Part(v.candidate_run, k) for k, p in enumerate(self.pairings)}
        result.steps = steps
        result.matches_search, result.matches_verify = self.spent, self.verify_spent
        if steps:
            result.ruleset_hash = versions.resolved(self.s, steps, o.proposal)[1].hash
        return result

    def room(self) -> bool:
        """Whether another round could change anything: budget for one candidate at least."""
        return self.spent + self.opts.verify_matches * (len(self.s.deck_ids) - 1) <= self.opts.budget

    def greedy(self, rnd: int, steps, parts: dict, seeds: Seeds, tried: list) -> tuple[tuple, dict, str]:
        o = self.opts
        rates = self.rates(parts)
        step_no = 0
        while True:
            score = self.objective(rates)
            above = self.farthest(rates, lambda r: r > o.target[1])
            below = self.farthest(rates, lambda r: r < o.target[0])
            if not above and not below:  # on the search's seeds: the verification may say otherwise
                return steps, rates, "the search stopped with every deck inside the target on its own seeds"
            step_no += 1
            best, n = None, 0
            # the farthest deck above the target (a nerf) and the farthest below (a buff) together,
            # then the next of each when none of theirs helps
            for tier in range(max(len(above), len(below))):
                evaluated: list[Evaluated] = []
                for deck, direction in [(side[tier], d) for side, d in ((above, -1), (below, 1)) if tier < len(side)]:
                    queue = self.candidates(deck, direction, steps, rates, parts)
                    seen = {change for change, _ in queue}
                    while queue:
                        change, new_steps = queue.pop(0)
                        cost = seeds.matches * len(self.touched(change.card))
                        if self.spent + cost > o.budget:
                            if evaluated:
                                break
                            return steps, rates, f"the matches budget ({o.budget:,}) is spent"
                        n += 1
                        evaluated.append(self.evaluate(rnd, step_no, n, deck, direction, steps, change, new_steps,
                                                       parts, seeds, rates, score, tried))
                        if self.overshoots(evaluated[-1].rates[deck], direction):  # the same card, a smaller move
                            finer = [c for c in self.finer(change, direction, steps) if c[0] not in seen]
                            seen.update(c for c, _ in finer)
                            queue[:0] = finer
                if evaluated:
                    top = min(evaluated, key=Evaluated.rank)
                    if top.objective < score - 1e-9:  # (a candidate that moved nothing sums the same in another order)
                        best = top
                        break
            if best is None:
                return steps, rates, "no candidate step brings the decks nearer the target"
            best.tried.accepted = True
            steps, parts, rates = best.steps, best.parts, best.rates
            self.err.print(f"take: {versions.describe(self.s, steps)}; {self.by}: " + _rates_line(rates),
                           markup=False, highlight=False)

    def overshoots(self, rate: float, direction: int) -> bool:
        """A nerf that left the deck below the target, or a buff above it."""
        lo, hi = self.opts.target
        return rate < lo if direction < 0 else rate > hi

    def finer(self, change: Step, direction: int, steps) -> list[tuple[Step, tuple]]:
        """After a step that carried its deck past the target: the largest move of the same card
        smaller than it (one step of the same knob instead of two, else the next knob the budget
        prices lower), as (step, change set)."""
        s = self.s
        _data, ruleset = versions.resolved(s, steps) if steps else (s.data, s.ruleset)
        current = {(x.card, x.knob): x for x in steps}
        moves = sorted(self.knob_steps(change.card, direction, steps, current, ruleset, 1))
        own = next((m for m in moves if m.knob == change.knob), None)
        if own is None:
            return []
        pick = own if own.value != change.value else max((m for m in moves if m.points < own.points), default=None)
        if pick is None:  # (own differs when the step was a jump of two: then one)
            return []
        knob, value = pick.knob, pick.value
        rest = [x for x in steps if (x.card, x.knob) != (change.card, knob)]
        if value != s.base_value(change.card, knob):
            rest.append(Step(change.card, knob, value))
        return [(Step(change.card, knob, value), versions.normal(rest))]

    def farthest(self, rates: dict[str, float], side) -> list[str]:
        """The decks on one side of the target, the farthest first (a tie: by id)."""
        return sorted((d for d in rates if side(rates[d])), key=lambda d: (-self.outside(rates[d], self.opts.target), d))

    def evaluate(self, rnd, step_no, n, deck, direction, steps, change, new_steps, parts, seeds, rates, score,
                 tried) -> Evaluated:
        """Play one candidate on the pairings its card touches; its objective and what it gives."""
        cost = seeds.matches * len(self.touched(change.card))
        played = self.play(new_steps, self.touched(change.card), seeds)
        new_parts = {**parts, **played}
        self.spent += cost
        new_rates = self.rates(new_parts)
        value = self.objective(new_rates)
        was = self.s.knobs[change.knob].value(_now(self.s, steps, change.card))
        t = Tried(round=rnd, step=step_no, candidate_no=n, deck=deck, direction="nerf" if direction < 0 else "buff",
                  card=change.card, field=change.knob, before=was, after=change.value, objective=value,
                  accepted=False, run_id=next(iter(played.values())).run_id, matches=cost, deck_wr=new_rates[deck])
        tried.append(t)
        self.err.print(f"[round {rnd} step {step_no}.{n}] {deck} {rates[deck]:.1%} ({t.direction}): "
                       f"{change.card} {change.knob} {was} -> {change.value}: {deck} {new_rates[deck]:.1%}, "
                       f"objective {score:.1f} -> {value:.1f} ({cost:,} matches, {self.by})", markup=False,
                       highlight=False)
        return Evaluated(objective=value, n_changes=_changes(self.s, new_steps), candidate_no=n, tried=t,
                         steps=new_steps, parts=new_parts, rates=new_rates)

    def candidates(self, deck: str, direction: int, steps, rates: dict, parts: dict) -> list[tuple[Step, tuple]]:
        """(the step, the change set with it) to try for ``deck``, best first."""
        s, o = self.s, self.opts
        lo_t, hi_t = o.target
        mine = [parts[p] for p in self.pairings if deck in (s.deck_ids[p[0]], s.deck_ids[p[1]])]
        plays = card_plays(self.store.path, mine).filter(pl.col("deck") == deck)
        _data, ruleset = versions.resolved(s, steps) if steps else (s.data, s.ruleset)
        scored = []
        for row in plays.iter_rows(named=True):
            card = row["card"]
            if card not in s.raw or not row["deck_games"] or not row["played_games"]:
                continue
            others = [h for h in s.holders(card) if h != deck]
            if any((rates[h] < lo_t) if direction < 0 else (rates[h] > hi_t) for h in others):
                continue
            lean = max(-2.0, min(2.0, -direction * versions.card_surplus(s, ruleset, card)))
            scored.append((-(row["played_games"] / row["deck_games"]) * (1 + 0.25 * lean), card))
        distance = self.outside(rates[deck], o.target)
        far, jump = distance >= FAR_POINTS, 2 if distance >= JUMP_POINTS else 1
        current = {(x.card, x.knob): x for x in steps}
        options = []
        for _score, card in sorted(scored):
            knob_steps = self.knob_steps(card, direction, steps, current, ruleset, jump)
            if not knob_steps:
                continue
            knob_steps.sort()
            chosen = [knob_steps[-1]] + ([knob_steps[0]] if not far and len(knob_steps) > 1 else [])
            chosen += [k for k in knob_steps if (card, k.knob) in current and k not in chosen]
            for move in chosen:
                change = Step(card, move.knob, move.value)
                rest = [x for x in steps if (x.card, x.knob) != (card, move.knob)]
                if move.value != s.base_value(card, move.knob):
                    rest.append(change)
                options.append((change, versions.normal(rest)))
            if len({c.card for c, _ in options}) >= o.width:
                break
        return options

    def knob_steps(self, card: str, direction: int, steps, current: dict, ruleset,
                   jump: int = 1) -> list[KnobStep]:
        """(budget points the move shifts, knob, new number) of each knob ``jump`` steps (or one,
        where two pass a bound) of ``direction`` may take on the card, within MAX_STEPS of its
        start and the change limit."""
        s = self.s
        now = _now(s, steps, card)
        before = versions.card_surplus(s, ruleset, card)
        out = []
        for knob in s.knobs.values():
            value = knob.step_towards(now, direction)
            further = knob.step_towards(knob.set(now, value), direction) if value is not None and jump > 1 else None
            if further is not None and abs(further - s.base_value(card, knob.name)) <= MAX_STEPS * knob.step:
                value = further
            if value is None:
                continue
            start = s.base_value(card, knob.name)
            if abs(value - start) > MAX_STEPS * knob.step:
                continue
            if card not in {x.card for x in steps} and value != start and _changes(s, steps) >= self.opts.max_changes:
                continue
            model = s.data.schema.Card.model_validate(knob.set(now, value))
            after = s.data.schema.stat_points(model, ruleset.constants) - s.data.schema.budget_points(model, ruleset.constants)
            out.append(KnobStep(points=abs(after - before), knob=knob.name, value=value))
        return out

    # --- verification ------------------------------------------------------------------------

    def verify(self, rnd: int, steps) -> Verified:
        o = self.opts
        seed = derive_seed(o.seed, "tune", "verify", rnd) & SEED_MASK
        seeds = Seeds(seed, o.verify_matches)
        self.err.print(f"verifying {versions.describe(self.s, steps)} on fresh seeds (base seed {seed}, "
                       f"{o.verify_matches} matches per pairing, both seats, {self.by})", markup=False,
                       highlight=False)
        base = self.play((), self.pairings, seeds)
        cand = self.play(steps, self.pairings, seeds, name=o.proposal)
        self.verify_spent += 2 * o.verify_matches * len(self.pairings)
        before, after = self.rows(base), self.rows(cand)
        decks = deck_table(before, after, o.band)
        self.err.print(f"verified ({self.by}): " + _rates_line(dict(decks.select("deck", "wr_after").iter_rows())),
                       markup=False, highlight=False)
        return Verified(round=rnd, seed=seed, base_run=next(iter(base.values())).run_id,
                        candidate_run=next(iter(cand.values())).run_id, decks=decks,
                        in_band=bool(decks["in_band"].all()))


def deck_table(before: pl.DataFrame, after: pl.DataFrame, band: tuple[float, float]) -> pl.DataFrame:
    """Per deck: field win rate before and after (Wilson 95%), and the paired change (95%)."""
    b = field_rates(before).rename({"games": "games_before", "won": "won_before", "win_rate": "wr_before",
                                    "win_rate_lo": "wr_before_lo", "win_rate_hi": "wr_before_hi"})
    a = field_rates(after).rename({"games": "games_after", "won": "won_after", "win_rate": "wr_after",
                                   "win_rate_lo": "wr_after_lo", "win_rate_hi": "wr_after_hi"})
    paired = paired_field(before, after).select("deck", "twins", "change", "change_lo", "change_hi")
    lo, hi = band
    return b.join(a, on="deck").join(paired, on="deck", how="left").with_columns(
        ((pl.col("wr_after") >= lo) & (pl.col("wr_after") <= hi)).alias("in_band")).sort("deck")


def _now(s: Start, steps, card: str) -> dict:
    return apply(s.raw, s.knobs, [x for x in steps if x.card == card]).get(card, s.raw[card])


def _changes(s: Start, steps) -> int:
    """Cards changed: a change is one card, with one or more of its numbers moved (as a patch note
    lists it); ``tune_changes`` has a row per number."""
    return len({x.card for x in steps if x.value != s.base_value(x.card, x.knob)})


def _rates_line(rates: dict[str, float]) -> str:
    return ", ".join(f"{d} {r:.1%}" for d, r in sorted(rates.items()))


def matches_line(result: Result) -> str:
    return (f"{result.matches_search:,} matches in the search, {result.matches_verify:,} in verification "
            f"({result.matches_search + result.matches_verify:,} in all; finished runs already in the store "
            "are reused, not played again)")


def proposal_path(s: Start, name: str) -> Path:
    return s.data.root / "rules" / f"{name}.yaml"
