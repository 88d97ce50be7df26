"""Cards page: every metric of ``card_metrics`` per card (GP/OH/GD/GIH/GNS WR, IWD, played WR,
play rate, dead %, average turn played, each with its sample size and 95% interval), in one of
two rankings: by default within the card's deck (its opening-hand excess over the same deck,
deck and seat held fixed, tested against that deck), or by played win rate pooled over decks
(which carries deck strength); significance after Benjamini-Hochberg. Select a card to see its
win rate by the turn it was first played and to replay an example match, with what the card is
(cost, stats, keywords, text, decks) and a form that tries a change to it (reports/pages/whatif.py)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import plotly.graph_objects as go
import polars as pl
import streamlit as st

from reports.cards import GROUPS, METRICS, PILOTS_HELP, group_keys
from reports.pages.charts import legend_on_top
from reports.pages.columns import unique_names
from reports.pages.common import (
    FACTION_COLUMN,
    FACTION_ID_COLUMN,
    cached,
    card_filters,
    count,
    filtered_page,
    one_connection_per_render,
    pct,
    percent,
    pilots_line,
    pilots_of,
    pooled_versions_note,
    pts,
    register_queries,
    replay_button,
    store_state,
    table_with_download,
    win_rate_config,
    with_pilots_subtitle,
    with_replay_links,
)
from reports.pages.lookup import CARD, open_item, search_box
from reports.pages.whatif import card_about, change_section
from reports.pilot_sensitivity import premium_hint, premium_partner, skill_premium

# metric groups a designer can show or hide: label -> (sample size column, rate column)
RATE_GROUPS = {
    "Played WR": ("played_games", "played_wr"), "GIH WR": ("gih_games", "gih_wr"), "GP WR": ("games", "gp_wr"),
    "OH WR": ("oh_games", "oh_wr"), "GD WR": ("gd_games", "gd_wr"), "GNS WR": ("gns_games", "gns_wr"),
    "Play rate": ("available_games", "play_rate"), "Dead %": ("gih_games", "dead_pct"),
}
EXTRA_GROUPS = ("IWD", "Avg turn played")
DEFAULT_GROUPS = ["Played WR", "GIH WR", "IWD", "GP WR", "Play rate", "Dead %", "Avg turn played"]
# "pilots": the seat's pilot and its opponent's (reports/cards.py SEAT_PILOTS_SQL), as the exports split by pilot
GROUP_LABELS = {"rules_version": "rules version", "run_id": "run", "deck": "deck", "pilots": "pilots"}
# the column a split shows: a rules version as its card set's label (name@hash where two share the name)
SHOWN_GROUP = {"rules_version": "card_set"}
CARD_SET_HELP = ("the rules version the cards were run under; name@hash where two runs' card data share one name (the "
                 "hash of the card data: a workspace's edited cards are not the shipped ones)")
COUNT_LABELS = {"games": "GP n", "oh_games": "OH n", "gd_games": "GD n", "gih_games": "GIH n", "gns_games": "GNS n",
                "played_games": "played n", "available_games": "in hand or played n"}
RATE_COLUMNS = [c for _, r in RATE_GROUPS.values() for c in (r, f"{r}_lo", f"{r}_hi")]
CHART_ROWS = 60
TOO_STRONG, TOO_WEAK, NEUTRAL = "#d62728", "#1f77b4", "#7f7f7f"
Q = "%.3f"  # q- and p-values: three decimals read against 0.05 (the CSV keeps them exact)


@dataclass(frozen=True)
class View:
    """One ranking of the cards: what it sorts by, its significance test, the columns it leads
    the table with (a column from another table, joined by card, goes in ``columns``), and its
    chart: ``value`` with its ``_lo``/``_hi`` interval around ``center``."""
    label: str
    rank_by: str
    flag: str
    q: str
    columns: tuple[str, ...]
    value: str
    n: str
    center: Callable[[pl.DataFrame], float]
    center_label: str
    chart_title: str
    x_title: str
    shrunk: str | None = None
    missing: str = ""  # why the chart is empty when no card shown has the value


WITHIN_DECK = View(
    label="Within its deck: opening-hand win rate against the same deck without the card",
    rank_by="oh_excess", flag="oh_excess_significant", q="oh_excess_q",
    columns=("oh_excess", "oh_excess_lo", "oh_excess_hi", "oh_excess_q", "oh_excess_significant", "oh_games", "oh_wr",
             "not_oh_games", "not_oh_wr", "value_points", "value_lo", "value_hi", "value_q", "value_by"),
    value="oh_excess", n="oh_games", center=lambda _frame: 0.0, center_label="no effect beyond its deck",
    chart_title="What each card adds to its own deck: OH excess, deck and seat held fixed (95% interval)",
    x_title="Opening-hand excess over its deck (points)",
    missing="No card here has an OH excess yet, so there is nothing to chart: it needs games of the card's deck with "
            "the card in the opening hand and games without it (a card never dealt, such as a leader, has none).")
POOLED = View(
    label="Played win rate pooled over decks: carries deck strength",
    rank_by="played_wr_shrunk", flag="significant", q="played_wr_q",
    columns=("played_wr_shrunk", "played_wr_z", "played_wr_q", "significant"),
    value="played_wr", n="played_games",
    center=lambda frame: float(frame["played_won"].sum() / max(1, frame["played_games"].sum())), center_label="mean",
    chart_title="Played win rate by card (95% Wilson interval), ranked by the shrunken value",
    x_title="Played win rate (%)", shrunk="played_wr_shrunk",
    missing="No card here has a played win rate yet, so there is nothing to chart: none was played in these matches.")
VIEWS = {v.label: v for v in (WITHIN_DECK, POOLED)}
VIEW_HELP = ("Within its deck (the default): how much the card moves its own deck's win rate. The shuffle deals the "
             "opening hand, so comparing the deck's games with the card in it against the deck's other games "
             "(seat held fixed) measures the card, not the deck's strength nor how long games lasted; its test's "
             "null is that the card does nothing beyond its deck. In AlleyWay the opening hand is the one the seat "
             "kept after its chance to redraw, so the pilot's judgement of the hand enters too. Pooled: played win "
             "rate across decks, which a strong deck lifts for all its cards, and which favours cards played late "
             "in games that lasted.")


def column_config(group_by: list[str]) -> dict:
    config = {
        "card": st.column_config.TextColumn("card id", help="the card's stable id in the data files"),
        "name": st.column_config.TextColumn("card", help="the card's name", pinned=True),
        "type": st.column_config.TextColumn("type", help="the card's type"),
        "faction_name": FACTION_COLUMN, "faction": FACTION_ID_COLUMN,
        "cost": st.column_config.NumberColumn("cost", help="budget cost: the one number the cost curve uses",
                                              format="%g"),
        "oh_excess": pts("OH excess", METRICS["oh_excess"]),
        "oh_excess_lo": pts("OH excess lo", "95% lower bound of the OH excess (stratified by deck and seat)"),
        "oh_excess_hi": pts("OH excess hi", "95% upper bound of the OH excess (stratified by deck and seat)"),
        "oh_excess_q": st.column_config.NumberColumn("q beyond deck", help=METRICS["oh_excess_q"], format=Q),
        "oh_excess_significant": st.column_config.CheckboxColumn("beyond its deck",
                                                                 help=METRICS["oh_excess_significant"]),
        "value_points": st.column_config.NumberColumn("card value (pts)", help=VALUE_HELP, format="%+.1f"),
        "value_lo": st.column_config.NumberColumn("value lo", help="95% lower bound of the card value (paired)",
                                                  format="%+.1f"),
        "value_hi": st.column_config.NumberColumn("value hi", help="95% upper bound of the card value (paired)",
                                                  format="%+.1f"),
        "value_q": st.column_config.NumberColumn("value q", help="Benjamini-Hochberg q of the card value over "
                                                 "the cards of its measurement", format=Q),
        "value_by": st.column_config.TextColumn("value measured", help="the deck, opponents, pilots and rules version "
                                                "of the `workbench value` measurement shown: the newest of this card "
                                                "whose pilots the pilot filter chooses (split by pilots: those of "
                                                "the row), else the newest of any pilots"),
        "skill_premium": pts("skill premium", SKILL_HELP),
        "skill_premium_lo": pts("premium lo", "95% lower bound of the skill premium"),
        "skill_premium_hi": pts("premium hi", "95% upper bound of the skill premium"),
        "skill_premium_q": st.column_config.NumberColumn("premium q", help="Benjamini-Yekutieli q of the skill "
                                                         "premium across the cards", format=Q),
        "not_oh_games": count("not OH n", METRICS["not_oh_games"]),
        "not_oh_wr": pct("deck WR without it in OH", METRICS["not_oh_wr"]),
        "not_oh_wr_lo": pct("without lo", "95% Wilson lower bound"),
        "not_oh_wr_hi": pct("without hi", "95% Wilson upper bound"),
        "played_wr_shrunk": pct("Played WR shrunk", METRICS["played_wr_shrunk"]),
        "gih_wr_shrunk": pct("GIH WR shrunk", METRICS["gih_wr_shrunk"]),
        "played_wr_z": st.column_config.NumberColumn("z", help=METRICS["played_wr_z"], format="%+.2f"),
        "played_wr_p": st.column_config.NumberColumn("p", help=METRICS["played_wr_p"], format=Q),
        "played_wr_q": st.column_config.NumberColumn("q", help=METRICS["played_wr_q"], format=Q),
        "significant": st.column_config.CheckboxColumn("played WR off the pool", help=METRICS["significant"]),
        "iwd": pts("IWD", METRICS["iwd"]), "iwd_lo": pts("IWD lo", "95% Newcombe lower bound of IWD"),
        "iwd_hi": pts("IWD hi", "95% Newcombe upper bound of IWD"),
        "avg_turn_played": st.column_config.NumberColumn("avg turn played", help=METRICS["avg_turn_played"],
                                                         format="%.1f"),
        "run_id": st.column_config.NumberColumn("run", format="%d"),
        "rules_version": "rules version",
        "card_set": st.column_config.TextColumn("rules version", help=CARD_SET_HELP),
        "pilots": st.column_config.TextColumn("pilots", help=PILOTS_HELP),
    }
    for column, label in COUNT_LABELS.items():
        config[column] = count(label, METRICS.get(column, ""))
    for label, (_, rate) in RATE_GROUPS.items():
        config[rate] = pct(label, METRICS[rate])
        config[f"{rate}_lo"] = pct(f"{label} lo", f"95% Wilson lower bound of {label}")
        config[f"{rate}_hi"] = pct(f"{label} hi", f"95% Wilson upper bound of {label}")
    return config


VALUE_HELP = ("win rate the card adds to its deck, measured by intervention (`workbench value`): the deck as written "
              "minus the same deck with the card's copies replaced by a vanilla reference card of its cost, on the same "
              "seeds and seats; empty until a measurement exists. See the Card value page")


def with_card_value(path, stats: pl.DataFrame, filters, group_by: list[str]) -> pl.DataFrame:
    """A stored card value beside each card (per deck and card set, a rules version's name and
    hash, when the table is split by them), so the observational and the interventional answer
    sit side by side. Of a card's
    measurements, the one shown is the newest whose pilots the page's figures are of: those the
    pilot filter chooses (a measurement's ``pilots`` is its ``--pilots``, one for every seat or one
    per deck, so "greedy" is greedy against greedy and "greedy,random" the two against each other,
    chosen as a run is: when every pilot it names is chosen), and when split by pilots those of the
    row's group; else the newest of any pilots. ``value_by`` names the pilots of the one shown."""
    values = cached("card_values", str(path), filters.game)
    # split by rules version, a row is a card set (name and hash: stats carry rules_hash then), and
    # a measurement of another set under the same name is another card's value
    keys = ["card"] + [k for k in ("deck", "rules_version") if k in group_by] + (
        ["rules_hash"] if "rules_version" in group_by and "rules_hash" in stats.columns else [])
    if values.is_empty():
        return stats.with_columns(pl.lit(None, pl.Float64).alias(c) for c in ("value_points", "value_lo", "value_hi",
                                                                              "value_q")).with_columns(
            pl.lit(None, pl.Utf8).alias("value_by"))
    measured = values.with_columns(
        # the measured deck's (slot 0's) seat label, reports/cards.py SEAT_PILOTS_SQL: "greedy vs random"
        pl.when(pl.col("pilots").str.split(",").list.n_unique() == 1).then(pl.col("pilots").str.split(",").list.first())
        .otherwise(pl.col("pilots").str.split(",").list.first() + " vs "
                   + pl.col("pilots").str.split(",").list.slice(1).list.unique().list.sort().list.join("+"))
        .alias("_group"),
        (pl.col("pilots").str.split(",").list.eval(pl.element().is_in(list(filters.pilots))).list.all()
         if filters.pilots else pl.lit(True)).alias("_chosen"),
        pl.format("{} vs {}, {} ({})", "deck", "against", "pilots", "rules_version").alias("value_by"))
    split = "pilots" in group_by
    rows = keys + (["pilots"] if split else [])
    # the row's own pilots first (split by them), then the pilot filter's, then the newest
    candidates = stats.select(rows).unique().join(measured.drop("pilots"), on=keys, how="inner").with_columns(
        (pl.col("_group") == pl.col("pilots") if split else pl.lit(True)).alias("_same"))
    best = (candidates.sort("_same", "_chosen", "value_id", descending=True)
            .unique(rows, keep="first")
            .select(*rows, "value_points", "value_lo", "value_hi", pl.col("q_value").alias("value_q"), "value_by"))
    return stats.join(best, on=rows, how="left")


SKILL_COLUMNS = ("skill_premium", "skill_premium_lo", "skill_premium_hi", "skill_premium_q")
SKILL_HELP = ("skill premium: the card's OH excess (what it adds to its own deck) under the stronger pilot minus under "
              "the weaker, two runs of the same seeds, seats and decks (`workbench pilot-sensitivity`); the caption "
              "above the table names the runs and pilots. Positive: the card rewards better play")


@st.cache_data(max_entries=64, show_spinner=False)
def _skill_premium(path: str, state: tuple, run_id: int, decks: tuple[str, ...]) -> tuple[dict | None, pl.DataFrame]:
    """The strongest partner run and the premium, cached per store state (``state``: ``store_state``)."""
    partner = premium_partner(path, run_id)
    if partner is None:
        return None, pl.DataFrame()
    return partner, skill_premium(path, partner["base_run"], partner["strong_run"], list(decks))


register_queries(premium_hint=premium_hint)


def with_skill_premium(path, stats: pl.DataFrame, filters) -> tuple[pl.DataFrame, str]:
    """The skill premium beside each card when the store holds the selected run's matches under
    another pilot (the strongest such pilot), with the line that says which pilots it compares;
    otherwise the table unchanged and a one-line hint of the command that fills the column."""
    if len(filters.runs) != 1:
        return stats, "Skill premium: select a single run to compare it with the same matches under another pilot."
    run_id = filters.runs[0]
    partner, prem = _skill_premium(str(path), store_state(path), run_id, tuple(filters.decks))
    if partner is None:
        return stats, f"No skill premium column: {cached('premium_hint', str(path), run_id)}."
    paired = prem.filter(pl.col("premium").is_not_null())["paired"]
    how = ("paired over the twins (same match and seat)" if paired.len() and paired.all()
           else "paired where a card's twins share their opening hands, else unpaired")
    note = (f"Skill premium: each card's OH excess under {partner['strong_pilot']} (run {partner['strong_run']}) "
            f"minus under {partner['base_pilot']} (run {partner['base_run']}), the same seeds, seats and decks; "
            f"95% interval {how}, q Benjamini-Yekutieli across the cards.")
    cols = prem.select("card", pl.col("premium").alias("skill_premium"), pl.col("premium_lo").alias("skill_premium_lo"),
                       pl.col("premium_hi").alias("skill_premium_hi"), pl.col("premium_q").alias("skill_premium_q"))
    return stats.join(cols, on="card", how="left"), note


def shown_columns(view: View, groups: list[str], group_by: list[str]) -> list[str]:
    """The table's columns: the card's name first, its id last (names, not ids, are read)."""
    cols = ["name", "type", "faction_name", "cost"] + [SHOWN_GROUP.get(g, g) for g in group_by] + list(view.columns)
    for label in groups:
        if label in RATE_GROUPS:
            n, rate = RATE_GROUPS[label]
            cols += [c for c in (n, rate, f"{rate}_lo", f"{rate}_hi") if c not in cols]
        elif label == "IWD":
            cols += ["iwd", "iwd_lo", "iwd_hi"]
        elif label == "Avg turn played":
            cols.append("avg_turn_played")
    return cols + ["example_win", "example_loss", "faction", "card"]


def group_text(row: dict, group_by: list[str]) -> str:
    return " · ".join(f"{GROUP_LABELS[g]} {row[SHOWN_GROUP.get(g, g)]}" for g in group_by)


def row_label(row: dict, group_by: list[str]) -> str:
    group = group_text(row, group_by)
    return f"{row['name'] or row['card']}" + (f" · {group}" if group else "")


def ranking_chart(frame: pl.DataFrame, label_groups: list[str], view: View) -> go.Figure:
    """The view's value with its interval, best first; colour = significance (and the shrunken
    value where the view ranks by one)."""
    ranked = unique_names(frame).filter(pl.col(view.value).is_not_null())  # one label a card: "Kade (kade-2)"
    if ranked.height > CHART_ROWS:
        ranked = pl.concat([ranked.head(CHART_ROWS // 2), ranked.tail(CHART_ROWS // 2)])
    rows = ranked.to_dicts()
    center, k = view.center(ranked), 100.0  # shares shown as percentages or points
    value, lo, hi = view.value, f"{view.value}_lo", f"{view.value}_hi"

    def label(r: dict) -> str:
        return f"{row_label(r, label_groups)} (n={r[view.n]})"

    fig = go.Figure()
    for name, color, keep in (("significantly above", TOO_STRONG, lambda r: r[view.flag] and r[value] > center),
                              ("significantly below", TOO_WEAK, lambda r: r[view.flag] and r[value] <= center),
                              ("not significant (BH, FDR 5%)", NEUTRAL, lambda r: not r[view.flag])):
        part = [r for r in rows if keep(r)]
        if not part:
            continue
        fig.add_trace(go.Scatter(
            x=[r[value] * k for r in part], y=[label(r) for r in part], mode="markers", name=name,
            marker={"color": color, "size": 8},
            error_x={"type": "data", "symmetric": False, "array": [(r[hi] - r[value]) * k for r in part],
                     "arrayminus": [(r[value] - r[lo]) * k for r in part], "color": color},
            customdata=[[r[lo] * k, r[hi] * k, r[view.q]] for r in part],
            hovertemplate="%{y}<br>%{x:.1f} (95% CI %{customdata[0]:.1f} to %{customdata[1]:.1f})"
                          ", q = %{customdata[2]:.3g}<extra></extra>"))
    all_labels = [label(r) for r in rows]
    if view.shrunk:
        fig.add_trace(go.Scatter(x=[r[view.shrunk] * k for r in rows], y=all_labels, mode="markers",
                                 name="shrunk toward the mean (ranks)",
                                 marker={"symbol": "diamond-open", "size": 9, "color": "black"},
                                 hovertemplate="%{y}<br>shrunk %{x:.1f}%<extra></extra>"))
    fig.add_vline(x=center * k, line_dash="dot", line_color="gray",
                  annotation_text=f"{view.center_label} {center * k:.1f}", annotation_position="top")
    fig.update_layout(title=view.chart_title, xaxis_title=view.x_title, yaxis_title="",
                      height=max(420, 20 * len(rows) + 180),
                      yaxis={"categoryorder": "array", "categoryarray": all_labels[::-1], "automargin": True},
                      margin={"l": 10})
    return legend_on_top(fig)  # below the chart it covered the x-axis title


def turn_chart(card: str, name: str, frame: pl.DataFrame) -> go.Figure:
    """Win rate by the turn first played, a bar per rules version (card set: ``card_set``); each
    turn's sample sizes stand under the axis (``n=12``, one per version in the legend's order,
    ``·`` between them), where the error bars cannot hide them."""
    fig = go.Figure()
    versions = frame["card_set"].unique(maintain_order=True).to_list()
    for version, part in frame.group_by("card_set", maintain_order=True):
        fig.add_trace(go.Bar(
            x=part["turn"], y=part["win_rate"] * 100, name=str(version[0]), customdata=part["games"],
            error_y={"type": "data", "symmetric": False, "array": (part["win_rate_hi"] - part["win_rate"]) * 100,
                     "arrayminus": (part["win_rate"] - part["win_rate_lo"]) * 100},
            hovertemplate="turn %{x}: %{y:.1f}% won, n=%{customdata}<extra>%{fullData.name}</extra>"))
    games = {(r["turn"], r["card_set"]): r["games"] for r in frame.iter_rows(named=True)}
    turns = sorted(frame["turn"].unique().to_list())
    ticks = [f"{t}<br>n={' · '.join(str(games.get((t, v), 0)) for v in versions)}" for t in turns]
    fig.update_layout(title=f"{name}: win rate by the turn it was first played (95% Wilson interval)",
                      xaxis={"title": "Seat's own turn when first played", "tickvals": turns,
                             "ticktext": ticks},
                      yaxis_title="Win rate (%)", barmode="group", legend_title="rules version", height=400)
    return fig


def card_detail(path, filters, row: dict, group_by: list[str], label_groups: list[str]) -> None:
    """The selected card: what it is (cost, stats, keywords, text, decks), its headline numbers,
    replay buttons, win rate by turn first played, and the "Try a change" form."""
    name = row["name"] or row["card"]
    with st.container(border=True):
        st.subheader(row_label(row, label_groups))
        about = card_about(path, filters.runs, row["card"], row["rules_version"] if "rules_version" in group_by else None)
        c0, c1, c2, c3, c4 = st.columns(5)
        if row["oh_excess"] is not None:
            c0.metric("OH excess over its deck", f"{row['oh_excess'] * 100:+.1f} pts", help=METRICS["oh_excess"])
            c0.caption(f"95% CI {row['oh_excess_lo'] * 100:+.1f} to {row['oh_excess_hi'] * 100:+.1f} pts, "
                       f"q = {row['oh_excess_q']:.3g}" if row["oh_excess_q"] is not None else "not testable")
        if row["played_wr"] is not None:
            c1.metric("Played WR", f"{row['played_wr']:.1%}", help=METRICS["played_wr"])
            c1.caption(f"95% CI {row['played_wr_lo']:.1%} to {row['played_wr_hi']:.1%} (n = {row['played_games']:,})")
            c2.metric("Shrunk played WR", f"{row['played_wr_shrunk']:.1%}", help=METRICS["played_wr_shrunk"])
            c2.caption(f"z = {row['played_wr_z']:+.2f}, q = {row['played_wr_q']:.3g} against the pool"
                       + (" (significant)" if row["significant"] else " (not significant)"))
        if row["gih_wr"] is not None:
            c3.metric("GIH WR", f"{row['gih_wr']:.1%}", help=METRICS["gih_wr"])
            c3.caption(f"95% CI {row['gih_wr_lo']:.1%} to {row['gih_wr_hi']:.1%} (n = {row['gih_games']:,})")
        if row["iwd"] is not None:
            c4.metric("IWD", f"{row['iwd'] * 100:+.1f} pts", help=METRICS["iwd"])
            c4.caption(f"95% CI {row['iwd_lo'] * 100:+.1f} to {row['iwd_hi'] * 100:+.1f} pts")
        b1, b2, b3 = st.columns([1, 1, 2])
        main = row["example_win"] or row["example_loss"]
        replay_button("Replay an example match", main, "replay-card-main", primary=True, where=b1, focus=name,
                      note=f"{name}, played by the marked seat in a {'win' if row['example_win'] else 'loss'}")
        replay_button("Replay an example loss", row["example_loss"], "replay-card-loss", where=b2, focus=name,
                      note=f"{name}, played by the marked seat in a loss")
        if b3.button(f"Open {name}'s card page", key="open-card-page",
                     help="every run and rules version of the game: trend, decks, turns, seats, budget"):
            open_item(CARD, row["card"], "cards")
        played_by_turn(path, filters, row, group_by, name)
        if about is not None:
            change_section(path, about)


def played_by_turn(path, filters, row: dict, group_by: list[str], name: str,
                   scope: dict[str, str] | None = None) -> None:
    """Win rate by the turn the card was first played: chart and table (its CSV records ``scope``,
    as ``table_with_download`` takes it), over the games of the row's own group (its deck, run,
    pilots, card set), so its turns add up to the row's played n."""
    turns = cached("turn_played", str(path), filters, tuple(group_by))
    keys = [k for k in group_keys(tuple(group_by)) if k in row]
    mine = turns.filter(pl.col("card") == row["card"], *(pl.col(k) == row[k] for k in keys))
    if mine.is_empty():
        st.caption("Never played in these matches.")
        return
    st.plotly_chart(with_pilots_subtitle(turn_chart(row["card"], name, mine), pilots_of(path, filters)),
                    width="stretch")
    raw = mine
    config = {"turn": st.column_config.NumberColumn("turn first played", format="%d"),
              **win_rate_config("games where the card was first played on this turn", "won / games")}
    shown = with_replay_links(percent(raw, ["win_rate", "win_rate_lo", "win_rate_hi"]),
                              {"example_win": "example win", "example_loss": "example loss"}, config)
    table_with_download(shown, f"turn_played_{row['card']}", config, download=raw, scope=scope)


def picked_card(view: pl.DataFrame, picked: int | None) -> dict | None:
    """The row selected in the table (its card then stands in the URL, ``?card=ID``), else the
    first row of the card the URL names."""
    if picked is not None and picked < view.height:
        row = view.row(picked, named=True)
        st.query_params["card"] = row["card"]
        return row
    wanted = st.query_params.get("card")
    found = view.filter(pl.col("card") == wanted) if wanted else view.clear()
    return found.row(0, named=True) if found.height else None


# what the pilots line says of this page's figures (reports/pages/common.py pilots_line)
PLAY = ("Every win rate, excess and play figure on this page, chart and table, is a fact about these pilots' play "
        "(the card value and skill premium columns name the pilots of their own measurements).")


def caption(frame: pl.DataFrame, view: View) -> str:
    """How many cards, what ranks them and how many are significant in this view."""
    significant = int(frame[view.flag].sum())
    if view is WITHIN_DECK:
        text = (f"{frame.height} cards, ranked by what each adds to its own deck: its opening-hand win rate minus the "
                f"same deck's win rate without it in the opening hand, deck and seat held fixed; {significant} "
                f"significantly beyond their deck after Benjamini-Hochberg (FDR 5%). The shuffle deals the opening "
                f"hand, so this measures the card rather than its deck's strength or how long games lasted (the "
                f"pooled view, one click away, is ranked by shrunken played WR). In AlleyWay the opening hand is the "
                f"one kept after the chance to redraw: the pilot's keep decision reads the hand, so there it carries "
                f"the pilot's judgement as well as the shuffle.")
    else:
        text = (f"{frame.height} cards, ranked by shrunken played WR pooled over decks (a card seen in few games is "
                f"pulled toward the mean, so noise does not top the list); {significant} significantly off the pooled "
                f"played WR after Benjamini-Hochberg (FDR 5%). This carries deck strength and when cards get played: "
                f"every card of a strong deck, and cards played late in games that lasted, stand out.")
    return text + " Win rates count a draw as not won. Select a row to see the card and replay an example match."


@one_connection_per_render
def render() -> None:
    start = filtered_page("Cards", METRICS)
    if start is None:
        return
    path, filters = start
    search_box(path, filters.game, "cards", where=st.sidebar)
    group_by = st.sidebar.multiselect("Split by", list(GROUPS), default=["rules_version"],
                                      format_func=GROUP_LABELS.get,
                                      help="one row per card and per value of these; shrinkage, z and q are "
                                           "computed within each split. Pilots: " + PILOTS_HELP)
    stats = cached("card_metrics", str(path), filters, tuple(group_by))
    if stats.is_empty():
        st.info("No card rows in these matches yet.")
        return
    stats = with_card_value(path, stats, filters, group_by)
    stats, premium_note = with_skill_premium(path, stats, filters)
    view, _ = card_filters(stats)
    # games in hand or played (available_games): an AlleyWay leader or evolution is played without
    # ever being in hand, and a count of games in hand alone hid it at any minimum above 0
    min_games = st.sidebar.slider("Minimum games in hand or played", 0, int(max(1, stats["available_games"].max())), 0,
                                  help="hide cards seen (in hand or played) in fewer games than this")
    ranking = VIEWS[st.radio("Rank cards", list(VIEWS), horizontal=True, key="cards_view", help=VIEW_HELP)]
    view = view.filter(pl.col("available_games") >= min_games).sort(ranking.rank_by, descending=True, nulls_last=True)
    groups = st.multiselect("Columns", list(RATE_GROUPS) + list(EXTRA_GROUPS), default=DEFAULT_GROUPS,
                            help="which metric groups the table shows (each with its sample size and 95% interval); "
                                 "the CSV always holds them all")
    st.caption(pilots_line(path, filters, PLAY))
    note = None if "rules_version" in group_by else pooled_versions_note(path, filters, "These card figures")
    if note:  # split by rules version, each card set has its own rows
        st.warning(note + " Or split by rules version.")
    st.caption(caption(view, ranking))
    st.caption(premium_note)
    config = column_config(group_by)
    scaled = RATE_COLUMNS + ["played_wr_shrunk", "gih_wr_shrunk", "iwd", "iwd_lo", "iwd_hi", "oh_excess",
                             "oh_excess_lo", "oh_excess_hi", "not_oh_wr", "not_oh_wr_lo", "not_oh_wr_hi"]
    scaled += [c for c in SKILL_COLUMNS[:3] if c in view.columns]
    order = shown_columns(ranking, groups, group_by)
    if "skill_premium" in view.columns:
        at = order.index(ranking.columns[-1]) + 1
        order[at:at] = list(SKILL_COLUMNS)
    shown = with_replay_links(percent(view, scaled), {"example_win": "example win", "example_loss": "example loss"},
                              config)
    picked = table_with_download(shown, "card_stats", config, download=view, select_key="cards_table",
                                 column_order=order)
    label_groups = [g for g in group_by if view[SHOWN_GROUP.get(g, g)].n_unique() > 1]
    row = picked_card(view, picked)
    if row is not None:
        card_detail(path, filters, row, group_by, label_groups)
    else:
        st.caption("Select a card (the box at the left of its row) to see what it is, its win rate by turn played, "
                   "replay an example match and try a change to it; or click an example link to open its replay in "
                   "a new tab.")
    if view.filter(pl.col(ranking.value).is_not_null()).is_empty():  # an empty chart would say nothing
        st.info(ranking.missing if view.height else "No card is left by the sidebar filters.")
        return
    st.plotly_chart(with_pilots_subtitle(ranking_chart(view, label_groups, ranking), pilots_of(path, filters)),
                    width="stretch")
