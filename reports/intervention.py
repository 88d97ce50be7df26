"""Card value by intervention: what a card adds to its deck.

``workbench value`` plays a deck as written (the *full* run) and, on the very same seeds and
seats, the deck with one card's copies replaced by a vanilla reference card at the same places of
the shuffled deck (the *reference* run). The two runs are twins: the same shuffles, the same luck
turn by turn, the same opponent, until the card (or its stand-in) first matters. The card's value
is the paired difference of the measured deck's wins, in points: the win rate the card adds over
a vanilla body of its cost, under the pilots that played.

The measured deck sits in deck slot 0 of both runs (``workbench value`` pairs it with each
opponent as pairing (0, j)), so its seat in a match is 0, or 1 when the match is the swapped one.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl

from reports import db
from reports.stats import benjamini_hochberg, mcnemar_pvalue, paired_rate_interval, t_interval

MEASURED_SEAT = "CASE WHEN m.swapped THEN 1 ELSE 0 END"  # where deck slot 0 sits


def value_twins(path: str | Path, full_run: int, ref_run: int) -> pl.DataFrame:
    """One row per match of the measured deck present in both runs: its win with and without."""
    return db.query(path, f"""
        SELECT f.match_no, f.seat, (f.result = 'win')::INTEGER AS win_with,
               (r.result = 'win')::INTEGER AS win_without
        FROM match_seats f
        JOIN matches m ON m.run_id = f.run_id AND m.match_no = f.match_no
        JOIN match_seats r ON r.run_id = ? AND r.match_no = f.match_no AND r.seat = f.seat
        WHERE f.run_id = ? AND f.seat = {MEASURED_SEAT}
        ORDER BY f.match_no""", [ref_run, full_run])


def card_value(path: str | Path, full_run: int, ref_run: int) -> dict:
    """The card's win rate added: with minus without, paired 95% interval and McNemar p, read
    off the same discordant twins; the interval is the one that leaves out 0 exactly when p is
    below 0.05 (reports/stats.py ``paired_rate_intervals``)."""
    t = value_twins(path, full_run, ref_run)
    w, r = t["win_with"].to_numpy(), t["win_without"].to_numpy()
    mean, lo, hi = paired_rate_interval(r, w)
    only_with, only_without = int(((w == 1) & (r == 0)).sum()), int(((w == 0) & (r == 1)).sum())
    # no twins, no test: an empty p (not McNemar's 1.0 of no discordant twins, which would also
    # enter the cards' Benjamini-Hochberg family as a test)
    p = mcnemar_pvalue(only_with, only_without) if t.height else math.nan
    return {"twins": t.height, "wr_with": float(w.mean()) if t.height else math.nan,
            "wr_without": float(r.mean()) if t.height else math.nan,
            "value_points": mean * 100, "value_lo": lo * 100, "value_hi": hi * 100, "p_value": p}


def with_q_values(rows: list[dict], fdr: float = 0.05) -> list[dict]:
    """BH q-values over the cards of one measurement (``q_value``, ``significant``)."""
    q, reject = benjamini_hochberg(np.array([r["p_value"] for r in rows], dtype=float), fdr)
    return [{**r, "q_value": float(qv), "significant": bool(rj)} for r, qv, rj in zip(rows, q, reject)]


def value_change(path: str | Path, before: tuple[int, int], after: tuple[int, int]) -> dict:
    """How a card's value moved between two rules versions, each measured as (full run,
    reference run) on the same seeds and seats: per twin, (with - without) after minus before,
    so the four runs' shared luck cancels; the t interval and the two-sided t-test p of the
    same differences, so the two agree on whether 0 is left out."""
    a, b = value_twins(path, *before), value_twins(path, *after)
    j = a.join(b, on=["match_no", "seat"], suffix="_after")
    if j.is_empty():
        return {"twins": 0, "change_points": math.nan, "change_lo": math.nan, "change_hi": math.nan,
                "p_value": math.nan}
    d = ((j["win_with_after"] - j["win_without_after"]) - (j["win_with"] - j["win_without"])).to_numpy().astype(float)
    mean, lo, hi = t_interval(d)  # the interval of the t-test whose p is given beside it
    if d.size > 1 and d.std() == 0 and mean != 0:  # every twin moved alike: a t-test has no variance to read
        lo = hi = math.nan
    return {"twins": j.height, "change_points": mean * 100, "change_lo": lo * 100, "change_hi": hi * 100,
            "p_value": _one_sample_p(d)}


def _one_sample_p(d: np.ndarray) -> float:
    """Two-sided t-test of mean(d) = 0; 1 when no twin's change differs from 0, NaN on one twin
    or when every twin changed by the same non-zero amount (no variance to test against: not
    "p = 1", which read as no evidence beside a change of +100 points)."""
    from scipy import stats as sps  # here, not at the top: see reports/stats.py
    if d.size < 2:
        return math.nan
    if d.std() == 0:
        return 1.0 if d[0] == 0 else math.nan
    return float(sps.ttest_1samp(d, 0.0).pvalue)
