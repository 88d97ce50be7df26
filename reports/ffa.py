"""Free-for-all metrics: placement-aware deck and card figures, who put whom out, and which
opponent each seat chose to hit. Over the store's free-for-all runs (``runs.mode = 'ffa'``).

Decks (``ffa_decks``), per deck, pilot, table pilots and table size over its seats in the chosen
runs (places at a 3-seat table and a 4-seat one are on other scales: never pooled):
  table_pilots     the pilots seated at its tables, comma separated ("random"; "greedy,random": a table
                   of both, whose seats are a row of their own, not pooled with a table of one pilot)
  seats            seat-games played (a deck plays every seat of every table it sits at)
  mean_placement   its average place (1 = first), with a 95% interval (``placement_interval``: t, its
                   standard error with a place 1 and a place N added, clipped to 1..N);
                   a fair deck at an N-seat table averages (N + 1) / 2
  win_share        share of its seat-games placed first (a draw's survivors share first place),
                   95% Wilson interval; a fair deck wins 1/N
  top2             share placed first or second, 95% Wilson interval; fair: 2/N
  out_by_nobody    seat-games it went out without anyone putting it out (its deck ran out)

Cards (``ffa_cards``), per deck, pilot, table pilots, table size (``table_seats``) and card (its
``name`` beside its id), over that deck's seat-games played by that pilot at tables of those pilots:
  played / not_played            seat-games where the card was played at least once / never
  placement_played, placement_not_played  mean placement of each
  placement_gain                 not_played minus played (positive: the card goes with a better
                                 place), with a 95% Welch interval (``gain_interval``: each side
                                 padded with a place 1 and a place N, inside -(N-1)..N-1). Observational, like the
                                 Cards page's played win rate: a card played late is played by
                                 seats that lived long
  win_share_played, win_share_not_played

Eliminations (``ffa_eliminations``): who put whom out, by deck and pilot: ``outs`` seat-games of
the out deck played by ``out_pilot`` that the eliminator deck, played by ``eliminator_pilot``, put
out (``(nobody)``, no pilot: its deck ran out), at tables of ``table_pilots``, and ``share`` of all
the outs of that deck and pilot at such tables.

Targets (``ffa_targets``), from the stored event logs' ``aimed`` events (sim/core/events.AIMED, which
every game that seats more than two emits): each attack at another seat and each choice of "an
opponent" an effect asked for, by the acting deck and its ``pilot`` and the deck it hit and its
``target_pilot`` (at tables of ``table_pilots``), and by where that seat sat: ``next`` (plays
after it), ``previous`` (plays before it) or ``across``; ``share`` is the part of the hits of the
acting deck and pilot at such tables.

Every table splits by pilot (the seat's, ``match_seats.pilot``) and by ``table_pilots`` (every
pilot at the table, as ``ffa_decks``): a row counts one pilot's seat-games at tables of one mix
of pilots, never greedy's and random's pooled into a figure neither produced.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from reports import db
from reports.stats import rate, wilson

# the event words a seat aiming at another seat is logged under: part of the store's contract (the
# events table), written by sim/core/events.py and read here without importing sim (the layers:
# docs/ARCHITECTURE.md); tests/test_ffa_reports.py holds the two to the same words
AIMED = "aimed"
AIMED_ATTACK, AIMED_EFFECT = "attack", "effect"


def ffa_runs(path: str | Path) -> pl.DataFrame:
    """The store's free-for-all runs, newest first, with their seat count."""
    return db.query(path, """SELECT run_id, game, rules_version, decks, pilots, matches_done, matches_target,
                             status, created_at, CAST(json_extract(spec, '$.seats') AS INTEGER) AS seats
                             FROM runs WHERE mode = 'ffa' ORDER BY run_id DESC""")


def _runs_in(run_ids: list[int], alias: str) -> tuple[str, list]:
    return f"{alias}.run_id IN ({', '.join('?' for _ in run_ids)})", list(run_ids)


def _tables(run_ids: list[int]) -> tuple[str, list]:
    """Each match of the runs: its table's size (``seats``) and pilots (``table_pilots``, every
    pilot seated, sorted and comma separated: "greedy,random")."""
    where, params = _runs_in(run_ids, "t")
    return f"""SELECT t.run_id, t.match_no, count(*) AS seats,
                      string_agg(DISTINCT t.pilot, ',' ORDER BY t.pilot) AS table_pilots
               FROM match_seats t WHERE {where} GROUP BY ALL""", params


def _seats_sql(run_ids: list[int]) -> tuple[str, list]:
    """Every seat-game of the runs with the table size and pilots."""
    tables, table_params = _tables(run_ids)
    where, params = _runs_in(run_ids, "s")
    return f"""SELECT s.*, n.seats, n.table_pilots FROM match_seats s
               JOIN ({tables}) n USING (run_id, match_no) WHERE {where}""", table_params + params


def ffa_decks(path: str | Path, run_ids: list[int]) -> pl.DataFrame:
    seats, params = _seats_sql(run_ids)
    frame = db.query(path, f"""
        SELECT deck, pilot, table_pilots, seats AS table_seats, count(*) AS seats,
               avg(placement) AS mean_placement, sum(placement * placement)::DOUBLE AS sum_sq,
               max(seats) AS most_seats,
               count(*) FILTER (WHERE placement = 1) AS firsts,
               count(*) FILTER (WHERE placement <= 2) AS top2s,
               count(*) FILTER (WHERE out_turn IS NOT NULL AND out_by IS NULL) AS out_by_nobody
        FROM ({seats}) GROUP BY deck, pilot, table_pilots, seats
        ORDER BY table_seats, mean_placement, deck, pilot, table_pilots""",
        params)
    if frame.is_empty():
        return frame
    n = frame["seats"].to_numpy().astype(float)
    lo, hi = placement_interval(frame["mean_placement"].to_numpy().astype(float),
                                frame["sum_sq"].to_numpy().astype(float), n, frame["most_seats"].to_numpy().astype(float))
    win_lo, win_hi = wilson(frame["firsts"], n)
    top_lo, top_hi = wilson(frame["top2s"], n)
    return frame.drop("sum_sq", "most_seats").with_columns(
        pl.Series("mean_placement_lo", lo), pl.Series("mean_placement_hi", hi),
        pl.Series("win_share", rate(frame["firsts"], n)), pl.Series("win_share_lo", win_lo),
        pl.Series("win_share_hi", win_hi), pl.Series("top2", rate(frame["top2s"], n)),
        pl.Series("top2_lo", top_lo), pl.Series("top2_hi", top_hi),
        (1.0 / pl.col("table_seats")).alias("fair_win_share"))


def placement_interval(mean: np.ndarray, sum_sq: np.ndarray, n: np.ndarray,
                       seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """95% interval of a mean placement on 1..N (``seats``) from n placements (their ``mean`` and
    sum of squares). The plain mean +- 1.96 sd / sqrt n left 1..N and had no width when every
    place was the same (three firsts say little). So, the Agresti-Coull idea for a bounded mean:
    the standard error is that of the placements with two more, a place 1 and a place N; t with
    n + 1 degrees of freedom for small n; centred on the plain mean and clipped to 1..N."""
    from scipy import stats as sps  # here, not at the top: see reports/stats.py

    se2, k = _padded_se2(n, mean, sum_sq, seats)
    half = sps.t.ppf(0.975, k - 1) * np.sqrt(se2)
    return np.clip(mean - half, 1, seats), np.clip(mean + half, 1, seats)


def _padded_se2(n: np.ndarray, mean: np.ndarray, sum_sq: np.ndarray,
                seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(squared standard error, count) of a mean placement taken with two more placements, a
    place 1 and a place N (``seats``): the padding both intervals here use."""
    k = n + 2
    mean_k = (mean * n + 1 + seats) / k
    return np.maximum((sum_sq + 1 + seats ** 2 - k * mean_k ** 2) / (k - 1), 0) / k, k


def gain_interval(gain: np.ndarray, frame: pl.DataFrame, n1: np.ndarray, n0: np.ndarray,
                  seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """95% interval of ``placement_gain`` (not played minus played): Welch's, with each side's
    variance taken as ``placement_interval`` takes it (a place 1 and a place N added, so alike
    places do not claim certainty: 1, 1 against 3, 3 gave 2.0 to 2.0), Welch-Satterthwaite
    degrees of freedom, clipped to the possible -(N - 1)..N - 1."""
    from scipy import stats as sps  # here, not at the top: see reports/stats.py

    def padded(n: np.ndarray, mean: np.ndarray, var: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _padded_se2(n, mean, np.nan_to_num(var) * (n - 1) + n * mean ** 2, seats)
    a, k1 = padded(n1, frame["placement_played"].to_numpy().astype(float), frame["var_played"].to_numpy().astype(float))
    b, k0 = padded(n0, frame["placement_not_played"].to_numpy().astype(float), frame["var_not"].to_numpy().astype(float))
    df = (a + b) ** 2 / (a ** 2 / (k1 - 1) + b ** 2 / (k0 - 1))
    half = sps.t.ppf(0.975, df) * np.sqrt(a + b)
    return np.clip(gain - half, 1 - seats, seats - 1), np.clip(gain + half, 1 - seats, seats - 1)


def ffa_cards(path: str | Path, run_ids: list[int]) -> pl.DataFrame:
    tables, table_params = _tables(run_ids)
    where, params = _runs_in(run_ids, "c")
    frame = db.query(path, f"""
        WITH seats AS (SELECT s.run_id, s.match_no, s.seat, s.pilot, s.placement, n.seats AS table_seats,
                              n.table_pilots
                       FROM match_seats s JOIN ({tables}) n USING (run_id, match_no)
                       WHERE {where.replace('c.', 's.')}),
             games AS (SELECT c.deck, s.pilot, s.table_pilots, c.card, k.name, c.played > 0 AS played, s.placement,
                              s.table_seats
                       FROM card_games c JOIN seats s USING (run_id, match_no, seat)
                       JOIN runs r ON r.run_id = c.run_id
                       LEFT JOIN cards k ON k.rules_hash = r.rules_hash AND k.card = c.card WHERE {where})
        SELECT deck, pilot, table_pilots, card, any_value(name) AS name,
               count(*) FILTER (WHERE played) AS played, count(*) FILTER (WHERE NOT played) AS not_played,
               avg(placement) FILTER (WHERE played) AS placement_played,
               avg(placement) FILTER (WHERE NOT played) AS placement_not_played,
               var_samp(placement) FILTER (WHERE played) AS var_played,
               var_samp(placement) FILTER (WHERE NOT played) AS var_not,
               count(*) FILTER (WHERE played AND placement = 1) AS firsts_played,
               count(*) FILTER (WHERE NOT played AND placement = 1) AS firsts_not_played,
               table_seats
        FROM games GROUP BY deck, pilot, table_pilots, table_seats, card
        ORDER BY table_seats, deck, pilot, table_pilots, card""",
        table_params + params + params)
    if frame.is_empty():
        return frame
    n1 = frame["played"].to_numpy().astype(float)
    n0 = frame["not_played"].to_numpy().astype(float)
    gain = frame["placement_not_played"].to_numpy().astype(float) - frame["placement_played"].to_numpy().astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        lo, hi = gain_interval(gain, frame, n1, n0, frame["table_seats"].to_numpy().astype(float))
    ok = (n1 >= 2) & (n0 >= 2)
    lo, hi = np.where(ok, lo, np.nan), np.where(ok, hi, np.nan)
    return frame.drop("var_played", "var_not").with_columns(
        pl.Series("placement_gain", gain), pl.Series("placement_gain_lo", lo), pl.Series("placement_gain_hi", hi),
        pl.Series("win_share_played", rate(frame["firsts_played"], n1)),
        pl.Series("win_share_not_played", rate(frame["firsts_not_played"], n0)))


def ffa_eliminations(path: str | Path, run_ids: list[int]) -> pl.DataFrame:
    tables, table_params = _tables(run_ids)
    where, params = _runs_in(run_ids, "o")
    return db.query(path, f"""
        WITH outs AS (SELECT o.deck AS out_deck, o.pilot AS out_pilot, n.table_pilots, k.deck AS eliminator_deck,
                             k.pilot AS eliminator_pilot
                      FROM match_seats o JOIN ({tables}) n ON n.run_id = o.run_id AND n.match_no = o.match_no
                      LEFT JOIN match_seats k
                        ON k.run_id = o.run_id AND k.match_no = o.match_no AND k.seat = o.out_by
                      WHERE {where} AND o.out_turn IS NOT NULL)
        , counted AS (SELECT out_deck, out_pilot, table_pilots, coalesce(eliminator_deck, '(nobody)') AS eliminator_deck,
                             eliminator_pilot, count(*) AS outs
                      FROM outs GROUP BY ALL)
        SELECT *, outs / sum(outs) OVER (PARTITION BY out_deck, out_pilot, table_pilots) AS share
        FROM counted ORDER BY out_deck, out_pilot, table_pilots, outs DESC, eliminator_deck, eliminator_pilot""",
        table_params + params)


def ffa_targets(path: str | Path, run_ids: list[int]) -> pl.DataFrame:
    tables, table_params = _tables(run_ids)
    where, params = _runs_in(run_ids, "e")
    return db.query(path, f"""
        WITH hits AS (
            SELECT e.run_id, e.match_no, e.seat, e.detail AS how, e.amount AS target_seat
            FROM events e
            WHERE {where} AND e.kind = '{AIMED}'),
        n AS ({tables})
        , counted AS (
        SELECT a.deck, a.pilot, n.table_pilots, t.deck AS target_deck, t.pilot AS target_pilot,
               CASE (h.target_seat - h.seat + n.seats) % n.seats WHEN 1 THEN 'next'
                    WHEN n.seats - 1 THEN 'previous' ELSE 'across' END AS target_sits,
               count(*) FILTER (WHERE how = '{AIMED_ATTACK}') AS attacks,
               count(*) FILTER (WHERE how = '{AIMED_EFFECT}') AS effect_choices,
               count(*) AS hits
        FROM hits h JOIN n USING (run_id, match_no)
        JOIN match_seats a ON a.run_id = h.run_id AND a.match_no = h.match_no AND a.seat = h.seat
        JOIN match_seats t ON t.run_id = h.run_id AND t.match_no = h.match_no AND t.seat = h.target_seat
        WHERE h.target_seat IS NOT NULL AND h.target_seat <> h.seat
        GROUP BY ALL)
        SELECT *, hits / sum(hits) OVER (PARTITION BY deck, pilot, table_pilots) AS share
        FROM counted ORDER BY deck, pilot, table_pilots, hits DESC, target_deck, target_pilot, target_sits""",
        params + table_params)
