"""Pilots page: the latest ladder of a game (``workbench ladder``): each pilot's Bradley-Terry
rating with its 95% interval, the pairwise win rates, and what each rung costs to play."""
from __future__ import annotations

import polars as pl
import streamlit as st

from reports import db
from reports import ladder as lad
from reports.pages.common import (
    count,
    db_path,
    distinct,
    glossary,
    one_connection_per_render,
    pct,
    sidebar_choice,
    store_reads,
    table_with_download,
)

NO_LADDER = ("No ladder in this store yet. `workbench ladder` plays every pair of pilots over the game's "
             "starter decks (both pilots on both decks, from both seats) and rates them, for example:\n\n"
             "`workbench ladder frontier --pilots random,greedy --matches 120`")
HELP = {
    "rating": "Bradley-Terry strength on the Elo scale (400 points = 10:1 odds); the anchor pilot (greedy when it "
              "plays, else the first named) is 1500 by definition. A draw counts half a win each way; each pair "
              "also carries one virtual draw, so a clean sweep stays finite",
    "lo / hi": "95% interval from the Fisher information, of the difference from the anchor (whose interval is zero)",
    "A's win rate": "pilot A's score against B: wins plus half the draws, over their matches; 95% Wilson interval",
    "decisions/CPU-s": "the pilot's own decisions per CPU-second charged to its seat (its thinking plus the engine "
                       "work just before each decision): mostly the engine for a cheap pilot, mostly the search "
                       "for an expensive one",
    "matches/CPU-s": "matches the pilot played per CPU-second of those whole matches (both seats, against the "
                     "ladder's other pilots; no self-play), one core",
}


_read = store_reads("pilots", ladders=lad.ladders, ratings=lad.ladder_ratings, pairs=lad.ladder_pairs)


def ladder_label(r: dict) -> str:
    return (f"ladder {r['ladder_id']}: {r['pilots']} ({r['rules_version']}, {r['matches_per_pair']} matches "
            f"per pair, {r['created_at']:%Y-%m-%d %H:%M})")


def rating_config() -> dict:
    number = st.column_config.NumberColumn
    return {"pilot": st.column_config.TextColumn("pilot", pinned=True),
            "rating": number("rating", help=HELP["rating"], format="%.0f"),
            "rating_lo": number("lo", help=HELP["lo / hi"], format="%.0f"),
            "rating_hi": number("hi", help=HELP["lo / hi"], format="%.0f"),
            "matches": count("matches", "matches the pilot played"),
            "score": pct("score", "wins plus half the draws, over its matches"),
            "wins": count("wins", "matches won"), "draws": count("draws", "drawn matches (errors included)"),
            "losses": count("losses", "matches lost"),
            "decisions_per_s": number("decisions/CPU-s", help=HELP["decisions/CPU-s"], format="%.0f"),
            "matches_per_s": number("matches/CPU-s", help=HELP["matches/CPU-s"], format="%.1f")}


def pair_config() -> dict:
    return {"pilot_a": st.column_config.TextColumn("pilot A", pinned=True),
            "pilot_b": st.column_config.TextColumn("pilot B", pinned=True),
            "matches": count("matches", "matches the pair played"),
            "a_win_rate": pct("A's win rate", HELP["A's win rate"]),
            "lo": pct("lo", "95% Wilson lower bound"), "hi": pct("hi", "95% Wilson upper bound"),
            "a_wins": count("A wins", "matches A won"), "b_wins": count("B wins", "matches B won"),
            "draws": count("draws", "drawn matches (errors included)"),
            "errors": count("errors", "matches that raised (stored as draws)")}


@one_connection_per_render
def render() -> None:
    st.title("Pilots")
    path = db_path()
    st.caption(f"Store: `{path}`")
    if not path.exists():
        st.info(f"No database at `{path}` yet. " + NO_LADDER)
        return
    try:
        all_ladders = _read("ladders", str(path))
    except db.StoreError as exc:
        st.warning(str(exc))
        return
    if all_ladders.is_empty():
        st.info(NO_LADDER)
        return
    # the game the other pages keep, when it has a ladder (the pages' one game choice; a game
    # without a ladder stays kept for them), else the newest ladder's; both in the URL
    games = sorted(all_ladders["game"].unique().to_list())
    game = sidebar_choice("game", "Game", games, all_ladders["game"][:1].to_list(), many=False, some=True,
                          help="which game's ladders to show")
    mine = all_ladders.filter(pl.col("game") == game)
    labels = {r["ladder_id"]: ladder_label(r) for r in mine.iter_rows(named=True)}
    ladder_id = sidebar_choice("ladder", "Ladder", list(labels), list(labels)[:1], many=False,
                               format_func=labels.get, help="the newest ladder of the game by default")
    glossary(HELP)
    info = mine.filter(pl.col("ladder_id") == ladder_id).row(0, named=True)
    ratings = _read("ratings", str(path), ladder_id)
    pairs = _read("pairs", str(path), ladder_id)
    st.subheader(f"{game}: ladder {ladder_id}")
    st.caption(f"Pilots: {', '.join(distinct(info['pilots']))}. Every rating and win rate here is a fact about "
               f"their play against one another. Rules {info['rules_version']}; field {info['decks']}; "
               f"{info['matches_per_pair']} matches per pair of pilots, each seed with both pilots on both decks and "
               f"in both seats; base seed {info['base_seed']}.")
    st.plotly_chart(lad.rating_chart(ratings, "Rating (Bradley-Terry, Elo scale) with 95% interval"), width="stretch")
    st.markdown("**Ratings**")
    shown = ratings.select("pilot", "rating", "rating_lo", "rating_hi", "matches", "score", "wins", "draws",
                           "losses", "decisions_per_s", "matches_per_s")
    # the page's own choice and the pilots it rates, not the duel pages' runs
    scope = {"game": game, "ladder": str(ladder_id), "pilots": ",".join(distinct(info["pilots"]))}
    table_with_download(shown.with_columns(pl.col("score") * 100), "ladder", rating_config(), download=ratings,
                        scope=scope)
    st.markdown("**Pairwise win rates** (pilot A against pilot B; a draw counts half)")
    table_with_download(pairs.with_columns(pl.col(c) * 100 for c in ("a_win_rate", "lo", "hi")), "ladder_pairs",
                        pair_config(), download=pairs, scope=scope)
    order = ratings["pilot"].to_list()
    matrix = lad.win_matrix(pairs, order)
    st.caption("Row pilot's win rate against the column pilot")
    # written out as text: a pilot against itself (the diagonal) reads as a dash, not "None"
    cells = matrix.with_columns(
        pl.when(pl.col(c).is_null()).then(pl.lit("—")).otherwise((pl.col(c) * 100).round(1).cast(pl.Utf8) + "%").alias(c)
        for c in order)
    st.dataframe(cells.to_pandas(), hide_index=True, width="stretch",
                 column_config={c: st.column_config.TextColumn(c, help=f"the row pilot's win rate against {c}")
                                for c in order})
    st.markdown("**Cost of each rung**")
    st.caption(f"{HELP['decisions/CPU-s']}. {HELP['matches/CPU-s']}.")
    cost = ratings.select("pilot", "rating", "decisions_per_s", "matches_per_s", "decisions", "seat_cpu_seconds",
                          "cpu_seconds")
    st.dataframe(cost.to_pandas(), hide_index=True, width="stretch", column_config={
        **{k: v for k, v in rating_config().items() if k in cost.columns},
        "decisions": count("decisions", "the pilot's own decisions"),
        "seat_cpu_seconds": st.column_config.NumberColumn("seat CPU s", format="%.2f",
                                                          help="CPU charged to the pilot's seats"),
        "cpu_seconds": st.column_config.NumberColumn("match CPU s", format="%.2f",
                                                     help="whole CPU of the matches it played")})
