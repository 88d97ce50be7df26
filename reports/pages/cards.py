"""Cards page: per card games, GIH WR and played WR with 95% Wilson intervals, sortable, CSV."""
from __future__ import annotations

import polars as pl
import streamlit as st

from reports.cards import METRICS
from reports.pages.common import cached, page_start, rate_bars, table_with_download


def render() -> None:
    start = page_start("Cards")
    if start is None:
        return
    path, _runs, run_ids = start
    if not run_ids:
        st.info("Pick at least one run in the sidebar.")
        return
    with st.sidebar.expander("What the columns mean"):
        for name, text in METRICS.items():
            st.markdown(f"**{name}**: {text}")
    stats = cached("card_stats", str(path), run_ids)
    if stats.is_empty():
        st.info("No card rows in these runs yet.")
        return
    factions = sorted(x for x in stats["faction"].unique().to_list() if x)
    chosen = st.sidebar.multiselect("Faction", factions, default=factions)
    min_games = st.sidebar.slider("Minimum games in hand", 0, int(max(1, stats["gih_games"].max())), 0,
                                  help="hide cards seen in fewer games than this")
    view = stats.filter((pl.col("faction").is_in(chosen) | pl.col("faction").is_null())
                        & (pl.col("gih_games") >= min_games))
    st.caption(f"{view.height} cards; win rates count a draw as not won.")
    columns = ["card", "name", "faction", "type", "cost", "games", "gih_games", "gih_wr", "gih_wr_lo",
               "gih_wr_hi", "played_games", "played_wr", "played_wr_lo", "played_wr_hi", "avg_turn_played"]
    pct = "%.1f%%"
    table = view.select(columns).with_columns(
        [(pl.col(c) * 100).round(1) for c in columns if c.endswith(("_wr", "_lo", "_hi"))])
    config = {
        "games": st.column_config.NumberColumn("games", help=METRICS["games"]),
        "gih_games": st.column_config.NumberColumn("GIH games", help=METRICS["gih_games"]),
        "gih_wr": st.column_config.NumberColumn("GIH WR", help=METRICS["gih_wr"], format=pct),
        "gih_wr_lo": st.column_config.NumberColumn("GIH lo", help="95% Wilson lower bound", format=pct),
        "gih_wr_hi": st.column_config.NumberColumn("GIH hi", help="95% Wilson upper bound", format=pct),
        "played_games": st.column_config.NumberColumn("played games", help=METRICS["played_games"]),
        "played_wr": st.column_config.NumberColumn("Played WR", help=METRICS["played_wr"], format=pct),
        "played_wr_lo": st.column_config.NumberColumn("Played lo", help="95% Wilson lower bound", format=pct),
        "played_wr_hi": st.column_config.NumberColumn("Played hi", help="95% Wilson upper bound", format=pct),
        "avg_turn_played": st.column_config.NumberColumn("avg turn played", help=METRICS["avg_turn_played"],
                                                         format="%.1f"),
    }
    chart = view.filter(pl.col("played_games") > 0).sort("played_wr")
    labels = [f"{name} (n={n})" for name, n in zip(chart["name"], chart["played_games"])]
    fig = rate_bars(chart["played_wr"], (chart["played_wr_lo"], chart["played_wr_hi"]), labels,
                    "%{y}: %{x:.1f}% played win rate<extra></extra>", "Played WR (%)",
                    max(400, 18 * chart.height), title="Played win rate with 95% interval")
    st.plotly_chart(fig, width="stretch")
    st.subheader("Card table")
    table_with_download(table, "card_stats", config, download=view)
