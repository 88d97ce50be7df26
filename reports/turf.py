"""Turf Defense figures: how often each boss is beaten, by whom, how far it gets, and which
partner falls first. Over the store's Turf Defense runs (``runs.mode = 'turf'``).

A match's boss sits in the boss seat (team 1, deck ``boss:ID``); the partners are team 0. Its
outcome (``matches.outcome``, JSON from the engine's ``outcome``) holds ``boss``, ``phase`` (the
boss's phase at the end, 1 = its first), ``boss_life`` and ``boss_life_max`` (the boss's life left and at the start, in the game's own
measure: AlleyWay's Morale; a store from before 2026-12-06 wrote ``boss_morale``, read as well), and ``prize``
(the card the win pays, NULL when the partners lost).

Every table names each boss by its id (``boss``, as the boss files and ``matches.outcome`` do) and
by name (``boss_name``: the run's ``runs.boss_names``; the id in a store written before the names
were kept).

Bosses (``turf_bosses``), per boss and pilots:
  matches, clears, clear_rate   the partners won (the boss went out); 95% Wilson interval. A boss
                                nobody beats or everybody beats tells a designer nothing: the
                                Turf Defense bar wants 20% to 80% with greedy pilots
  mean_phase, max_phase         the boss's phase at the end of its matches
  life_left                     the boss's life left (AlleyWay: its Morale), as a share of its start, mean
  turns                         mean player-turns of its matches
  prizes                        the prize cards its clears paid, with counts
Pairs (``turf_pairs``): the same clear rate per boss and partner pair (the pair's decks sorted).
First falls (``turf_first_falls``): per boss, partner deck and pilots (``pilot``: that deck's
own; ``partner_pilots`` and ``boss_pilot`` as in the tables above), in matches where a partner
went out, how often that deck's partner went out first (``falls_first`` of ``partner_outs``) and
the rate, with its Wilson interval (partners out on the same turn both fell first); and how
often a partner that fell still shared the win (`fell_and_won`).

Every table splits by pilots: a row counts one set of pilots' matches, never greedy's and
random's pooled into a figure neither produced.
"""
from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from reports import db
from reports.stats import rate, wilson


def turf_runs(path: str | Path) -> pl.DataFrame:
    return db.query(path, """SELECT run_id, game, rules_version, decks, pilots, matches_done, matches_target, status,
                             created_at, json_extract_string(spec, '$.boss_pilot') AS boss_pilot
                             FROM runs WHERE mode = 'turf' ORDER BY run_id DESC""")


def _marks(run_ids: list[int]) -> str:
    return ", ".join("?" for _ in run_ids)


def boss_names(path: str | Path, run_ids: list[int]) -> dict[str, str]:
    """The runs' bosses by id: their names (none from a store written before the names were kept)."""
    if not db.has_columns(path, "runs", "boss_names"):
        return {}
    stored = db.query(path, f"SELECT boss_names FROM runs WHERE run_id IN ({_marks(run_ids)}) "
                            "AND boss_names IS NOT NULL", list(run_ids))
    return {boss: name for text in stored["boss_names"] for boss, name in json.loads(text).items()}


def _with_boss_name(path: str | Path, run_ids: list[int], frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with ``boss_name`` beside ``boss`` (the id where the name is not stored)."""
    named = pl.col("boss").replace_strict(boss_names(path, run_ids), default=pl.col("boss"), return_dtype=pl.Utf8)
    return frame.insert_column(frame.columns.index("boss") + 1, frame.select(named.alias("boss_name")).to_series())


def _with_rate(frame: pl.DataFrame, name: str, k: str, n: str) -> pl.DataFrame:
    if frame.is_empty():
        return frame
    lo, hi = wilson(frame[k], frame[n])
    return frame.with_columns(pl.Series(name, rate(frame[k], frame[n])), pl.Series(f"{name}_lo", lo),
                              pl.Series(f"{name}_hi", hi))


MATCHES = """
    SELECT m.run_id, m.match_no, m.turns, json_extract_string(m.outcome, '$.boss') AS boss,
           CAST(json_extract(m.outcome, '$.phase') AS INTEGER) AS phase,
           CAST(coalesce(json_extract(m.outcome, '$.boss_life'), json_extract(m.outcome, '$.boss_morale')) AS DOUBLE)
             / CAST(coalesce(json_extract(m.outcome, '$.boss_life_max'), json_extract(m.outcome, '$.boss_morale_max'))
                    AS DOUBLE) AS life_left,
           json_extract_string(m.outcome, '$.prize') AS prize, b.result = 'loss' AS cleared, b.pilot AS boss_pilot,
           p.pilots, p.pair
    FROM matches m
    JOIN match_seats b ON b.run_id = m.run_id AND b.match_no = m.match_no AND b.team = 1
    JOIN (SELECT run_id, match_no, string_agg(DISTINCT pilot, ',' ORDER BY pilot) AS pilots,
                 string_agg(deck, ' + ' ORDER BY deck) AS pair
          FROM match_seats WHERE team = 0 GROUP BY ALL) p ON p.run_id = m.run_id AND p.match_no = m.match_no
    WHERE m.run_id IN ({marks}) AND m.outcome IS NOT NULL"""


def turf_bosses(path: str | Path, run_ids: list[int]) -> pl.DataFrame:
    frame = db.query(path, f"""
        WITH t AS ({MATCHES.format(marks=_marks(run_ids))})
        SELECT boss, pilots AS partner_pilots, boss_pilot, count(*) AS matches, count(*) FILTER (WHERE cleared) AS clears,
               avg(phase) AS mean_phase, max(phase) AS max_phase, avg(life_left) AS life_left, avg(turns) AS turns,
               string_agg(DISTINCT prize, ', ' ORDER BY prize) FILTER (WHERE prize IS NOT NULL) AS prizes
        FROM t GROUP BY ALL ORDER BY boss, partner_pilots, boss_pilot""", list(run_ids))
    return _with_rate(_with_boss_name(path, run_ids, frame), "clear_rate", "clears", "matches")


def turf_pairs(path: str | Path, run_ids: list[int]) -> pl.DataFrame:
    frame = db.query(path, f"""
        WITH t AS ({MATCHES.format(marks=_marks(run_ids))})
        SELECT boss, pair, pilots AS partner_pilots, boss_pilot, count(*) AS matches,
               count(*) FILTER (WHERE cleared) AS clears
        FROM t GROUP BY ALL ORDER BY boss, pair, partner_pilots, boss_pilot""", list(run_ids))
    return _with_rate(_with_boss_name(path, run_ids, frame), "clear_rate", "clears", "matches")


def turf_first_falls(path: str | Path, run_ids: list[int]) -> pl.DataFrame:
    frame = db.query(path, f"""
        WITH partners AS (
            SELECT s.run_id, s.match_no, s.deck, s.pilot, s.out_turn, s.result,
                   json_extract_string(m.outcome, '$.boss') AS boss,
                   min(s.out_turn) OVER (PARTITION BY s.run_id, s.match_no) AS first_out,
                   string_agg(DISTINCT s.pilot, ',' ORDER BY s.pilot) OVER (PARTITION BY s.run_id, s.match_no)
                     AS partner_pilots,
                   b.pilot AS boss_pilot
            FROM match_seats s JOIN matches m USING (run_id, match_no)
            JOIN match_seats b ON b.run_id = s.run_id AND b.match_no = s.match_no AND b.team = 1
            WHERE s.run_id IN ({_marks(run_ids)}) AND s.team = 0 AND m.outcome IS NOT NULL)
        SELECT boss, deck, pilot, partner_pilots, boss_pilot,
               count(*) FILTER (WHERE first_out IS NOT NULL) AS partner_outs,
               count(*) FILTER (WHERE out_turn IS NOT NULL AND out_turn = first_out) AS falls_first,
               count(*) FILTER (WHERE out_turn IS NOT NULL AND result = 'win') AS fell_and_won
        FROM partners GROUP BY ALL ORDER BY boss, deck, pilot, partner_pilots, boss_pilot""", list(run_ids))
    return _with_rate(_with_boss_name(path, run_ids, frame), "falls_first_rate", "falls_first", "partner_outs")
