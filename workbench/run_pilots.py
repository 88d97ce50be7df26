"""Who played a run, and whether two runs' pilots are alike: read by the nightly batch (its
comparisons with the night before and with a baseline) and by `workbench report --diff` (its
twins), so that figures of different pilots, or of one pilot thinking with other weights, are
never compared as if alike."""
from __future__ import annotations

import json
from pathlib import Path

from reports.db import query
from workbench.store import Store


def pilots_played(store: Store | Path, run_id: int) -> tuple[str, str]:
    """(who played the run, the weights they think with): the run's ``pilots`` (one per deck
    slot, comma separated; a Turf Defense run adds its boss's pilot) and its spec's
    ``weights_hash`` (empty for random play and for runs from before it was recorded). ``store``:
    the batch's Store or a store's path (`workbench report --diff` reads a store it must not write)."""
    rows = query(getattr(store, "path", store), "SELECT pilots, spec FROM runs WHERE run_id = ?", [run_id])
    row = rows.row(0, named=True) if rows.height else {}
    spec = json.loads(row.get("spec") or "{}")
    pilots = row.get("pilots") or ",".join(spec.get("pilots", [])) or "?"
    if spec.get("boss_pilot"):
        pilots += f" (boss {spec['boss_pilot']})"
    return pilots, spec.get("weights_hash") or ""


def boss_words(store: Store | Path, run: int) -> str:
    """", boss greedy" for a Turf Defense run (who played its boss, as its spec says), else ""."""
    spec = query(getattr(store, "path", store), "SELECT spec FROM runs WHERE run_id = ?", [run])
    boss = json.loads(spec["spec"][0] or "{}").get("boss_pilot") if spec.height else None
    return f", boss {boss}" if boss else ""


def unlike_pilots(store: Store | Path, other: int, run: int) -> str | None:
    """Why ``other`` (the previous night's or the baseline run) and ``run`` are not twins because
    different pilots played them, naming both runs' pilots; None when the same pilots, thinking
    with the same weights, played both (the team rule: figures of different pilots are never
    compared as if alike)."""
    if other == run:
        return None
    (then, then_w), (now, now_w) = pilots_played(store, other), pilots_played(store, run)
    if then != now:
        return (f"run {other} was played by {then} and run {run} by {now}; "
                "a change of pilots is not a rules change")
    if then_w != now_w:
        return (f"runs {other} and {run} were both played by {now}, but thinking with other weights "
                f"({then_w or 'none recorded'} in run {other}, {now_w or 'none recorded'} in run {run}); "
                "a change of the pilots' weights is not a rules change")
    return None
