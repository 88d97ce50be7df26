"""Planted-truth calibration of the card-level evidence, on real simulations of each game.

Per game and block (a block is one base seed): three runs on the same seeds and seats, the
game's calibration pairing (cardsdb/<game>/calibration.yaml) under base rules, under ``planted``
(one ordinary card made stronger by one cost step of stats) and under base rules again with the
pilots' streams salted (an A/A twin: matches diverge as a real change would make them, the true
effect is nil). Each is read at several sizes (its first 200, 500, 1,000 seeds: nested, so the
sizes of one block are not independent of each other) and asks:

- did ``diff``'s attribution flag the planted card? (the detection rate)
- did it flag any card the version left alone? (in the planted diff, and in the A/A diff)
- did the deck-level McNemar test call the A/A deck changed? (the deck-level false-positive rate)

and, for the first block, ``value``: the planted card's value under base and under planted and
the paired change between them. Every run is stored (``--db``), so a calibration can be resumed
or extended with more blocks.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
from rich.console import Console

from cardsdb.calibration import PLANTED_VERSION, planted, planted_data
from reports.diff import version_diff
from reports.intervention import card_value, value_change
from workbench.commands.diff import ensure_run
from workbench.commands.simulate import new_run
from workbench.store import Store

AA_SALT = 7919  # any non-zero salt: other pilot choices on the same seeds


@dataclass(slots=True)
class SizeResult:
    """What one block's diffs said when read at one size (seeds)."""
    seeds: int
    found: bool                  # the planted card flagged
    effect_points: float
    p_value: float
    false_in_planted: int        # unchanged cards flagged in the planted diff
    false_in_aa: int             # cards flagged in the A/A diff
    aa_deck_rejections: int      # 1 when the planted deck's A/A McNemar p < 0.05
    aa_decks: int
    variance_saved: float        # in the planted diff, decks the change touches


@dataclass(slots=True)
class BlockResult:
    game: str
    seed: int
    sizes: list[SizeResult] = field(default_factory=list)
    runs: tuple[int, int, int] = (0, 0, 0)  # base, planted, A/A


@dataclass(slots=True)
class ValueResult:
    game: str
    card: str
    reference: str
    seeds: int
    base: dict
    planted: dict
    change: dict


class Calibration:
    """The runs of a calibration, in one store, for one game."""

    def __init__(self, store: Store, game: str, data_dir: Path, pilots: list[str], workers: int,
                 out: Console, quiet: bool = True):
        self.store, self.game, self.data_dir = store, game, data_dir
        self.plant = planted(game)
        self.pilots, self.workers, self.out, self.quiet = pilots, workers, out, quiet

    def run(self, rules: str, seeds: int, seed: int, salt: int = 0, substitute: dict | None = None) -> int:
        spec, payload = new_run(self.game, rules, list(self.plant.decks), self.pilots, matches=2 * seeds, seed=seed,
                                swap=True, events=0.0, chunk_size=None, workers=self.workers, data_dir=self.data_dir,
                                pilot_salt=salt, substitute=substitute)
        return ensure_run(self.store, spec, payload, self.workers, self.quiet, self.out)

    def block(self, seed: int, sizes: list[int]) -> BlockResult:
        n = max(sizes)
        base, cand, aa = (self.run("base", n, seed), self.run(PLANTED_VERSION, n, seed),
                          self.run("base", n, seed, salt=AA_SALT))
        result = BlockResult(self.game, seed, runs=(base, cand, aa))
        for seeds in sorted(sizes):
            result.sizes.append(self.read(base, cand, aa, seeds))
        return result

    def read(self, base: int, cand: int, aa: int, seeds: int) -> SizeResult:
        limit = 2 * seeds  # one pairing: match numbers 0 .. 2 x seeds - 1
        r = version_diff(self.store.path, base, cand, match_limit=limit)
        a = version_diff(self.store.path, base, aa, match_limit=limit)
        cards = r["cards"].filter(pl.col("card") == self.plant.card)
        row = cards.row(0, named=True) if cards.height else {"flagged": False, "effect_points": math.nan,
                                                             "p_value": math.nan}
        # the planted deck only: in one pairing the other deck's change is its mirror image
        decks = a["decks"].filter(pl.col("deck") == self.plant.decks[0])
        return SizeResult(seeds, bool(row["flagged"]), row["effect_points"], row["p_value"],
                          r["flagged_cards"].height, a["attributed_cards"].height,
                          int((decks["mcnemar_p"] < 0.05).sum()), decks.height, r["variance_saved"])

    def value(self, seed: int, seeds: int) -> ValueResult:
        """The planted card's value under base and planted rules, and the paired change."""
        from cardsdb.reference import reference_for, reference_ids
        from workbench import games

        _data, ruleset = games.load(self.game, PLANTED_VERSION, self.data_dir)
        ref = reference_for(ruleset, self.plant.card, reference_ids(self.game, self.data_dir))
        swap = {"0": {self.plant.card: ref}}
        runs = {}
        for rules in ("base", PLANTED_VERSION):
            runs[rules] = (self.run(rules, seeds, seed), self.run(rules, seeds, seed, substitute=swap))
        return ValueResult(self.game, self.plant.card, ref, seeds, card_value(self.store.path, *runs["base"]),
                           card_value(self.store.path, *runs[PLANTED_VERSION]),
                           value_change(self.store.path, runs["base"], runs[PLANTED_VERSION]))


def calibrate(game: str, db: Path, work: Path, blocks: int, sizes: list[int], pilots: list[str], workers: int,
              out: Console, with_value: bool = True) -> tuple[list[BlockResult], ValueResult | None]:
    """Every block of one game (reusing any already stored in ``db``)."""
    data_dir = planted_data(game, work)
    cal = Calibration(Store(db), game, data_dir, pilots, workers, out)
    results = []
    for b in range(blocks):
        seed = 1000 * (b + 1)
        results.append(cal.block(seed, sizes))
        s = results[-1].sizes[-1]
        out.print(f"{game} block {b + 1}/{blocks} (seed {seed}): planted card "
                  f"{'flagged' if s.found else 'missed'} at {s.seeds} seeds ({s.effect_points:+.1f} pts, p {s.p_value:.2g}); "
                  f"unchanged flagged {s.false_in_planted}; A/A flagged {s.false_in_aa}")
    value = cal.value(1000, max(sizes)) if with_value else None
    return results, value


def summary_rows(results: list[BlockResult]) -> list[dict]:
    """Per size: detection and false-positive rates over the blocks."""
    rows = []
    sizes = sorted({s.seeds for r in results for s in r.sizes})
    for seeds in sizes:
        at = [s for r in results for s in r.sizes if s.seeds == seeds]
        rows.append({"seeds": seeds, "blocks": len(at), "found": sum(s.found for s in at),
                     "planted_diffs_with_false_flag": sum(s.false_in_planted > 0 for s in at),
                     "aa_diffs_with_flag": sum(s.false_in_aa > 0 for s in at),
                     "aa_deck_rejections": sum(s.aa_deck_rejections for s in at),
                     "aa_deck_tests": sum(s.aa_decks for s in at),
                     "median_effect_points": float(np.nanmedian([s.effect_points for s in at])),
                     "variance_saved": float(np.nanmedian([s.variance_saved for s in at]))})
    return rows


# --- sequential diffs -------------------------------------------------------------------------

SEQUENTIAL_DELTAS = (2.0, 3.0, 5.0)  # points: the smallest change worth finding, as a designer sets it
BOOTSTRAP_TRIALS = 2000


@dataclass(slots=True)
class SequentialRow:
    """How ``diff --until-decided`` at one delta did on the calibration's seeds. ``real_*``: each
    block read in play order, exactly what the command would have answered on that base seed;
    ``boot_*``: trials resampling the pooled seeds with replacement (more trials than blocks)."""
    delta: float
    blocks: int
    real_aa_false: int
    real_planted_found: int
    real_aa_seeds: list[int]
    real_planted_seeds: list[int]
    boot_aa_false: float
    boot_aa_false_centered: float  # the A/A pool's seeds shifted to mean 0: the null exactly
    boot_planted_found: float
    boot_aa_seeds_median: float
    boot_planted_seeds_median: float
    boot_planted_seeds_mean: float
    effect_points: float
    var: float
    aa_points: float             # the A/A pool's own mean change (the resampled trials' truth)
    aa_half: float               # ... its 95% half-width (seeds taken as independent)
    fixed_seeds_delta: float     # a fixed-size paired diff sized for 80% power at delta
    fixed_seeds_effect: float    # ... sized (knowing it) for the planted change itself
    max_seeds: int


def sequential_calibration(store_path: Path, game: str, blocks: list[tuple[int, int, int]], max_seeds: int,
                           deltas=SEQUENTIAL_DELTAS) -> list[SequentialRow]:
    """``blocks``: (base, planted, A/A) run ids of each block. The tested decks are those the
    planted change touches, as the command picks them (tested_decks)."""
    from reports.diff import changed_cards, touched_decks, twins
    from reports.sequential import seed_differences
    from workbench.commands.sequential_diff import tested_decks
    from workbench.runspec import RunSpec

    spec = RunSpec.from_json(json.loads(Store(store_path).run(blocks[0][0])["spec"]))
    base, cand, _aa = blocks[0]
    changed = changed_cards(store_path, base, cand)["card"].to_list()
    decks = tested_decks(touched_decks(store_path, base, cand, changed, sorted(spec.decks)), spec)
    planted_obs, aa_obs = [], []
    for base, cand, aa in blocks:
        planted_obs.append(seed_differences(twins(store_path, base, cand), decks))
        aa_obs.append(seed_differences(twins(store_path, base, aa), decks))
    return [_sequential_row(d, planted_obs, aa_obs, max_seeds) for d in deltas]


def _sequential_row(delta: float, planted_obs: list[dict], aa_obs: list[dict], max_seeds: int) -> SequentialRow:
    from reports.sequential import Plan, fixed_seeds_for_power, replay_rounds

    plan = Plan(delta1=delta / 100)
    real_p = [replay_rounds(o, plan, max_seeds) for o in planted_obs]
    real_a = [replay_rounds(o, plan, max_seeds) for o in aa_obs]
    boot_p = _bootstrap(planted_obs, plan, max_seeds, seed=1)
    boot_a = _bootstrap(aa_obs, plan, max_seeds, seed=2)
    boot_c = _bootstrap(aa_obs, plan, max_seeds, seed=3, centered=True)
    pooled = np.concatenate([x for o in planted_obs for x in o.values()])
    effect, var = float(pooled.mean()), float(pooled.var(ddof=1))
    aa = np.concatenate([x for o in aa_obs for x in o.values()])
    aa_half = 1.96 * float(aa.std(ddof=1)) / np.sqrt(len(aa)) if len(aa) > 1 else float("nan")
    return SequentialRow(
        delta, len(planted_obs), sum(o.decision == "change" for o in real_a), sum(_found(o) for o in real_p),
        [o.seeds for o in real_a], [o.seeds for o in real_p],
        float(np.mean([o.decision == "change" for o in boot_a])), float(np.mean([o.decision == "change" for o in boot_c])),
        float(np.mean([_found(o) for o in boot_p])),
        float(np.median([o.seeds for o in boot_a])), float(np.median([o.seeds for o in boot_p])),
        float(np.mean([o.seeds for o in boot_p])), 100 * effect, var, 100 * float(aa.mean()), 100 * aa_half,
        fixed_seeds_for_power(var, plan.delta1), fixed_seeds_for_power(var, effect), max_seeds)


def _found(outcome) -> bool:
    """The planted buff found: the diff answered "change" and called its deck stronger."""
    return outcome.decision == "change" and any(v.decision == "stronger" for v in outcome.verdicts)


def _bootstrap(obs: list[dict], plan, max_seeds: int, seed: int, centered: bool = False) -> list:
    """Sequential diffs on seeds drawn with replacement from every block's seeds (each deck's
    differences drawn at the same seed indices, so a seed stays whole). ``centered``: each
    deck's pool shifted to mean 0 first (an A/A pool's own mean is noise, not a change)."""
    from reports.sequential import replay_rounds

    rng = np.random.default_rng(seed)
    decks = list(obs[0])
    pooled = {d: np.concatenate([o[d] for o in obs]) for d in decks}
    if centered:
        pooled = {d: x - x.mean() for d, x in pooled.items()}
    n = len(pooled[decks[0]])
    out = []
    for _ in range(BOOTSTRAP_TRIALS):
        idx = rng.integers(0, n, size=max_seeds)
        out.append(replay_rounds({d: pooled[d][idx] for d in decks}, plan))
    return out
