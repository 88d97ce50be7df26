"""Cost curves page: stats against cost with the fitted stat budget line per card type (cards far
off it flagged), the decks' cost curves, and the win rate of games where a card of each cost was
played."""
from __future__ import annotations

import plotly.express as px
import plotly.graph_objects as go
import polars as pl
import streamlit as st

from cardsdb.budget import TOLERANCE
from reports.costs import OFF_BUDGET
from reports.pages.columns import unique_names
from reports.pages.common import (
    FACTION_COLUMN,
    FACTION_ID_COLUMN,
    cached,
    card_filters,
    count,
    example_buttons,
    filtered_page,
    one_connection_per_render,
    percent,
    pilots_line,
    pilots_note,
    pilots_of,
    table_with_download,
    win_rate_config,
    with_pilots_subtitle,
    with_replay_links,
)

HELP = {
    "cost": "the card's budget cost: the one number its game's cost curve uses",
    "stat points": "what the card gives, as its game counts it (its RULES.md explains the budget)",
    "budget points": "what the card's cost allows, by its game's budget",
    "surplus": "stat points minus budget points: above 0 the card gives more than its cost allows",
    "off budget": OFF_BUDGET,
    "budget line": "an ordinary least squares fit of stat points on cost, per rules version and card type: what the "
                   "designs actually charge",
    "residual z": "the card's studentized distance from its type's fitted line, for reading (not the off-budget "
                  "rule: with a close fit a card one point off is a large z)",
    "win rate when played": "win rate of the games (match seats) where a card of this cost was played, a seat "
                            "counted once however many such cards it played; per rules version; 95% Wilson interval",
    "rules version": "the rules version the cards were run under; name@hash where two runs' card data share one "
                     "name (the hash of the card data: a workspace's edited cards are not the shipped ones)",
}
COLORS = px.colors.qualitative.Plotly
LABELS_MAX = 10  # off-budget points named on the chart (the farthest first); the rest on hover
# a label beside its point, the points of one cost taking right and left in turn (by stat
# points), so the labels of a column of points part
LABEL_POSITIONS = ("middle right", "middle left")
LEGEND_RIGHT = {"orientation": "v", "yanchor": "top", "y": 1, "xanchor": "left", "x": 1.02}


def line_name(ctype: str, line: dict) -> str:
    """A type's budget line in the legend, or why it has none."""
    if line.get("note"):
        return f"{ctype}: {line['note']} (n={line['cards']})"
    return (f"{ctype} budget: {line['intercept']:+.1f} + {line['slope']:.2f} × cost (R² {line['r_squared']:.2f}, "
            f"n={line['cards']})")


def off_budget_points(off: pl.DataFrame) -> pl.DataFrame:
    """The off-budget cards one row per point of the chart (cost, stat points), farthest first,
    with the label it carries: a name, "name +N" where more share it; only the ``LABELS_MAX``
    farthest points are labelled."""
    points = (off.with_columns(pl.col("surplus").abs().alias("away"))
              .sort("away", "name", descending=[True, False])
              .group_by("budget_cost", "stat_points", maintain_order=True)
              .agg(pl.col("name"), pl.col("surplus").first(), pl.col("budget_points").first(), pl.col("away").max()))
    labels = [(names[0] + (f" +{len(names) - 1}" if len(names) > 1 else "")) if i < LABELS_MAX else ""
              for i, names in enumerate(points["name"])]
    side = (pl.col("stat_points").rank("ordinal").over("budget_cost") - 1) % len(LABEL_POSITIONS)
    return points.with_columns(pl.Series("label", labels), pl.col("name").list.join(", ").alias("names"),
                               side.map_elements(LABEL_POSITIONS.__getitem__, return_dtype=pl.Utf8).alias("position"))


def budget_chart(cards: pl.DataFrame, lines: pl.DataFrame) -> go.Figure:
    """One marker per (type, cost, stats) point, sized by how many cards share it, and each type's
    fitted line; off-budget cards drawn on top, the farthest named."""
    fig = go.Figure()
    types = sorted(cards["type"].unique().to_list())
    by_type = {r["type"]: r for r in lines.iter_rows(named=True)} if lines.height else {}
    for i, ctype in enumerate(types):
        color = COLORS[i % len(COLORS)]
        part = cards.filter(pl.col("type") == ctype)
        points = part.group_by("budget_cost", "stat_points").agg(pl.col("name").sort().alias("names"), pl.len().alias("n"))
        line = by_type.get(ctype)
        fig.add_trace(go.Scatter(
            x=points["budget_cost"], y=points["stat_points"], mode="markers", name=f"{ctype} cards",
            marker={"color": color, "size": [8 + 3 * n for n in points["n"]], "opacity": 0.6},
            customdata=[[n, ", ".join(names[:8]) + (" ..." if len(names) > 8 else "")]
                        for n, names in zip(points["n"], points["names"])],
            hovertemplate="cost %{x}, %{y} stat points: %{customdata[0]} card(s)<br>%{customdata[1]}<extra></extra>"))
        if line is None:
            continue
        if line["note"]:  # no line: say so in the legend instead of an R² of nan
            fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=line_name(ctype, line),
                                     line={"color": color, "dash": "dot"}, hoverinfo="skip"))
            continue
        xs = [float(part["budget_cost"].min()), float(part["budget_cost"].max())]
        fig.add_trace(go.Scatter(
            x=xs, y=[line["intercept"] + line["slope"] * x for x in xs], mode="lines",
            line={"color": color, "dash": "dash"}, name=line_name(ctype, line), hoverinfo="skip"))
    off = cards.filter(pl.col("off_budget"))
    if off.height:
        points = off_budget_points(off)
        fig.add_trace(go.Scatter(
            x=points["budget_cost"], y=points["stat_points"], mode="markers+text",
            name=f"off budget (more than {TOLERANCE:g} stat point from its budget)", text=points["label"],
            textposition=points["position"].to_list(),
            marker={"symbol": "x", "size": 12, "color": "#d62728"},
            customdata=points.select("names", "budget_points", "surplus").rows(),
            hovertemplate="%{customdata[0]}: cost %{x}, %{y} stat points (budget %{customdata[1]:g}, "
                          "%{customdata[2]:+.1f})<extra></extra>"))
    fig.update_layout(title="Stat points against cost, with the fitted budget line per card type",
                      xaxis_title="Budget cost", yaxis_title="Stat points", height=560, legend=LEGEND_RIGHT)
    return fig  # the legend beside the plot: below it, it covered the x-axis title


BUDGET_CONFIG = {
    "name": st.column_config.TextColumn("card", pinned=True, help="the card's name"),
    "card": st.column_config.TextColumn("card id", help="the card's stable id in the data files"),
    "type": st.column_config.TextColumn("type"), "faction_name": FACTION_COLUMN, "faction": FACTION_ID_COLUMN,
    "budget_cost": st.column_config.NumberColumn("cost", help=HELP["cost"], format="%g"),
    "stat_points": st.column_config.NumberColumn("stat points", help=HELP["stat points"], format="%g"),
    "budget_points": st.column_config.NumberColumn("budget points", help=HELP["budget points"], format="%g"),
    "surplus": st.column_config.NumberColumn("surplus", help=HELP["surplus"], format="%+.1f"),
    "off_budget": st.column_config.CheckboxColumn("off budget", help=HELP["off budget"]),
    "fitted_stats": st.column_config.NumberColumn("on the fitted line", help=HELP["budget line"], format="%.1f"),
    "residual_z": st.column_config.NumberColumn("distance from the line (z)", help=HELP["residual z"], format="%+.2f"),
    "attack": st.column_config.NumberColumn("attack", format="%g"),
    "defense": st.column_config.NumberColumn("defense", format="%g"),
}
BUDGET_ORDER = ["name", "type", "faction_name", "budget_cost", "stat_points", "budget_points", "surplus", "off_budget",
                "fitted_stats", "residual_z", "attack", "defense", "faction", "card"]


def budget_section(path, filters) -> tuple[float, float] | None:
    """The budget chart and tables; returns the cost range chosen in the sidebar (None: all)."""
    st.subheader("Stat budget")
    cards, lines = cached("stat_budget", str(path), filters)
    if cards.is_empty():
        st.info("No card in these rules versions has both a cost and stat points.")
        return None
    # one card set at a time: a version's name may hold two (name@hash), whose cards must not pool
    versions = sorted(cards["card_set"].unique().to_list())
    version = st.selectbox("Rules version", versions, help="the budget line is fitted per rules version and type; "
                           + HELP["rules version"], key="budget_version") if len(versions) > 1 else versions[0]
    cards = cards.filter(pl.col("card_set") == version)
    lines = lines.filter(pl.col("card_set") == version) if lines.height else lines
    view, cost_range = card_filters(cards.rename({"budget_cost": "cost"}))
    view = view.rename({"cost": "budget_cost"})
    off = view.filter(pl.col("off_budget"))
    st.caption(budget_caption(view.height, off.height, version))
    st.plotly_chart(budget_chart(unique_names(view), lines.filter(pl.col("type").is_in(view["type"].unique().to_list()))
                                 if lines.height else lines), width="stretch")
    st.markdown("**Cards off budget**" if off.height else "**No card is off budget.**")
    if off.height:
        table_with_download(off.sort(pl.col("surplus").abs(), "name", descending=[True, False]), "off_budget_cards",
                            BUDGET_CONFIG, column_order=BUDGET_ORDER, played=False)
    with st.expander("Every card against its budget"):
        table_with_download(view.sort("type", "budget_cost", "name"), "card_budget", BUDGET_CONFIG,
                            column_order=BUDGET_ORDER, played=False)
    if lines.height:
        st.markdown("**Budget lines**")
        table_with_download(lines, "budget_lines", {
            "type": st.column_config.TextColumn("card type"),
            "intercept": st.column_config.NumberColumn("intercept", format="%+.2f", help=HELP["budget line"]),
            "slope": st.column_config.NumberColumn("stat points per cost", format="%.2f", help=HELP["budget line"]),
            "r_squared": st.column_config.NumberColumn("R²", format="%.2f", help="how well the line fits"),
            "cards": count("cards", "cards of the type the line is fitted over"),
            "note": st.column_config.TextColumn("no line because", help="why a type has no fitted line")},
            column_order=["type", "cards", "intercept", "slope", "r_squared", "note"], played=False)
    return cost_range


def budget_caption(cards: int, off: int, version: str) -> str:
    """``version``: the card set's label (``card_set``, name@hash where two share the name)."""
    return (f"{cards} cards of {version}; {off} off budget: {OFF_BUDGET}. A bubble's size "
            "is how many cards share that cost and stat points: hover it for their names. Only off-budget cards are "
            f"named on the chart (the {LABELS_MAX} farthest; hover the others). The dashed lines are what the designs "
            "actually charge, fitted per card type.")


def costing(cost_range: tuple[float, float]) -> str:
    """The Cost filter in words: "costing 3", "costing 2 to 5"."""
    lo, hi = cost_range
    return f"costing {lo:g}" if lo == hi else f"costing {lo:g} to {hi:g}"


def curves_section(path, filters, cost_range, scope: dict[str, str] | None = None) -> None:
    """Deck cost curves: chart and table (its CSV records ``scope``, as ``table_with_download`` takes it)."""
    st.subheader("Deck cost curves")
    curves = cached("deck_curves", str(path), filters)
    if curves.is_empty():
        st.info("No deck lists in these matches.")
        return
    several = curves["card_set"].n_unique() > 1
    curves = curves.with_columns((pl.col("deck") + (" · " + pl.col("card_set") if several else pl.lit("")))
                                 .alias("deck_version"))
    if cost_range:
        curves = curves.filter(pl.col("cost").is_between(*cost_range))
        if curves.is_empty():
            st.info(f"No deck in these matches holds a card {costing(cost_range)}: widen the Cost filter in the "
                    "sidebar.")
            return
    fig = px.bar(curves.to_pandas(), x="cost", y="cards", color="deck_version", barmode="group", text="cards",
                 labels={"cost": "Budget cost", "cards": "Cards in the deck", "deck_version": "Deck"},
                 title="How many cards of each cost each deck runs")
    fig.update_layout(height=380)
    st.plotly_chart(fig, width="stretch")
    table_with_download(curves.drop("deck_version"), "deck_curves",
                        {"cost": st.column_config.NumberColumn("cost", help=HELP["cost"]),
                         "cards": count("cards", "copies of cards of this cost in the deck list"),
                         "card_set": st.column_config.TextColumn("rules version", help=HELP["rules version"])},
                        scope=scope, played=False, column_order=CURVE_ORDER)


CURVE_ORDER = ["card_set", "deck", "cost", "cards"]


def win_rate_section(path, filters, cost_range) -> None:
    st.subheader("Win rate when played, by cost")
    wr = cached("win_rate_by_cost", str(path), filters)
    if wr.is_empty():
        st.info("No card was played in these matches.")
        return
    raw = wr.sort("card_set", "cost")
    if cost_range:
        raw = raw.filter(pl.col("cost").is_between(*cost_range))
        if raw.is_empty():
            st.info(f"No card {costing(cost_range)} was played in these matches: widen the Cost filter in the "
                    "sidebar.")
            return
    sets = raw["card_set"].unique(maintain_order=True).to_list()
    fig = go.Figure([cost_bars(raw.filter(pl.col("card_set") == name), name) for name in sets])
    several = len(sets) > 1
    st.caption(f"The seats that played a card of each cost ({pilots_note(path, filters)}), each match seat counted "
               "once per cost however many cards of that cost it played: their win rate, with its 95% Wilson interval"
               + (", one bar per rules version (a cost's cards differ from one to another)." if several else "."))
    fig.add_hline(y=50, line_dash="dot", line_color="gray")
    fig.update_layout(title="Win rate of games where a card of each cost was played (95% Wilson interval)",
                      xaxis_title="Budget cost of the card played", yaxis_title="Win rate (%)", height=400,
                      barmode="group", showlegend=several, legend_title="rules version")
    st.plotly_chart(with_pilots_subtitle(fig, pilots_of(path, filters)), width="stretch")
    config = {"cost": st.column_config.NumberColumn("cost", help=HELP["cost"]),
              "card_set": st.column_config.TextColumn("rules version", help=HELP["rules version"]),
              **win_rate_config("match seats that played a card of this cost", HELP["win rate when played"])}
    shown = with_replay_links(percent(raw, ["win_rate", "win_rate_lo", "win_rate_hi"]),
                              {"example_win": "example win", "example_loss": "example loss"}, config)
    order = ([] if not several else ["card_set"]) + [c for c in shown.columns if c not in HIDDEN + ("card_set",)]
    picked = table_with_download(shown, "win_rate_by_cost", config, download=raw, select_key="cost_table",
                                 column_order=order)
    row = raw.row(picked, named=True) if picked is not None else None
    example_buttons(row, {"example_win": "Replay a win", "example_loss": "Replay a loss"}, "cost",
                    f"a card of cost {row['cost']:g} played" + (f" ({row['card_set']})" if several else "")
                    if row else "")


# the win rate table's columns for the CSV only (the rules version shows as ``card_set``)
HIDDEN = ("game", "rules_version", "rules_hash")


def cost_bars(part: pl.DataFrame, name: str) -> go.Bar:
    """One card set's win rate by cost, with its Wilson interval and sample sizes."""
    return go.Bar(
        x=part["cost"], y=part["win_rate"] * 100, name=name, text=[f"n={n:,}" for n in part["games"]],
        textposition="inside", insidetextanchor="start", textfont={"color": "white"},
        error_y={"type": "data", "symmetric": False, "array": (part["win_rate_hi"] - part["win_rate"]) * 100,
                 "arrayminus": (part["win_rate"] - part["win_rate_lo"]) * 100},
        customdata=(part.select("win_rate_lo", "win_rate_hi") * 100).rows(),
        hovertemplate="cost %{x}: %{y:.1f}% won (95% CI %{customdata[0]:.1f} to %{customdata[1]:.1f}), %{text}"
                      "<extra>%{fullData.name}</extra>")


# what the pilots line says of this page's figures (reports/pages/common.py pilots_line)
PLAY = ("The win rates by cost are facts about these pilots' play; the stat budget and the decks' cost curves are the "
        "cards' and decks' own (no play).")


@one_connection_per_render
def render() -> None:
    start = filtered_page("Cost curves", HELP)
    if start is None:
        return
    path, filters = start
    st.caption(pilots_line(path, filters, PLAY))
    cost_range = budget_section(path, filters)
    curves_section(path, filters, cost_range)
    win_rate_section(path, filters, cost_range)
