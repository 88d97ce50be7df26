"""What every dashboard page shares: the store path, run filters, friendly empty states, and a
table with its CSV download. Pages open the store briefly per query (reports/db.py), never
holding a connection across renders, so a batch writing the file is never blocked for long."""
from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import streamlit as st

from reports import db, overview

DEFAULT_DB = "workbench.duckdb"


def db_path() -> Path:
    return Path(os.environ.get("WORKBENCH_DB", DEFAULT_DB))


@st.cache_data(ttl=3, show_spinner=False)
def cached(fn_name: str, path: str, *args):
    """Queries cached for a few seconds: fresh enough to follow a run, cheap to re-render."""
    import reports.campaign as campaign
    import reports.cards as cards

    fn = {"runs": overview.runs, "first_seat": overview.first_seat, "win_reasons": overview.win_reasons,
          "game_lengths": overview.game_lengths, "card_stats": cards.card_stats,
          "campaign_runs": campaign.campaign_runs, "clear_rates": campaign.clear_rates,
          "reward_lift": campaign.reward_lift}[fn_name]
    return fn(path, *args)


def store_ready(path: Path) -> bool:
    """Show a friendly message and return False when there is nothing to show yet."""
    if not path.exists():
        st.info(f"No database at `{path}` yet. Run a simulation first, for example:\n\n"
                "`workbench simulate frontier --matches 200`")
        return False
    try:
        ready = db.has_tables(path, "runs", "matches", "card_games")
    except db.StoreError as exc:
        st.warning(str(exc))
        return False
    if not ready:
        st.info(f"`{path}` holds no runs yet. Run `workbench simulate frontier` to fill it.")
        return False
    return True


def pick_game(path: Path) -> pl.DataFrame:
    """Sidebar filter: the game; returns that game's runs, newest first."""
    runs = cached("runs", str(path))
    if runs.is_empty():
        return runs
    games = sorted(runs["game"].unique().to_list())
    game = st.sidebar.selectbox("Game", games, help="which game's runs to show")
    return runs.filter(pl.col("game") == game)


def pick_runs(path: Path) -> tuple[pl.DataFrame, list[int]]:
    """Sidebar filters: game, then runs (default: the newest run of that game). Returns the
    game's runs and the chosen run ids."""
    mine = pick_game(path)
    if mine.is_empty():
        return mine, []
    labels = {r["run_id"]: f"run {r['run_id']}: {r['decks']} ({r['rules_version']}, {r['pilots']}, "
                           f"{r['matches_done']} matches, {r['status']})" for r in mine.iter_rows(named=True)}
    ids = list(labels)
    chosen = st.sidebar.multiselect("Runs", ids, default=ids[:1], format_func=labels.get,
                                    help="the runs whose matches are counted; several are pooled")
    return mine, chosen


def page_start(title: str) -> tuple[Path, pl.DataFrame, list[int]] | None:
    """Title, store line, friendly empty states and the run filters every page starts with;
    None when there is nothing to show."""
    st.title(title)
    path = db_path()
    st.caption(f"Store: `{path}`")
    if not store_ready(path):
        return None
    runs, run_ids = pick_runs(path)
    return path, runs, run_ids


def table_with_download(frame: pl.DataFrame, name: str, column_config: dict | None = None,
                        download: pl.DataFrame | None = None) -> None:
    """The table as shown, and under it its CSV (``download`` when the shown table is formatted
    for reading, e.g. rates as percentages, and the file should hold the documented columns)."""
    st.dataframe(frame.to_pandas(), width="stretch", hide_index=True, column_config=column_config)
    data = download if download is not None else frame
    st.download_button(f"Download {name} as CSV", data.write_csv().encode("utf-8"),
                       file_name=f"{name}.csv", mime="text/csv", key=f"csv-{name}")


def rate_bars(rates, ci, labels: list[str], hover: str, x_title: str, height: int, title: str | None = None):
    """A horizontal bar per row: a rate in percent with its 95% interval as error bars
    (``ci`` = the low and high bound series)."""
    import plotly.graph_objects as go

    lo, hi = ci
    fig = go.Figure(go.Bar(
        x=rates * 100, y=labels, orientation="h",
        error_x={"type": "data", "symmetric": False, "array": (hi - rates) * 100, "arrayminus": (rates - lo) * 100},
        hovertemplate=hover))
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title="", height=height, margin={"l": 10})
    return fig
