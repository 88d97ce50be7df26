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
# what says which decks sit in a run's matches: read per pairing (``_tables``), not as a whole, so
# that a run of two decks is seen inside a run of the whole field that holds their pairing
PER_SLOT = ("decks", "pilots", "pairings", "deck_hash", "deck_hashes", "substitute", "kind")


def matches_key(spec: str | None) -> str:
    """What decides a run's matches, as JSON: ``base``, what every match of it shares (rules hash,
    seed, seat swapping, pilot salt, mode...); ``tables``, each pairing as the identities of the
    decks in its seats (deck id, content hash, pilot, cards substituted); ``matches`` per pairing.
    Match j of a pairing is the same match in every run with the same base and the same table
    (its seed and seats follow j alone, workbench/runspec.RunSpec.match), so two runs with the
    same key but for ``matches`` hold the same matches on the seeds they share, and runs whose
    tables overlap share those tables' matches (``covered``). A run from before per-deck hashes
    names each deck by the hash of its whole deck list, so it is seen to share matches only with
    runs of the same decks, as before."""
    if not spec:
        return ""
    d = json.loads(spec)
    if "decks" not in d:  # a campaign batch: its runs are the same only with the whole spec the same
        whole = {k: v for k, v in d.items() if k not in NOT_MATCHES}
        return json.dumps({"base": whole, "tables": [[]], "matches": 1, "duel": False}, sort_keys=True)
    decks, pilots = d.get("decks") or [], d.get("pilots") or []
    hashes = d.get("deck_hashes") or [d.get("deck_hash", "")] * len(decks)
    substitute = d.get("substitute") or {}
    slots = [[deck, hashes[i], pilots[i] if i < len(pilots) else "", substitute.get(str(i)) or {}]
             for i, deck in enumerate(decks)]
    pairings = d.get("pairings") or [list(range(len(decks)))]
    base = {k: v for k, v in d.items() if k not in NOT_MATCHES and k not in PER_SLOT}
    return json.dumps({"base": base, "tables": [[slots[i] for i in table] for table in pairings],
                       "matches": d.get("matches"), "duel": d.get("mode", "duel") == "duel" and len(decks) > 0},
                      sort_keys=True)


def with_matches_key(runs: pl.DataFrame) -> pl.DataFrame:
    """``runs`` (with their ``spec``) with each one's ``matches_key``."""
    keys = [matches_key(s) for s in runs["spec"].to_list()] if runs.height else []
    return runs.with_columns(pl.Series("matches_key", keys, dtype=pl.Utf8))


def covered(mine: dict, other: dict) -> tuple[int, int]:
    """(how many of ``mine``'s matches ``other`` holds too, how many ``mine`` has), two parsed
    ``matches_key``s. Of each pairing of ``mine``, a first part is shared: its first matches where
    ``other`` seats the same decks in the same order (as many as both play); in a duel with seat
    swapping, also where ``other`` seats them the other way round, match j of one being match
    j XOR 1 of the other (a seed from both seats), so whole seeds only."""
    m, n = mine["matches"] or 0, other["matches"] or 0
    if mine["base"] != other["base"] or not m or not n:
        return 0, m * len(mine["tables"])
    same = {json.dumps(t, sort_keys=True) for t in other["tables"]}
    turned = {json.dumps(t[::-1], sort_keys=True) for t in other["tables"]} \
        if mine["duel"] and mine["base"].get("swap", True) else set()
    shared = 0
    for table in mine["tables"]:
        text = json.dumps(table, sort_keys=True)
        if text in same:
            shared += min(m, n)
        elif text in turned:
            shared += min(m, n - n % 2)
    return shared, m * len(mine["tables"])


def one_run_per_seeds(runs: pl.DataFrame) -> tuple[pl.DataFrame, dict[int, int]]:
    """(the runs, each counted once: of runs that share matches, the one with the most pairings
    (then the most matches) is kept and every run sharing some of its matches is left out; each
    run left out -> the run kept in its place). Shared: the same matches on the seeds they share, whether one run replays the
    other (a sequential diff's base run beside the simulate it reused) or holds some of its
    pairings (a run of two decks beside one of the whole field, ``value``'s unchanged deck against
    the field): pooled, those matches count twice and the intervals are too narrow. A run that
    shares only some of its matches is left out whole, with its own: a figure without it is
    narrower in what it covers, never counted twice. A run with no stored spec is its own."""
    if "matches_key" not in runs.columns or runs.is_empty():
        return runs, {}
    parsed = [(run_id, done or 0, json.loads(key) if key else None)
              for run_id, done, key in runs.select("run_id", "matches_done", "matches_key").rows()]
    # the broadest first (most pairings), then the longest: a field keeps its place beside a run of
    # one deck against it, though ``value``'s (1,000 matches a pairing) outnumbers a field of 200
    parsed.sort(key=lambda r: (len(r[2]["tables"]) if r[2] else 0, r[1], r[0]), reverse=True)
    kept: list[tuple[int, dict]] = []
    repeats: dict[int, int] = {}
    for run_id, _done, mine in parsed:
        overlap = next((kept_id for kept_id, theirs in kept if mine is not None and covered(mine, theirs)[0]), None)
        if overlap is not None:
            repeats[run_id] = overlap
        elif mine is not None:
            kept.append((run_id, mine))
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
