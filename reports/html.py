"""``workbench report``: one self-contained HTML file (plotly inline) with the headline findings
first: the most over- and under-performing cards with intervals, the card values measured by
``workbench value`` and the rebalancing proposals of ``workbench tune`` when there are any, keyword
prices, cost-curve outliers, the matchup matrix and the meta a rational field would play (its
equilibrium mix of decks), and a version diff when asked."""
from __future__ import annotations

import html
import json
import re
from datetime import datetime, timezone
from pathlib import Path

import plotly.express as px
import plotly.graph_objects as go
import polars as pl

from reports import costs, db, keywords, matchups, meta, overview, tune, value
from reports.attribution import MIN_DOSE_TWINS
from reports.cards import card_metrics
from reports.diff import pairing_effect, testable_words, untested_why, version_diff
from reports.filters import Filters
from reports.pages.columns import unique_names

TOP = 8
STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1100px;color:#222}
h1{margin-bottom:0} .sub{color:#666;margin-top:.2rem} h2{border-bottom:2px solid #eee;padding-bottom:.3rem;margin-top:2.2rem}
table{border-collapse:collapse;font-size:.9rem;margin:.6rem 0} th,td{padding:.25rem .6rem;border-bottom:1px solid #eee;text-align:right}
th{background:#f6f6f6} td:first-child,th:first-child{text-align:left} .sig{color:#b00;font-weight:600}
.note{color:#555;font-size:.9rem;max-width:60rem}
.warn{background:#fff4e5;border-left:4px solid #b00;padding:.5rem .8rem;font-weight:600}
"""


class _Figures:
    """Plotly figures as HTML, the library inlined once (the file works offline)."""

    def __init__(self):
        self.first = True

    def __call__(self, fig: go.Figure) -> str:
        out = fig.to_html(full_html=False, include_plotlyjs="inline" if self.first else False)
        self.first = False
        return out


def _pct(x) -> str:
    return "" if x is None or x != x else f"{x * 100:.1f}%"


def _pts(x, scale: float = 100.0) -> str:
    """A change in win-rate points, signed: a share's 0.024 reads "+2.4 pts" (``scale`` 1 for a
    value already in points)."""
    return "" if x is None or x != x else f"{x * scale:+.1f} pts"


def _table(frame: pl.DataFrame, columns: dict[str, str], pct: tuple[str, ...] = (), sig: str | None = None,
           points: tuple[str, ...] = (), in_points: tuple[str, ...] = ()) -> str:
    """An HTML table of ``columns`` (column -> header): ``pct`` shares as percentages, ``points``
    differences of shares as signed points, ``in_points`` values already in points likewise."""
    head = "".join(f"<th>{html.escape(label)}</th>" for label in columns.values())
    rows = []
    for r in frame.iter_rows(named=True):
        cells = []
        for col in columns:
            v = r.get(col)
            text = (_pct(v) if col in pct else _pts(v) if col in points else _pts(v, 1.0) if col in in_points
                    else "" if v is None or v != v else f"{v:.3g}" if isinstance(v, float) else str(v))
            cls = ' class="sig"' if sig and r.get(sig) else ""
            cells.append(f"<td{cls}>{html.escape(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _interval(frame: pl.DataFrame, rate: str) -> pl.DataFrame:
    """A readable "lo% to hi%" column beside a rate."""
    return frame.with_columns(pl.format("{}% to {}%", (pl.col(f"{rate}_lo") * 100).round(1),
                                        (pl.col(f"{rate}_hi") * 100).round(1)).alias(f"{rate}_ci"))


def _points_interval(frame: pl.DataFrame, change: str) -> pl.DataFrame:
    """A readable "+lo to +hi pts" column beside a change of shares."""
    return frame.with_columns(pl.struct(f"{change}_lo", f"{change}_hi").map_elements(
        lambda r: "" if r[f"{change}_lo"] is None else
        f"{r[f'{change}_lo'] * 100:+.1f} to {r[f'{change}_hi'] * 100:+.1f} pts", return_dtype=pl.Utf8).alias(f"{change}_ci"))


def _known(column: str) -> pl.Expr:
    """A figure that is there: neither null nor NaN. Polars sorts NaN above every number, so a
    NaN estimate (a card never played, or always) headed a descending ranking as its top finding."""
    return pl.col(column).fill_nan(None).is_not_null()


def seated_pilots(pilots: str) -> list[str]:
    """The pilots a run's ``pilots`` column seats, each once: "random,random,random" is random
    alone; a Turf Defense run's boss stays a pilot of its own ("random; boss greedy": random and
    "boss greedy")."""
    return sorted({p.strip() for p in re.split(r"[,;]", pilots or "") if p.strip()})


def _header(runs: pl.DataFrame, kinds: dict[int, str], matches: int) -> str:
    """The line under the title: games, rules, decks and the pilots seated (each once); a
    campaign batch's crews, route policy and fight pilot (its ``pilots`` column reads
    "policy/fight pilot") and its fights rather than matches."""
    campaign = [r for r in runs.iter_rows(named=True) if kinds.get(r["run_id"]) == "campaign"]
    duels = [r for r in runs.iter_rows(named=True) if kinds.get(r["run_id"]) != "campaign"]
    words = [", ".join(sorted(set(runs["game"]))), f"rules {', '.join(sorted(set(runs['rules_version'])))}"]
    if duels:
        words += [f"decks {', '.join(sorted({r['decks'] for r in duels}))}",
                  f"pilots {', '.join(sorted({p for r in duels for p in seated_pilots(r['pilots'])}))}"]
    if campaign:
        specs = [json.loads(r.get("spec") or "{}") for r in campaign]
        words += [f"crews {', '.join(sorted({r['decks'] for r in campaign}))}",
                  f"policy {', '.join(sorted({s.get('policy') or '?' for s in specs}))}",
                  f"fight pilot {', '.join(sorted({s.get('fight_pilot') or '?' for s in specs}))}"]
    return (f"<p class='sub'>{html.escape(' · '.join(words))} · {matches:,} {'matches' if duels else 'fights'} · "
            f"made {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC</p>")


def build(path: str | Path, run_ids: list[int], diff_base: int | None = None) -> str:
    """The report of ``run_ids``; with ``diff_base``, the version diff of that run against the
    first duel run leads it."""
    fig = _Figures()
    filters = Filters(runs=run_ids)
    runs = db.query(path, f"SELECT * FROM runs WHERE run_id IN ({', '.join('?' for _ in run_ids)})", run_ids)
    seat = overview.first_seat(path, run_ids)
    modes = dict(zip(runs["run_id"], runs["mode"])) if "mode" in runs.columns else {}
    # a Frontier Run batch (kind campaign) stores its fights as duels of a crew against an enemy
    # deck, but they are no field: its figures are the campaign's (clear rates, reward lift)
    if "kind" in runs.columns:
        modes |= {r: "campaign" for r, kind in zip(runs["run_id"], runs["kind"]) if kind == "campaign"}
    parts = [f"<h1>Balance report: run{'s' if len(run_ids) > 1 else ''} {', '.join(map(str, run_ids))}</h1>",
             _header(runs, modes, seat["matches"])]
    other = [r for r in run_ids if modes.get(r) in ("ffa", "series", "turf", "campaign")]
    duels = [r for r in run_ids if r not in other]
    if diff_base is not None and duels:  # asked for a version diff: it is the headline, so it leads
        parts.append(_diff_section(path, diff_base, duels[0]))
    for mode, section in (("ffa", _ffa_section), ("series", _series_section), ("turf", _turf_section),
                          ("campaign", _campaign_section)):
        ids = [r for r in run_ids if modes.get(r) == mode]
        if ids:
            parts.append(section(path, ids, fig))
    if other:
        if len(other) == len(run_ids):  # the duel sections read single duels: nothing more to say
            return _page(parts)
        run_ids = [r for r in run_ids if r not in other]
        filters = Filters(runs=run_ids)
        seat = overview.first_seat(path, run_ids)
    if seat["first_seat_wr"] is not None:
        parts.append(f"<p>First seat wins {_pct(seat['first_seat_wr'])} of decided matches "
                     f"(95% {_pct(seat['lo'])} to {_pct(seat['hi'])}, n = {seat['decided']:,}); {seat['draws']:,} draws, "
                     f"{seat['errors']:,} errors.</p>")

    # "Kade (kade-2)" where several cards share a name, as the dashboard and exports label them
    cards = unique_names(card_metrics(path, filters).filter(pl.col("played_games") > 0))
    parts.append("<h2>Cards that over- and under-perform</h2><p class='note'>Ranked within the deck: the card's "
                 "opening-hand win rate minus its own deck's win rate when the shuffle did not deal it, deck and seat "
                 "held fixed (OH excess, in points), so a strong deck does not lift all its cards. Red: significant "
                 "against its own deck after Benjamini-Hochberg at a 5% false discovery rate.</p>")
    within = {"name": "card", "faction_name": "faction / clan", "cost": "cost", "oh_games": "n in opening hand",
              "oh_excess": "OH excess", "oh_excess_ci": "95% interval", "oh_excess_q": "q",
              "example_win": "example match"}
    excess = _points_interval(cards.filter(_known("oh_excess")), "oh_excess").sort("oh_excess", descending=True)
    for title, rows in (("Most over-performing within their deck", excess.head(TOP)),
                        ("Most under-performing within their deck", excess.tail(TOP).reverse())):
        parts.append(_ranked(title, rows, "oh_excess_significant")
                     + _table(rows, within, sig="oh_excess_significant", points=("oh_excess",)))
    parts.append("<h3>For reference: played win rate pooled over decks</h3><p class='note'>Shrunk toward the mean "
                 "(empirical Bayes). This carries deck strength and favours cards played late in games that lasted; "
                 "red: off the pooled rate after Benjamini-Hochberg. Intervals are 95% Wilson.</p>")
    cols = {"name": "card", "faction_name": "faction / clan", "cost": "cost", "played_games": "n played", "played_wr": "Played WR",
            "played_wr_ci": "95% interval", "played_wr_shrunk": "shrunk", "gih_wr": "GIH WR", "iwd": "IWD",
            "played_wr_q": "q", "example_win": "example match"}
    ranked = _interval(cards.filter(_known("played_wr_shrunk")), "played_wr").sort("played_wr_shrunk", descending=True)
    for title, rows in (("Highest pooled played WR", ranked.head(TOP)), ("Lowest pooled played WR", ranked.tail(TOP).reverse())):
        parts.append(_ranked(title, rows, "significant")
                     + _table(rows, cols, ("played_wr", "played_wr_shrunk", "gih_wr", "iwd"), "significant"))
    chart = ranked.sort("played_wr_shrunk")
    parts.append(fig(go.Figure(go.Bar(
        x=chart["played_wr"] * 100, y=[f"{n} (n={k})" for n, k in zip(chart["name"], chart["played_games"])],
        orientation="h", error_x={"type": "data", "symmetric": False,
                                  "array": (chart["played_wr_hi"] - chart["played_wr"]) * 100,
                                  "arrayminus": (chart["played_wr"] - chart["played_wr_lo"]) * 100})
    ).update_layout(title="Played win rate with 95% interval", xaxis_title="Played WR (%)", height=max(400, 16 * chart.height))))
    parts.append(_value_section(path, sorted(set(runs["game"])), sorted(set(runs["rules_version"])), fig,
                                [value.seating(d, p) for d, p in runs.select("decks", "pilots").iter_rows()]))
    parts.append(_tune_section(path, sorted(set(runs["game"]))))

    prices = keywords.keyword_prices(path, filters)
    impact = keywords.keyword_impact(path, filters)
    parts.append("<h2>Keywords</h2><p class='note'>Price: what the card designs charge for each keyword, in cost units "
                 "(least squares of cost on stats and keywords). Impact: change in the log-odds of winning per card played "
                 "with the keyword, holding the cost played and seat order fixed, beside the plain with/without difference; "
                 "q: Benjamini-Hochberg over the keywords the model estimated (read significance from q, not p).</p>")
    if not prices.is_empty():
        parts.append(_table(keywords.with_keyword_names(prices, "term"), {
            "type": "type", "term_name": "term", "cost": "cost", "cost_lo": "low", "cost_hi": "high",
            "cards_with": "cards"}))
    if not impact.is_empty():
        parts.append(_table(keywords.with_keyword_names(impact, "keyword"), {
            "keyword_name": "keyword", "seats_exposed": "seats", "wr_with": "WR with", "wr_without": "WR without",
            "plain_diff": "plain diff", "log_odds": "model log-odds", "log_odds_lo": "low", "log_odds_hi": "high",
            "p_value": "p", "q_value": "q"}, ("wr_with", "wr_without"), points=("plain_diff",)))

    fitted, lines = costs.stat_budget(path, filters)
    parts.append("<h2>Cost curve</h2>")
    if not fitted.is_empty():
        off = fitted.filter(pl.col("off_budget"))
        parts.append(f"<p>{off.height} of {fitted.height} cards sit off their game's stat budget "
                     f"({html.escape(costs.OFF_BUDGET)}).</p>")
        if off.height:
            parts.append(_table(unique_names(off).sort(pl.col("surplus").abs(), descending=True, nulls_last=True),
                                {"name": "card", "type": "type", "budget_cost": "cost", "stat_points": "stats",
                                 "budget_points": "budget", "surplus": "surplus", "fitted_stats": "fitted line"}))
        parts.append(fig(px.scatter(unique_names(fitted).to_pandas(), x="budget_cost", y="stat_points", color="type", symbol="off_budget",
                                    hover_name="name", trendline=None,
                                    labels={"budget_cost": "Budget cost", "stat_points": "Stat points", "type": "Type",
                                            "off_budget": "Off budget"}, title="Stats against cost")))

    m = matchups.matchups(path, filters)
    if not m.is_empty():
        parts.append("<h2>Matchups</h2>")
        grid = m.pivot(on="opponent", index="deck", values="win_rate").sort("deck")
        decks = grid["deck"].to_list()
        z = [[grid[o][i] if o in grid.columns else None for o in decks] for i in range(len(decks))]
        parts.append(fig(go.Figure(go.Heatmap(z=z, x=decks, y=decks, zmin=0.3, zmax=0.7, colorscale="RdBu",
                                              text=[[_pct(v) for v in row] for row in z], texttemplate="%{text}"))
                         .update_layout(title="Row deck's win rate against column deck", xaxis_title="Opponent",
                                        yaxis_title="Deck")))
        parts.append(_table(m, {"deck": "deck", "opponent": "opponent", "games": "games", "win_rate": "win rate",
                                "win_rate_lo": "low", "win_rate_hi": "high"}, ("win_rate", "win_rate_lo", "win_rate_hi")))
        parts.append(_meta_section(path, filters))

    return _page(parts)


def _ranked(title: str, rows: pl.DataFrame, sig: str) -> str:
    """A headline list's title, saying that the estimate orders it and, when no row of it is
    significant, so: a top-eight list under "most over-performing" otherwise reads as eight findings."""
    found = sig in rows.columns and bool(rows[sig].fill_null(False).any())
    return (f"<h3>{html.escape(title)}, ranked by estimate</h3>"
            + ("" if found else "<p class='note'>none significant (Benjamini-Hochberg 5%)</p>"))


def _page(parts: list[str]) -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>Balance report</title><style>{STYLE}</style>"
            f"</head><body>{''.join(parts)}</body></html>")


def _turf_section(path, run_ids: list[int], fig: _Figures) -> str:
    """Turf Defense runs: each boss's clear rate with its interval, phase and life left, and the
    partners that fall first (reports/turf.py)."""
    from reports import turf

    bosses = turf.turf_bosses(path, run_ids)
    if bosses.is_empty():
        return "<h2>Turf Defense</h2><p>No finished matches yet.</p>"
    shown = _interval(bosses, "clear_rate").with_columns(pl.col("mean_phase", "turns").round(2),
                                                          (pl.col("life_left") * 100).round(1))
    out = ["<h2>Turf Defense: bosses</h2><p class='note'>Clear rate = the partners won; 95% Wilson interval. A boss "
           "should sit between 20% and 80%: one nobody beats, or everybody beats, tells a designer nothing. Phase: "
           "the boss's phase at the end (1 = its first). life left: % of its life at the start (AlleyWay: its Morale).</p>",
           _table(shown, {"boss_name": "boss", "partner_pilots": "partners", "boss_pilot": "boss pilot", "matches": "matches",
                          "clear_rate": "clear rate", "clear_rate_ci": "95%", "mean_phase": "mean phase",
                          "max_phase": "max phase", "life_left": "life left %", "turns": "turns",
                          "prizes": "prizes", "boss": "boss id"}, ("clear_rate",))]
    falls = turf.turf_first_falls(path, run_ids)
    if not falls.is_empty():
        out.append("<h3>Which partner falls first</h3>" + _table(_interval(falls, "falls_first_rate"), {
            "boss_name": "boss", "deck": "partner deck", "partner_outs": "matches with a partner out",
            "falls_first": "fell first", "falls_first_rate": "rate", "falls_first_rate_ci": "95%",
            "fell_and_won": "fell, then won", "boss": "boss id"}, ("falls_first_rate",)))
    return "".join(out)


def _series_section(path, run_ids: list[int], fig: _Figures) -> str:
    """Best-of series runs: each deck's series, game and first-game win rates and its Rank Points
    per series, per deck, pilot, opponent pilot and best-of (reports/series.py); series with an
    error and mirror series are left out, and the note says how many."""
    from reports import series

    decks = series.series_decks(path, run_ids)
    left_out = html.escape(series.left_out_text(series.series_left_out(path, run_ids)))
    if decks.is_empty():
        return f"<h2>Series</h2><p>No finished series yet.{' ' + left_out if left_out else ''}</p>"
    shown = decks.with_columns(pl.col("rank_points", "rank_points_lo", "rank_points_hi").round(1))
    for name in ("series_win_rate", "game_win_rate", "first_game_win_rate"):
        shown = _interval(shown, name)
    best = ", ".join(map(str, sorted(set(decks["best_of"]))))
    return (f"<h2>Series: best of {best}</h2><p class='note'>A series is won by the deck with more games won when "
            "it ends (a 2-1, or a 1-0 with drawn games); a sweep (Rank Points' sweep bonus) is a series won in which "
            "the loser won no game. A row is a deck, its pilot, the opponent's pilot and the best-of, never pooled "
            "across them. Game win rate counts each game alone; first-game win rate is the plain duel on the same "
            "seeds. Rank Points per series under the rules version's constants, with a 95% normal interval. Mirror "
            f"series (50% by definition) and series with an error count in no figure.{' ' + left_out if left_out else ''}</p>"
            + _table(shown, {"deck": "deck", "pilot": "pilot", "opponent_pilot": "opponent pilot", "best_of": "best of",
                             "series": "series", "series_win_rate": "series WR",
                             "series_win_rate_ci": "95%", "game_win_rate": "game WR", "game_win_rate_ci": "95%",
                             "first_game_win_rate": "game 1 WR", "rank_points": "Rank Points / series",
                             "rank_points_lo": "low", "rank_points_hi": "high"},
                     ("series_win_rate", "game_win_rate", "first_game_win_rate")))


def _ffa_section(path, run_ids: list[int], fig: _Figures) -> str:
    """Free-for-all runs: placement by deck, the cards with the largest placement gain either way,
    and who put whom out (reports/ffa.py)."""
    from reports import ffa

    decks = ffa.ffa_decks(path, run_ids)
    if decks.is_empty():
        return "<h2>Free-for-all</h2><p>No finished matches yet.</p>"
    out = [f"<h2>Free-for-all: placement ({int(decks['table_seats'][0])} seats)</h2><p class='note'>Mean place "
           "(1 = first) with its 95% interval; win share = placed first, top 2 = first or second, with 95% Wilson "
           f"intervals. A fair deck wins {_pct(float(decks['fair_win_share'][0]))}.</p>"]
    shown = decks.with_columns(pl.col("mean_placement", "mean_placement_lo", "mean_placement_hi").round(2))
    out.append(_table(_interval(_interval(shown, "win_share"), "top2"), {
        "deck": "deck", "pilot": "pilot", "seats": "seat-games", "mean_placement": "mean place",
        "mean_placement_lo": "low", "mean_placement_hi": "high", "win_share": "win share", "win_share_ci": "95%",
        "top2": "top 2", "top2_ci": "95%"}, ("win_share", "top2")))
    # a card played in every seat-game of its deck, or in none, has no gain: NaN, not null
    cards = unique_names(ffa.ffa_cards(path, run_ids)).filter(
        _known("placement_gain") & _known("placement_gain_lo") & _known("placement_gain_hi")).sort(
        "placement_gain", descending=True).with_columns(pl.col("placement_gain", "placement_gain_lo",
                                                                "placement_gain_hi").round(2))
    cols = {"deck": "deck", "name": "card", "played": "n played", "not_played": "n not played",
            "placement_gain": "placement gain", "placement_gain_lo": "low", "placement_gain_hi": "high"}
    out.append("<h3>Cards that go with a better place when played</h3><p class='note'>Mean place when never played "
               "minus when played (positive: better when played), 95% Welch interval. Observational: a seat that "
               "lives longer plays more of its cards.</p>" + _table(cards.head(TOP), cols))
    out.append("<h3>... and with a worse one</h3>" + _table(cards.tail(TOP).reverse(), cols))
    outs = ffa.ffa_eliminations(path, run_ids)
    if not outs.is_empty():
        grid = outs.pivot(on="eliminator_deck", index="out_deck", values="share").fill_null(0.0).sort("out_deck")
        cols = [c for c in grid.columns if c != "out_deck"]
        out.append(fig(go.Figure(go.Heatmap(z=(grid.select(cols).to_numpy() * 100).round(0), x=cols,
                                            y=grid["out_deck"].to_list(), texttemplate="%{z:.0f}%"))
                       .update_layout(title="Who put whom out: share of the row deck's outs by the column deck",
                                      xaxis_title="put out by", yaxis_title="deck out")))
    return "".join(out)


def _campaign_section(path, run_ids: list[int], fig: _Figures) -> str:
    """Frontier Run batches: each crew's stage clear rate and each reward card's lift when taken,
    the tables ``workbench export campaign_clear_rates`` and ``campaign_reward_lift`` give and the
    dashboard's Campaign page shows (reports/campaign.py, which counts a campaign run two batches
    hold once). Their fights are not a field of duels: a crew meets the stage's enemies, so the
    duel tables (matchups, a meta, card win rates pooled with the enemies' cards) read nothing."""
    from reports import campaign

    clear = campaign.clear_rates(path, run_ids)
    if clear.is_empty():
        return "<h2>Campaign</h2><p>No finished campaign runs yet.</p>"
    repeats = int(clear["repeats"].sum())
    out = ["<h2>Campaign: clear rate by crew</h2><p class='note'>Share of the campaign runs that cleared the stage, "
           "with its 95% Wilson interval, over the runs that ended in a clear or a defeat (a run that ended in an "
           "engine error is counted under errors alone); HP left: the trail's mean when cleared; floor, fights and "
           "deck size: means over those runs. Policy: how the runs chose their route and rewards; fight pilot: who "
           "played the crew; enemy pilot: who played the enemies."
           + (f" {repeats:,} run(s) two batches hold were counted once." if repeats else "") + "</p>"]
    shown = _interval(clear, "clear_rate").with_columns(
        pl.col("avg_hp_left_cleared", "avg_floor", "avg_fights", "avg_deck_size").round(1))
    out.append(_table(shown, {"stage": "stage", "crew": "crew", "policy": "policy", "fight_pilot": "fight pilot",
                              "enemy_pilot": "enemy pilot", "runs": "runs", "cleared": "cleared",
                              "clear_rate": "clear rate", "clear_rate_ci": "95%", "avg_hp_left_cleared": "HP left",
                              "avg_floor": "floor", "avg_fights": "fights", "avg_deck_size": "deck size",
                              "errors": "errors"}, ("clear_rate",)))
    chart = shown.reverse()
    out.append(fig(go.Figure(go.Bar(
        x=chart["clear_rate"] * 100, y=[f"{c} ({p}, n={n})" for c, p, n in chart.select("crew", "policy", "runs").iter_rows()],
        orientation="h", error_x={"type": "data", "symmetric": False,
                                  "array": (chart["clear_rate_hi"] - chart["clear_rate"]) * 100,
                                  "arrayminus": (chart["clear_rate"] - chart["clear_rate_lo"]) * 100})
    ).update_layout(title="Stage clear rate by crew (95% Wilson interval)", xaxis_title="Clear rate (%)",
                    height=max(300, 40 * chart.height))))

    lift = unique_names(campaign.reward_lift(path, run_ids)).filter(_known("clear_lift"))  # "Kade (kade-2)"
    out.append("<h3>Reward cards: lift when taken</h3><p class='note'>The runs' clear rate after offers where the "
               "card was taken minus after offers where it was skipped (not taken, and not taken earlier in the run), "
               "in points with a 95% Newcombe interval; beside it the same split of the later fights' win rate. "
               "Ranked by the interval's lower bound (then, for the cards that lower it, its upper bound), so a card "
               "taken once in a run that cleared does not top the list. Observational: the policy chose what to "
               "take; a card offered twice in a run counts twice, so the intervals are somewhat narrow.</p>")
    if lift.is_empty():
        out.append("<p>No reward card was both taken and skipped in runs that ended.</p>")
        return "".join(out)
    shown = _points_interval(_points_interval(lift, "clear_lift"), "lift")
    cols = {"name": "card", "offers": "offers", "take_rate": "taken", "clear_taken_n": "n taken",
            "clear_rate_taken": "clear rate taken", "clear_skipped_n": "n skipped",
            "clear_rate_skipped": "clear rate skipped", "clear_lift": "clear lift", "clear_lift_ci": "95%",
            "lift": "fight WR lift", "lift_ci": "95%"}
    groups = shown.partition_by("policy", "fight_pilot", "enemy_pilot", "rules_version", "rules_hash", "stage_hash",
                                maintain_order=True)
    for group in groups:  # never two policies', pilots' or card sets' offers in one ranking
        first = group.row(0, named=True)
        title = (f" ({first['policy']}, {first['fight_pilot']} vs {first['enemy_pilot']}, {first['rules_version']})"
                 if len(groups) > 1 else "")
        worst = group.sort("clear_lift_hi", "clear_lift", nulls_last=True)
        # a short list whole (its two ends would repeat the same cards), a long one by its two ends
        tables = (((f"Most lift when taken{title}", group.head(TOP)), (f"Least lift when taken{title}", worst.head(TOP)))
                  if group.height > 2 * TOP else ((f"Every reward card{title}", group),))
        for heading, rows in tables:
            out.append(f"<h4>{html.escape(heading)}</h4>"
                       + _table(rows, cols, ("take_rate", "clear_rate_taken", "clear_rate_skipped"),
                                points=("clear_lift", "lift")))
    return "".join(out)


def _same_pilots(measured: dict[str, frozenset], report: list[dict[str, frozenset]]) -> bool:
    """Did a value measurement's runs seat the pilots one of the report's runs did: each deck both
    name played by the same pilots, and no pilot the report's run did not seat?"""
    return any(all(p == seated.get(deck, p) for deck, p in measured.items())
               and set().union(*measured.values()) <= set().union(*seated.values()) for seated in report)


def _value_section(path, games: list[str], versions: list[str], fig: _Figures,
                   seatings: list[dict[str, frozenset]] | None = None) -> str:
    """The stored card values (``workbench value``) of the report's games and rules versions, one
    ranking per deck, opponent and pilots; with ``seatings`` (the report's runs' pilots by deck,
    ``value.seating``) only the rankings of those pilots, and a line counting the others; nothing when
    none was measured."""
    values = value.card_values(path, versions=versions).filter(pl.col("game").is_in(games))
    if values.is_empty():
        return ""
    runs = value.measured_seatings(path, values)
    found = {}
    for run, deck, pilots in values.select("base_run", "deck", "pilots").unique().iter_rows():
        # the measured run's pilots by deck; a run no longer stored: the measured deck is slot 0
        names = pilots.split(",")
        seated = runs.get(run) or {deck: frozenset(names[:1]), "": frozenset(names[1:])}
        found[(run, deck, pilots)] = (value.seating_words(seated) if run in runs else pilots,
                                      seatings is None or _same_pilots(seated, seatings))
    keys = list(zip(values["base_run"], values["deck"], values["pilots"]))
    values = values.with_columns(pl.Series("seated", [found[k][0] for k in keys], pl.Utf8),
                                 pl.Series("kept", [found[k][1] for k in keys], pl.Boolean))
    other = values.filter(~pl.col("kept"))
    values = values.filter(pl.col("kept"))
    left_out = ""
    if other.height:
        left_out = (f"<p class='note'>{len(value.contexts(other))} ranking(s) measured under other pilots "
                    f"({html.escape(', '.join(f'[{w}]' for w in sorted(set(other['seated'].drop_nulls()))))}) are left out: this "
                    "report is about its runs' pilots (the dashboard's Card value page shows every measurement).</p>")
    if values.is_empty():
        return f"<h2>Card value</h2>{left_out}" if left_out else ""
    parts = [f"<h2>Card value</h2><p class='note'>Win rate added: {html.escape(value.MEANING)} (twin matches), in "
             f"points with the paired 95% interval. Red rows are significant; bars: {html.escape(value.COLOURS)}. "
             "Each ranking names the pilots that produced it.</p>" + left_out]
    cols = {"name": "card", "copies": "copies", "twins": "twins", "value_text": "win rate added (pts)",
            "value_ci": "95% interval", "wr_with": "WR with", "wr_without": "WR without", "q_value": "q",
            "reference": "replaced by"}
    several = value.card_sets(values)
    for context in value.contexts(values):
        ranking = unique_names(value.in_context(values, context)).with_columns(
            pl.col("value_points").map_elements("{:+.1f}".format, return_dtype=pl.Utf8).alias("value_text"),
            pl.format("{} to {}", pl.col("value_lo").round(1), pl.col("value_hi").round(1)).alias("value_ci"))
        # the pilots deck by deck ("lawmen-posse: greedy; goblin-gold-gang: random"), not "greedy,random"
        words = ranking["seated"].drop_nulls()
        title = value.context_title(context | ({"pilots": words[0]} if words.len() else {}),
                                    context["rules_version"] in several)
        parts.append(f"<h3>{html.escape(title)}</h3>" + _table(ranking, cols, ("wr_with", "wr_without"), "significant"))
        parts.append(fig(value.value_chart(ranking, f"Win rate added per card: {title}")))
    return "".join(parts)


TUNE_SHOWN = 3  # the newest proposals of the report's games


def _tune_section(path, games: list[str]) -> str:
    """The newest rebalancing proposals (``workbench tune``) of the report's games: each change,
    and every deck's field win rate before and after on fresh seeds; nothing when there are none."""
    found = tune.proposals(path)
    found = found.filter(pl.col("game").is_in(games)).head(TUNE_SHOWN) if found.height else found
    if found.is_empty():
        return ""
    parts = [f"<h2>Rebalancing proposals</h2><p class='note'>{html.escape(tune.MEANING.capitalize())}; "
             f"{html.escape(tune.VERIFIED)}; 95% Wilson intervals, the change paired.</p>"]
    for p in found.iter_rows(named=True):
        parts.append(f"<h3>tune {p['tune_id']}: {html.escape(p['game'])} {html.escape(p['base_version'])} → "
                     f"{html.escape(p['version'] or '(no change)')}</h3><p>{html.escape(p['verdict'])}. Pilots "
                     f"{html.escape(p['pilots'])}; {p['matches_search']:,} matches in the search, "
                     f"{p['matches_verify']:,} in verification.</p>")
        changes = tune.proposal_table(path, "tune_changes", p["tune_id"])
        if changes.height:
            parts.append(_table(changes, {"card": "card", "field": "number", "before": "before", "after": "after",
                                          "surplus_before": "budget before", "surplus_after": "budget after",
                                          "decks": "decks"}))
        if p["kind"] == "card":
            parts.append(f"<p class='note'>{html.escape(p['why'] or '')}</p>")
            continue
        decks = tune.proposal_table(path, "tune_decks", p["tune_id"])
        if decks["wr_after"].is_not_null().any():
            shown = _points_interval(_interval(_interval(decks, "wr_before"), "wr_after"), "change")
            parts.append(_table(shown, {"deck": "deck", "wr_before": "before", "wr_before_ci": "95%",
                                        "wr_after": "after", "wr_after_ci": "95%", "change": "paired change",
                                        "change_ci": "95%", "in_band": "in band"}, ("wr_before", "wr_after"),
                                points=("change",)))
    return "".join(parts)


def _meta_section(path, filters: Filters) -> str:
    """The equilibrium mix of decks of the matchup matrix (reports/meta.py), with the pilots that
    produced it; the decks the matrix could not hold are named below it."""
    mix = meta.meta_mix(path, filters)
    solved = mix.filter(_known("share"))
    if solved.is_empty():
        return ""
    shown = _interval(_interval(solved, "share"), "wr_vs_mix")
    left_out = "".join(f"<p class='note'>{html.escape(r['deck'])}: {html.escape(r['note'])}</p>"
                       for r in mix.filter(pl.col("share").is_null()).iter_rows(named=True))
    return (f"<h2>The meta a rational field would play</h2><p class='note'>{html.escape(meta.MEANING)}. "
            f"{html.escape(meta.METHOD.format(resamples=meta.RESAMPLES))}. Pilots: "
            f"{html.escape(', '.join(sorted(set(solved['pilots']))))}.</p>"
            + _table(shown, {"game": "game", "deck": "deck", "pilots": "pilots", "share": "equilibrium share",
                             "share_ci": "95%", "in_mix": "in the mix (resamples)", "wr_vs_mix": "WR vs the mix",
                             "wr_vs_mix_ci": "95%", "games": "games"}, ("share", "in_mix", "wr_vs_mix"))
            + left_out)


def _primary_shown(cards: pl.DataFrame) -> pl.DataFrame:
    """The changed cards as the table shows them: a card that got no test says so, and why, where
    blank cells would read as figures nobody wrote down."""
    rows = []
    for c in cards.iter_rows(named=True):
        why = untested_why(c)
        tested = {"low": _pts(c["effect_lo"], 1.0), "high": _pts(c["effect_hi"], 1.0),
                  "p": f"{c['p_value']:.3g}" if not why else "", "q": f"{c['q_value']:.3g}" if not why else ""}
        rows.append({"card": c["card"], "flagged": c["flagged"], "effect": _pts(c["effect_points"], 1.0) or "none",
                     **({k: "not tested" for k in tested} if why else tested),
                     "twins": f"{c['dosed_twins']:,}",
                     "dose": f"{c['dose_mean']:.0%}" if c["dose_mean"] == c["dose_mean"] else "-", "test": why or "tested"})
    return pl.DataFrame(rows)


def _count(v) -> str:
    return "-" if v is None or v != v else f"{int(v):,}"


def _power_section(power: pl.DataFrame) -> str:
    """The matches a diff needs, each figure named for what it counts: a deck's games are its
    seats (one a match), and a field of more than two decks seats each deck in only some of its
    matches, so a run needs more matches than a deck needs games (``paired_field_matches``)."""
    counts = ("paired_matches", "paired_seeds", "paired_field_matches", "unpaired_matches_per_version",
              "unpaired_seeds_per_version")
    shown = power.with_columns(pl.col(c).map_elements(_count, return_dtype=pl.Utf8) for c in counts if c in power.columns)
    return ("<h3>Matches a diff needs</h3><p class='note'>To see a change of 1, 2 or 5 points in a deck's win rate "
            "with 80% power at 5% two-sided, over the decks the change touches. A deck's games: its seat in one "
            "match each, paired (this diff's twins) or unpaired (two independent runs, per version); seeds: a "
            "deck's games / 2, each seed played from both seats. The paired matches of this field: the matches "
            "of the whole field (every pairing together) that give each of those decks that many games: the run's "
            "size.</p>"
            + _table(shown, {"decks": "decks the change touches", "change_points": "change (points)",
                             "paired_matches": "a deck's paired games", "paired_seeds": "a deck's paired seeds",
                             "paired_field_matches": "paired matches of this field",
                             "unpaired_matches_per_version": "a deck's unpaired games / version",
                             "unpaired_seeds_per_version": "a deck's unpaired seeds / version"}))


def _diff_section(path, base_run: int, candidate_run: int) -> str:
    r = version_diff(path, base_run, candidate_run)
    parts = [f"<h2>Version diff: run {base_run} → run {candidate_run}</h2>"]
    if r.get("code_note"):  # the twins differ by the code too: every figure below credits it to the rules
        parts.append(f"<p class='warn'>⚠ {html.escape(r['code_note'])}</p>")
    parts.append(f"<p>{r['twins'] // 2:,} twin matches (same seeds and seats), pilots {html.escape(r['pilots'])}. "
                 f"{pairing_effect(r['variance_saved']).capitalize()}.</p>")
    parts.append(_table(_points_interval(r["decks"], "change"),
                        {"deck": "deck", "twins": "twins", "wr_base": "WR base", "wr_candidate": "WR candidate",
                         "change": "change", "change_ci": "95% interval (paired)", "mcnemar_p": "McNemar p"},
                        ("wr_base", "wr_candidate"), points=("change",)))
    attribution = {"card": "card", "effect": "effect (pts at full dose)", "low": "low", "high": "high", "p": "p",
                   "q": "q (BH, its family)", "twins": "twins read", "dose": "played at its places", "test": "tested"}
    if r["primary_cards"].height:
        parts.append("<h3>The cards you changed</h3><p>Their effect within their deck, in points at full dose (a "
                     "twin where the card lay where cards always get played, against one where none do): the slope "
                     "of the twins' paired change on how often a card lying where its first copy lay in the shuffled "
                     "deck gets played (randomised by the shuffle); tested as pre-declared "
                     f"hypotheses, each needing at least {MIN_DOSE_TWINS} twins. Red: flagged.</p>"
                     + _table(_primary_shown(r["primary_cards"]), attribution, sig="flagged"))
    flagged = r["flagged_cards"]
    parts.append("<p>Other cards whose change differs from their deck's (Benjamini-Yekutieli at 5% FDR): "
                 + html.escape(f"{', '.join(flagged['card'].to_list())} ({testable_words(r['cards'])})" if flagged.height
                               else f"none {testable_words(r['cards'])}") + "</p>")
    names = r["significant_cards"]["card"].to_list() if r["significant_cards"].height else []
    parts.append("<p>For reference, cards whose win rate moved over twins with the card in hand (paired, BH at 5% "
                 "FDR; a deck that got stronger moves all its cards): "
                 + (", ".join(html.escape(c) for c in names) if names else "none") + "</p>")
    parts.append(_power_section(r["power"]))
    return "".join(parts)
