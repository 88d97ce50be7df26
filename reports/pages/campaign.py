"""Campaign page: clear rate by crew (with 95% Wilson intervals) and the win-rate lift of each
reward card when taken, for the chosen campaign batches; both tables download as CSV."""
from __future__ import annotations

import polars as pl
import streamlit as st

from reports import db
from reports.campaign import __doc__ as ABOUT
from reports.pages.common import cached, db_path, rate_bars, store_ready, table_with_download

PCT = "%.1f%%"


def render() -> None:
    st.title("Campaign")
    path = db_path()
    st.caption(f"Store: `{path}`")
    if not store_ready(path):
        return
    try:
        ready = db.has_tables(path, "campaign_runs")
    except db.StoreError as exc:
        st.warning(str(exc))
        return
    batches = cached("campaign_runs", str(path)) if ready else pl.DataFrame()
    if batches.is_empty():
        st.info("No campaign runs in this store yet. Play some with, for example:\n\n"
                "`workbench simulate-run frontier --crew all --runs 100`")
        return
    labels = {r["run_id"]: f"run {r['run_id']}: {r['crews']} ({r['policy']}, {r['runs_done']} runs, {r['status']})"
              for r in batches.iter_rows(named=True)}
    ids = list(labels)
    run_ids = st.sidebar.multiselect("Campaign batches", ids, default=ids[:1], format_func=labels.get,
                                     help="the batches whose runs are counted; several are pooled")
    if not run_ids:
        st.info("Pick at least one campaign batch in the sidebar.")
        return
    with st.sidebar.expander("How to read this page"):
        st.markdown(ABOUT)
    clear = cached("clear_rates", str(path), run_ids)
    st.subheader("Clear rate by crew")
    labels = [f"{c} ({p}, n={n})" for c, p, n in zip(clear["crew"], clear["policy"], clear["runs"])]
    fig = rate_bars(clear["clear_rate"], (clear["clear_rate_lo"], clear["clear_rate_hi"]), labels,
                    "%{y}: %{x:.1f}% of runs cleared the stage<extra></extra>", "Stage clear rate (%)",
                    max(300, 40 * clear.height))
    st.plotly_chart(fig, width="stretch")
    shown = clear.with_columns([(pl.col(c) * 100).round(1) for c in ("clear_rate", "clear_rate_lo", "clear_rate_hi")])
    table_with_download(shown, "campaign_clear_rates", {
        "clear_rate": st.column_config.NumberColumn("clear rate", format=PCT, help="runs that cleared the stage"),
        "clear_rate_lo": st.column_config.NumberColumn("lo", format=PCT, help="95% Wilson lower bound"),
        "clear_rate_hi": st.column_config.NumberColumn("hi", format=PCT, help="95% Wilson upper bound")},
        download=clear)

    lift = cached("reward_lift", str(path), run_ids)
    st.subheader("Reward cards: win-rate lift when taken")
    st.caption("Fights after an offer of the card, split by whether it was taken there. An observational "
               "comparison: with the greedy policy the takes follow its ratings; the random policy's "
               "coin-flip takes give the cleanest estimate.")
    columns = ["card", "offers", "taken", "take_rate", "fights_taken", "wr_taken", "fights_skipped", "wr_skipped",
               "lift", "clear_rate_taken", "clear_rate_skipped", "clear_lift"]
    pct_cols = ("take_rate", "wr_taken", "wr_skipped", "lift", "clear_rate_taken", "clear_rate_skipped", "clear_lift")
    shown = lift.select(columns).with_columns([(pl.col(c) * 100).round(1) for c in pct_cols])
    table_with_download(shown, "campaign_reward_lift",
                        {c: st.column_config.NumberColumn(c.replace("_", " "), format=PCT) for c in pct_cols},
                        download=lift)
