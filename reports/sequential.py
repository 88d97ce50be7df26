"""Sequential diffs: play in rounds and stop as soon as the evidence decides.

A rules diff asks, for each deck the change touches, "did its win rate move by at least delta1
points, or by no more than delta0?". A fixed-size diff must be sized for the smallest change
worth seeing, so it plays thousands of matches even when the answer was plain after a few
hundred. A sequential test looks after every round and stops when it can.

The test is a generalized sequential probability ratio test (GSPRT), as chess-engine testing
frameworks such as Fishtest use, on the paired win differences:

- The observation is one *seed*: the mean of (candidate win - base win) over every twin match of
  that seed in which the deck sits (both seatings, every pairing it plays). Seeds are independent;
  the matches of one seed are not (they share shuffles), which is why the seed is the unit.
- Its distribution is approximated as normal with the variance estimated from the seeds so far;
  the log-likelihood ratio of mean mu1 against mu0 after n seeds with mean m and variance s2 is
  ``n (mu1 - mu0) (2 m - mu0 - mu1) / (2 s2)``.
- Two one-sided tests per deck, up (mu0 = +delta0 against mu1 = +delta1) and down (the
  mirror), each at alpha / 2, and Bonferroni over the touched decks: the chance of declaring a
  change that is not there stays at most ``alpha`` for the whole diff. Wald's bounds: a test
  accepts its H1 when its LLR reaches ``log((1 - beta) / a)`` and its H0 at
  ``log(beta / (1 - a))``. A deck is "stronger" or "weaker" when one direction accepts H1, "no
  change" when both accept H0 (no change of delta1 or more: the evidence favours one within
  delta0), else "undecided".
- Looks happen only at round ends, never before ``min_seeds`` (the variance needs seeds to
  stand on); looking less often than after every seed only makes the test more conservative.

After a stop the running estimate leans toward extremes (a test that stops early stops on a
lucky streak as often as on the truth), so the interval shown beside a verdict is the plain
paired one, for orientation; the verdict is the test's. ``workbench bench --stats`` measures the
false-decision rate and the matches used on real simulations.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl

DECISIONS = ("stronger", "weaker", "no change", "undecided")


@dataclass(frozen=True, slots=True)
class Plan:
    """What a sequential diff decides between, and how sure it must be. Changes are shares
    (0.05 = 5 points)."""
    delta1: float = 0.03
    delta0: float = 0.0
    alpha: float = 0.05
    beta: float = 0.05
    round_seeds: int = 25
    min_seeds: int = 50

    def check(self) -> str | None:
        """What is wrong with the plan, in one line (None: nothing)."""
        if not 0 <= self.delta0 < self.delta1 <= 1:
            return "the deltas must satisfy 0 <= --delta0 < --delta <= 100 points"
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            return "--alpha and --beta must be between 0 and 0.5"
        if self.round_seeds < 1 or self.min_seeds < 2:
            return "a round needs at least 1 seed and a decision at least 2"
        return None

    def bounds(self, tests: int) -> tuple[float, float]:
        """Wald's (accept H0, accept H1) bounds of each one-sided test, ``tests`` decks tested."""
        a = self.alpha / (2 * max(1, tests))
        return math.log(self.beta / (1 - a)), math.log((1 - self.beta) / a)


@dataclass(frozen=True, slots=True)
class Verdict:
    """One deck after some seeds."""
    deck: str
    seeds: int
    change: float        # mean paired change (share)
    lo: float
    hi: float
    llr_up: float
    llr_down: float
    decision: str


def llr(n: int, mean: float, var: float, mu0: float, mu1: float) -> float:
    """GSPRT log-likelihood ratio of mean mu1 against mu0 (normal, variance estimated)."""
    return n * (mu1 - mu0) * (2 * mean - mu0 - mu1) / (2 * var)


# a deck whose twins never differed has no variance; this floor lets its "no change" be decided
# at min_seeds instead of dividing by zero (a per-seed variance of 1e-4 is a 1-point spread)
VAR_FLOOR = 1e-4


def verdict(deck: str, x: np.ndarray, plan: Plan, tests: int) -> Verdict:
    """The test's answer for one deck on its per-seed differences ``x`` (seed order)."""
    n = len(x)
    if n < 2:
        return Verdict(deck, n, math.nan, math.nan, math.nan, 0.0, 0.0, "undecided")
    mean, var = float(x.mean()), max(VAR_FLOOR, float(x.var(ddof=1)))
    up = llr(n, mean, var, plan.delta0, plan.delta1)
    down = llr(n, mean, var, -plan.delta0, -plan.delta1)
    lower, upper = plan.bounds(tests)
    half = 1.96 * math.sqrt(var / n)
    if n < plan.min_seeds:
        decision = "undecided"
    elif up >= upper:
        decision = "stronger"
    elif down >= upper:
        decision = "weaker"
    elif up <= lower and down <= lower:
        decision = "no change"
    else:
        decision = "undecided"
    return Verdict(deck, n, mean, mean - half, mean + half, up, down, decision)


def seed_differences(twins: pl.DataFrame, decks: list[str]) -> dict[str, np.ndarray]:
    """Per deck, the per-seed mean paired change (candidate win - base win), seeds in the order
    they were played (their first match number). ``twins`` is reports.diff.twins's frame."""
    if twins.is_empty():
        return {d: np.zeros(0) for d in decks}
    per = (twins.filter(pl.col("deck").is_in(decks))
           .group_by("deck", "seed")
           .agg((pl.col("win_candidate") - pl.col("win_base")).mean().alias("x"), pl.col("match_no").min().alias("first"))
           .sort("first"))
    return {d: per.filter(pl.col("deck") == d)["x"].to_numpy().astype(float) for d in decks}


def verdicts(obs: dict[str, np.ndarray], plan: Plan) -> list[Verdict]:
    return [verdict(deck, x, plan, len(obs)) for deck, x in obs.items()]


def decided(found: list[Verdict]) -> bool:
    return bool(found) and all(v.decision != "undecided" for v in found)


def overall(found: list[Verdict]) -> str:
    """The diff's answer: "change" when any deck moved, "no change" when every deck is decided
    unchanged, else "undecided"."""
    if any(v.decision in ("stronger", "weaker") for v in found) and decided(found):
        return "change"
    if decided(found):
        return "no change"
    return "undecided"


def _pts(share_or_points: float, points: bool) -> str:
    return f"{share_or_points if points else 100 * share_or_points:g}"


def decision_words(decision: str, delta1: float, delta0: float = 0.0, points: bool = False) -> str:
    """A deck's verdict as what the test decided: which of the two hypotheses the evidence sits
    nearer, not "a change of at least delta" nor "no change" (the test weighs +delta1 against
    +delta0: a real +8 under delta 16 reads "no change of 16 points or more", which is true, where
    "no change" was not). Deltas are shares, or points with ``points``."""
    d1, d0 = _pts(delta1, points), _pts(delta0, points)
    return {"stronger": f"stronger: nearer a gain of {d1} points than of {d0}",
            "weaker": f"weaker: nearer a loss of {d1} points than of {d0}",
            "no change": f"no change of {d1} points or more",
            "undecided": "undecided"}.get(decision, decision)


def overall_words(decision: str, delta1: float, delta0: float = 0.0, points: bool = False) -> str:
    """The diff's answer in the same terms (``decision_words``)."""
    d1, d0 = _pts(delta1, points), _pts(delta0, points)
    return {"change": f"a change: a deck nearer a move of {d1} points than of {d0}",
            "no change": f"no change of {d1} points or more in any deck tested",
            "undecided": "undecided"}.get(decision, decision)


def caveat(decision: str, change: float, lo: float, hi: float, delta1: float) -> str:
    """What the plain interval beside a verdict adds (shares): a "no change of delta or more"
    whose interval leaves out 0 (a smaller change is likely), or a "stronger"/"weaker" whose
    estimate falls short of delta (nearer delta than none is not "at least delta"). Empty when
    the two agree."""
    if decision == "no change" and (lo > 0 or hi < 0):
        return f"its interval leaves out 0: a change smaller than {100 * delta1:g} points is likely"
    if decision in ("stronger", "weaker") and abs(change) < delta1:
        return f"its estimate ({100 * change:+.1f}) is short of {100 * delta1:g} points"
    return ""


@dataclass(frozen=True, slots=True)
class Outcome:
    """A sequential diff replayed on stored seeds: its answer and the seeds it used."""
    decision: str
    seeds: int
    verdicts: list[Verdict]


def replay_rounds(obs: dict[str, np.ndarray], plan: Plan, max_seeds: int | None = None) -> Outcome:
    """What ``workbench diff --until-decided`` would have answered on these seeds (each deck's
    per-seed differences in play order): the same looks at the same round ends, the same
    verdicts, the same stop; undecided when the seeds (or ``max_seeds``) run out first."""
    available = min(len(x) for x in obs.values()) if obs else 0
    limit = available if max_seeds is None else min(available, max_seeds)
    found: list[Verdict] = []
    n = 0
    while n < limit:
        n = min(limit, n + plan.round_seeds)
        found = verdicts({d: x[:n] for d, x in obs.items()}, plan)
        if decided(found):
            return Outcome(overall(found), n, found)
    return Outcome("undecided", n, found)


def fixed_seeds_for_power(var: float, change: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Seeds a fixed-size paired diff needs to see ``change`` with this power (two-sided
    ``alpha``), per-seed variance ``var``: ((z_(1-alpha/2) + z_power) sd / change)^2."""
    from scipy.stats import norm

    if not change or change != change:
        return math.nan
    z = norm.ppf(1 - alpha / 2) + norm.ppf(power)
    return (z * math.sqrt(var) / abs(change)) ** 2
