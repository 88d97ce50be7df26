"""Cards page: every metric of ``card_metrics`` per card (GP/OH/GD/GIH/GNS WR, IWD, played WR,
play rate, dead %, average turn played, each with its sample size and 95% interval), ranked by
the shrunken played WR, significance after Benjamini-Hochberg; select a card to see its win rate
by the turn it was first played and to replay an example match."""
from __future__ import annotations

import plotly.graph_objects as go
import polars as pl
import streamlit as st

from reports.cards import GROUPS, METRICS
from reports.pages.common import (card_filters, cached, count, filtered_page, pct, percent, pts, replay_button,
                                  table_with_download, win_rate_config, with_replay_links)

# metric groups a designer can show or hide: label -> (sample size column, rate column)
RATE_GROUPS = {
    "Played WR": ("played_games", "played_wr"), "GIH WR": ("gih_games", "gih_wr"), "GP WR": ("games", "gp_wr"),
    "OH WR": ("oh_games", "oh_wr"), "GD WR": ("gd_games", "gd_wr"), "GNS WR": ("gns_games", "gns_wr"),
    "Play rate": ("gih_games", "play_rate"), "Dead %": ("gih_games", "dead_pct"),
}
EXTRA_GROUPS = ("IWD", "Avg turn played")
DEFAULT_GROUPS = ["Played WR", "GIH WR", "IWD", "GP WR", "Play rate", "Dead %", "Avg turn played"]
GROUP_LABELS = {"rules_version": "rules version", "run_id": "run", "deck": "deck", "pilot": "pilot"}
COUNT_LABELS = {"games": "GP n", "oh_games": "OH n", "gd_games": "GD n", "gih_games": "GIH n", "gns_games": "GNS n",
                "played_games": "played n"}
RATE_COLUMNS = [c for _, r in RATE_GROUPS.values() for c in (r, f"{r}_lo", f"{r}_hi")]
CHART_ROWS = 60
TOO_STRONG, TOO_WEAK, NEUTRAL = "#d62728", "#1f77b4", "#7f7f7f"


def column_config(group_by: list[str]) -> dict:
    config = {
        "card": st.column_config.TextColumn("card id", help="the card's stable id", pinned=True),
        "name": st.column_config.TextColumn("name", pinned=True), "type": "type",
        "faction": st.column_config.TextColumn("faction / clan"),
        "cost": st.column_config.NumberColumn("cost", help="budget cost: the one number the cost curve uses"),
        "played_wr_shrunk": pct("Played WR shrunk", METRICS["played_wr_shrunk"]),
        "gih_wr_shrunk": pct("GIH WR shrunk", METRICS["gih_wr_shrunk"]),
        "played_wr_z": st.column_config.NumberColumn("z", help=METRICS["played_wr_z"], format="%+.2f"),
        "played_wr_p": st.column_config.NumberColumn("p", help=METRICS["played_wr_p"], format="%.3g"),
        "played_wr_q": st.column_config.NumberColumn("q (BH)", help=METRICS["played_wr_q"], format="%.3g"),
        "significant": st.column_config.CheckboxColumn("significant", help=METRICS["significant"]),
        "iwd": pts("IWD", METRICS["iwd"]), "iwd_lo": pts("IWD lo", "95% Newcombe lower bound of IWD"),
        "iwd_hi": pts("IWD hi", "95% Newcombe upper bound of IWD"),
        "avg_turn_played": st.column_config.NumberColumn("avg turn played", help=METRICS["avg_turn_played"],
                                                         format="%.1f"),
        "run_id": st.column_config.NumberColumn("run", format="%d"),
        "rules_version": "rules version",
    }
    for column, label in COUNT_LABELS.items():
        config[column] = count(label, METRICS.get(column, ""))
    for label, (_, rate) in RATE_GROUPS.items():
        config[rate] = pct(label, METRICS[rate])
        config[f"{rate}_lo"] = pct(f"{label} lo", f"95% Wilson lower bound of {label}")
        config[f"{rate}_hi"] = pct(f"{label} hi", f"95% Wilson upper bound of {label}")
    return config


def shown_columns(groups: list[str], group_by: list[str]) -> list[str]:
    cols = ["card", "name", "type", "faction", "cost"] + [g for g in group_by] + [
        "played_wr_shrunk", "played_wr_z", "played_wr_q", "significant"]
    for label in groups:
        if label in RATE_GROUPS:
            n, rate = RATE_GROUPS[label]
            cols += [c for c in (n, rate, f"{rate}_lo", f"{rate}_hi") if c not in cols]
        elif label == "IWD":
            cols += ["iwd", "iwd_lo", "iwd_hi"]
        elif label == "Avg turn played":
            cols.append("avg_turn_played")
    return cols + ["example_win", "example_loss"]


def group_text(row: dict, group_by: list[str]) -> str:
    return " · ".join(f"{GROUP_LABELS[g]} {row[g]}" for g in group_by)


def row_label(row: dict, group_by: list[str]) -> str:
    group = group_text(row, group_by)
    return f"{row['name'] or row['card']}" + (f" · {group}" if group else "")


def ranking_chart(view: pl.DataFrame, label_groups: list[str]) -> go.Figure:
    """Played WR with its Wilson interval and the shrunken value, best first; colour = significance."""
    ranked = view.filter(pl.col("played_games") > 0)
    if ranked.height > CHART_ROWS:
        ranked = pl.concat([ranked.head(CHART_ROWS // 2), ranked.tail(CHART_ROWS // 2)])
    rows = ranked.to_dicts()
    pooled = float(ranked["played_won"].sum() / max(1, ranked["played_games"].sum()))
    fig = go.Figure()
    for name, color, keep in (("significantly above the mean", TOO_STRONG, lambda r: r["significant"] and r["played_wr"] > pooled),
                              ("significantly below the mean", TOO_WEAK, lambda r: r["significant"] and r["played_wr"] <= pooled),
                              ("not significant (BH, FDR 5%)", NEUTRAL, lambda r: not r["significant"])):
        part = [r for r in rows if keep(r)]
        if not part:
            continue
        labels = [f"{row_label(r, label_groups)} (n={r['played_games']})" for r in part]
        fig.add_trace(go.Scatter(
            x=[r["played_wr"] * 100 for r in part], y=labels, mode="markers", name=name, marker={"color": color, "size": 8},
            error_x={"type": "data", "symmetric": False, "array": [(r["played_wr_hi"] - r["played_wr"]) * 100 for r in part],
                     "arrayminus": [(r["played_wr"] - r["played_wr_lo"]) * 100 for r in part], "color": color},
            customdata=[[r["played_wr_lo"] * 100, r["played_wr_hi"] * 100, r["played_wr_shrunk"] * 100, r["played_wr_q"]]
                        for r in part],
            hovertemplate="%{y}<br>played WR %{x:.1f}% (95% CI %{customdata[0]:.1f} to %{customdata[1]:.1f})"
                          "<br>shrunk %{customdata[2]:.1f}%, q = %{customdata[3]:.3g}<extra></extra>"))
    all_labels = [f"{row_label(r, label_groups)} (n={r['played_games']})" for r in rows]
    fig.add_trace(go.Scatter(x=[r["played_wr_shrunk"] * 100 for r in rows], y=all_labels, mode="markers",
                             name="shrunk toward the mean (ranks)", marker={"symbol": "diamond-open", "size": 9, "color": "black"},
                             hovertemplate="%{y}<br>shrunk played WR %{x:.1f}%<extra></extra>"))
    fig.add_vline(x=pooled * 100, line_dash="dot", line_color="gray",
                  annotation_text=f"mean {pooled:.1%}", annotation_position="top")
    fig.update_layout(title="Played win rate by card (95% Wilson interval), ranked by the shrunken value",
                      xaxis_title="Played win rate (%)", yaxis_title="", height=max(420, 20 * len(rows) + 140),
                      yaxis={"categoryorder": "array", "categoryarray": all_labels[::-1]},
                      legend={"orientation": "h", "y": -0.08 if len(rows) > 20 else -0.2}, margin={"l": 10, "t": 60})
    return fig


def turn_chart(card: str, name: str, frame: pl.DataFrame) -> go.Figure:
    fig = go.Figure()
    for version, part in frame.group_by("rules_version", maintain_order=True):
        fig.add_trace(go.Bar(
            x=part["turn"], y=part["win_rate"] * 100, name=str(version[0]), text=[f"n={n}" for n in part["games"]],
            error_y={"type": "data", "symmetric": False, "array": (part["win_rate_hi"] - part["win_rate"]) * 100,
                     "arrayminus": (part["win_rate"] - part["win_rate_lo"]) * 100},
            hovertemplate="turn %{x}: %{y:.1f}% won, %{text}<extra>%{fullData.name}</extra>"))
    fig.update_layout(title=f"{name}: win rate by the turn it was first played (95% Wilson interval)",
                      xaxis_title="Seat's own turn when first played", yaxis_title="Win rate (%)", barmode="group",
                      legend_title="rules version", height=380)
    return fig


def card_detail(path, filters, row: dict, group_by: list[str], label_groups: list[str]) -> None:
    """The selected card: its headline numbers, replay buttons, win rate by turn first played."""
    name = row["name"] or row["card"]
    with st.container(border=True):
        st.subheader(row_label(row, label_groups))
        c1, c2, c3, c4 = st.columns(4)
        if row["played_wr"] is not None:
            c1.metric("Played WR", f"{row['played_wr']:.1%}", help=METRICS["played_wr"])
            c1.caption(f"95% CI {row['played_wr_lo']:.1%} to {row['played_wr_hi']:.1%} (n = {row['played_games']:,})")
            c2.metric("Shrunk played WR", f"{row['played_wr_shrunk']:.1%}", help=METRICS["played_wr_shrunk"])
            c2.caption(f"z = {row['played_wr_z']:+.2f}, q = {row['played_wr_q']:.3g}"
                       + (" (significant)" if row["significant"] else " (not significant)"))
        if row["gih_wr"] is not None:
            c3.metric("GIH WR", f"{row['gih_wr']:.1%}", help=METRICS["gih_wr"])
            c3.caption(f"95% CI {row['gih_wr_lo']:.1%} to {row['gih_wr_hi']:.1%} (n = {row['gih_games']:,})")
        if row["iwd"] is not None:
            c4.metric("IWD", f"{row['iwd'] * 100:+.1f} pts", help=METRICS["iwd"])
            c4.caption(f"95% CI {row['iwd_lo'] * 100:+.1f} to {row['iwd_hi'] * 100:+.1f} pts")
        b1, b2, _ = st.columns([1, 1, 2])
        main = row["example_win"] or row["example_loss"]
        replay_button("Replay an example match", main, "replay-card-main", primary=True, where=b1, focus=name,
                      note=f"{name}, played by the marked seat in a {'win' if row['example_win'] else 'loss'}")
        replay_button("Replay an example loss", row["example_loss"], "replay-card-loss", where=b2, focus=name,
                      note=f"{name}, played by the marked seat in a loss")
        turns = cached("turn_played", str(path), filters)
        mine = turns.filter(pl.col("card") == row["card"])
        if "rules_version" in group_by:
            mine = mine.filter(pl.col("rules_version") == row["rules_version"])
        if mine.is_empty():
            st.caption("Never played in these matches.")
            return
        st.plotly_chart(turn_chart(row["card"], name, mine), width="stretch")
        raw = mine
        config = {"turn": st.column_config.NumberColumn("turn first played", format="%d"),
                  **win_rate_config("games where the card was first played on this turn", "won / games")}
        shown = with_replay_links(percent(raw, ["win_rate", "win_rate_lo", "win_rate_hi"]),
                                  {"example_win": "example win", "example_loss": "example loss"}, config)
        table_with_download(shown, f"turn_played_{row['card']}", config, download=raw)


def render() -> None:
    start = filtered_page("Cards", METRICS)
    if start is None:
        return
    path, filters = start
    group_by = st.sidebar.multiselect("Split by", list(GROUPS), default=["rules_version"],
                                      format_func=GROUP_LABELS.get,
                                      help="one row per card and per value of these; shrinkage, z and q are "
                                           "computed within each split")
    stats = cached("card_metrics", str(path), filters, tuple(group_by))
    if stats.is_empty():
        st.info("No card rows in these matches yet.")
        return
    view, _ = card_filters(stats)
    min_games = st.sidebar.slider("Minimum games in hand", 0, int(max(1, stats["gih_games"].max())), 0,
                                  help="hide cards seen in fewer games than this")
    view = view.filter(pl.col("gih_games") >= min_games).sort("played_wr_shrunk", descending=True, nulls_last=True)
    groups = st.multiselect("Columns", list(RATE_GROUPS) + list(EXTRA_GROUPS), default=DEFAULT_GROUPS,
                            help="which metric groups the table shows (each with its sample size and 95% interval); "
                                 "the CSV always holds them all")
    significant = int(view["significant"].sum())
    st.caption(f"{view.height} cards, ranked by shrunken played WR (a card seen in few games is pulled toward the "
               f"mean, so noise does not top the list); {significant} significantly off the mean after "
               f"Benjamini-Hochberg (FDR 5%). Win rates count a draw as not won. "
               f"Select a row to see the card and replay an example match.")
    config = column_config(group_by)
    shown = with_replay_links(percent(view, RATE_COLUMNS + ["played_wr_shrunk", "gih_wr_shrunk", "iwd", "iwd_lo", "iwd_hi"]),
                              {"example_win": "example win", "example_loss": "example loss"}, config)
    picked = table_with_download(shown, "card_stats", config, download=view, select_key="cards_table",
                                 column_order=shown_columns(groups, group_by))
    label_groups = [g for g in group_by if view[g].n_unique() > 1]
    if picked is not None and picked < view.height:
        card_detail(path, filters, view.row(picked, named=True), group_by, label_groups)
    else:
        st.caption("Select a card (the box at the left of its row) to see its win rate by turn played and "
                   "replay an example match; or click an example link to open its replay in a new tab.")
    st.plotly_chart(ranking_chart(view, label_groups), width="stretch")
