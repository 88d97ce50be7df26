"""Series page: for the chosen best-of series runs, each deck's series win rate beside its
single-game and first-game win rates, its expected Rank Points per series, and how its series
ended, per deck, pilot, opponent pilot and best-of (reports/series.py: never pooled across them).
Series with an error and mirror series are left out, and the caption says how many. Every table
downloads as CSV."""
from __future__ import annotations

import streamlit as st

from reports import series as metrics
from reports.pages.common import (
    count,
    mode_page,
    one_connection_per_render,
    pct,
    percent,
    rate_bars,
    run_scope,
    store_reads,
    table_with_download,
)

NO_RUNS = ("No series runs in this store yet. Play some with, for example:\n\n"
           "`workbench simulate alleyway --mode series --matches 100`  (100 best-of-3 series per pairing)")
HELP = {
    "series win rate": "share of its series won (more games won than the opponent when the series ended: a 2-1, "
                       "or a 1-0 with drawn games); 95% Wilson interval",
    "opponent pilot": "the pilot of the deck it played: figures against different pilots are never pooled",
    "best of": "the run's series length (the rules version's series_best_of): best-of-3 and best-of-5 series are "
               "never pooled",
    "game win rate": "share of the series' games won, each game counted alone; 95% Wilson interval",
    "first-game win rate": "game 1 only: the very matches a duel run on the same seeds plays",
    "Rank Points": "mean Rank Points per series under the rules version's constants (rank_points_win, "
                   "rank_points_loss, rank_points_sweep: the sweep is paid for a series won in which the loser won "
                   "no game, a 2-0 or a 1-0 with drawn games); 95% normal interval",
    "scores": "how the deck's series ended, from its own side (2-0, 2-1, 1-2, 0-2, 1-0 and the like after drawn "
              "games, or level)",
    "left out": "series with an error (a game raised one: the series stopped there) and mirror series (a deck "
                "against itself: 50% by definition, as in the duel meta) count in no figure",
}


_read = store_reads("series", runs=metrics.series_runs, decks=metrics.series_decks, scores=metrics.series_scores,
                    left_out=metrics.series_left_out)


@one_connection_per_render
def render() -> None:
    start = mode_page("Series", lambda p: _read("runs", p), lambda r: (
        f"run {r['run_id']}: {r['game']} ({r['rules_version']}, {r['pilots']}, {r['series_done']} series"
        f"{'' if r['best_of'] is None else ' best of ' + str(r['best_of'])}, {r['status']})"), NO_RUNS, HELP, "series_runs", tables=("runs", "series"), pick="series", unit="series")
    if start is None:
        return
    path, runs, run_ids = start
    decks = _read("decks", str(path), run_ids)
    left_out = metrics.left_out_text(_read("left_out", str(path), run_ids))
    pilots = sorted(set(decks["pilot"]) | set(decks["opponent_pilot"])) if decks.height else []
    # the downloads record these runs and their pilots, not the duel pages' kept runs
    scope = run_scope(runs, run_ids, pilots)
    st.subheader("Decks: series against single games")
    if decks.is_empty():
        st.info("These runs hold no finished series yet." + (f" {left_out}" if left_out else ""))
        return
    best = ", ".join(map(str, sorted(set(decks["best_of"]))))
    st.caption(f"Pilots: {', '.join(pilots)}. Every figure here is a fact about these pilots' play; a row is a deck, "
               f"its pilot, the opponent's pilot and the best-of (here best of {best}), never pooled across them."
               + (f" {left_out}" if left_out else ""))
    labels = [f"{d} ({p} vs {o}, best of {b}, n={n})" for d, p, o, b, n in
              zip(decks["deck"], decks["pilot"], decks["opponent_pilot"], decks["best_of"], decks["series"])]
    fig = rate_bars(decks["series_win_rate"], (decks["series_win_rate_lo"], decks["series_win_rate_hi"]), labels,
                    "%{y}: won %{x:.1f}% of its series<extra></extra>", "Series win rate (%)",
                    max(300, 40 * decks.height))
    st.plotly_chart(fig, width="stretch")
    rates = [c for c in decks.columns if "win_rate" in c]
    number = st.column_config.NumberColumn
    config = {"opponent_pilot": st.column_config.TextColumn("opponent pilot", help=HELP["opponent pilot"]),
              "best_of": number("best of", help=HELP["best of"], format="%d"),
              "series": count("series", "series played"), "series_won": count("won", "series won"),
              "games": count("games", "games of those series"), "games_won": count("games won", "games won"),
              "first_games": count("first games", "game 1 of each series"),
              "first_games_won": count("first games won", "game 1 won"),
              "rank_points": number("Rank Points / series", help=HELP["Rank Points"], format="%+.1f"),
              "rank_points_lo": number("lo", format="%+.1f"), "rank_points_hi": number("hi", format="%+.1f"),
              "games_per_series": number("games / series", format="%.2f"),
              "series_win_rate": pct("series win rate", HELP["series win rate"]),
              "game_win_rate": pct("game win rate", HELP["game win rate"]),
              "first_game_win_rate": pct("first-game win rate", HELP["first-game win rate"])}
    config.update({c: pct("lo" if c.endswith("_lo") else "hi", "95% Wilson bound") for c in rates
                   if c.endswith(("_lo", "_hi"))})
    table_with_download(percent(decks, rates), "series_decks", config, download=decks, column_order=[
        "deck", "pilot", "opponent_pilot", "best_of", "series", "series_won", "series_win_rate", "series_win_rate_lo", "series_win_rate_hi",
        "games", "games_won", "game_win_rate", "game_win_rate_lo", "game_win_rate_hi", "first_games",
        "first_games_won", "first_game_win_rate", "first_game_win_rate_lo", "first_game_win_rate_hi", "rank_points",
        "rank_points_lo", "rank_points_hi", "games_per_series"], scope=scope)
    st.subheader("How each deck's series ended")
    scores = _read("scores", str(path), run_ids)
    table_with_download(percent(scores, ("share",)), "series_scores",
                        {"opponent_pilot": st.column_config.TextColumn("opponent pilot", help=HELP["opponent pilot"]),
                         "best_of": st.column_config.NumberColumn("best of", help=HELP["best of"], format="%d"),
                         "score": st.column_config.TextColumn("score", help=HELP["scores"]),
                         "series": count("series", "series that ended so"),
                         "share": pct("share", "of the deck's series")},
                        download=scores, scope=scope)
