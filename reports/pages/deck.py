"""Deck page (``?deck=ID``): one deck across every duel run of its game.

Its list (cards and copies, as the newest run that played it holds them), its cost curve (the
Cost curves page's), its win rate against each opponent and from the first and the second seat,
and its cards ranked within it by what each adds to it (the Cards page's OH excess, computed
within the deck). The sidebar's rules version and pilot filters narrow every figure; every
download records the game, the runs counted, the deck and those filters."""
from __future__ import annotations

from dataclasses import replace

import polars as pl
import streamlit as st

from reports.deck_page import deck_list, ranked_cards, seat_split
from reports.matchups import pilots_in
from reports.pages.cards import WITHIN_DECK, column_config, ranking_chart
from reports.pages.common import (
    FACTION_COLUMN,
    FACTION_ID_COLUMN,
    cached,
    count,
    one_connection_per_render,
    percent,
    pilots_note,
    pilots_of,
    rate_bars,
    register_queries,
    table_with_download,
    win_rate_config,
    with_pilots_subtitle,
    with_replay_links,
)
from reports.pages.costs import curves_section
from reports.pages.lookup import (
    CARD,
    DECK,
    EXAMPLES,
    RATES,
    item_scope,
    item_start,
    seat_table,
    with_page_links,
)

register_queries(deck_list=deck_list, deck_seats=seat_split)
RANKED = ["rank", "card", "name", "type", "cost", "copies", "oh_excess", "oh_excess_lo", "oh_excess_hi", "oh_excess_q",
          "oh_games", "played_games", "played_wr", "played_wr_lo", "played_wr_hi", "gih_wr", "iwd",
          "avg_turn_played", "example_win", "example_loss"]
RANKED_SCALED = ["oh_excess", "oh_excess_lo", "oh_excess_hi", "played_wr", "played_wr_lo", "played_wr_hi", "gih_wr",
                 "iwd"]


def list_section(path: str, filters, deck: str, scope: dict) -> pl.DataFrame:
    """The list as the newest run of the deck holds it; returns it (for the ranked cards' copies)."""
    st.subheader("The list")
    cards = cached("deck_list", path, filters)
    mine = cards.filter(pl.col("deck") == deck) if cards.height else cards
    if mine.is_empty():
        st.caption("No list: no run of these filters played it.")
        return mine
    first = mine.row(0, named=True)
    st.caption(f"{int(mine['copies'].sum())} cards, {mine.height} different, as run {first['run_id']} "
               f"({first['rules_version']}) played it; cheapest first.")
    config = {"copies": count("copies", "copies of the card in the deck"),
              "cost": st.column_config.NumberColumn("cost", help="budget cost: the one number the cost curve uses"),
              "faction_name": FACTION_COLUMN, "faction": FACTION_ID_COLUMN}
    shown = with_page_links(mine.select("name", "copies", "cost", "type", "faction_name", "faction", "card"), "card",
                            CARD, config, "card id")
    table_with_download(shown, f"deck_list_{deck}", config, download=mine, scope=scope)
    return mine


def opponents_section(path: str, filters, scope: dict) -> None:
    st.subheader("Against each opponent")
    rows = cached("matchups", path, filters)
    if rows.is_empty():
        st.caption("No two-seat matches of this deck in these runs.")
        return
    rows = rows.sort("win_rate", descending=True)
    # a row per pilot pairing (reports/matchups.py): with several pilots each bar and row names them,
    # or two rows of one opponent read as one deck's two figures
    mixed = len(pilots_in(rows)) > 1
    labels = [f"vs {o} ({p} against {op}, n={n})" if mixed else f"vs {o} (n={n})"
              for o, p, op, n in zip(rows["opponent"], rows["pilot"], rows["opponent_pilot"], rows["games"])]
    # plotly's margins take 180 px (the title's above, the axis title's below): 40 px an opponent on top
    st.plotly_chart(rate_bars(rows["win_rate"], (rows["win_rate_lo"], rows["win_rate_hi"]), labels,
                              "%{y}: %{x:.1f}% won<extra></extra>", "Win rate (%)", 180 + 40 * rows.height,
                              title=f"Win rate against each opponent (95% Wilson interval; {pilots_note(path, filters)})"),
                    width="stretch")
    config = {**win_rate_config("matches of this deck against the opponent", "won / games (a draw is not won)"),
              "drawn": count("drawn", "of those, draws")}
    shown = with_page_links(with_replay_links(percent(rows, RATES), {"example": "example match"}, config),
                            "opponent", DECK, config, "opponent")
    table_with_download(shown, "deck_opponents", config, download=rows,
                        column_order=[*(["pilot"] if mixed else []), "opponent", *(["opponent_pilot"] if mixed else []),
                                      "games", "won", "drawn", "win_rate", "win_rate_lo", "win_rate_hi", "example"],
                        scope=scope)


def seat_section(path: str, filters, scope: dict) -> None:
    st.subheader("From the first seat and the second")
    rows = cached("deck_seats", path, filters)
    if rows.is_empty():
        st.caption("No matches of this deck in these runs.")
        return
    # a row per pilot pairing, as the opponents above: a seat's rate never pools two pilots' matches
    mixed = len(pilots_in(rows)) > 1
    st.caption(f"Its win rate when it acted first (on the play) and second ({pilots_note(path, filters)}); mirror "
               "matches count from both seats." + (" Each row names the deck's pilot and the opponent's: matches of "
                                                   "other pilots are never pooled." if mixed else ""))
    seat_table(rows, "deck_seats", ["pilot", "seat", "opponent_pilot"] if mixed else ["seat"],
               "matches of this deck from this seat",
               {"drawn": count("drawn", "of those, draws")} | ({
                   "pilot": st.column_config.TextColumn("pilot", help="the pilot that played this deck"),
                   "opponent_pilot": st.column_config.TextColumn("opponent pilot",
                                                                 help="the pilot that played the opponent deck")}
                   if mixed else {}), scope=scope)


def cards_section(path: str, filters, deck: str, listed: pl.DataFrame, scope: dict) -> None:
    st.subheader("Its cards, ranked within it")
    metrics = cached("card_metrics", path, filters, ("deck",))
    ranked = ranked_cards(metrics, deck, listed) if metrics.height else metrics
    if ranked.is_empty():
        st.caption("No card rows of this deck in these runs.")
        return
    st.caption(f"By what each card adds to this deck ({pilots_note(path, filters)}): its opening-hand win rate "
               "minus the deck's win rate without it there, seat held fixed; q Benjamini-Hochberg across the deck's "
               "cards. Rules versions chosen in the sidebar are pooled (each its own stratum).")
    config = dict(column_config(["deck"]), rank=count("rank", "1: adds the most to the deck"))
    shown = with_page_links(with_replay_links(percent(ranked, RANKED_SCALED), dict(EXAMPLES), config),
                            "card", CARD, config, "card id")
    table_with_download(shown, f"deck_cards_{deck}", config, download=ranked.select(RANKED), column_order=RANKED,
                        scope=scope)
    st.plotly_chart(with_pilots_subtitle(ranking_chart(ranked, [], WITHIN_DECK), pilots_of(path, filters)),
                    width="stretch")


@one_connection_per_render
def render() -> None:
    start = item_start(DECK)
    if start is None:
        return
    path, filters, deck, _ = start
    mine = replace(filters, decks=[deck])
    scope = item_scope(path, mine)
    listed = list_section(path, mine, deck, scope)
    curves_section(path, mine, None, scope)
    opponents_section(path, mine, scope)
    seat_section(path, mine, scope)
    cards_section(path, mine, deck, listed, scope)
