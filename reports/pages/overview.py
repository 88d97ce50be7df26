"""Overview page: runs, matches, first-seat win rate, win reasons, game lengths."""
from __future__ import annotations

import plotly.express as px
import polars as pl
import streamlit as st

from reports.filters import Filters
from reports.pages.common import (
    cached,
    no_runs_note,
    one_connection_per_render,
    page_start,
    pilots_line,
    pilots_of,
    table_with_download,
    with_pilots_subtitle,
)

# what the pilots line says of this page's figures (reports/pages/common.py pilots_line): the page
# has no pilot filter, its runs choose the pilots
PLAY = ("The first-seat win rate, the draws, the win reasons and the game lengths below are facts about these pilots' "
        "play.")
POOLED = " Their seats are pooled; pick runs of one pilot in the sidebar to see its play alone."

RUN_COLUMNS = {
    "run_id": st.column_config.NumberColumn("run", format="%d"), "rules_version": "rules version",
    "pilots": st.column_config.TextColumn("pilots", help="the AI pilot of each deck slot"),
    "matches_done": st.column_config.NumberColumn("matches stored", format="%d"),
    "matches_target": st.column_config.NumberColumn("matches asked", format="%d"),
    "errors": st.column_config.NumberColumn("errors", help="matches whose engine raised; each keeps its seed"),
    "code_version": st.column_config.TextColumn(
        "code version", help="package version and a digest of the engines, pilots, card data and farm that played "
                             "the run: runs of one code version are reused and resumed, others are played afresh"),
    "code_commit": st.column_config.TextColumn("commit", help="the git commit that played the run (-dirty: with "
                                                              "uncommitted edits), for reading"),
    "created_at": st.column_config.DatetimeColumn("created"), "updated_at": st.column_config.DatetimeColumn("updated"),
    "progress": st.column_config.ProgressColumn("progress", min_value=0, max_value=1,
                                                help="matches stored / matches asked"),
}


def no_matches_note(chosen: pl.DataFrame) -> str:
    """The chosen runs hold no stored match yet: say so, and how to finish a run that stopped (one
    killed may still read "running")."""
    command = {"campaign": "workbench simulate-run --resume"}
    resume = " or ".join(f"`{command.get(r['kind'], 'workbench simulate --resume')} {r['run_id']}`"
                         for r in chosen.iter_rows(named=True))
    which = "The chosen run holds" if chosen.height == 1 else "The chosen runs hold"
    return (f"{which} no stored matches yet, so there is nothing to count. A run stopped before it stored any "
            f"goes on with {resume}.")


@one_connection_per_render
def render() -> None:
    start = page_start("Overview")
    if start is None:
        return
    path, runs, run_ids = start
    st.subheader("Runs")
    # the table lists every run of the game (its duel pages' runs): its file records that, not the
    # kept runs, decks or pilots of the session (this page has no deck or pilot filter)
    listed = {"game": ",".join(sorted(set(runs["game"].to_list()))),
              "runs": ",".join(map(str, sorted(runs["run_id"].to_list())))}
    table_with_download(runs.with_columns((pl.col("matches_done") / pl.col("matches_target")).alias("progress")),
                        "runs", RUN_COLUMNS, scope={k: v for k, v in listed.items() if v})
    if not run_ids:
        st.info(no_runs_note(runs))
        return
    seat = cached("first_seat", str(path), run_ids)
    if not seat["matches"]:  # two empty charts would say nothing
        st.info(no_matches_note(runs.filter(pl.col("run_id").is_in(run_ids))))
        return
    chosen = Filters(game=runs["game"][0] if runs.height else None, runs=list(run_ids))
    pilots = pilots_of(path, chosen)
    st.caption(pilots_line(path, chosen, PLAY, POOLED, pilot_filter=False))
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Matches", f"{seat['matches']:,}", help="matches stored in the chosen runs")
    if seat["first_seat_wr"] is not None:
        c2.metric("First-seat win rate", f"{seat['first_seat_wr']:.1%}",
                  help=f"share of decided matches won by the seat that acts first, pilots {', '.join(pilots)}; 95% "
                       f"Wilson interval {seat['lo']:.1%} to {seat['hi']:.1%}, n = {seat['decided']:,} decided matches")
        c2.caption(f"95% CI {seat['lo']:.1%} to {seat['hi']:.1%} (n = {seat['decided']:,}; pilots {', '.join(pilots)})")
    c3.metric("Draws", f"{seat['draws']:,}", help="turn or decision limit reached, both sheriffs fell, or an error")
    c4.metric("Errors", f"{seat['errors']:,}", help="matches whose engine raised; each keeps its seed to replay")

    left, right = st.columns(2)
    reasons = cached("win_reasons", str(path), run_ids)
    fig = px.bar(reasons.to_pandas(), x="reason", y="matches", text="matches",
                 labels={"reason": "How the match ended", "matches": "Matches"},
                 title=f"Win reasons (n = {int(reasons['matches'].sum()):,} matches)")
    left.plotly_chart(with_pilots_subtitle(fig, pilots), width="stretch")
    lengths = cached("game_lengths", str(path), run_ids)
    fig = px.histogram(lengths.to_pandas(), x="turns", color="reason", nbins=40,
                       labels={"turns": "Game length (player-turns)", "count": "Matches", "reason": "Ended by"},
                       title=f"Game length (n = {lengths.height:,} matches)")
    fig.update_layout(yaxis_title="Matches")
    right.plotly_chart(with_pilots_subtitle(fig, pilots), width="stretch")
