"""Run-level numbers: runs, first-seat advantage, win reasons, game lengths."""
from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from reports import db
from reports.stats import wilson


def runs(path: str | Path) -> pl.DataFrame:
    """Every run, newest first; ``kind`` is duel (a simulate run) or campaign (its fights).
    ``matches_key``: equal for runs that hold the same matches (``matches_key``)."""
    # code_commit: NULL in a store written before it was recorded (and not opened for writing since)
    commit = "code_commit" if db.has_columns(path, "runs", "code_commit") else "NULL::VARCHAR AS code_commit"
    frame = db.query(path, f"""SELECT run_id, game, coalesce(kind, 'duel') AS kind, rules_version, decks, pilots,
                             matches_done, matches_target, errors, status, code_version, {commit}, created_at,
                             updated_at, spec FROM runs ORDER BY run_id DESC""")
    return with_matches_key(frame).drop("spec")


# how a run was cut into chunks and how much event log it kept do not change its matches; how many
# it plays does not change the seeds it plays them on (slot j of a pairing has the same seed in a
# run of 300 and one of 1,000), and a version's name does not change its cards (its hash does)
NOT_MATCHES = ("chunk_size", "event_sample", "matches", "matches_total", "rules")


def matches_key(spec: str | None) -> str:
    """A run's spec without what does not decide its matches: two runs with the same key play the
    same matches on the seeds they share (the shorter's are the longer's first), so pooled, those
    matches count twice."""
    if not spec:
        return ""
    d = json.loads(spec)
    return json.dumps({k: v for k, v in d.items() if k not in NOT_MATCHES}, sort_keys=True)


def with_matches_key(runs: pl.DataFrame) -> pl.DataFrame:
    """``runs`` (with their ``spec``) with each one's ``matches_key``."""
    keys = [matches_key(s) for s in runs["spec"].to_list()] if runs.height else []
    return runs.with_columns(pl.Series("matches_key", keys, dtype=pl.Utf8))


def one_run_per_seeds(runs: pl.DataFrame) -> tuple[pl.DataFrame, dict[int, int]]:
    """(the runs with one of each set that share seeds: the one with the most matches, whose
    seeds hold the others'; each run left out -> the run kept in its place). A run with no
    stored spec is its own."""
    if "matches_key" not in runs.columns or runs.is_empty():
        return runs, {}
    repeats: dict[int, int] = {}
    for (key,), group in runs.group_by(["matches_key"], maintain_order=True):
        if not key or group.height < 2:
            continue
        ordered = group.sort(["matches_done", "run_id"], descending=True)["run_id"].to_list()
        repeats.update({r: ordered[0] for r in ordered[1:]})
    return runs.filter(~pl.col("run_id").is_in(list(repeats))), repeats


def _where(run_ids: list[int] | None) -> tuple[str, list | None]:
    if not run_ids:
        return "", None
    return f"WHERE run_id IN ({', '.join('?' for _ in run_ids)})", list(run_ids)


def first_seat(path: str | Path, run_ids: list[int] | None = None) -> dict:
    """How often the seat that acts first wins, over decided matches, with a Wilson interval."""
    where, params = _where(run_ids)
    row = db.query(path, f"""SELECT count(*) AS matches,
                                    count(*) FILTER (WHERE winner_seat IS NULL) AS draws,
                                    count(*) FILTER (WHERE winner_seat = 0) AS first_wins,
                                    count(*) FILTER (WHERE error IS NOT NULL) AS errors
                             FROM matches {where}""", params).row(0, named=True)
    decided = row["matches"] - row["draws"]
    lo, hi = wilson([row["first_wins"]], [decided])
    return {**row, "decided": decided,
            "first_seat_wr": row["first_wins"] / decided if decided else None,
            "lo": None if decided == 0 else float(lo[0]), "hi": None if decided == 0 else float(hi[0])}


def win_reasons(path: str | Path, run_ids: list[int] | None = None) -> pl.DataFrame:
    where, params = _where(run_ids)
    return db.query(path, f"""SELECT reason, count(*) AS matches FROM matches {where}
                              GROUP BY reason ORDER BY matches DESC""", params)


def game_lengths(path: str | Path, run_ids: list[int] | None = None) -> pl.DataFrame:
    where, params = _where(run_ids)
    return db.query(path, f"SELECT turns, reason FROM matches {where}", params)
