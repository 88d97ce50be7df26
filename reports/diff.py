"""Rules-version diffs with common random numbers.

The base and candidate runs play the same seeds from the same seats with the same decks and
pilots, so each match of one has a twin in the other: shuffles are the same and, turn by turn,
the luck too. Comparing twins (paired) instead of two independent samples removes most of the
noise, which is why a diff needs far fewer matches than two separate runs.

- Per deck and seat order: paired wins, McNemar's test on the discordant twins, the mean change
  with a paired 95% interval, and the interval an unpaired comparison of the same size would give.
- Per card: the twins where the card was in hand in both runs (McNemar and paired interval), and
  its excess change over the same deck's twins where it was never in hand (a stronger deck
  makes all its cards look stronger; the excess is what moved with the card). Benjamini-Hochberg
  runs across the cards' excess tests at a 5% false discovery rate.
- Game length: the mean change in player-turns over twins, paired interval.
- Power: how many matches (and seeds, at two matches per seed with seat swapping) a paired diff
  and an unpaired one would need to see a change of 1, 2 and 5 points with 80% power, and the
  share of variance the pairing removed.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl

from reports import db
from reports.examples import diff_cards as diff_examples
from scipy import stats as sps

from reports.stats import (benjamini_hochberg, diff_interval, mcnemar_pvalue, paired_interval, rate,
                           samples_needed)

POINTS = (0.01, 0.02, 0.05)


def twins(path: str | Path, base_run: int, candidate_run: int) -> pl.DataFrame:
    """One row per match x seat present in both runs: deck, seat, wins and turns in each."""
    return db.query(path, """
        SELECT b.match_no, b.seat, b.deck, m.seed,
               (b.result = 'win')::INTEGER AS win_base, (c.result = 'win')::INTEGER AS win_candidate,
               mb.turns AS turns_base, mc.turns AS turns_candidate
        FROM match_seats b
        JOIN match_seats c ON c.run_id = ? AND c.match_no = b.match_no AND c.seat = b.seat
        JOIN matches mb ON mb.run_id = b.run_id AND mb.match_no = b.match_no
        JOIN matches mc ON mc.run_id = c.run_id AND mc.match_no = c.match_no
        JOIN matches m ON m.run_id = b.run_id AND m.match_no = b.match_no
        WHERE b.run_id = ? ORDER BY b.match_no, b.seat""", [candidate_run, base_run])


def paired_summary(label: str, wb: np.ndarray, wc: np.ndarray) -> dict:
    """Paired comparison of two 0/1 win vectors of twins."""
    n = int(wb.size)
    d = wc - wb
    mean, lo, hi = paired_interval(d)
    only_b, only_c = int(((wb == 1) & (wc == 0)).sum()), int(((wb == 0) & (wc == 1)).sum())
    u_lo, u_hi = diff_interval([wc.sum()], [n], [wb.sum()], [n])
    var_paired = float(d.var(ddof=1)) if n > 1 else math.nan
    var_unpaired = float(wb.var(ddof=1) + wc.var(ddof=1)) if n > 1 else math.nan
    return {"group": label, "twins": n, "wr_base": float(rate(wb.sum(), n)), "wr_candidate": float(rate(wc.sum(), n)),
            "change": mean, "change_lo": lo, "change_hi": hi, "unpaired_lo": float(u_lo[0]), "unpaired_hi": float(u_hi[0]),
            "only_base_won": only_b, "only_candidate_won": only_c, "mcnemar_p": mcnemar_pvalue(only_b, only_c),
            "var_paired": var_paired, "var_unpaired": var_unpaired}


def deck_changes(t: pl.DataFrame) -> pl.DataFrame:
    rows = []
    for deck in sorted(t["deck"].unique().to_list()):
        part = t.filter(pl.col("deck") == deck)
        rows.append({"deck": deck, **paired_summary(deck, part["win_base"].to_numpy(), part["win_candidate"].to_numpy())})
    seat0 = t.filter(pl.col("seat") == 0)
    rows.append({"deck": "(first seat)", **paired_summary("first seat", seat0["win_base"].to_numpy(),
                                                           seat0["win_candidate"].to_numpy())})
    return pl.DataFrame(rows).drop("group")


def game_length_change(t: pl.DataFrame) -> dict:
    per_match = t.filter(pl.col("seat") == 0)
    d = (per_match["turns_candidate"] - per_match["turns_base"]).to_numpy().astype(float)
    mean, lo, hi = paired_interval(d)
    return {"matches": per_match.height, "turns_base": float(per_match["turns_base"].mean() or 0),
            "turns_candidate": float(per_match["turns_candidate"].mean() or 0), "change": mean,
            "change_lo": lo, "change_hi": hi}


def card_changes(path: str | Path, base_run: int, candidate_run: int, t: pl.DataFrame, fdr: float = 0.05) -> pl.DataFrame:
    """Per card: its twins (match x seat where the card was in the deck) split by whether it was
    in hand in both runs or in neither.

    - ``change`` (with paired interval and McNemar): paired wins where it was in hand in both.
    - ``excess_change``: that change minus the change of the same deck's twins where the card was
      in hand in neither run. A stronger deck makes every card in it look stronger; the excess is
      what moved with the card itself. Its two-sided Welch test (``excess_p``; untested below
      MIN_GROUP twins a group) is what Benjamini-Hochberg runs on."""
    rows_sql = db.query(path, """
        SELECT b.card, b.deck, b.match_no, b.seat, b.won::INTEGER AS win_base, c.won::INTEGER AS win_candidate,
               (b.in_opening_hand > 0 OR b.drawn > 0) AND (c.in_opening_hand > 0 OR c.drawn > 0) AS in_hand_both,
               (b.in_opening_hand = 0 AND b.drawn = 0) AND (c.in_opening_hand = 0 AND c.drawn = 0) AS in_hand_neither,
               (b.played > 0)::INTEGER AS played_base, (c.played > 0)::INTEGER AS played_candidate
        FROM card_games b
        JOIN card_games c ON c.run_id = ? AND c.match_no = b.match_no AND c.seat = b.seat AND c.card = b.card
        WHERE b.run_id = ? AND b.copies > 0 AND c.copies > 0""", [candidate_run, base_run])
    if rows_sql.is_empty():
        return pl.DataFrame()
    rows = []
    for (card,), part in rows_sql.group_by(["card"], maintain_order=True):
        held = part.filter(pl.col("in_hand_both"))
        unseen = part.filter(pl.col("in_hand_neither"))
        if held.is_empty():
            continue
        s = paired_summary(card, held["win_base"].to_numpy(), held["win_candidate"].to_numpy())
        d_held = (held["win_candidate"] - held["win_base"]).to_numpy().astype(float)
        d_unseen = (unseen["win_candidate"] - unseen["win_base"]).to_numpy().astype(float)
        excess, lo, hi, p = _difference_of_means(d_held, d_unseen)
        rows.append({"card": card, **{k: v for k, v in s.items() if k != "group"},
                     "play_rate_base": float(held["played_base"].mean()),
                     "play_rate_candidate": float(held["played_candidate"].mean()),
                     "unseen_twins": unseen.height, "unseen_change": float(d_unseen.mean()) if d_unseen.size else math.nan,
                     "excess_change": excess, "excess_lo": lo, "excess_hi": hi, "excess_p": p})
    out = pl.DataFrame(rows).sort("card")
    q, reject = benjamini_hochberg(out["excess_p"].to_numpy(), fdr)
    return out.with_columns(pl.Series("q_value", q), pl.Series("significant", reject)).join(
        diff_examples(path, base_run, candidate_run), on="card", how="left")


MIN_GROUP = 20  # twins in each group before a card's excess change is tested


def _difference_of_means(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float, float]:
    """mean(a) - mean(b), Welch's t interval (95%) and two-sided p-value. Untested (NaN) when a
    group has fewer than MIN_GROUP twins: paired differences take only the values -1, 0 and 1,
    and on small groups a t test of them rejects too easily."""
    if a.size < MIN_GROUP or b.size < MIN_GROUP:
        diff = float(a.mean() - b.mean()) if a.size and b.size else math.nan
        return diff, math.nan, math.nan, math.nan
    diff = float(a.mean() - b.mean())
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    se = math.sqrt(va + vb)
    if se == 0:
        return diff, diff, diff, 1.0 if diff == 0 else 0.0
    df = (va + vb) ** 2 / ((va * va) / (a.size - 1) + (vb * vb) / (b.size - 1))
    t = sps.t.ppf(0.975, df)
    return diff, diff - t * se, diff + t * se, float(2 * sps.t.sf(abs(diff / se), df))


def power(t: pl.DataFrame) -> pl.DataFrame:
    """Matches and seeds needed to see a change of 1, 2 and 5 points in a deck's win rate,
    paired (this diff's twins) against unpaired (two independent runs), 80% power, 5% two-sided."""
    deck = sorted(t["deck"].unique().to_list())[0]
    part = t.filter(pl.col("deck") == deck)
    wb, wc = part["win_base"].to_numpy(), part["win_candidate"].to_numpy()
    var_paired = float((wc - wb).var(ddof=1)) if part.height > 1 else math.nan
    p = float(np.concatenate([wb, wc]).mean()) if part.height else 0.5
    rows = []
    for delta in POINTS:
        paired = samples_needed(var_paired, delta)
        unpaired = samples_needed(2 * p * (1 - p), delta)  # per version
        rows.append({"change_points": round(delta * 100), "paired_matches": paired,
                     "paired_seeds": math.ceil(paired / 2) if paired == paired else math.nan,
                     "unpaired_matches_per_version": unpaired,
                     "unpaired_seeds_per_version": math.ceil(unpaired / 2) if unpaired == unpaired else math.nan})
    return pl.DataFrame(rows)


def changed_cards(path: str | Path, base_run: int, candidate_run: int) -> pl.DataFrame:
    """Cards whose definition differs between the two rules versions (added, removed, changed)."""
    return db.query(path, """
        WITH b AS (SELECT c.* FROM cards c JOIN runs r ON r.rules_hash = c.rules_hash WHERE r.run_id = ?),
             k AS (SELECT c.* FROM cards c JOIN runs r ON r.rules_hash = c.rules_hash WHERE r.run_id = ?)
        SELECT coalesce(b.card, k.card) AS card,
               CASE WHEN b.card IS NULL THEN 'added' WHEN k.card IS NULL THEN 'removed' ELSE 'changed' END AS change,
               b.extra AS base, k.extra AS candidate
        FROM b FULL JOIN k ON b.card = k.card
        WHERE b.card IS NULL OR k.card IS NULL OR b.extra IS DISTINCT FROM k.extra OR b.name IS DISTINCT FROM k.name
        ORDER BY 1""", [base_run, candidate_run])


def version_diff(path: str | Path, base_run: int, candidate_run: int, fdr: float = 0.05) -> dict:
    """Everything a designer reads about a rules change: dict of frames and numbers."""
    t = twins(path, base_run, candidate_run)
    if t.is_empty():
        raise ValueError(f"runs {base_run} and {candidate_run} share no matches to compare")
    decks = deck_changes(t)
    first = decks.filter(pl.col("deck") == "(first seat)").row(0, named=True)
    main = decks.filter(pl.col("deck") != "(first seat)")
    vp, vu = float(main["var_paired"].mean()), float(main["var_unpaired"].mean())
    cards = card_changes(path, base_run, candidate_run, t, fdr)
    return {
        "decks": decks, "cards": cards, "power": power(t), "length": game_length_change(t),
        "first_seat": first, "changed_cards": changed_cards(path, base_run, candidate_run),
        "significant_cards": cards.filter(pl.col("significant")) if not cards.is_empty() else cards,
        "variance_saved": (1 - vp / vu) if vu and vu == vu and vu > 0 else math.nan,
        "twins": t.height, "base_run": base_run, "candidate_run": candidate_run,
    }
