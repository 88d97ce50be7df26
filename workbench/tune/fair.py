"""One card's fair number (``workbench tune GAME --card X --stat S``).

The question is where the card's *value* meets its cost's budget line. Value is what
``workbench value`` measures: the deck with the card minus the same deck with the card's copies
replaced, at the same places of the shuffled deck, by the game's vanilla reference card of its
cost (exactly on the budget line), on the same seeds and seats against the same opponents. So a
value of 0 is "worth a vanilla body of its cost": the card sits on the budget line as play
measures it, whatever its keywords are priced at.

The rule (decided; reports/METRICS.md, "Rebalancing proposals", says why):

1. Measure the value at the card's current number.
2. If its 95% interval holds 0, keep the number: the matches cannot tell the card from fair.
   When the interval is wide or the budget disagrees, the reason says that this is no evidence
   of fairness (``undecided``).
3. Otherwise measure one step towards 0 (a weaker card when the value is above 0, a stronger one
   below), then where the line through the last two values crosses 0 (the secant: value per
   step is what the two measurements say a step is worth), on the knob's grid and within its
   bounds; once two measured numbers bracket 0, between them; until 0 lies between two adjacent
   numbers measured, a bound is reached or MAX_FAIR_STEPS numbers beyond the current one were
   measured.
4. Propose the measured number whose value is nearest 0 (a tie: the one nearer the budget line's
   number, then the one nearer the current number).

The budget line's own number (where the game's stat points equal its budget points) is shown
beside it, because the budget is the prior a designer starts from and the measurement is the
evidence: where they disagree, the card's keywords or abilities are mispriced by the budget
under these pilots.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rich.console import Console

from cardsdb.budget import TOLERANCE
from cardsdb.errors import DataError
from cardsdb.reference import reference_for, reference_ids
from cardsdb.tune import Step
from reports.intervention import card_value
from workbench.commands.simulate import new_run, play_or_reuse
from workbench.errors import UserError
from workbench.store import Store
from workbench.tune import versions
from workbench.tune.versions import Start

MAX_FAIR_STEPS = 4  # numbers measured beyond the current one, at most
# a kept number's interval wider than this (win-rate points, +-3) says the matches were too few to
# call the card fair (``undecided``)
WIDE_INTERVAL = 6.0


@dataclass
class Measured:
    number: int
    value: dict           # reports.intervention.card_value
    surplus: float        # stat points over budget points at this number
    run_id: int
    reference_run: int
    reference: str


@dataclass
class Fair:
    card: str
    knob: str
    deck: str
    opponents: list[str]
    current: int
    chosen: int
    budget_number: float | None  # may lie past the numbers the stat allows (atk -7)
    measured: list[Measured] = field(default_factory=list)
    allowed: tuple[int, int | None] = (0, None)  # the stat's lowest and highest number (its Knob's)
    why: str = ""
    matches: int = 0

    @property
    def steps(self) -> tuple[Step, ...]:
        return () if self.chosen == self.current else (Step(self.card, self.knob, self.chosen),)


def plan(s: Start, card: str, knob: str) -> tuple[str, list[str], list[str]]:
    """The deck the card is measured in (the first of the field that lists it), its opponents
    (the rest of the field) and the game's reference cards; one-line errors."""
    if card not in s.ruleset.cards:
        raise UserError(f"--card: no card {card!r} in {s.game} rules version {s.version!r}")
    if knob not in s.knobs:
        raise UserError(f"--stat {knob!r}: {s.game} tunes {', '.join(s.knobs)}")
    if not s.knobs[knob].applies(s.raw[card]):
        raise UserError(f"--stat {knob}: card {card!r} (a {s.raw[card].get('type')}) has no {knob} to tune")
    decks = [d for d in s.deck_ids if card in s.data.decks[d].cards]
    if not decks:
        beside = [d for d in s.deck_ids if card in s.holds[d]]
        if beside:
            raise UserError(f"--card {card}: it plays from beside the deck in {', '.join(beside)}, not from the deck, "
                            "so no reference card can take its place; tune it with the field search instead")
        raise UserError(f"--card {card}: no deck of the field ({', '.join(s.deck_ids)}) holds it; name one with --decks")
    try:
        refs = reference_ids(s.game, s.data.root.parent)
    except DataError as exc:
        raise UserError(str(exc)) from None
    return decks[0], [d for d in s.deck_ids if d != decks[0]], refs


def fair_number(s: Start, store: Store, card: str, knob: str, pilots: list[str], matches: int, seed: int,
                workers: int, quiet: bool, err: Console) -> Fair:
    deck, opponents, refs = plan(s, card, knob)
    k = s.knobs[knob]
    current = k.value(s.raw[card])
    pairings = [(0, j) for j in range(1, len(opponents) + 1)]
    field_ids = [deck, *opponents]
    if len(pilots) == len(s.deck_ids):  # one per deck of --decks: each stays with its deck
        pilots = [pilots[s.deck_ids.index(d)] for d in field_ids]
    opponents_hold = any(card in s.holds[d] for d in opponents)
    reference_runs: dict[tuple, int] = {}
    result = Fair(card, knob, deck, opponents, current, current, None, allowed=(k.low, k.high))

    def run(steps, substitute=None) -> int:
        name = versions.name_of(s, steps) if steps else s.version
        loaded = versions.resolved(s, steps, name) if steps else None
        spec, payload = new_run(s.game, name, field_ids, pilots, matches=matches, seed=seed, swap=True, events=0.0,
                                chunk_size=None, workers=workers, pairings=pairings, substitute=substitute,
                                loaded=loaded)
        result.matches += matches * len(pairings)
        return play_or_reuse(store, spec, payload, workers, quiet, err).run_id

    def measure(number: int) -> Measured:
        steps = () if number == current else (Step(card, knob, number),)
        _data, ruleset = versions.resolved(s, steps) if steps else (s.data, s.ruleset)
        ref = reference_for(ruleset, card, refs)
        # with the card replaced, its numbers play no part unless an opponent holds it too
        key = (ref, tuple(steps) if opponents_hold else ())
        if key not in reference_runs:
            reference_runs[key] = run(key[1], substitute={"0": {card: ref}})
        full = run(steps)
        m = Measured(number, card_value(store.path, full, reference_runs[key]),
                     versions.card_surplus(s, ruleset, card), full, reference_runs[key], ref)
        v = m.value
        err.print(f"{card} {knob} {number}: value {v['value_points']:+.1f} pts [{v['value_lo']:+.1f}, "
                  f"{v['value_hi']:+.1f}] against {ref} ({v['twins']:,} twins, {versions.pilots_text(pilots, field_ids)}), "
                  f"budget {m.surplus:+.1f} points", markup=False, highlight=False)
        result.measured.append(m)
        return m

    first = measure(current)
    result.budget_number = budget_line(s, card, knob, first.surplus, current)
    v = first.value
    if not v["value_lo"] <= 0 <= v["value_hi"]:
        direction = -1 if v["value_points"] > 0 else 1  # weaker when it is worth more than a vanilla body
        number = k.step_towards(s.raw[card], direction)
        while number is not None and len(result.measured) <= MAX_FAIR_STEPS:
            measure(number)
            number = next_number(k, s.raw[card], result.measured, direction)
    result.chosen = choose(result)
    result.why = why(result)
    return result


def next_number(k, raw: dict, measured: list[Measured], direction: int) -> int | None:
    """Where to measure next, or None when done. Where two neighbouring measured numbers have
    values on either side of 0: the secant's crossing strictly between them (None when they are
    adjacent on the knob's grid). Else one step or more beyond the measured number furthest the
    way the card is being moved (``direction``: +1 stronger, -1 weaker): the secant through the
    last two values says how far, at least one step and at most MAX_FAIR_STEPS. None when that
    passes a bound. Narrowing between the two numbers that bracket 0 keeps a noisy secant from
    ending the search at a number several steps past one never measured (7 -> 1 with 2, 3 and 4
    never tried)."""
    values = {m.number: m.value["value_points"] for m in measured}
    known = sorted(values.items())
    here = measured[0].number  # the current number: of several brackets, the nearest to it
    brackets = [(a, b) for a, b in zip(known, known[1:]) if a[1] * b[1] <= 0]
    if brackets:
        (na, va), (nb, vb) = min(brackets, key=lambda ab: min(abs(ab[0][0] - here), abs(ab[1][0] - here)))
        inside = (nb - na) // k.step - 1  # grid numbers strictly between them
        if inside < 1:
            return None
        guess = na - va * (nb - na) / (vb - va) if vb != va else (na + nb) / 2
        return na + max(1, min(inside, round((guess - na) / k.step))) * k.step
    sign = direction * k.stronger  # which way the number itself moves
    edge = known[-1][0] if sign > 0 else known[0][0]
    ahead = k.step_towards(k.set(raw, edge), direction)
    if ahead is None:
        return None
    (na, va), (nb, vb) = ((m.number, m.value["value_points"]) for m in measured[-2:])
    if vb == va or abs(vb) >= abs(va):
        return ahead  # the values did not fall towards 0: one more step
    guess = nb - vb * (nb - na) / (vb - va)
    steps = max(1, min(MAX_FAIR_STEPS, round((guess - edge) * sign / k.step)))
    target = edge + sign * steps * k.step
    return max(k.low, target if k.high is None else min(k.high, target))


def budget_line(s: Start, card: str, knob: str, surplus_now: float, current: int) -> float | None:
    """The knob's number at which the card's stat points equal its budget points (linear in the
    knob: one step's change of the surplus), or None when a step does not move it."""
    k = s.knobs[knob]
    nxt = k.step_towards(s.raw[card], 1) or k.step_towards(s.raw[card], -1)
    if nxt is None:
        return None
    _d, ruleset = versions.resolved(s, (Step(card, knob, nxt),))
    per = (versions.card_surplus(s, ruleset, card) - surplus_now) / (nxt - current)
    return None if per == 0 else current - surplus_now / per


def choose(f: Fair) -> int:
    first = f.measured[0].value
    if first["value_lo"] <= 0 <= first["value_hi"]:
        return f.current
    line = f.budget_number if f.budget_number is not None else f.current
    low, high = f.allowed
    line = max(low, line if high is None else min(high, line))  # nearest the line among allowed numbers
    return min(f.measured, key=lambda m: (abs(m.value["value_points"]), abs(m.number - line),
                                          abs(m.number - f.current))).number


def budget_text(f: Fair) -> str:
    """Where the budget line lies, in words; beyond the stat's allowed numbers, said so (it read
    "the budget line is at atk -7")."""
    low, high = f.allowed
    at = f"the budget line (stat points = budget points) is at {f.knob} {f.budget_number:g}"
    if f.budget_number < low:
        return f"{at}, below the lowest {f.knob} allowed ({low}): no allowed {f.knob} puts it on the line"
    if high is not None and f.budget_number > high:
        return f"{at}, above the highest {f.knob} allowed ({high}): no allowed {f.knob} puts it on the line"
    return at


def undecided(f: Fair) -> str:
    """When a kept number's interval holds 0 only because it is wide, or the budget says the card
    is far off its cost, the words that say so: an interval of [-1.7, +11.6] around a 3-Mana 7/8
    is no evidence that the card is fair, only that these matches cannot tell."""
    first = f.measured[0]
    width = first.value["value_hi"] - first.value["value_lo"]
    doubts = []
    if width > WIDE_INTERVAL:
        doubts.append(f"the interval is {width:.1f} points wide")
    if abs(first.surplus) > TOLERANCE:
        doubts.append(f"the stat budget puts it {first.surplus:+.1f} points off its cost")
    if not doubts:
        return ""
    return (", but that is no evidence it is fair: " + " and ".join(doubts)
            + "; measure again with more --matches before trusting it")


def why(f: Fair) -> str:
    def one(m: Measured) -> str:
        v = m.value
        return f"{v['value_points']:+.1f} [{v['value_lo']:+.1f}, {v['value_hi']:+.1f}] at {m.number}"

    values = "; ".join(one(m) for m in sorted(f.measured, key=lambda m: m.number))
    line = "" if f.budget_number is None else f"; {budget_text(f)}"
    head = (f"value in {f.deck} against {', '.join(f.opponents)}, in win-rate points over a vanilla card of its "
            f"cost (0: worth a vanilla body of its cost): {values}")
    if f.chosen == f.current:
        first = f.measured[0].value
        if first["value_lo"] <= 0 <= first["value_hi"]:
            return f"keep {f.current}: its value's 95% interval holds 0{undecided(f)}. {head}{line}"
        return f"keep {f.current}: no measured number comes nearer 0. {head}{line}"
    return f"{f.current} -> {f.chosen}: the measured number whose value is nearest 0. {head}{line}"
