"""The pilot ladder (``workbench ladder``): ratings, pairwise win rates and the cost of each pilot,
computed from the ladder's matches, and read back from the store for the Pilots page.

A ladder is a round robin of pilots over a field of decks: every pair of pilots plays the same
seeds and deck pairings, each seed with pilot A on deck X and B on deck Y, then the mirror (B on
X, A on Y), each from both seats, so deck and seat luck cancel within the pair.

**Ratings** are Bradley-Terry strengths fitted by maximum likelihood (scipy, Newton trust
region), P(i beats j) = 1 / (1 + 10^((R_j - R_i) / 400)), so a 400-point gap is 10:1 odds, as
in Elo. A draw counts as half a win each way. Every pair of pilots also gets ``PRIOR_DRAWS``
virtual drawn games (half a win each way): without them a pilot that wins every match has no
finite estimate. They pull a rating toward the middle by an amount that grows with how
lopsided the pair is: for one pair alone, at 120 matches a pilot scoring 90% moves about 6
points and one scoring 97.5% about 26 (8 at 400 matches); an even pair not at all. A clean
sweep's rating is set by the prior alone: its interval, not its point, says what is known. The scale is anchored: the anchor pilot (``greedy`` when it plays, else the
first pilot named) is 1500 by definition, and the 95% intervals (``rating_lo``/``rating_hi``,
rating +- 1.96 standard errors from the inverse Fisher information of the fit, the prior
included) are differences *from the anchor*, which therefore has a zero-width interval.

**Pairwise**: ``a_win_rate`` is pilot A's score against B over their matches (wins plus half
the draws, over matches), ``lo``/``hi`` its 95% Wilson interval computed on that score.

**Cost** (what a rung of the ladder costs to play): each match's CPU time is measured in the
worker (``time.process_time``), whole, and per seat: the CPU between one decision and the next is
charged to the seat that made the later decision, so a seat's share is its pilot's thinking plus
the engine work just before it (applying the previous action, listing the legal actions; the
setup goes to the first decision). ``decisions_per_s`` = the pilot's own decisions / its seats'
CPU seconds: for a cheap pilot mostly the engine's speed, for a searching pilot mostly its own.
``matches_per_s`` = the matches the pilot played / the whole CPU time of those matches, both seats
included: how fast matches go with this pilot in one seat against the ladder's other pilots
(no self-play is played). Both are per CPU-second of one core; wall time on a shared machine is
longer.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl

from reports import db

ANCHOR_PILOT = "greedy"
ANCHOR_RATING = 1500.0
ELO = 400.0 / math.log(10.0)  # natural-log strength -> Elo points
PRIOR_DRAWS = 1.0             # virtual drawn games per pair of pilots (keeps a clean sweep finite)
Z95 = 1.959963984540054

LADDER_SCHEMA = {
    "pilot": pl.Utf8, "rating": pl.Float64, "rating_lo": pl.Float64, "rating_hi": pl.Float64,
    "matches": pl.Int64, "wins": pl.Int64, "draws": pl.Int64, "losses": pl.Int64, "score": pl.Float64,
    "decisions_per_s": pl.Float64, "matches_per_s": pl.Float64, "decisions": pl.Int64,
    "cpu_seconds": pl.Float64, "seat_cpu_seconds": pl.Float64, "errors": pl.Int64, "anchor": pl.Boolean,
}
PAIRS_SCHEMA = {
    "pilot_a": pl.Utf8, "pilot_b": pl.Utf8, "matches": pl.Int64, "a_win_rate": pl.Float64,
    "lo": pl.Float64, "hi": pl.Float64, "a_wins": pl.Int64, "b_wins": pl.Int64, "draws": pl.Int64,
    "errors": pl.Int64,
}
# ladder_matches columns the computation needs (the store holds more)
MATCH_COLUMNS = ("pilot_a", "pilot_b", "pilot_0", "pilot_1", "winner_seat", "decisions_0", "decisions_1",
                 "cpu_s", "cpu_0", "cpu_1", "error")


# --- the statistics ---------------------------------------------------------------------------------

def bradley_terry(pilots: list[str], pairs: list[tuple[str, str, float, float]], anchor: str | None = None,
                  prior_draws: float = PRIOR_DRAWS) -> pl.DataFrame:
    """Bradley-Terry ratings on the Elo scale from ``pairs`` = (pilot_a, pilot_b, a's score, games),
    a's score being its wins plus half its draws against b. Returns pilot, rating, rating_lo,
    rating_hi (95%, profile likelihood, relative to the anchor: ``_profile_interval``), se (Elo
    points, from the inverse Fisher information)
    and anchor, in the order of ``pilots``. ``anchor`` defaults to greedy if present, else the
    first pilot; it is fixed at 1500."""
    from scipy.optimize import minimize

    n = len(pilots)
    index = {p: i for i, p in enumerate(pilots)}
    if anchor is None:
        anchor = ANCHOR_PILOT if ANCHOR_PILOT in index else pilots[0]
    k = index[anchor]
    wins = np.zeros((n, n))   # wins[i, j]: i's score against j
    games = np.zeros((n, n))
    for a, b, score, count in pairs:
        i, j = index[a], index[b]
        wins[i, j] += score
        wins[j, i] += count - score
        games[i, j] += count
        games[j, i] += count
    if prior_draws:
        off = ~np.eye(n, dtype=bool)
        wins[off] += prior_draws / 2.0
        games[off] += prior_draws
    free = [i for i in range(n) if i != k]

    def full(x):
        theta = np.zeros(n)
        theta[free] = x
        return theta

    def probs(theta):
        return 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))  # p[i, j] = P(i beats j)

    def nll(x):
        theta = full(x)
        d = theta[:, None] - theta[None, :]
        return float(np.sum(wins * np.logaddexp(0.0, -d)))

    def grad(x):
        p = probs(full(x))
        g = -(wins - games * p).sum(axis=1)   # d nll / d theta_i
        return g[free]

    def info(x):
        p = probs(full(x))
        w = games * p * (1.0 - p)
        h = -w
        np.fill_diagonal(h, w.sum(axis=1))
        return h[np.ix_(free, free)]

    x = np.zeros(n - 1)
    if n > 1:
        fit = minimize(nll, x, jac=grad, hess=info, method="trust-exact", options={"gtol": 1e-10})
        x = fit.x
    theta = full(x)
    se = np.zeros(n)
    lo, hi = theta.copy(), theta.copy()
    if n > 1:
        cov = np.linalg.pinv(info(x))
        se[free] = np.sqrt(np.clip(np.diag(cov), 0.0, None))
        for slot, i in enumerate(free):
            lo[i], hi[i] = _profile_interval(nll, grad, x, slot, se[i])
    rating = ANCHOR_RATING + ELO * theta
    return pl.DataFrame({"pilot": pilots, "rating": rating, "rating_lo": ANCHOR_RATING + ELO * lo,
                         "rating_hi": ANCHOR_RATING + ELO * hi, "se": ELO * se,
                         "anchor": [p == anchor for p in pilots]})


LR95 = 3.841458820694124  # chi-square(1) at 0.95: where the profile likelihood ratio test rejects
FAR = 25.0                 # natural-log units (about 4,300 Elo points): farther, the bound is said to be there


def _profile_interval(nll, grad, x: np.ndarray, slot: int, se: float) -> tuple[float, float]:
    """The 95% profile-likelihood interval of free strength ``x[slot]``: the values at which the
    likelihood ratio test against the fit (the others refitted each time) rejects at 5%. The
    Wald interval (estimate +- 1.96 standard errors from the Fisher information) it replaces said
    random might be level with greedy (1,054 [555, 1,554] against greedy's 1,500) beside the pair
    table's Wilson interval of the same six games, all lost (0.0% [0.0%, 39.0%]): on the log-odds
    scale a Wald interval is widest where the win rate is most lopsided. The ratio test is the
    one the Wilson interval inverts for a single pair, so the two tables now say the same."""
    from scipy.optimize import brentq, minimize

    best = nll(x)
    others = [j for j in range(len(x)) if j != slot]

    def profile(value: float) -> float:
        if not others:
            return nll(np.array([value]))

        def fixed(y):
            z = x.copy()
            z[others], z[slot] = y, value
            return z

        fit = minimize(lambda y: nll(fixed(y)), x[others], jac=lambda y: grad(fixed(y))[others], method="BFGS")
        return float(fit.fun)

    def excess(value: float) -> float:
        return 2.0 * (profile(value) - best) - LR95

    bounds = []
    for side in (-1.0, 1.0):
        step = max(se, 0.1)
        inner, outer = x[slot], x[slot] + side * step
        while excess(outer) < 0 and abs(outer - x[slot]) < FAR:
            inner, outer = outer, x[slot] + side * (abs(outer - x[slot]) * 2.0)
        bounds.append(outer if excess(outer) < 0 else brentq(excess, inner, outer, xtol=1e-6))
    return bounds[0], bounds[1]


def wilson_score(score, trials) -> tuple[np.ndarray, np.ndarray]:
    """95% Wilson interval of a score (wins plus half the draws) over trials, per row."""
    from reports.stats import wilson

    return wilson(np.asarray(score, dtype=float), np.asarray(trials, dtype=float))


def pair_table(matches: pl.DataFrame, pilots: list[str]) -> pl.DataFrame:
    """One row per pair of pilots (in ladder order, ``pilot_a`` named first): matches, A's wins,
    B's wins, draws (errors included: an errored match is a draw), A's score rate with its 95%
    Wilson interval."""
    rows = []
    for i, a in enumerate(pilots):
        for b in pilots[i + 1:]:
            m = matches.filter((pl.col("pilot_a") == a) & (pl.col("pilot_b") == b))
            winner = m.select(pl.when(pl.col("winner_seat") == 0).then(pl.col("pilot_0"))
                              .when(pl.col("winner_seat") == 1).then(pl.col("pilot_1"))
                              .otherwise(None).alias("w"))["w"]
            a_wins = int((winner == a).sum())
            b_wins = int((winner == b).sum())
            n = m.height
            rows.append({"pilot_a": a, "pilot_b": b, "matches": n, "a_wins": a_wins, "b_wins": b_wins,
                         "draws": n - a_wins - b_wins, "errors": int(m["error"].is_not_null().sum())})
    frame = pl.DataFrame(rows, schema={k: PAIRS_SCHEMA[k] for k in
                                       ("pilot_a", "pilot_b", "matches", "a_wins", "b_wins", "draws", "errors")})
    score = (frame["a_wins"] + 0.5 * frame["draws"]).to_numpy().astype(float)
    n = frame["matches"].to_numpy().astype(float)
    lo, hi = wilson_score(score, n)
    rate = np.divide(score, n, out=np.full(n.shape, np.nan), where=n > 0)
    frame = frame.with_columns(a_win_rate=pl.Series(rate), lo=pl.Series(lo), hi=pl.Series(hi))
    return frame.select(list(PAIRS_SCHEMA)).cast(PAIRS_SCHEMA)


def pilot_costs(matches: pl.DataFrame, pilots: list[str]) -> pl.DataFrame:
    """Per pilot: matches, wins, draws, losses, score, own decisions and seat CPU, the whole CPU of
    its matches, decisions_per_s (own decisions per own seat CPU-second) and matches_per_s (its
    matches per CPU-second of those matches). See the module docstring for what the figures are."""
    rows = []
    for p in pilots:
        games = wins = draws = decisions = errors = 0
        seat_cpu = cpu = 0.0
        for seat in (0, 1):
            m = matches.filter(pl.col(f"pilot_{seat}") == p)
            if m.is_empty():
                continue
            games += m.height
            wins += int((m["winner_seat"] == seat).sum())
            draws += int(m["winner_seat"].is_null().sum())
            decisions += int(m[f"decisions_{seat}"].sum())
            seat_cpu += float(m[f"cpu_{seat}"].sum())
            cpu += float(m["cpu_s"].sum())
            errors += int(m["error"].is_not_null().sum())
        rows.append({"pilot": p, "matches": games, "wins": wins, "draws": draws, "losses": games - wins - draws,
                     "score": (wins + 0.5 * draws) / games if games else None, "decisions": decisions,
                     "seat_cpu_seconds": seat_cpu, "cpu_seconds": cpu, "errors": errors,
                     "decisions_per_s": decisions / seat_cpu if seat_cpu > 0 else None,
                     "matches_per_s": games / cpu if cpu > 0 else None})
    return pl.DataFrame(rows, schema={k: LADDER_SCHEMA[k] for k in rows[0]} if rows else None)


def ladder_tables(matches: pl.DataFrame, pilots: list[str], anchor: str | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(ladder, pairs) of a ladder's matches: one row per pilot (LADDER_SCHEMA, best rating first)
    and one per pair of pilots (PAIRS_SCHEMA, in ladder order)."""
    pairs = pair_table(matches, pilots)
    bt = bradley_terry(pilots, [(r["pilot_a"], r["pilot_b"], r["a_wins"] + 0.5 * r["draws"], r["matches"])
                                for r in pairs.iter_rows(named=True)], anchor)
    costs = pilot_costs(matches, pilots)
    ladder = bt.drop("se").join(costs, on="pilot", how="left").select(list(LADDER_SCHEMA)).cast(LADDER_SCHEMA)
    return ladder.sort(["rating", "pilot"], descending=[True, False]), pairs


# --- reading the store ----------------------------------------------------------------------------------

LADDERS_SCHEMA = {"ladder_id": pl.Int64, "game": pl.Utf8, "rules_version": pl.Utf8, "pilots": pl.Utf8,
                  "decks": pl.Utf8, "matches_per_pair": pl.Int64, "base_seed": pl.Int64,
                  "created_at": pl.Datetime("us")}


def ladders(path: str | Path, game: str | None = None) -> pl.DataFrame:
    """Every ladder in the store (newest first), one row each; empty if the store has none."""
    if not Path(path).exists() or not db.has_tables(path, "ladder"):
        return pl.DataFrame(schema=LADDERS_SCHEMA)
    where, params = ("WHERE game = ?", [game]) if game else ("", None)
    frame = db.query(path, f"""
        SELECT ladder_id, any_value(game) AS game, any_value(rules_version) AS rules_version,
               string_agg(pilot, ',' ORDER BY rating DESC) AS pilots, any_value(decks) AS decks,
               any_value(matches_per_pair) AS matches_per_pair, any_value(base_seed) AS base_seed,
               any_value(created_at) AS created_at
        FROM ladder {where} GROUP BY ladder_id ORDER BY ladder_id DESC""", params)
    return frame.cast(LADDERS_SCHEMA)


def ladder_ratings(path: str | Path, ladder_id: int) -> pl.DataFrame:
    """The ``ladder`` rows of one ladder, best rating first."""
    if not db.has_tables(path, "ladder"):
        return pl.DataFrame(schema=LADDER_SCHEMA)
    cols = ", ".join(LADDER_SCHEMA)
    return db.query(path, f"SELECT {cols} FROM ladder WHERE ladder_id = ? ORDER BY rating DESC, pilot",
                    [ladder_id]).cast(LADDER_SCHEMA)


def ladder_pairs(path: str | Path, ladder_id: int) -> pl.DataFrame:
    """The ``ladder_pairs`` rows of one ladder, in the ladder's pilot order."""
    if not db.has_tables(path, "ladder_pairs"):
        return pl.DataFrame(schema=PAIRS_SCHEMA)
    cols = ", ".join(PAIRS_SCHEMA)
    return db.query(path, f"SELECT {cols} FROM ladder_pairs WHERE ladder_id = ? ORDER BY pair_no",
                    [ladder_id]).cast(PAIRS_SCHEMA)


def win_matrix(pairs: pl.DataFrame, order: list[str]) -> pl.DataFrame:
    """Row pilot's score rate against the column pilot (both directions of every pair filled)."""
    rate = {}
    for r in pairs.iter_rows(named=True):
        rate[(r["pilot_a"], r["pilot_b"])] = r["a_win_rate"]
        rate[(r["pilot_b"], r["pilot_a"])] = None if r["a_win_rate"] is None else 1.0 - r["a_win_rate"]
    return pl.DataFrame([{"pilot": p, **{q: rate.get((p, q)) for q in order}} for p in order],
                        schema={"pilot": pl.Utf8, **{q: pl.Float64 for q in order}})


def rating_chart(ladder: pl.DataFrame, title: str | None = None):
    """Each pilot's rating as a point with its 95% interval as a bar (best at the top)."""
    import plotly.graph_objects as go

    frame = ladder.sort("rating")
    rating = frame["rating"].to_numpy()
    fig = go.Figure(go.Scatter(
        x=rating, y=frame["pilot"].to_list(), mode="markers", marker={"size": 11},
        error_x={"type": "data", "symmetric": False, "array": frame["rating_hi"].to_numpy() - rating,
                 "arrayminus": rating - frame["rating_lo"].to_numpy()},
        customdata=np.stack([frame["rating_lo"].to_numpy(), frame["rating_hi"].to_numpy(),
                             frame["matches"].to_numpy()], axis=-1),
        hovertemplate="%{y}: %{x:.0f} [%{customdata[0]:.0f}, %{customdata[1]:.0f}], %{customdata[2]} matches"
                      "<extra></extra>"))
    # plotly's margins take 180 px (the title's above, the axis title's below): 40 px a pilot on top
    fig.update_layout(title=title, xaxis_title="rating (Elo scale; anchor = 1500), 95% interval", yaxis_title="",
                      height=180 + 40 * frame.height, margin={"l": 10})
    return fig
