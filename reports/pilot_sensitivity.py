"""How much the pilot matters: the headline balance figures of runs that differ only in their
pilot (same game, rules, decks and seeds), the conclusions that change between pilots, and each
card's *skill premium*.

- ``pilot_figures``: per run (one pilot), the first-seat win rate (``overview.first_seat``), each
  deck's win rate against the field (``matchups.deck_field``) and each card's deck-relative win
  rate, the Cards page's within-deck figure ``oh_excess`` (``cards.card_metrics``), each with its
  95% interval: a long table (figure, subject, pilot, value, lo, hi, n, significant).
- ``changed_conclusions``: for every pair of pilots, the conclusions that differ and whether the
  intervals support the difference (the rules are in reports/METRICS.md, "Pilot sensitivity").
- ``skill_premium``: per card, its ``oh_excess`` under a stronger pilot's run minus under a
  weaker pilot's run on the same seeds, with a 95% interval: paired over the match x seat twins
  when the two runs dealt the card into the same opening hands, else unpaired.
- ``premium_partner``: for the Cards page, the stored run to compare a run with.

Pure functions over stored runs: nothing here plays a match (``workbench pilot-sensitivity``
makes the runs).
"""
from __future__ import annotations

import itertools
import json
import math
import shlex
from pathlib import Path

import numpy as np
import polars as pl

from reports import db
from reports.cards import card_metrics
from reports.filters import Filters
from reports.matchups import deck_field
from reports.overview import first_seat
from reports.stats import Z95, benjamini_hochberg

BAND = (0.45, 0.55)  # a deck "inside the band" against the field is balanced enough
FIGURES = ("first_seat_wr", "deck_field_wr", "card_oh_excess")
CSV_COLUMNS = ["figure", "subject", "pilot", "value", "lo", "hi", "n"]

# Known pilot kinds from weakest to strongest; a budget (mcts:400) ranks within its kind, then the
# weight set (``@set``). A kind not listed ranks above the listed ones (a new pilot is usually a
# stronger search), then by name. ``pilot_strength`` is the one ordering: it chooses "the stronger"
# of two pilots for the command, the exports and the Cards page alike.
PILOT_ORDER = ("random", "greedy", "planner", "mcts")
HAND_SET = "hand"  # the game's weights.yaml (sim/core/weights.HAND; reports does not import sim)

# the spec fields that decide which seeds, seats and decks a run's matches have (pilots aside)
_SAME_MATCHES = ("game", "rules_hash", "deck_hash", "decks", "matches", "seed", "swap", "pairings")


def pilot_strength(name: str) -> tuple:
    """A sort key: larger is the stronger pilot by the project's ordering. The name is read as
    sim/core/pilots reads it (``kind[:budget][@set][#salt]``; the salt is an equally fair twin and
    does not rank): first the kind (PILOT_ORDER: random < greedy < planner < mcts), then the budget
    after a colon (a name without one ranks below its kind's budgets), then the weight set. A plain
    name thinks with the set the game's ``pilot_sets`` names for its kind (a set measured stronger
    for it, e.g. Frontier's greedy = greedy@tuned), so it ranks above ``@hand`` (the hand set); a
    name with any other set ranks between the two (by the set's name)."""
    pilot, at, weights = str(name).split("#")[0].partition("@")
    kind, _, arg = pilot.partition(":")
    rank = PILOT_ORDER.index(kind) if kind in PILOT_ORDER else len(PILOT_ORDER)
    budget = int(arg) if arg.isdigit() else 0
    set_rank = 2 if not at else 0 if weights == HAND_SET else 1
    return (rank, kind, budget, set_rank, weights)


def pilot_label(spec: dict) -> str | None:
    """The one pilot a run's every seat used (``greedy``), with ``#salt`` when the run was played
    with a pilot salt (an equally fair twin); None for a run with different pilots per deck."""
    pilots = set(spec.get("pilots") or [])
    if len(pilots) != 1:
        return None
    label = pilots.pop()
    return f"{label}#{spec['pilot_salt']}" if spec.get("pilot_salt") else label


def same_matches(a: dict, b: dict) -> bool:
    """Do two run specs play the very same matches but for their pilots (same game, rules hash,
    decks, seeds, seat swapping and pairings, and no card substituted)?"""
    return (all(a.get(k) == b.get(k) for k in _SAME_MATCHES)
            and not a.get("substitute") and not b.get("substitute"))


def _spec(path, run_id: int) -> dict:
    rows = db.query(path, "SELECT spec FROM runs WHERE run_id = ?", [run_id])
    if rows.is_empty():
        raise ValueError(f"no run {run_id} in {path}")
    spec = json.loads(rows["spec"][0])
    spec["pairings"] = [list(p) for p in spec.get("pairings", [])]
    return spec


# --- the headline figures under each pilot ------------------------------------------------------

def pilot_figures(path: str | Path, runs: list[tuple[str, int]]) -> pl.DataFrame:
    """One row per figure x subject x pilot over ``runs`` ((pilot label, run id) pairs):
    ``first_seat_wr`` (subject ``first seat``; over decided matches, Wilson; n = decided matches),
    ``deck_field_wr`` (subject the deck; win rate against every other deck pooled, a draw not won,
    Wilson; n = games), ``card_oh_excess`` (subject the card id; the Cards page's within-deck
    figure, deck and seat held fixed, with its stratified interval; n = games with the card in the
    deck; ``significant`` is its Benjamini-Hochberg flag within the run). ``significant`` for the
    rates: the interval excludes one half."""
    parts = []
    for pilot, run_id in runs:
        fs = first_seat(path, [run_id])
        rows = [{"figure": "first_seat_wr", "subject": "first seat", "name": None, "value": fs["first_seat_wr"],
                 "lo": fs["lo"], "hi": fs["hi"], "n": fs["decided"]}]
        for d in deck_field(path, Filters(runs=[run_id])).iter_rows(named=True):
            rows.append({"figure": "deck_field_wr", "subject": d["deck"], "name": None, "value": d["win_rate"],
                         "lo": d["win_rate_lo"], "hi": d["win_rate_hi"], "n": d["games"]})
        frame = pl.DataFrame(rows, schema={"figure": pl.Utf8, "subject": pl.Utf8, "name": pl.Utf8,
                                           "value": pl.Float64, "lo": pl.Float64, "hi": pl.Float64, "n": pl.Int64})
        frame = frame.with_columns(((pl.col("lo") > 0.5) | (pl.col("hi") < 0.5)).fill_null(False).alias("significant"))
        cards = card_metrics(path, Filters(runs=[run_id]))
        if not cards.is_empty():
            frame = pl.concat([frame, cards.select(
                pl.lit("card_oh_excess").alias("figure"), pl.col("card").alias("subject"), pl.col("name"),
                pl.col("oh_excess").cast(pl.Float64).alias("value"), pl.col("oh_excess_lo").cast(pl.Float64).alias("lo"),
                pl.col("oh_excess_hi").cast(pl.Float64).alias("hi"), pl.col("games").cast(pl.Int64).alias("n"),
                pl.col("oh_excess_significant").fill_null(False).alias("significant"))], how="vertical_relaxed")
        parts.append(frame.with_columns(pl.lit(pilot).alias("pilot"), pl.lit(run_id).alias("run_id")))
    out = pl.concat(parts, how="vertical_relaxed")
    return out.select("figure", "subject", "pilot", "value", "lo", "hi", "n", "significant", "name", "run_id")


def band_class(lo: float | None, hi: float | None, band: tuple[float, float] = BAND) -> str:
    """``inside`` (the whole 95% interval within the band), ``above`` or ``below`` (wholly above or
    below it) or ``undecided`` (the interval reaches across a band edge)."""
    if lo is None or hi is None or lo != lo or hi != hi:
        return "undecided"
    if lo >= band[0] and hi <= band[1]:
        return "inside"
    if lo > band[1]:
        return "above"
    if hi < band[0]:
        return "below"
    return "undecided"


def band_place(value: float, band: tuple[float, float] = BAND) -> str:
    """Where a point estimate lies: ``below``, ``inside`` or ``above`` the band."""
    return "below" if value < band[0] else "above" if value > band[1] else "inside"


def _side(value, lo, hi, significant: bool, figure: str) -> int:
    """+1 / -1: the figure is significantly above / below its reference (one half for a rate, zero
    for a card's excess); 0 otherwise."""
    if value is None or value != value:
        return 0
    if figure == "card_oh_excess":
        return (1 if value > 0 else -1) if significant else 0
    if lo is not None and lo > 0.5:
        return 1
    if hi is not None and hi < 0.5:
        return -1
    return 0


def changed_conclusions(figures: pl.DataFrame, band: tuple[float, float] = BAND) -> pl.DataFrame:
    """For every pair of pilots in ``figures`` (``pilot_figures``) and every subject both saw:
    the conclusions that differ. ``supported`` is true when the intervals back the change:
    a deck wholly inside, above or below the band under one pilot and wholly in another of the
    three under the other; a
    first-seat rate significantly above one half under one and significantly below under the
    other; a card significantly beyond its deck (its BH flag) with opposite signs. Rows with
    ``supported`` false are changes of the point estimate only (a deck's estimate crosses a band
    edge, an edge or a card's excess changes sign): noise until more matches back them."""
    rows = []
    pilots = list(dict.fromkeys(figures["pilot"].to_list()))
    by = {(r["figure"], r["subject"], r["pilot"]): r for r in figures.iter_rows(named=True)}
    subjects = list(dict.fromkeys((r["figure"], r["subject"]) for r in figures.iter_rows(named=True)))
    for a, b in itertools.combinations(pilots, 2):
        for figure, subject in subjects:
            ra, rb = by.get((figure, subject, a)), by.get((figure, subject, b))
            if ra is None or rb is None or ra["value"] is None or rb["value"] is None:
                continue
            va, vb = ra["value"], rb["value"]
            if va != va or vb != vb:
                continue
            if figure == "deck_field_wr":
                ca, cb = band_class(ra["lo"], ra["hi"], band), band_class(rb["lo"], rb["hi"], band)
                pa, pb = band_place(va, band), band_place(vb, band)
                if pa == pb:
                    continue
                # too strong under one pilot and too weak under the other is a change too (it read
                # as the same conclusion, "outside", and was not reported)
                supported = ca == pa and cb == pb
                text = (f"{subject} is {pa} the {band[0]:.0%}-{band[1]:.0%} band under {a} "
                        f"({_iv(ra)}) and {pb} it under {b} ({_iv(rb)})")
            else:
                sa, sb = (_side(r["value"], r["lo"], r["hi"], r["significant"], figure) for r in (ra, rb))
                ref = 0.0 if figure == "card_oh_excess" else 0.5
                if (va > ref) == (vb > ref):
                    continue
                supported = sa * sb == -1
                what = ("the first-seat edge" if figure == "first_seat_wr"
                        else f"{ra['name'] or subject}'s deck-relative win rate")
                text = f"{what} changes sign: {_iv(ra, figure)} under {a}, {_iv(rb, figure)} under {b}"
            rows.append({"figure": figure, "subject": subject, "pilot_a": a, "pilot_b": b, "value_a": va,
                         "value_b": vb, "supported": supported, "conclusion": text})
    schema = {"figure": pl.Utf8, "subject": pl.Utf8, "pilot_a": pl.Utf8, "pilot_b": pl.Utf8, "value_a": pl.Float64,
              "value_b": pl.Float64, "supported": pl.Boolean, "conclusion": pl.Utf8}
    return pl.DataFrame(rows, schema=schema)


def _iv(r: dict, figure: str = "rate") -> str:
    if figure == "card_oh_excess":
        return f"{r['value'] * 100:+.1f} pts [{r['lo'] * 100:+.1f}, {r['hi'] * 100:+.1f}]"
    return f"{r['value']:.1%} [{r['lo']:.1%}, {r['hi']:.1%}]"


# --- the skill premium --------------------------------------------------------------------------

_PAIRED_SQL = """
SELECT a.card, a.deck, a.on_play, a.in_opening_hand > 0 AS oh,
       count(*) AS n,
       sum(b.won::INT - a.won::INT) AS s,
       sum((b.won::INT - a.won::INT) * (b.won::INT - a.won::INT)) AS ss,
       sum(b.won::INT) AS won_strong, sum(a.won::INT) AS won_base, sum(b.won::INT * a.won::INT) AS won_both,
       count(*) FILTER (WHERE (a.in_opening_hand > 0) <> (b.in_opening_hand > 0)) AS mismatched
FROM card_games a
JOIN card_games b ON b.run_id = ? AND b.match_no = a.match_no AND b.seat = a.seat AND b.card = a.card
                  AND b.deck = a.deck AND b.copies > 0
WHERE a.run_id = ? AND a.copies > 0 {decks}
GROUP BY ALL
"""

# per run, card and stratum (deck x seat): the card's games in the opening hand and not, and their
# wins; the rows and the split ``card_metrics`` reads for ``oh_excess`` (a deck holding the card)
_ARMS_SQL = """
SELECT cg.run_id, cg.card, cg.deck, cg.on_play,
       count_if(cg.in_opening_hand > 0) AS n1, count_if(cg.in_opening_hand > 0 AND cg.won) AS k1,
       count_if(cg.in_opening_hand = 0) AS n0, count_if(cg.in_opening_hand = 0 AND cg.won) AS k0
FROM card_games cg
WHERE cg.run_id IN (?, ?) AND cg.copies > 0 {decks}
GROUP BY ALL
"""

PREMIUM_COLUMNS = ("premium", "premium_lo", "premium_hi", "premium_p", "premium_q", "premium_significant")


def skill_premium(path: str | Path, base_run: int, strong_run: int, decks: list[str] | None = None) -> pl.DataFrame:
    """Per card: its deck-relative win rate (``oh_excess``) in ``strong_run`` minus in ``base_run``,
    two runs that play the same matches but for their pilots (ValueError otherwise).

    ``premium`` is always exactly ``strong_excess - base_excess``. Its interval is paired when
    every game of the card in one run has a twin in the other (same match and seat) that held the
    card in the same opening hand (the shuffle is the pilot's equal: so it is in Frontier, not
    after a pilot's mulligan): then, per stratum (deck x seat) and arm (in the opening hand or
    not), the twins' differences won_strong - won_base enter the same Mantel-Haenszel weights as
    ``oh_excess``, and the variance is that of those differences (the luck the twins share
    cancels), pooled over the card's arms, and never below what the two estimates' own intervals
    imply when independent, less the luck the twins show they share (``_paired_estimates`` says
    why: opening-hand arms of two agreeing twins once claimed p = 4e-5). Otherwise (``paired``
    false) the two estimates are treated as independent: the standard error is the root of the
    sum of the two raw estimates' variances, computed from each run's counts
    (``_excess_variances``: read off the estimates' Agresti-Caffo intervals, which are the
    adjusted estimates' and narrower at a few games, it called 6-9% of null cards significant at
    5%; now 3-5%), and the interval is centred on ``premium`` as the paired one is (either is
    clipped to -2..2). ``premium_p``: two-sided normal test on the same standard error as the
    interval (so 0 lies outside the interval exactly when p < 0.05); ``premium_q``:
    Benjamini-Yekutieli across the cards (their tests read the same matches),
    ``premium_significant`` = q < 0.05."""
    from scipy import stats as sps  # here, not at the top: see reports/stats.py
    spec_b, spec_s = _spec(path, base_run), _spec(path, strong_run)
    if not same_matches(spec_b, spec_s):
        raise ValueError(f"runs {base_run} and {strong_run} do not play the same matches (game, rules, decks, "
                         f"seeds, seats): a skill premium needs runs that differ only in their pilots")
    filt = dict(decks=list(decks or []))
    keep = ["card", "name", "type", "faction", "faction_name", "cost", "games", "oh_excess", "oh_excess_lo", "oh_excess_hi",
            "oh_excess_significant"]
    base = card_metrics(path, Filters(runs=[base_run], **filt)).select(keep)
    strong = card_metrics(path, Filters(runs=[strong_run], **filt)).select(keep)
    rename = {c: c.replace("oh_excess", "{}_excess") for c in keep if c.startswith("oh_excess")}
    joined = base.rename({c: r.format("base") for c, r in rename.items()} | {"games": "base_games"}).join(
        strong.select("card", "games", *rename).rename({c: r.format("strong") for c, r in rename.items()}
                                                       | {"games": "strong_games"}), on="card", how="full",
        coalesce=True)
    deck_sql, params = "", [strong_run, base_run]
    if decks:
        deck_sql = f"AND a.deck IN ({', '.join('?' for _ in decks)})"
        params += list(decks)
    strata = db.query(path, _PAIRED_SQL.format(decks=deck_sql), params)
    paired = _paired_estimates(strata)
    joined = joined.join(paired, on="card", how="left")
    rows = list(joined.iter_rows(named=True))
    pairs = [r["twins"] is not None and r["mismatched"] == 0 and r["twins"] == r["base_games"] == r["strong_games"]
             and r["paired_var"] is not None and r["paired_var"] == r["paired_var"] for r in rows]
    raw_var: dict[tuple[int, str], float] = {}
    if any(not ok and _finite(r["base_excess"]) and _finite(r["strong_excess"]) for r, ok in zip(rows, pairs)):
        # the unpaired path reads each run's counts (Frontier's twins all pair: no query)
        arm_sql, arm_params = _ARMS_SQL.format(decks=deck_sql.replace("a.deck", "cg.deck")), [base_run, strong_run]
        raw_var = _excess_variances(db.query(path, arm_sql, arm_params + list(decks or [])))
    est, lo, hi, p, is_paired = [], [], [], [], []
    for r, ok in zip(rows, pairs):
        b, s = r["base_excess"], r["strong_excess"]
        if not (_finite(b) and _finite(s)):
            est.append(math.nan), lo.append(math.nan), hi.append(math.nan), p.append(math.nan)
            is_paired.append(False)
            continue
        diff = s - b
        if ok:
            se_b = _se_of(r["base_excess_lo"], r["base_excess_hi"])
            se_s = _se_of(r["strong_excess_lo"], r["strong_excess_hi"])
            # the components' variances less the covariance the twins show, when that is the larger
            shared = se_b * se_b + se_s * se_s - 2 * r["paired_cov"]
            se = math.sqrt(max(r["paired_var"], shared) if shared == shared else r["paired_var"])
        else:
            # the raw estimates' own variances, independent runs (``_excess_variances`` says why)
            var_b, var_s = (raw_var.get((run, r["card"]), math.nan) for run in (base_run, strong_run))
            se = math.sqrt(var_b + var_s)
        est.append(diff)
        if se > 0:  # False for NaN too
            lo.append(max(diff - Z95 * se, -2.0))  # within the possible range, as oh_excess's within -1..1
            hi.append(min(diff + Z95 * se, 2.0))
            p.append(float(2 * sps.norm.sf(abs(diff) / se)))
        else:
            lo.append(diff if se == 0 else math.nan)
            hi.append(diff if se == 0 else math.nan)
            p.append(1.0 if se == 0 and abs(diff) < 1e-12 else math.nan)
        is_paired.append(bool(ok))
    q, significant = benjamini_hochberg(np.array(p, dtype=float), any_dependence=True)
    out = joined.with_columns(pl.Series("premium", est, pl.Float64), pl.Series("premium_lo", lo, pl.Float64),
                              pl.Series("premium_hi", hi, pl.Float64), pl.Series("premium_p", p, pl.Float64),
                              pl.Series("premium_q", q, pl.Float64), pl.Series("premium_significant", significant),
                              pl.Series("paired", is_paired))
    floats = [c for c, t in out.schema.items() if t == pl.Float64]
    out = out.with_columns(pl.col(c).fill_nan(None) for c in floats)
    label_b, label_s = pilot_label(spec_b) or ",".join(spec_b["pilots"]), pilot_label(spec_s) or ",".join(spec_s["pilots"])
    out = out.with_columns(pl.lit(label_b).alias("base_pilot"), pl.lit(label_s).alias("strong_pilot"),
                           pl.lit(base_run).alias("base_run"), pl.lit(strong_run).alias("strong_run"))
    return out.select("card", "name", "type", "faction", "faction_name", "cost", "base_pilot", "strong_pilot", "base_run",
                      "strong_run", "base_games", "strong_games", "twins", "paired", "base_excess", "base_excess_lo",
                      "base_excess_hi", "base_excess_significant", "strong_excess", "strong_excess_lo",
                      "strong_excess_hi", "strong_excess_significant", *PREMIUM_COLUMNS
                      ).sort("premium", descending=True, nulls_last=True)


def _finite(x) -> bool:
    return x is not None and x == x


def _se_of(lo, hi) -> float:
    """The standard error a 95% interval implies (its width over 2 x 1.96); NaN without one."""
    return (hi - lo) / (2 * Z95) if lo is not None and hi is not None else math.nan


def _excess_variances(arms: pl.DataFrame) -> dict[tuple[int, str], float]:
    """Per (run, card) from ``_ARMS_SQL``'s counts: the variance of the card's raw ``oh_excess``,
    ``sum w^2 (t1 (1 - t1) / n1 + t0 (1 - t0) / n0) / (sum w)^2`` over the strata holding both
    arms, the same weights ``w = n1 n0 / (n1 + n0)``, with ``t = (k + 1) / (n + 2)``.

    ``premium`` is the difference of the two raw estimates, so its unpaired interval needs their
    variances. Read off their intervals (as it was), each arm's term is Agresti-Caffo's
    ``t (1 - t) / (n + 2)``: the variance of the adjusted rate, which the intervals are centred on,
    not of the raw rate ``k / n`` the premium is made of. With a few opening-hand games per stratum
    ``n + 2`` is much larger than ``n`` (the variance a third of the raw rate's at one game), and
    on synthetic fields with no premium (1 to 6 strata of 10 to 40 games, 5-35% of them with the
    card in the opening hand, win rates 5-95%, the pilot moving them up to 25 points, the two runs
    independent; 6 x 1500 cards) 6-9% of the cards were called significant at 5% (10-12% at 5 to 20
    games a stratum, 13-16% at 3 to 10). Here each arm's term is the raw rate's variance
    ``p (1 - p) / n`` with ``p`` estimated by ``t``, which never reaches 0 (a raw ``k / n`` of 0 or
    1 would claim no variance, why ``oh_excess``'s interval is Agresti-Caffo's): 3-5% on those
    fields at every size, 4-5% at 40 to 160 games. Centring on the adjusted estimates instead (the
    intervals' midpoints, with their widths) held the level too but at 1.5-2.5%, under 1% at 3 to
    10 games, and would have moved ``premium`` off ``strong_excess - base_excess``. Computed from
    the counts, this also does not depend on an interval clipped at -1 or 1."""
    out: dict[tuple[int, str], float] = {}
    arms = arms.filter((pl.col("n1") > 0) & (pl.col("n0") > 0))
    if arms.is_empty():
        return out
    n1, n0, k1, k0 = (arms[c].cast(pl.Float64).to_numpy() for c in ("n1", "n0", "k1", "k0"))
    t1, t0 = (k1 + 1) / (n1 + 2), (k0 + 1) / (n0 + 2)
    w = n1 * n0 / (n1 + n0)
    terms = arms.select("run_id", "card").with_columns(
        pl.Series("w", w), pl.Series("v", w * w * (t1 * (1 - t1) / n1 + t0 * (1 - t0) / n0)))
    sums = terms.group_by("run_id", "card").agg(pl.col("w").sum(), pl.col("v").sum())
    for run_id, card, wsum, v in sums.iter_rows():
        out[(int(run_id), card)] = v / (wsum * wsum)
    return out


def _paired_estimates(strata: pl.DataFrame) -> pl.DataFrame:
    """Per card from the twins' per-stratum-and-arm sums (``_PAIRED_SQL``): the Mantel-Haenszel
    pooled difference of mean paired differences (opening hand minus not), its variance
    (``paired_var``), the covariance of the two runs' estimates that the twins show
    (``paired_cov``, never below 0), the twins counted and the twins whose opening hands differ.

    The variance is ``sum w^2 (1 / n1 + 1 / n0) / (sum w)^2`` times one variance of the twins'
    differences, pooled over every arm of the card that enters the estimate (the squared
    deviations from each arm's own mean over ``sum (n - 1)``), with a pseudo pair of twins
    added: one won only under the strong pilot and one only under the base (the win and the loss
    Agresti-Caffo adds to each run's arm, as ``oh_excess``'s interval does), differences +1 and
    -1, the largest spread a difference of two results can have, weighing as two twins. Each
    arm's own sample variance did not do: the opening-hand arm of a stratum often holds two or
    three twins, and two that agree ([1, 1] or [0, 0]) have variance 0, so the arm that carries
    most of the weight added no uncertainty (a premium of +41.7 points [+21.7, +61.6], p = 4e-5,
    between components each about 70 points wide), and on synthetic fields with no premium 6-14%
    of the cards were called significant at 5%. Pooled, a tiny arm borrows the variance its card
    shows in its larger arms, and the pseudo pair keeps the variance above zero when no arm has
    two twins; the pair added to every arm instead made the paired interval between close pilots
    wider than the unpaired one. On those synthetic fields (1 to 6 strata, a few twins in the
    opening hand, the twins' results independent to 90% shared) this calls 2-5% of the cards
    significant and keeps the paired interval's narrowing between close pilots.

    ``paired_cov`` is ``sum w^2 (1 / n1 + 1 / n0) / (sum w)^2`` times the two runs' results'
    covariance pooled the same way (the cross-products over the same count; the pseudo pair adds
    none), 0 when negative: ``skill_premium`` takes the larger of the paired variance and the two
    estimates' variances less twice this, so the paired interval is never narrower than its
    components imply when independent unless the twins show that they share luck, and then by
    no more than that luck."""
    schema = {"card": pl.Utf8, "twins": pl.Int64, "mismatched": pl.Int64, "paired_est": pl.Float64,
              "paired_var": pl.Float64, "paired_cov": pl.Float64}
    if strata.is_empty():
        return pl.DataFrame(schema=schema)
    rows = []
    for (card,), part in strata.group_by(["card"], maintain_order=True):
        arms: dict[tuple, dict[bool, dict]] = {}
        for r in part.iter_rows(named=True):
            arms.setdefault((r["deck"], r["on_play"]), {})[bool(r["oh"])] = r
        num = wsum = spread = squares = products = df = 0.0
        for arm in arms.values():
            if True not in arm or False not in arm:
                continue  # a stratum lacking either arm carries no information (as in oh_excess)
            n1, n0 = int(arm[True]["n"]), int(arm[False]["n"])
            w = n1 * n0 / (n1 + n0)
            num += w * (float(arm[True]["s"]) / n1 - float(arm[False]["s"]) / n0)
            wsum += w
            spread += w * w * (1 / n1 + 1 / n0)
            for r in arm.values():
                n, s = int(r["n"]), float(r["s"])
                squares += float(r["ss"]) - s * s / n
                products += float(r["won_both"]) - float(r["won_strong"]) * float(r["won_base"]) / n
                df += n - 1
        est = var = cov = math.nan
        if wsum:
            scale = spread / (wsum * wsum)
            est, var, cov = num / wsum, scale * (squares + 2) / (df + 2), scale * max(products, 0.0) / (df + 2)
        rows.append({"card": card, "twins": int(part["n"].sum()), "mismatched": int(part["mismatched"].sum()),
                     "paired_est": est, "paired_var": var, "paired_cov": cov})
    return pl.DataFrame(rows, schema=schema)


# --- which stored run to compare a run with (the Cards page) -------------------------------------

def comparable_runs(path: str | Path, run_id: int) -> list[tuple[int, str]]:
    """(run id, pilot label) of every finished run that plays the same matches as ``run_id`` with
    one pilot in every seat, other than ``run_id`` itself; newest first."""
    spec = _spec(path, run_id)
    rows = db.query(path, "SELECT run_id, spec FROM runs WHERE game = ? AND rules_hash = ? AND status = 'done' "
                          "AND run_id <> ? ORDER BY run_id DESC", [spec["game"], spec.get("rules_hash", ""), run_id])
    found = []
    for other, text in rows.iter_rows():
        s = json.loads(text)
        s["pairings"] = [list(p) for p in s.get("pairings", [])]
        label = pilot_label(s)
        if s.get("kind", "duel") == "duel" and label is not None and same_matches(spec, s):
            found.append((other, label))
    return found


def premium_partner(path: str | Path, run_id: int) -> dict | None:
    """The run to measure ``run_id``'s skill premium against: among the finished runs on the same
    matches with another single pilot (``comparable_runs``), the one with the strongest pilot
    (``pilot_strength``; the newest run of that pilot). Returns base_run / strong_run (the weaker
    and the stronger of the two by ``pilot_strength``) and their pilots; None when there is none
    or the run has different pilots per deck."""
    label = pilot_label(_spec(path, run_id))
    if label is None:
        return None
    others = [(r, p) for r, p in comparable_runs(path, run_id) if p != label]
    if not others:
        return None
    other, other_label = max(others, key=lambda rp: (pilot_strength(rp[1]), rp[0]))
    pair = sorted([(run_id, label), (other, other_label)], key=lambda rp: (pilot_strength(rp[1]), rp[0]))
    (base_run, base_pilot), (strong_run, strong_pilot) = pair
    return {"base_run": base_run, "base_pilot": base_pilot, "strong_run": strong_run, "strong_pilot": strong_pilot,
            "other_run": other, "other_pilot": other_label}


def premium_hint(path: str | Path, run_id: int) -> str:
    """Why the Cards page has no skill premium for ``run_id``, with the command that would store a
    run to compare it with (the same matches under a stronger pilot) when there is one.

    The command works pasted as it is: ``--db`` names the store read here (resolved: the page's
    path may be relative to another folder), and ``--data`` the data folder the run read its cards
    from (``runs.data_dir``) unless that is the shipped data (as a resume decides, with
    ``cardsdb.workspace.is_shipped``); without them the command played into ./workbench.duckdb or
    failed on a rules version only the designer's folder holds. Every word is quoted for a shell."""
    spec = _spec(path, run_id)
    kind = spec.get("kind", "duel")
    if kind != "duel":  # `workbench pilot-sensitivity` plays duel runs: a campaign batch gets no twin to compare
        return (f"run {run_id} is a {kind} run, and a skill premium compares two duel runs of the same matches "
                f"under two pilots")
    label = pilot_label(spec)
    if label is None:
        return (f"run {run_id} plays different pilots per deck: a skill premium compares runs with one pilot in "
                f"every seat")
    from cardsdb.workspace import is_shipped  # here, not at the top: only the hint needs it

    pilot = label.split("#")[0]
    pilots = f"greedy,{pilot}" if pilot_strength(pilot) > pilot_strength("greedy") else f"{pilot},mcts:200"
    words = ["workbench", "pilot-sensitivity", spec["game"], "--pilots", pilots, "--matches", str(spec["matches"]),
             "--seed", str(spec["seed"]), "--rules", spec["rules"], "--decks", ",".join(spec["decks"]),
             "--db", str(Path(path).resolve())]
    row = db.query(path, "SELECT * FROM runs WHERE run_id = ?", [run_id]).row(0, named=True)
    data_dir = row.get("data_dir")  # None in a store from before runs recorded it
    if data_dir and not is_shipped(Path(data_dir)):
        words += ["--data", data_dir]
    return (f"no finished run plays run {run_id}'s matches under another pilot. Fill it with "
            f"`{' '.join(shlex.quote(w) for w in words)}`")


def labelled_runs(path: str | Path, run_ids: list[int]) -> list[tuple[str, int]]:
    """(pilot label, run id) of runs named for an export, strongest pilot last: runs that play the
    very same matches under one pilot each (as ``workbench pilot-sensitivity`` makes them), else
    one line (LookupError) saying which of them do not."""
    if len(run_ids) < 2:
        raise LookupError("the pilot tables compare runs that differ only in their pilot: name two or more "
                          "with --run (`workbench pilot-sensitivity` makes them; `workbench runs` lists them)")
    specs = {r: _spec(path, r) for r in run_ids}
    out = []
    for run_id, spec in specs.items():
        label = pilot_label(spec)
        if label is None:
            raise LookupError(f"run {run_id} seats more than one pilot: name runs of one pilot each")
        if not same_matches(specs[run_ids[0]], spec):
            raise LookupError(f"runs {run_ids[0]} and {run_id} do not play the same matches (game, rules, decks, "
                              "seeds): name runs that differ only in their pilot")
        out.append((label, run_id))
    if len({label for label, _ in out}) < len(out):
        raise LookupError("two of the runs have the same pilot: name one run per pilot")
    return sorted(out, key=lambda lr: pilot_strength(lr[0]))


def sensitivity_table(path: str | Path, run_ids: list[int]) -> pl.DataFrame:
    """``pilot_figures`` of the runs named (the export ``pilot_sensitivity``)."""
    return pilot_figures(path, labelled_runs(path, run_ids)).select(CSV_COLUMNS)


def premium_table(path: str | Path, run_ids: list[int]) -> pl.DataFrame:
    """``skill_premium`` of the weakest against the strongest of the runs named (the export
    ``skill_premium``), as the command chooses them."""
    runs = labelled_runs(path, run_ids)
    base, strong = premium_pilots([label for label, _ in runs])
    return skill_premium(path, runs[base][1], runs[strong][1])


def premium_pilots(pilots: list[str]) -> tuple[int, int]:
    """Indexes of (the base, the strong) pilot of the skill premium among pilot labels in any
    order, by ``pilot_strength`` (the ordering the Cards page's ``premium_partner`` uses): the
    strong is the strongest (of equals, such as a salted twin, the last named); the base is
    ``greedy`` when named and not the strong, else the weakest (of equals, the first named).
    The command and the ``skill_premium`` export both choose with this."""
    order = sorted(range(len(pilots)), key=lambda i: (pilot_strength(pilots[i]), i))
    strong = order[-1]
    base = next((i for i, p in enumerate(pilots) if p == "greedy" and i != strong), order[0])
    return base, strong
