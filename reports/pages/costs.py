"""Cost curves page: stats against cost with the fitted stat budget line per card type (cards far
off it flagged), the decks' cost curves, and the win rate of games where a card of each cost was
played."""
from __future__ import annotations

import plotly.express as px
import plotly.graph_objects as go
import polars as pl
import streamlit as st

from reports.costs import OUTLIER_Z
from reports.pages.common import (
    cached,
    card_filters,
    count,
    example_buttons,
    filtered_page,
    percent,
    table_with_download,
    win_rate_config,
    with_replay_links,
)

HELP = {
    "cost": "the card's budget cost: the one number its game's cost curve uses",
    "stat points": "what the card gives, as its game counts it (its RULES.md explains the budget)",
    "budget line": "an ordinary least squares fit of stat points on cost, per rules version and card type",
    "residual z": "the card's studentized distance from its type's budget line; beyond ±2 it is flagged off-budget",
    "win rate when played": "win rate of games where a card of this cost was played (one count per match, seat "
                            "and card), with its 95% Wilson interval",
}
COLORS = px.colors.qualitative.Plotly


def budget_chart(cards: pl.DataFrame, lines: pl.DataFrame) -> go.Figure:
    """One marker per (type, cost, stats) point, sized by how many cards share it; off-budget cards
    drawn on top with their names."""
    fig = go.Figure()
    types = sorted(cards["type"].unique().to_list())
    for i, ctype in enumerate(types):
        color = COLORS[i % len(COLORS)]
        part = cards.filter(pl.col("type") == ctype)
        points = part.group_by("budget_cost", "stat_points").agg(pl.col("name").sort().alias("names"), pl.len().alias("n"))
        fig.add_trace(go.Scatter(
            x=points["budget_cost"], y=points["stat_points"], mode="markers", name=f"{ctype} cards",
            marker={"color": color, "size": [8 + 3 * n for n in points["n"]], "opacity": 0.6},
            customdata=[[n, ", ".join(names[:8]) + (" ..." if len(names) > 8 else "")]
                        for n, names in zip(points["n"], points["names"])],
            hovertemplate="cost %{x}, %{y} stat points: %{customdata[0]} card(s)<br>%{customdata[1]}<extra></extra>"))
        line = lines.filter(pl.col("type") == ctype) if lines.height else lines
        if line.height:
            ln = line.row(0, named=True)
            xs = [float(part["budget_cost"].min()), float(part["budget_cost"].max())]
            fig.add_trace(go.Scatter(
                x=xs, y=[ln["intercept"] + ln["slope"] * x for x in xs], mode="lines", line={"color": color, "dash": "dash"},
                name=f"{ctype} budget: {ln['intercept']:+.1f} + {ln['slope']:.2f} × cost (R² {ln['r_squared']:.2f}, "
                     f"n={ln['cards']})", hoverinfo="skip"))
    off = cards.filter(pl.col("off_budget"))
    if off.height:
        fig.add_trace(go.Scatter(
            x=off["budget_cost"], y=off["stat_points"], mode="markers+text", name=f"off budget (|z| > {OUTLIER_Z:g})",
            text=off["name"], textposition="top center", marker={"symbol": "x", "size": 12, "color": "#d62728"},
            customdata=off.select("fitted_stats", "residual_z").rows(),
            hovertemplate="%{text}: cost %{x}, %{y} stat points (line %{customdata[0]:.1f}, "
                          "z %{customdata[1]:+.1f})<extra></extra>"))
    fig.update_layout(title="Stat points against cost, with the fitted budget line per card type",
                      xaxis_title="Budget cost", yaxis_title="Stat points", height=480,
                      legend={"orientation": "h", "y": -0.2})
    return fig


def budget_section(path, filters) -> tuple[float, float] | None:
    """The budget chart and tables; returns the cost range chosen in the sidebar (None: all)."""
    st.subheader("Stat budget")
    cards, lines = cached("stat_budget", str(path), filters)
    if cards.is_empty():
        st.info("No card in these rules versions has both a cost and stat points.")
        return None
    versions = sorted(cards["rules_version"].unique().to_list())
    version = st.selectbox("Rules version", versions, help="the budget line is fitted per rules version and type",
                           key="budget_version") if len(versions) > 1 else versions[0]
    cards = cards.filter(pl.col("rules_version") == version)
    lines = lines.filter(pl.col("rules_version") == version) if lines.height else lines
    view, cost_range = card_filters(cards.rename({"budget_cost": "cost"}))
    view = view.rename({"cost": "budget_cost"})
    off = view.filter(pl.col("off_budget"))
    st.caption(f"{view.height} cards of {version}; {off.height} off their type's budget line (studentized residual "
               f"beyond ±{OUTLIER_Z:g}). Hover a point for the cards on it.")
    st.plotly_chart(budget_chart(view, lines.filter(pl.col("type").is_in(view["type"].unique().to_list()))
                                 if lines.height else lines), width="stretch")
    config = {"card": st.column_config.TextColumn("card id", pinned=True), "name": st.column_config.TextColumn("name", pinned=True),
              "budget_cost": st.column_config.NumberColumn("cost", help=HELP["cost"]),
              "stat_points": st.column_config.NumberColumn("stat points", help=HELP["stat points"]),
              "budget_points": st.column_config.NumberColumn("budget points", help="what the card's cost allows, by its game's budget"),
              "fitted_stats": st.column_config.NumberColumn("on the line", help=HELP["budget line"], format="%.1f"),
              "residual_z": st.column_config.NumberColumn("residual z", help=HELP["residual z"], format="%+.2f"),
              "off_budget": st.column_config.CheckboxColumn("off budget", help=HELP["residual z"])}
    st.markdown("**Cards off the budget line**" if off.height else "**No card is off its budget line.**")
    if off.height:
        table_with_download(off.sort(pl.col("residual_z").abs(), descending=True), "off_budget_cards", config)
    with st.expander("Every card against its budget line"):
        table_with_download(view.sort("type", "budget_cost", "card"), "card_budget", config)
    if lines.height:
        st.markdown("**Budget lines**")
        table_with_download(lines, "budget_lines", {
            "intercept": st.column_config.NumberColumn("intercept", format="%.2f", help=HELP["budget line"]),
            "slope": st.column_config.NumberColumn("stat points per cost", format="%.2f", help=HELP["budget line"]),
            "r_squared": st.column_config.NumberColumn("R²", format="%.2f", help="how well the line fits"),
            "cards": count("cards", "cards of the type the line is fitted over")})
    return cost_range


def curves_section(path, filters, cost_range) -> None:
    st.subheader("Deck cost curves")
    curves = cached("deck_curves", str(path), filters)
    if curves.is_empty():
        st.info("No deck lists in these matches.")
        return
    several = curves["rules_version"].n_unique() > 1
    curves = curves.with_columns((pl.col("deck") + (" · " + pl.col("rules_version") if several else pl.lit("")))
                                 .alias("deck_version"))
    if cost_range:
        curves = curves.filter(pl.col("cost").is_between(*cost_range))
    fig = px.bar(curves.to_pandas(), x="cost", y="cards", color="deck_version", barmode="group", text="cards",
                 labels={"cost": "Budget cost", "cards": "Cards in the deck", "deck_version": "Deck"},
                 title="How many cards of each cost each deck runs")
    fig.update_layout(height=380)
    st.plotly_chart(fig, width="stretch")
    table_with_download(curves.drop("deck_version"), "deck_curves",
                        {"cost": st.column_config.NumberColumn("cost", help=HELP["cost"]),
                         "cards": count("cards", "copies of cards of this cost in the deck list")})


def win_rate_section(path, filters, cost_range) -> None:
    st.subheader("Win rate when played, by cost")
    wr = cached("win_rate_by_cost", str(path), filters)
    if wr.is_empty():
        st.info("No card was played in these matches.")
        return
    raw = wr.sort("cost")
    if cost_range:
        raw = raw.filter(pl.col("cost").is_between(*cost_range))
    fig = go.Figure(go.Bar(
        x=raw["cost"], y=raw["win_rate"] * 100, text=[f"n={n:,}" for n in raw["games"]], textposition="inside",
        insidetextanchor="start", textfont={"color": "white"},
        error_y={"type": "data", "symmetric": False, "array": (raw["win_rate_hi"] - raw["win_rate"]) * 100,
                 "arrayminus": (raw["win_rate"] - raw["win_rate_lo"]) * 100},
        customdata=(raw.select("win_rate_lo", "win_rate_hi") * 100).rows(),
        hovertemplate="cost %{x}: %{y:.1f}% won (95% CI %{customdata[0]:.1f} to %{customdata[1]:.1f}), %{text}"
                      "<extra></extra>"))
    fig.add_hline(y=50, line_dash="dot", line_color="gray")
    fig.update_layout(title="Win rate of games where a card of each cost was played (95% Wilson interval)",
                      xaxis_title="Budget cost of the card played", yaxis_title="Win rate (%)", height=400)
    st.plotly_chart(fig, width="stretch")
    config = {"cost": st.column_config.NumberColumn("cost", help=HELP["cost"]),
              **win_rate_config("match seats x cards of this cost played", HELP["win rate when played"])}
    shown = with_replay_links(percent(raw, ["win_rate", "win_rate_lo", "win_rate_hi"]),
                              {"example_win": "example win", "example_loss": "example loss"}, config)
    picked = table_with_download(shown, "win_rate_by_cost", config, download=raw, select_key="cost_table")
    row = raw.row(picked, named=True) if picked is not None else None
    example_buttons(row, {"example_win": "Replay a win", "example_loss": "Replay a loss"}, "cost",
                    f"a card of cost {row['cost']:g} played" if row else "")


def render() -> None:
    start = filtered_page("Cost curves", HELP)
    if start is None:
        return
    path, filters = start
    cost_range = budget_section(path, filters)
    curves_section(path, filters, cost_range)
    win_rate_section(path, filters, cost_range)
