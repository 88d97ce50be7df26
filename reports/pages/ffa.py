"""Free-for-all page: for the chosen free-for-all runs, each deck's placement (mean place, win
share, top-2 rate, with 95% intervals), each card's placement gain when played, who put whom out,
and which opponent each deck chose to hit. Every table and chart splits by pilot and by the
pilots at the table (a row is one pilot's seats at tables of one mix of pilots; reports/ffa.py),
and downloads as CSV."""
from __future__ import annotations

import polars as pl
import streamlit as st

from reports import ffa as metrics
from reports.pages.common import (
    count,
    mode_page,
    one_connection_per_render,
    pct,
    percent,
    rate_bars,
    readable_table,
    run_scope,
    sidebar_choice,
    store_reads,
    table_with_download,
)

NO_RUNS = ("No free-for-all runs in this store yet. Play some with, for example:\n\n"
           "`workbench simulate alleyway --mode ffa --seats 4 --matches 200`")
HELP = {
    "mean placement": "the deck's average place, 1 = first; a fair deck at an N-seat table averages (N + 1) / 2; "
                      "95% t interval, its standard error with a place 1 and a place N added, kept within 1..N",
    "win share": "share of its seat-games placed first (the survivors of a draw share first place); a fair deck "
                 "wins 1/N; 95% Wilson interval",
    "top 2": "share placed first or second; fair: 2/N; 95% Wilson interval",
    "placement gain": "mean placement of the seat-games where the card was never played minus where it was "
                      "played at least once (positive: playing it goes with a better place); 95% Welch interval. "
                      "Observational: a seat that lives longer plays more of its cards",
    "who put whom out": "for each deck that went out, which deck's attack or effect took its last Morale; "
                        "(nobody): its deck ran out",
    "targets": "attacks (by the defender's seat) and choices of \"an opponent\", by where the target sat: next "
               "(plays after the attacker), previous, or across; needs the runs' event logs",
}
PILOT = "the AI pilot that played the deck's seats: every row counts one pilot's play"
TABLE_PILOTS = ("every pilot seated at its tables (\"greedy,random\": tables of both, a row of their own, never pooled "
                "with tables of one pilot)")
# said under the pilots line when the chosen runs seat several pilots
SPLIT = (" Every table below splits by pilot, and by the pilots at the table: a row counts one pilot's seats at "
         "tables of one mix of pilots, never several pooled.")


def who(pilot, table_pilots) -> str:
    """A row's pilots as a label reads them: "greedy", or "random at greedy,random tables"."""
    return pilot if table_pilots in (None, pilot) else f"{pilot} at {table_pilots} tables"


# where a target sat, seen from the seat that hit it
SITS = {"next": "that plays right after it", "previous": "that plays right before it", "across": "across the table"}


_read = store_reads("ffa", runs=metrics.ffa_runs, decks=metrics.ffa_decks, cards=metrics.ffa_cards,
                    outs=metrics.ffa_eliminations, targets=metrics.ffa_targets)


@one_connection_per_render
def render() -> None:
    start = mode_page("Free-for-all", lambda p: _read("runs", p), lambda r: (
        f"run {r['run_id']}: {r['game']} {r['seats']}-seat ({r['rules_version']}, {r['pilots']}, "
        f"{r['matches_done']} matches, {r['status']})"), NO_RUNS, HELP, "ffa_runs", pick="free-for-all")
    if start is None:
        return
    path, runs, run_ids = start
    pilots = sorted({p for r in runs.filter(runs["run_id"].is_in(run_ids)).iter_rows(named=True)
                     for p in r["pilots"].split(",")})
    st.caption(f"Pilots: {', '.join(pilots)}. Every figure here is a fact about these pilots' play."
               + (SPLIT if len(pilots) > 1 else ""))
    # the downloads record these runs and their pilots, not the duel pages' kept runs
    scope = run_scope(runs, run_ids, pilots)
    decks_section(str(path), run_ids, scope)
    cards_section(str(path), run_ids, scope)
    outs_section(str(path), run_ids, scope)
    targets_section(str(path), run_ids, scope)


def decks_section(path: str, run_ids: list[int], scope: dict[str, str]) -> None:
    decks = _read("decks", path, run_ids)
    st.subheader("Decks: placement")
    if decks.is_empty():
        st.info("These runs hold no finished matches yet.")
        return
    fair = float(decks["fair_win_share"][0])
    labels = [f"{d} ({who(p, t)}, n={n})" for d, p, t, n in
              zip(decks["deck"], decks["pilot"], decks["table_pilots"], decks["seats"])]
    fig = rate_bars(decks["win_share"], (decks["win_share_lo"], decks["win_share_hi"]), labels,
                    "%{y}: placed first in %{x:.1f}% of its seat-games<extra></extra>",
                    f"Win share (%): a fair deck wins {fair:.0%}", max(300, 40 * decks.height))
    fig.add_vline(x=fair * 100, line_dash="dot")
    st.plotly_chart(fig, width="stretch")
    rates = ("win_share", "win_share_lo", "win_share_hi", "top2", "top2_lo", "top2_hi", "fair_win_share")
    number = st.column_config.NumberColumn
    table_with_download(percent(decks, rates), "ffa_decks", {
        "pilot": st.column_config.TextColumn("pilot", help=PILOT),
        "table_pilots": st.column_config.TextColumn("table pilots", help=TABLE_PILOTS),
        "table_seats": count("seats at the table", "how many seats its tables had"),
        "seats": count("seat-games", "seat-games the deck played"),
        "firsts": count("first places", "seat-games placed first"),
        "top2s": count("top-2 places", "seat-games placed first or second"),
        "out_by_nobody": count("decked out", "seat-games it went out with nobody to name: its deck ran out"),
        "mean_placement": number("mean place", help=HELP["mean placement"], format="%.2f"),
        "mean_placement_lo": number("lo", format="%.2f"), "mean_placement_hi": number("hi", format="%.2f"),
        "win_share": pct("win share", HELP["win share"]), "win_share_lo": pct("lo", "95% Wilson lower bound"),
        "win_share_hi": pct("hi", "95% Wilson upper bound"), "top2": pct("top 2", HELP["top 2"]),
        "top2_lo": pct("lo", "95% Wilson lower bound"), "top2_hi": pct("hi", "95% Wilson upper bound"),
        "fair_win_share": pct("fair", "1 / seats at the table")}, download=decks,
        column_order=["deck", "pilot", "table_pilots", "table_seats", "seats", "mean_placement", "mean_placement_lo",
                      "mean_placement_hi", "win_share", "win_share_lo", "win_share_hi", "fair_win_share", "top2",
                      "top2_lo", "top2_hi", "firsts", "top2s", "out_by_nobody"], scope=scope)


def cards_section(path: str, run_ids: list[int], scope: dict[str, str]) -> None:
    cards = _read("cards", path, run_ids)
    st.subheader("Cards: placement when played")
    if cards.is_empty():
        return
    decks = sorted(cards["deck"].unique().to_list())
    # kept across pages and in the URL (``some``: another run's deck stays kept for when it returns)
    deck = sidebar_choice("ffa_deck", "Deck", decks, decks[:1], many=False, some=True, where=st,
                          help="the deck whose cards are shown")
    # each pilot's rows together (a card of two pilots is two rows, never one pooled)
    shown = cards.filter(cards["deck"] == deck).sort(["pilot", "table_pilots", "placement_gain"],
                                                     descending=[False, False, True], nulls_last=True)
    number = st.column_config.NumberColumn
    table_with_download(percent(shown, ("win_share_played", "win_share_not_played")), "ffa_cards", {
        "name": st.column_config.TextColumn("card", help="the card's name", pinned=True),
        "pilot": st.column_config.TextColumn("pilot", help=PILOT),
        "table_pilots": st.column_config.TextColumn("table pilots", help=TABLE_PILOTS),
        "table_seats": count("seats at the table", "how many seats its tables had (each size a row of its own)"),
        "played": count("played", "seat-games where the card was played at least once"),
        "not_played": count("not played", "seat-games where it never was"),
        "placement_played": number("place, played", format="%.2f"),
        "placement_not_played": number("place, not played", format="%.2f"),
        "placement_gain": number("placement gain", help=HELP["placement gain"], format="%+.2f"),
        "placement_gain_lo": number("lo", format="%+.2f"), "placement_gain_hi": number("hi", format="%+.2f"),
        "win_share_played": pct("win share, played", "share placed first when played"),
        "win_share_not_played": pct("win share, not played", "share placed first when not played"),
        "firsts_played": count("first places, played", "seat-games placed first when the card was played"),
        "firsts_not_played": count("first places, not played", "seat-games placed first when it was not")},
        download=cards, column_order=["name", "pilot", "table_pilots", "table_seats", "played", "not_played", "placement_played",
                                      "placement_not_played", "placement_gain", "placement_gain_lo", "placement_gain_hi",
                                      "win_share_played", "win_share_not_played", "firsts_played", "firsts_not_played",
                                      "deck", "card"],
        scope=scope | {"deck": deck})


def outs_section(path: str, run_ids: list[int], scope: dict[str, str]) -> None:
    outs = _read("outs", path, run_ids)
    st.subheader("Who put whom out")
    if outs.is_empty():
        return
    import plotly.express as px

    # rows and columns are a deck and its pilot: "cinder-wildfire (greedy)" (a deck-out: "(nobody)"),
    # a row of a table of several pilots says so: "cinder-wildfire (random at greedy,random tables)"
    out = [f"{d} ({who(p, t)})" for d, p, t in zip(outs["out_deck"], outs["out_pilot"], outs["table_pilots"])]
    labelled = outs.with_columns(pl.Series("out", out, dtype=pl.Utf8),
                                 pl.coalesce(pl.format("{} ({})", "eliminator_deck", "eliminator_pilot"),
                                             "eliminator_deck").alias("by"))
    grid = labelled.pivot(on="by", index="out", values="share").fill_null(0.0).sort("out")
    cols = [c for c in grid.columns if c != "out"]
    fig = px.imshow(grid.select(cols).to_numpy() * 100, x=cols, y=grid["out"].to_list(), text_auto=".0f",
                    labels={"x": "put out by", "y": "deck out", "color": "% of its outs"}, aspect="auto")
    fig.update_layout(height=max(300, 45 * grid.height))
    st.plotly_chart(fig, width="stretch")
    table_with_download(percent(outs, ("share",)), "ffa_eliminations", {
        "out_deck": st.column_config.TextColumn("deck out", help="the deck that went out"),
        "out_pilot": st.column_config.TextColumn("its pilot", help="the pilot that played the deck that went out"),
        "table_pilots": st.column_config.TextColumn("table pilots", help=TABLE_PILOTS),
        "eliminator_deck": st.column_config.TextColumn("put out by", help=HELP["who put whom out"]),
        "eliminator_pilot": st.column_config.TextColumn(
            "put out by pilot", help="the pilot that played the deck that put it out (none for a deck-out)"),
        "outs": count("outs", "times that deck put the deck out"),
        "share": pct("share", "of all the outs of the deck and its pilot at such tables")}, download=outs,
        column_order=["out_deck", "out_pilot", "table_pilots", "eliminator_deck", "eliminator_pilot", "outs", "share"],
        scope=scope)


def targets_section(path: str, run_ids: list[int], scope: dict[str, str]) -> None:
    targets = _read("targets", path, run_ids)
    st.subheader("Which opponent each deck chose to hit")
    if targets.is_empty():
        st.info("No event logs for these runs (they were played with `--events none`).")
        return
    by_sits = targets.group_by("deck", "pilot", "table_pilots", "target_sits").agg(pl.col("hits").sum())
    st.caption("Hits by where the target sat, for each deck and pilot (next = plays right after the attacker).")
    readable_table(by_sits.pivot(on="target_sits", index=["deck", "pilot", "table_pilots"], values="hits")
                   .fill_null(0).sort("deck", "pilot", "table_pilots"), {
        "pilot": st.column_config.TextColumn("pilot", help=PILOT),
        "table_pilots": st.column_config.TextColumn("table pilots", help=TABLE_PILOTS),
        **{where: count(where, f"hits on the seat {text}") for where, text in SITS.items()}}, width="stretch")
    table_with_download(percent(targets, ("share",)), "ffa_targets", {
        "pilot": st.column_config.TextColumn("pilot", help=PILOT),
        "target_deck": st.column_config.TextColumn("target deck", help="the deck it hit"),
        "table_pilots": st.column_config.TextColumn("table pilots", help=TABLE_PILOTS),
        "target_pilot": st.column_config.TextColumn("target pilot", help="the pilot that played the deck it hit"),
        "target_sits": st.column_config.TextColumn("target sat", help="; ".join(f"{k}: {v}" for k, v in SITS.items())),
        "attacks": count("attacks", "attacks on that seat's characters, leader or player"),
        "effect_choices": count("effect choices", "effects on \"an opponent\" aimed at that seat"),
        "hits": count("hits", "attacks plus effect choices"),
        "share": pct("share", "of the hits of the deck and its pilot at such tables")}, download=targets, scope=scope)
