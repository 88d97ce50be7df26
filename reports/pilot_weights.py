"""Which pilots of some runs thought with different weight files, under one name.

A run stores its pilots by name ("greedy"), and its spec the fingerprint of the weight files they
thought with (``weights_hash``, sim/core/pilots.weights_fingerprint). When a game's weights change
(a new ``weights-tuned.yaml``, greedy moved to another set), runs of "greedy" before and after
are two pilots under one name: pooled, their figures are neither's."""
from __future__ import annotations

from pathlib import Path

from reports import db


def reweighted_pilots(path: str | Path, run_ids) -> list[str]:
    """The pilot names (random aside: it reads no weights) seated in runs of ``run_ids`` whose
    weight fingerprints differ. A run of two thinking pilots fingerprints both, so a pair of runs
    may be named here when only the other pilot's weights differ: it errs toward saying so."""
    if not run_ids:
        return []
    rows = db.query(path, f"""SELECT pilots, coalesce(json_extract_string(spec, '$.weights_hash'), '') AS weights
                              FROM runs WHERE run_id IN ({', '.join('?' for _ in run_ids)})""", [int(r) for r in run_ids])
    seen: dict[str, set[str]] = {}
    for pilots, weights in rows.iter_rows():
        for pilot in set(pilots.split(",")):
            if pilot != "random":
                seen.setdefault(pilot, set()).add(weights)
    return sorted(pilot for pilot, fingerprints in seen.items() if len(fingerprints) > 1)
