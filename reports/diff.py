"""Rules-version diffs with common random numbers.

The base and candidate runs play the same seeds from the same seats with the same decks and
pilots, so each match of one has a twin in the other: shuffles are the same and, turn by turn,
the luck too. Comparing twins (paired) instead of two independent samples removes most of the
noise, which is why a diff needs far fewer matches than two separate runs.

- Per deck and seat order: paired wins, McNemar's test on the discordant twins, the mean change
  with a paired 95% interval, and the interval an unpaired comparison of the same size would give.
- Per card, the attribution: the slope of the twins' paired change on how often a card lying
  where the card's first copy lay in the shuffled deck gets played (the shuffle is the same in
  both runs and comes before anything they do differently, so that place is randomised: a change
  that only made the deck stronger moves every twin alike), in points at full dose: between a
  twin where the card lay where cards always get played and one where none do
  (reports/attribution.py). The cards the candidate changed are
  the pre-declared hypotheses, in their own Benjamini-Hochberg family; every other card is
  exploratory, in a Benjamini-Yekutieli family. Beside it, for reference: whose win rate moved over twins with the
  card in hand (McNemar; every card of a deck that got stronger moves, and its opponents' cards
  too), and the older opening-hand contrast.
- Game length: the mean change in player-turns over twins, paired interval.
- Power: how many matches (and seeds, at two matches per seed with seat swapping) a paired diff
  and an unpaired one would need to see a change of 1, 2 and 5 points with 80% power, and the
  share of variance the pairing removed, for the decks the change touches (those holding a
  changed card; every deck when the rules themselves changed).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import polars as pl

from reports import db
from reports.attribution import DOSE, MIN_DOSE_TWINS, POSITION_SPLIT, dose_response, per_play, two_families
from reports.examples import diff_cards as diff_examples
from reports.stats import (
    benjamini_hochberg,
    diff_interval,
    mcnemar_pvalue,
    paired_interval,
    paired_rate_interval,
    rate,
    samples_needed,
)

POINTS = (0.01, 0.02, 0.05)


def twins(path: str | Path, base_run: int, candidate_run: int, match_limit: int | None = None) -> pl.DataFrame:
    """One row per match x seat present in both runs: deck, seat, wins and turns in each
    (``match_limit``: only the first that many matches of each pairing, to read a long run as a
    shorter one)."""
    return db.query(path, """
        SELECT b.match_no, b.seat, b.deck, m.seed,
               (b.result = 'win')::INTEGER AS win_base, (c.result = 'win')::INTEGER AS win_candidate,
               mb.turns AS turns_base, mc.turns AS turns_candidate
        FROM match_seats b
        JOIN match_seats c ON c.run_id = ? AND c.match_no = b.match_no AND c.seat = b.seat
        JOIN matches mb ON mb.run_id = b.run_id AND mb.match_no = b.match_no
        JOIN matches mc ON mc.run_id = c.run_id AND mc.match_no = c.match_no
        JOIN matches m ON m.run_id = b.run_id AND m.match_no = b.match_no
        WHERE b.run_id = ? AND """ + _within(match_limit) + " ORDER BY b.match_no, b.seat",
                    [candidate_run, base_run, *_limit(base_run, match_limit)])


# the first ``match_limit`` matches of each pairing (a long run read as a shorter one: the
# calibration's first 200 seeds, a sequential diff's matches up to its stop); "match numbers below
# the limit" read the first pairings alone when a run has several
FIRST_OF_EACH_PAIRING = """b.match_no IN (
    SELECT match_no FROM (SELECT match_no, row_number() OVER (PARTITION BY pairing ORDER BY match_no) AS k
                          FROM matches WHERE run_id = ?) WHERE k <= ?)"""


def _within(match_limit: int | None) -> str:
    """The clause that keeps the matches read (every match: no clause to evaluate per row)."""
    return "TRUE" if match_limit is None else FIRST_OF_EACH_PAIRING


def _limit(run: int, match_limit: int | None) -> list:
    """The parameters of ``_within``'s clause."""
    return [] if match_limit is None else [run, int(match_limit)]


def paired_summary(label: str, wb: np.ndarray, wc: np.ndarray) -> dict:
    """Paired comparison of two 0/1 win vectors of twins; with none (a card no twin held in hand
    in both runs), every figure empty and no test."""
    n = int(wb.size)
    d = wc - wb
    mean, lo, hi = paired_rate_interval(wb, wc)
    only_b, only_c = int(((wb == 1) & (wc == 0)).sum()), int(((wb == 0) & (wc == 1)).sum())
    u_lo, u_hi = diff_interval([wc.sum()], [n], [wb.sum()], [n])
    var_paired = float(d.var(ddof=1)) if n > 1 else math.nan
    var_unpaired = float(wb.var(ddof=1) + wc.var(ddof=1)) if n > 1 else math.nan
    return {"group": label, "twins": n, "wr_base": float(rate(wb.sum(), n)), "wr_candidate": float(rate(wc.sum(), n)),
            "change": mean, "change_lo": lo, "change_hi": hi, "unpaired_lo": float(u_lo[0]), "unpaired_hi": float(u_hi[0]),
            "only_base_won": only_b, "only_candidate_won": only_c,
            "mcnemar_p": mcnemar_pvalue(only_b, only_c) if n else math.nan,
            "var_paired": var_paired, "var_unpaired": var_unpaired}


def pairing_effect(saved: float) -> str:
    """The share of the variance of a deck's win-rate change that pairing removed, in words. A
    share at or below zero is noise (few twins, or twins that barely share their luck: pairing
    cannot add variance in expectation), so it reads as none, not as "-100%"."""
    if saved != saved:
        return "pairing's effect on the variance could not be measured"
    if saved <= 0:
        return "pairing removed none of the variance of a deck's win-rate change here"
    return f"pairing removed {saved:.0%} of the variance of a deck's win-rate change"


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


def card_changes(path: str | Path, base_run: int, candidate_run: int, t: pl.DataFrame, fdr: float = 0.05,
                 changed: set[str] | frozenset = frozenset(), match_limit: int | None = None) -> pl.DataFrame:
    """Per card, over its twins (match x seat where the deck holds it in both runs):

    - ``change`` (paired interval, McNemar; ``moved_q``, ``significant``: Benjamini-Hochberg across
      the cards): twins where it was in hand in both runs: did the card's win rate move? A change
      that makes a deck stronger moves every card in it (and its opponents' cards the other way),
      and whether a card is drawn depends on how long games last: this says *that* it moved, not
      *why*. Kept for reference; it is not a finding about the card.
    - ``effect_points`` (``effect_lo``, ``effect_hi``, ``p_value``; ``q_value`` and ``flagged``):
      the attribution, in points at full dose (a place where cards always get played against one
      where none do; ``played_share`` says how often the card itself was): the slope of the twins' paired change
      on their dose, how often a card lying where this card's first copy lay gets played in the
      base run (over the deck's other cards; ``dosed_twins``, ``dose_mean``). Where a card lies is
      fixed by the shuffle before anything the versions do differently (the same in both runs),
      so the dose is randomised: a change that only made the deck stronger moves every twin alike,
      one that made this card stronger moves most the twins that get it played. Taken within each
      deck that holds the card, cluster-robust over seeds (reports/attribution.py; permutations
      for few twins, and for a card the candidate did not change, also when few twins diverged).
      The cards the candidate version changed are the pre-declared hypotheses, tested in their own
      Benjamini-Hochberg family; every other card is exploratory, in a Benjamini-Yekutieli family.
      ``flagged``: q below the FDR in the card's family. Beside it, for description: ``top_twins``
      / ``top_change`` and ``deep_twins`` / ``deep_change``, the twins with the card's first copy
      near the top (within what a typical seat sees) and deep (beyond what nine seats in ten see).
    - ``excess_change`` (``excess_p``, ``excess_q``, ``excess_significant``): the older opening-hand
      contrast (dealt in the opening hand against every other twin), shown beside it; weaker,
      because a card drawn on turn 2 acts in the "other" group too."""
    rows_sql = db.query(path, """
        SELECT b.card, b.deck, b.match_no, b.seat, m.seed, b.won::INTEGER AS win_base, c.won::INTEGER AS win_candidate,
               (b.in_opening_hand > 0 OR b.drawn > 0) AND (c.in_opening_hand > 0 OR c.drawn > 0) AS in_hand_both,
               b.in_opening_hand > 0 AS in_opening_hand,
               b.deck_position AS position,
               (sum(b.in_opening_hand + b.drawn) OVER (PARTITION BY b.match_no, b.seat))::INTEGER AS seen,
               (b.played > 0)::INTEGER AS played_base, (c.played > 0)::INTEGER AS played_candidate
        FROM card_games b
        JOIN card_games c ON c.run_id = ? AND c.match_no = b.match_no AND c.seat = b.seat AND c.card = b.card
        JOIN matches m ON m.run_id = b.run_id AND m.match_no = b.match_no
        WHERE b.run_id = ? AND b.copies > 0 AND c.copies > 0 AND """ + _within(match_limit) + """
        ORDER BY b.card, b.match_no, b.seat""",  # a fixed order: the same sums, to the last bit, every time
                        [candidate_run, base_run, *_limit(base_run, match_limit)])
    if rows_sql.is_empty():
        return pl.DataFrame()
    # how deep a seat of each deck digs in the base run (the top/deep groups, shown beside the
    # effect), and how often a card at each place of each deck gets played (the effect's dose)
    depth = POSITION_SPLIT.yardsticks(rows_sql)
    rows_sql = rows_sql.with_columns(pl.Series("dose", DOSE.doses(rows_sql)))
    held_fixed = changed_doses(rows_sql, changed)
    rows = []
    for (card,), part in rows_sql.group_by(["card"], maintain_order=True):
        held = part.filter(pl.col("in_hand_both"))
        # a card never in hand in both runs of a twin has no in-hand figures, but its attribution
        # needs only the deck to hold it (a changed card of a short diff was "held by no deck")
        s = paired_summary(card, held["win_base"].to_numpy(), held["win_candidate"].to_numpy())
        d = (part["win_candidate"] - part["win_base"]).to_numpy().astype(float)
        dealt = part["in_opening_hand"].to_numpy()
        excess, lo, hi, p = _difference_of_means(d[dealt], d[~dealt])
        top, deep = POSITION_SPLIT.split(part, depth)
        x = part["dose"].to_numpy()
        # a card the candidate changed cannot act where it is never reached, so those twins' changes
        # are 0 by construction, not by chance: only another card's few diverged twins call for the
        # cautious test (attribution.dose_response)
        fixed = _covariates(part, held_fixed, card)
        effect, e_lo, e_hi, e_p = dose_response(d, x, part["deck"].to_numpy(), part["seed"].to_numpy(),
                                                cautious=card not in changed, covariates=fixed)
        a_play, a_lo, a_hi, rise = per_play(d, part["played_base"].to_numpy(), x, part["deck"].to_numpy(),
                                            part["seed"].to_numpy(), covariates=fixed)
        rows.append({"card": card, "changed": card in changed, **{k: v for k, v in s.items() if k != "group"},
                     "play_rate_base": _mean(held["played_base"].to_numpy()),
                     "play_rate_candidate": _mean(held["played_candidate"].to_numpy()),
                     "placed_twins": int(part["position"].is_not_null().sum()),
                     "played_share": _mean(part["played_base"].to_numpy().astype(float)),
                     "dosed_twins": int(np.isfinite(x).sum()), "dose_mean": _mean(x[np.isfinite(x)]),
                     "top_twins": int(top.sum()), "top_change": _mean(d[top]),
                     "deep_twins": int(deep.sum()), "deep_change": _mean(d[deep]),
                     "effect_points": effect * 100, "effect_lo": e_lo * 100, "effect_hi": e_hi * 100, "p_value": e_p,
                     "per_play_points": a_play * 100, "per_play_lo": a_lo * 100, "per_play_hi": a_hi * 100,
                     "play_follows_dose": rise,
                     "opening_twins": int(dealt.sum()), "opening_change": _mean(d[dealt]),
                     "other_twins": int((~dealt).sum()), "other_change": _mean(d[~dealt]),
                     "excess_change": excess, "excess_lo": lo, "excess_hi": hi, "excess_p": p})
    out = pl.DataFrame(rows).sort("card")
    q, reject = benjamini_hochberg(out["mcnemar_p"].to_numpy(), fdr)
    eq, ereject = benjamini_hochberg(out["excess_p"].to_numpy(), fdr)
    aq, flagged = two_families(out["p_value"].to_numpy(), out["changed"].to_numpy(), fdr)
    return out.with_columns(pl.Series("moved_q", q), pl.Series("significant", reject),
                            pl.Series("q_value", aq), pl.Series("flagged", flagged),
                            pl.Series("excess_q", eq), pl.Series("excess_significant", ereject)).join(
        diff_examples(path, base_run, candidate_run), on="card", how="left")


MIN_GROUP = 20  # twins in each group before a card's opening-hand excess is tested


def changed_doses(rows: pl.DataFrame, changed: frozenset | set) -> pl.DataFrame:
    """Per twin (match_no, seat): the dose of each card the candidate changed that its deck holds,
    a column each (``dose_response``'s covariates: where a changed card lay moves the twin)."""
    mine = rows.filter(pl.col("card").is_in(sorted(changed))).select("match_no", "seat", "card", "dose")
    if mine.is_empty():
        return pl.DataFrame(schema={"match_no": pl.Int64, "seat": pl.Int64})
    return mine.pivot(on="card", index=["match_no", "seat"], values="dose", aggregate_function="first")


def _covariates(part: pl.DataFrame, fixed: pl.DataFrame, card: str) -> np.ndarray | None:
    """The changed cards' doses in each of ``part``'s twins, but ``card``'s own (NaN where the
    deck does not hold one: read as 0, a constant the within-deck centring takes away)."""
    columns = [c for c in fixed.columns if c not in ("match_no", "seat", card)]
    if not columns:
        return None
    keys = part.select(pl.col("match_no").cast(fixed["match_no"].dtype), pl.col("seat").cast(fixed["seat"].dtype))
    return keys.join(fixed.select("match_no", "seat", *columns), on=["match_no", "seat"], how="left",
                     maintain_order="left").select(columns).to_numpy().astype(float)


def _mean(x: np.ndarray) -> float:
    return float(x.mean()) if x.size else math.nan


def _difference_of_means(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float, float]:
    """mean(a) - mean(b), Welch's t interval (95%) and two-sided p-value. Untested (NaN) when a
    group has fewer than MIN_GROUP twins: paired differences take only the values -1, 0 and 1,
    and on small groups a t test of them rejects too easily."""
    if a.size < MIN_GROUP or b.size < MIN_GROUP:
        return _untested(a, b)
    return _welch(a, b)


def _untested(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float, float]:
    diff = float(a.mean() - b.mean()) if a.size and b.size else math.nan
    return diff, math.nan, math.nan, math.nan


def _welch(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float, float]:
    """mean(a) - mean(b), Welch's 95% interval and two-sided p (groups of at least 2)."""
    from scipy import stats as sps  # here, not at the top: see reports/stats.py
    diff = float(a.mean() - b.mean())
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    se = math.sqrt(va + vb)
    if se == 0:
        return diff, diff, diff, 1.0 if diff == 0 else 0.0
    df = (va + vb) ** 2 / ((va * va) / (a.size - 1) + (vb * vb) / (b.size - 1))
    t = sps.t.ppf(0.975, df)
    return diff, diff - t * se, diff + t * se, float(2 * sps.t.sf(abs(diff / se), df))


def power(t: pl.DataFrame, decks: list[str] | None = None) -> pl.DataFrame:
    """Games of a deck (``paired_matches``: twins, one deck's seat in one match) and seeds needed to
    see a change of 1, 2 and 5 points in a deck's win rate, paired (this diff's twins) against
    unpaired (two independent runs), 80% power, 5% two-sided, for the decks in ``decks`` (default:
    every deck): the variance of a twin's paired difference and the win rate are taken over those
    decks' twins together. ``paired_field_matches``: the matches of this diff's whole field that
    give each of those decks that many games (in a field of six decks a deck sits in a third of
    the matches), what a run's total should be."""
    part = t.filter(pl.col("deck").is_in(decks)) if decks else t
    wb, wc = part["win_base"].to_numpy(), part["win_candidate"].to_numpy()
    # a deck's games per match of this field (every pairing in this diff's proportions): the
    # touched deck that plays fewest decides how many matches give each of them enough games
    per_deck = part.group_by("deck").len()["len"] if part.height else None
    share = float(per_deck.min()) / t["match_no"].n_unique() if per_deck is not None else math.nan
    var_paired = float((wc - wb).var(ddof=1)) if part.height > 1 else math.nan
    p = float(np.concatenate([wb, wc]).mean()) if part.height else 0.5
    rows = []
    for delta in POINTS:
        paired = samples_needed(var_paired, delta)
        unpaired = samples_needed(2 * p * (1 - p), delta)  # per version
        rows.append({"change_points": round(delta * 100), "paired_matches": paired,
                     "paired_seeds": math.ceil(paired / 2) if paired == paired else math.nan,
                     "paired_field_matches": math.ceil(paired / share) if paired == paired and share > 0 else math.nan,
                     "unpaired_matches_per_version": unpaired,
                     "unpaired_seeds_per_version": math.ceil(unpaired / 2) if unpaired == unpaired else math.nan,
                     "decks": ", ".join(decks or sorted(t["deck"].unique().to_list()))})
    return pl.DataFrame(rows)


def touched_decks(path: str | Path, base_run: int, candidate_run: int, changed: list[str],
                  decks: list[str]) -> list[str]:
    """The decks a change touches: those holding a changed card in either run; every deck when
    the change is to the rules themselves (no card changed) or to cards no deck holds."""
    if changed:
        marks = ", ".join("?" for _ in changed)
        held = db.query(path, f"""SELECT DISTINCT deck FROM card_games WHERE run_id IN (?, ?) AND copies > 0
                                  AND card IN ({marks}) ORDER BY 1""", [base_run, candidate_run, *changed])
        found = [d for d in held["deck"].to_list() if d in decks] if not held.is_empty() else []
        if found:
            return found
    return decks


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


def stored_limit(path: str | Path, diff_id: int) -> int | None:
    """The matches per pairing a stored diff looked at: a sequential diff's, which stopped before
    its runs' end (or reused longer runs), else None (every match). Its tables must read those:
    they read 1,000 twins under a verdict reached at 400."""
    if not db.has_columns(path, "diffs", "decision", "matches_used"):  # a store from before sequential diffs
        return None
    row = db.query(path, "SELECT d.decision, d.matches_used, count(DISTINCT m.pairing) AS pairings FROM diffs d "
                         "JOIN matches m ON m.run_id = d.base_run WHERE d.diff_id = ? GROUP BY ALL", [diff_id])
    if row.is_empty() or row["decision"][0] is None or not row["matches_used"][0]:
        return None
    return int(row["matches_used"][0]) // max(1, int(row["pairings"][0]))


def version_diff(path: str | Path, base_run: int, candidate_run: int, fdr: float = 0.05,
                 match_limit: int | None = None) -> dict:
    """Everything a designer reads about a rules change: dict of frames and numbers.
    ``match_limit`` reads only the first that many matches of each pairing (the calibration reads
    the first 200 and 500 seeds of a 1,000-seed diff; a sequential diff the matches it looked at)."""
    t = twins(path, base_run, candidate_run, match_limit)
    if t.is_empty():
        raise ValueError(f"runs {base_run} and {candidate_run} share no matches to compare")
    code_note = other_code(path, base_run, candidate_run)
    decks = deck_changes(t)
    first = decks.filter(pl.col("deck") == "(first seat)").row(0, named=True)
    changed = changed_cards(path, base_run, candidate_run)
    changed_ids = changed["card"].to_list() if not changed.is_empty() else []
    touched = touched_decks(path, base_run, candidate_run, changed_ids, sorted(t["deck"].unique().to_list()))
    main = decks.filter(pl.col("deck").is_in(touched))
    vp, vu = float(main["var_paired"].mean()), float(main["var_unpaired"].mean())
    cards = card_changes(path, base_run, candidate_run, t, fdr, frozenset(changed_ids), match_limit)
    empty = cards.is_empty()
    return {
        "decks": decks, "cards": cards, "power": power(t, touched), "length": game_length_change(t),
        "first_seat": first, "changed_cards": changed, "touched_decks": touched,
        "primary_cards": cards if empty else cards.filter(pl.col("changed")),
        "flagged_cards": cards if empty else cards.filter(pl.col("flagged") & ~pl.col("changed")),
        "significant_cards": cards if empty else cards.filter(pl.col("significant")),
        # the older opening-hand contrast's finds, kept beside the attribution for reference
        "beyond_deck_cards": cards if empty else cards.filter(pl.col("excess_significant")),
        "attributed_cards": cards if empty else cards.filter(pl.col("flagged")),
        "variance_saved": (1 - vp / vu) if vu and vu == vu and vu > 0 else math.nan,
        "twins": t.height, "base_run": base_run, "candidate_run": candidate_run,
        "pilots": pilots_of_run(path, base_run),
        "code_note": code_note,
    }


_WARNED: set[tuple[str, int, int]] = set()  # (store, base, candidate) warned of in this process


def other_code(path: str | Path, base_run: int, candidate_run: int) -> str | None:
    """The warning line, printed on stderr once per pair and process, when the two runs were
    played by different code versions (``runs.code_version``): the twins then differ by the code
    change as well as the rules change, and the diff credits both to the rules. None when they
    share one (or a run recorded none, as before code versions were stored).

    A warning, not a refusal: ``workbench diff`` never pairs such runs (a finished run is reused
    only by the code that played it, workbench/store.py ``this_code``), but a pair named by hand
    may be meant to (``workbench report RUN --diff BASE`` on one rules version measures a code
    change), a batch's comparison with the day before spans the day's commits, and diffs stored
    before the rule still read."""
    rows = db.query(path, "SELECT run_id, code_version FROM runs WHERE run_id IN (?, ?)", [base_run, candidate_run])
    code = dict(zip(rows["run_id"].to_list(), rows["code_version"].to_list()))
    base, candidate = code.get(base_run), code.get(candidate_run)
    if not base or not candidate or base == candidate:
        return None
    line = (f"warning: runs {base_run} and {candidate_run} were played by different code ({base}; {candidate}): "
            "the diff credits the code change to the rules change too")
    key = (str(Path(path).resolve()), base_run, candidate_run)
    if key not in _WARNED:
        _WARNED.add(key)
        print(line, file=sys.stderr, flush=True)
    return line


def pilots_of_run(path: str | Path, run_id: int) -> str:
    """The pilots that produced a run's figures (every figure says which pilot made it): as the
    run stores them, one per deck slot ("greedy,greedy"); when the decks were played by different
    pilots, each named with its deck ("greedy (lawmen-posse), random (goblin-gold-gang)"), since
    the tables list the decks in another order than their slots."""
    rows = db.query(path, "SELECT pilots, decks FROM runs WHERE run_id = ?", [run_id])
    if not rows.height:
        return "?"
    pilots, decks = rows.row(0)
    seated = pilots.split(",")
    if len(set(seated)) == 1:
        return pilots
    return ", ".join(f"{pilot} ({deck})" for pilot, deck in zip(seated, decks.split(",")))


# --- what a diff can say of its cards ----------------------------------------------------------

def _tested(p) -> bool:
    return p is not None and p == p


def dose_words(c: dict) -> str:
    """What a card's effect was read over: "1,964 twins; it was played in 21% of them, a card at
    its places in 23% on average" (its own play share against its dose's mean: a card played much
    less often than cards at its places, a reactive one or a late finisher, shows less of itself
    at full dose than its effect's unit says)."""
    words = f"{c['dosed_twins']:,} twins"
    own, mean = c.get("played_share"), c.get("dose_mean")
    if own is not None and own == own and mean is not None and mean == mean:
        words += f"; it was played in {own:.0%} of them, a card at its places in {mean:.0%} on average"
    return words


def per_play_words(c: dict) -> str:
    """", about +19.5 pts a game it is played [+7.4, +31.6]" (``attribution.per_play``), or "" when
    its play follows where it lay too little to scale by."""
    a = c.get("per_play_points")
    if a is None or a != a:
        return ""
    return f", about {a:+.1f} pts a game it is played [{c['per_play_lo']:+.1f}, {c['per_play_hi']:+.1f}]"


def untested_why(c: dict) -> str | None:
    """Why a card of the diff got no attribution test (a row of ``version_diff``'s cards), or None
    when it got one: its runs stored no deck positions, fewer than MIN_DOSE_TWINS twins have a
    dose, or the doses do not vary within a deck (or its twins share one seed); an estimate
    printed without the reason reads as a result. Each reason says what would give a test."""
    if _tested(c.get("p_value")):
        return None
    if not c.get("placed_twins", 1):
        return "not tested: its runs stored no deck positions (played before they were recorded; play the diff again)"
    if c["dosed_twins"] < MIN_DOSE_TWINS:
        return (f"not tested: {c['dosed_twins']:,} twins hold it at a known place, at least {MIN_DOSE_TWINS} needed "
                "(play more matches)")
    return "not tested: where it lay in the shuffled deck did not vary its dose within a deck, or its twins share one seed"


def testable_words(cards: pl.DataFrame, hint: str = "") -> str:
    """"of the 39 testable cards; 37 not testable (...)", over the cards the candidate left alone
    (the exploratory family): "none moved" said over cards that got no test reads as a finding.
    ``hint``: what to do about the untested, added inside the brackets (the CLI's "play more
    matches")."""
    if cards.is_empty():
        return "of the 0 testable cards"
    others = cards.filter(~pl.col("changed"))
    tested = others.filter(pl.col("p_value").is_not_null() & pl.col("p_value").is_not_nan()).height
    untested = others.height - tested
    return f"of the {tested} testable cards" + (
        f"; {untested} not testable (fewer than {MIN_DOSE_TWINS} twins at a known place, or no spread in where they lay"
        f"{': ' + hint if hint else ''})" if untested else "")
