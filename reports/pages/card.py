"""Card page (``?card=ID``): one card across every duel run and rules version of its game.

What it is (cost, stats, keywords, text, decks: the Cards page's card facts) and where it sits
against its cost's budget line; its played win rate run by run or version by version, one line
per seat pilots (greedy against itself; greedy vs random, greedy's seats against random), with
95% intervals; by deck; by the turn it was first played; in the opening hand or
not; in a game with a redraw, its hands kept against its hands redrawn (for a game without one,
a line says so); from the first seat and the second; and example matches to replay. Every table
has a CSV download recording the game, the runs counted and the filters. The figures are the
Cards and Cost curves pages' own (reports/card_page.py reads them per card); the sidebar's rules
version and pilot filters narrow them. The card is described as the newest counted run of the
game's own versions plays it (not a what-if's or tune's trial), and when the versions counted
play the id as more than one card, the page says the tables pool them."""
from __future__ import annotations

import plotly.graph_objects as go
import polars as pl
import streamlit as st

from reports import mulligan
from reports.card_page import ALL_DECKS, definitions, keep_redraw, play_draw, run_hashes, trend
from reports.cards import PILOTS_HELP
from reports.costs import OFF_BUDGET
from reports.pages.cards import column_config, played_by_turn
from reports.pages.charts import legend_on_top
from reports.pages.common import (
    cached,
    count,
    is_trial,
    one_connection_per_render,
    pct,
    percent,
    pilots_note,
    pilots_of,
    pts,
    register_queries,
    replay_url,
    table_with_download,
    with_pilots_subtitle,
    with_replay_links,
)
from reports.pages.costs import budget_chart
from reports.pages.lookup import (
    CARD,
    DECK,
    EXAMPLES,
    counted_runs,
    item_scope,
    item_start,
    seat_table,
    with_page_links,
)
from reports.pages.whatif import card_about

register_queries(card_play_draw=play_draw, card_definitions=definitions, run_hashes=run_hashes, card_mulligan=mulligan.card_mulligan, deck_mulligan=mulligan.deck_mulligan,
                 hand_records=mulligan.hand_records)
TREND_BY = {"run": "run_id", "rules version": "rules_version"}
TREND_ORDER = ["label", "pilots", "played_games", "played_wr", "played_wr_lo", "played_wr_hi", "games", "gp_wr",
               "oh_excess", "oh_excess_lo", "oh_excess_hi", "example_win", "example_loss"]
DECK_COLUMNS = ["deck", "games", "gp_wr", "gp_wr_lo", "gp_wr_hi", "played_games", "played_wr", "played_wr_lo",
                "played_wr_hi", "oh_excess", "oh_excess_lo", "oh_excess_hi", "oh_excess_q", "avg_turn_played",
                "example_win", "example_loss"]
OPENING_COLUMNS = ["deck", "oh_games", "oh_wr", "oh_wr_lo", "oh_wr_hi", "not_oh_games", "not_oh_wr", "not_oh_wr_lo",
                   "not_oh_wr_hi", "oh_excess", "oh_excess_lo", "oh_excess_hi", "oh_excess_q"]
SCALED = ["gp_wr", "gp_wr_lo", "gp_wr_hi", "played_wr", "played_wr_lo", "played_wr_hi", "oh_wr", "oh_wr_lo",
          "oh_wr_hi", "not_oh_wr", "not_oh_wr_lo", "not_oh_wr_hi", "oh_excess", "oh_excess_lo", "oh_excess_hi"]
KEEP_ORDER = ["deck", "dealt_games", "kept_games", "kept_wr", "kept_wr_lo", "kept_wr_hi", "redrawn_games",
              "redrawn_wr", "redrawn_wr_lo", "redrawn_wr_hi", "kept_minus_redrawn", "kept_minus_redrawn_lo",
              "kept_minus_redrawn_hi", "keep_rate", "keep_rate_lo", "keep_rate_hi", "deck_keep_rate"]
KEEP_SCALED = ["kept_wr", "kept_wr_lo", "kept_wr_hi", "redrawn_wr", "redrawn_wr_lo", "redrawn_wr_hi", "keep_rate",
               "keep_rate_lo", "keep_rate_hi", "deck_keep_rate"]


# --- what it is, and its budget ------------------------------------------------------------------

def definition_runs(counted: pl.DataFrame) -> list[int]:
    """The runs whose card the page describes (the newest of them): the counted runs, but not a
    what-if's or tune's trial while a run of the game's own versions is counted (a trial's card
    is the designer's experiment, not the card)."""
    own = counted.filter(~is_trial())
    return (own if own.height else counted)["run_id"].to_list()


def several_cards_note(path: str, run_ids: list[int], card: str, name: str) -> None:
    """Say so when the runs counted play this id as more than one card (a rules version changed
    it): the tables below pool them, and a rules version chosen in the sidebar reads one."""
    found = cached("card_definitions", str(path), tuple(run_ids), card)
    if found.height < 2:
        return
    told = "; ".join(f"{', '.join(row['versions'])}: {definition_text(row)}" for row in found.iter_rows(named=True))
    st.warning(f"{name} is not the same card in every rules version counted ({told}). The tables below pool "
               "them, each version's matches as that version played the card: choose one rules version in the "
               "sidebar to read one card, or read the trend by rules version.")


def definition_text(row: dict) -> str:
    """A short reading of one definition: cost, stats and keywords (what a change usually moves)."""
    stats = "/".join(str(row[k]) for k in ("attack", "defense") if row.get(k) is not None)
    parts = [row.get("cost_text") or "", stats, " ".join(row.get("keywords") or [])]
    return " ".join(p for p in parts if p) or "other text or fields"


def budget_section(path: str, filters, card: str, name: str, scope: dict) -> None:
    """Its stat points against the budget its cost buys and the fitted line of its type."""
    st.markdown("##### Against its cost's budget")
    cards, lines = cached("stat_budget", path, filters)
    mine = cards.filter(pl.col("card") == card) if cards.height else cards
    if mine.is_empty():
        st.caption("No budget position: the store holds no cost and stat points for this card.")
        return
    row = newest_version_row(path, filters, mine)
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Budget cost", f"{row['budget_cost']:g}", help="the one number its game's cost curve uses")
    c2.metric("Stat points", f"{row['stat_points']:g}", help="what the card gives, as its game counts it")
    c3.metric("Budget points of its cost", f"{row['budget_points']:g}",
              delta=f"{row['surplus']:+g} over budget" if row["surplus"] else "on budget", delta_color="off",
              help="what its cost buys by its game's budget (its RULES.md); the difference is its surplus")
    line = f"{row['fitted_stats']:.1f}" if row["fitted_stats"] is not None else "—"
    c4.metric(f"{row['type']} line at its cost", line,
              help="the stat points the least-squares line of its type gives at its cost (Cost curves page)")
    z = row["residual_z"]
    st.caption(f"{row['card_set']}: " + ("**off budget**" if row["off_budget"] else "on budget")
               + f" (surplus {row['surplus']:+g}; off budget: {OFF_BUDGET}). "
               + (f"Studentized residual from its type's fitted line {z:+.2f}, for reading." if z is not None
                  else "Its type has no fitted line."))
    # one card set's cards and line: two card sets of one name (a workspace run as "base") are two budgets
    same = cards.filter((pl.col("rules_hash") == row["rules_hash"]) & (pl.col("type") == row["type"]))
    fitted = lines.filter((pl.col("rules_hash") == row["rules_hash"]) & (pl.col("type") == row["type"])) \
        if lines.height else lines
    st.plotly_chart(marked_budget_chart(same, fitted, row, name), width="stretch")
    if mine.height > 1:
        table_with_download(mine.select("card_set", "budget_cost", "stat_points", "budget_points", "surplus",
                                        "fitted_stats", "residual_z", "off_budget"), f"budget_{card}",
                            scope=scope, played=False)


def newest_version_row(path: str, filters, rows: pl.DataFrame) -> dict:
    """The row of the card set (rules version and hash) the page describes the card by: the
    newest counted run of the game's own versions (``definition_runs``), else the last row."""
    counted = counted_runs(path, filters)
    hashes = dict(cached("run_hashes", path))
    newest = [hashes.get(r) for r in sorted(definition_runs(counted), reverse=True)]
    chosen = next((h for h in newest if h in set(rows["rules_hash"].to_list())), rows["rules_hash"][-1])
    return rows.filter(pl.col("rules_hash") == chosen).row(0, named=True)



def marked_budget_chart(cards: pl.DataFrame, lines: pl.DataFrame, row: dict, name: str) -> go.Figure:
    """The Cost curves page's budget chart of its type, the card marked."""
    fig = budget_chart(cards, lines)
    fig.add_trace(go.Scatter(x=[row["budget_cost"]], y=[row["stat_points"]], mode="markers+text", text=[name],
                             name=name, textposition="top center",
                             marker={"symbol": "star", "size": 18, "color": "#ff7f0e", "line": {"width": 1}}))
    fig.update_layout(title={"text": f"{name} against the {row['type']} budget line ({row['rules_version']})"})
    return fig


# --- its figures ---------------------------------------------------------------------------------

def trend_section(path: str, filters, card: str, name: str, scope: dict) -> None:
    st.subheader("Across runs and rules versions")
    by = st.radio("Trend by", list(TREND_BY), horizontal=True, key="card_trend_by",
                  help="a point per run (in the order they were made) or per rules version (at its first run), "
                       "a line per group of " + PILOTS_HELP)
    column = TREND_BY[by]
    metrics = cached("card_metrics", path, filters, (column, "pilots"))
    runs = cached("runs", path).filter(pl.col("run_id").is_in(filters.runs))
    points = trend(metrics, card, column, runs).filter(pl.col("played_games") > 0) if metrics.height else metrics
    if points.is_empty():
        st.caption("Never played in these runs.")
        return
    st.plotly_chart(trend_chart(points, name, by), width="stretch")
    config = dict(column_config([]), label=st.column_config.TextColumn(by),
                  pilots=st.column_config.TextColumn("pilots", help=PILOTS_HELP))
    shown = with_replay_links(percent(points, SCALED), dict(EXAMPLES), config)
    table_with_download(shown, f"card_trend_{card}", config, download=points, column_order=TREND_ORDER, scope=scope)


def trend_chart(points: pl.DataFrame, name: str, by: str) -> go.Figure:
    """Played win rate per run or version, a line per seat pilots ("pilots greedy": greedy against
    greedy; "pilots greedy vs random": the seats greedy played against random), 95% Wilson error
    bars."""
    fig = go.Figure()
    for (pilots,), part in points.group_by("pilots", maintain_order=True):
        fig.add_trace(go.Scatter(
            x=part["label"], y=part["played_wr"] * 100, mode="lines+markers", name=f"pilots {pilots}",
            text=[f"n={n:,}" for n in part["played_games"]],
            error_y={"type": "data", "symmetric": False, "array": (part["played_wr_hi"] - part["played_wr"]) * 100,
                     "arrayminus": (part["played_wr"] - part["played_wr_lo"]) * 100},
            hovertemplate="%{x}: %{y:.1f}% won when played, %{text}<extra>%{fullData.name}</extra>"))
    fig.update_layout(title=f"{name}: played win rate by {by} (95% Wilson interval), one line per seat's "
                            "pilots",
                      xaxis_title="Run (in the order made)" if by == "run" else "Rules version (in the order first run)",
                      yaxis_title="Played win rate (%)", height=400,
                      legend={"orientation": "h", "y": -0.25,
                              "title": {"text": "pilots of the seat (greedy vs random: greedy's seats against random)"}},
                      xaxis={"type": "category", "categoryorder": "array",
                             "categoryarray": list(dict.fromkeys(points["label"].to_list()))})
    return fig


def deck_rows(path: str, filters, card: str) -> pl.DataFrame:
    """The card's rows of card_metrics by deck: the decks that held it or played it (a card
    that enters from outside the deck, such as a Deputy, has no games in the deck)."""
    metrics = cached("card_metrics", path, filters, ("deck",))
    if metrics.is_empty():
        return metrics
    held = (pl.col("games") > 0) | (pl.col("played_games") > 0)
    return metrics.filter((pl.col("card") == card) & held).sort("games", "played_games", descending=True)


def deck_section(path: str, filters, card: str, rows: pl.DataFrame, scope: dict) -> None:
    st.subheader("By deck")
    if rows.is_empty():
        st.caption("No deck of these runs held it.")
        return
    st.caption(f"Each deck that held it ({pilots_note(path, filters)}): games with it in the deck, its played win "
               "rate, and what it adds to that deck (OH excess, deck and seat held fixed; q across the deck's cards).")
    config = column_config(["deck"])
    shown = with_page_links(with_replay_links(percent(rows, SCALED), dict(EXAMPLES), config), "deck", DECK, config,
                            "deck")
    table_with_download(shown, f"card_by_deck_{card}", config, download=rows.select(DECK_COLUMNS),
                        column_order=DECK_COLUMNS, scope=scope)


def turn_section(path: str, filters, card: str, name: str, scope: dict) -> None:
    st.subheader("By the turn it was first played")
    st.caption(f"Win rate of games by the seat's own turn it was first played ({pilots_note(path, filters)}), "
               "per rules version.")
    played_by_turn(path, filters, {"card": card}, [], name, scope)


def opening_section(path: str, filters, card: str, rows: pl.DataFrame, scope: dict) -> None:
    st.subheader("Opening hand and mulligans")
    if not rows.is_empty():
        st.caption(f"Per deck ({pilots_note(path, filters)}): win rate with it in the opening hand (as kept, after any "
                   "redraw) against the same deck's games without it there; OH excess holds deck and seat fixed.")
        config = column_config(["deck"])
        table_with_download(percent(rows, SCALED), f"card_opening_hand_{card}", config,
                            download=rows.select(OPENING_COLUMNS), column_order=OPENING_COLUMNS, scope=scope)
    keep_redraw_section(path, filters, card, scope)


def keep_redraw_section(path: str, filters, card: str, scope: dict) -> None:
    """Dealt it in the opening hand: the hands kept against the hands redrawn, per deck."""
    st.markdown("##### Kept or redrawn")
    records = cached("hand_records", path, filters)
    missing = no_choice_line(records, filters.game)
    if missing:
        st.markdown(missing)
        return
    rows = keep_redraw(cached("card_mulligan", path, filters, True), cached("deck_mulligan", path, filters), card)
    if rows.is_empty():
        st.caption("No seat that was offered a redraw was dealt it in these runs.")
        return
    older = (f" {records['unrecorded']:,} of the {records['card_rows']:,} card rows counted come from runs stored "
             "before the hand as dealt was recorded and are left out." if records["unrecorded"] else "")
    st.caption(f"The seats dealt it in the opening hand ({pilots_note(path, filters)}): those that kept that hand and "
               "those that sent it back and drew anew, each with its win rate (95% Wilson), the difference in points "
               "(Newcombe), and its keep rate beside its deck's keep rate over all the deck's hands. The choice is "
               "the pilot's, about the whole hand." + older)
    st.plotly_chart(with_pilots_subtitle(keep_redraw_chart(rows, rows["name"][0] or card), pilots_of(path, filters)),
                    width="stretch")
    table_with_download(percent(rows, KEEP_SCALED), f"card_mulligan_{card}", keep_config(), download=rows,
                        column_order=KEEP_ORDER, scope=scope)


def keep_redraw_chart(rows: pl.DataFrame, name: str) -> go.Figure:
    """Per deck, the win rate after keeping a hand with it and after redrawing one, 95% Wilson bars."""
    fig = go.Figure()
    for side, label in (("kept", "kept the hand"), ("redrawn", "redrew the hand")):
        rates = rows[f"{side}_wr"] * 100
        fig.add_trace(go.Bar(
            y=rows["deck"], x=rates, orientation="h", name=label, text=[f"n={n:,}" for n in rows[f"{side}_games"]],
            error_x={"type": "data", "symmetric": False, "array": rows[f"{side}_wr_hi"] * 100 - rates,
                     "arrayminus": rates - rows[f"{side}_wr_lo"] * 100},
            hovertemplate="%{y}: %{x:.1f}% won, %{text}<extra>%{fullData.name}</extra>"))
    fig.update_layout(title=f"{name} dealt in the opening hand: win rate when the hand was kept or redrawn "
                            "(95% Wilson interval)", xaxis_title="Win rate (%)", barmode="group",
                      height=160 + 70 * rows.height, yaxis={"autorange": "reversed"})
    return legend_on_top(fig)


def no_choice_line(records: dict, game: str) -> str | None:
    """One line when these matches record no keep/redraw choice (and why), else None."""
    if records["card_rows"] and records["unrecorded"] == records["card_rows"]:
        return ("Keep and redraw choices are **not recorded** in these runs: they were stored before the workbench "
                "kept the hand as dealt (a run played now records it).")
    if not records["offered"]:
        return f"**No redraw** in {game}: its rules offer none in these runs, so the opening hand is the hand as dealt."
    return None


def keep_config() -> dict:
    """Column labels and help of the kept-or-redrawn table."""
    return {
        "deck": st.column_config.TextColumn("deck", help=f"the deck dealt it ({ALL_DECKS}: every deck together)"),
        "dealt_games": count("dealt", "games whose seat was dealt it in the opening hand and was offered a redraw"),
        "kept_games": count("kept", "of those, the seat kept the hand dealt"),
        "kept_wr": pct("kept WR", "won / kept games"),
        "kept_wr_lo": pct("lo", "95% Wilson lower bound"), "kept_wr_hi": pct("hi", "95% Wilson upper bound"),
        "redrawn_games": count("redrawn", "of those, the seat sent the hand back and drew anew"),
        "redrawn_wr": pct("redrawn WR", "won / redrawn games"),
        "redrawn_wr_lo": pct("lo", "95% Wilson lower bound"), "redrawn_wr_hi": pct("hi", "95% Wilson upper bound"),
        "kept_minus_redrawn": pts("kept − redrawn", "kept WR minus redrawn WR, in percentage points"),
        "kept_minus_redrawn_lo": pts("lo", "95% Newcombe lower bound"),
        "kept_minus_redrawn_hi": pts("hi", "95% Newcombe upper bound"),
        "keep_rate": pct("keep rate", "kept / dealt: how often a hand with it was kept"),
        "keep_rate_lo": pct("lo", "95% Wilson lower bound"), "keep_rate_hi": pct("hi", "95% Wilson upper bound"),
        "deck_keep_rate": pct("deck keep rate", "kept / offered over every hand of the deck, with the card or not"),
    }


def play_draw_section(path: str, filters, card: str, scope: dict) -> None:
    st.subheader("On the play and on the draw")
    split = cached("card_play_draw", path, filters)
    mine = split.filter(pl.col("card") == card) if split.height else split
    if mine.is_empty():
        st.caption("No games with it in these runs.")
        return
    st.caption(f"Win rate when its seat acted first against second ({pilots_note(path, filters)}): games with it in "
               "the deck, in the opening hand and played.")
    seat_table(mine, f"card_play_draw_{card}", ["seat", "counted"], "games of that seat with the card so",
               {"counted": st.column_config.TextColumn("games with the card")}, scope=scope)


def examples_section(rows: pl.DataFrame) -> None:
    st.subheader("Example matches")
    if rows.is_empty():
        st.caption("No example: it was never played in these runs.")
        return
    lines = []
    for r in rows.iter_rows(named=True):
        links = [f"[{what} ({r[column]})]({replay_url(r[column])})"
                 for column, what in (("example_win", "a win"), ("example_loss", "a loss")) if r[column]]
        if links:
            lines.append(f"- **{r['deck']}**: played in " + " · ".join(links))
    st.markdown("\n".join(lines) if lines else "It was never played in these runs.")
    st.caption("Each opens the Match replay on that match, the seat that played the card marked.")


@one_connection_per_render
def render() -> None:
    start = item_start(CARD)
    if start is None:
        return
    path, filters, card, name = start
    counted = counted_runs(path, filters)
    card_about(path, definition_runs(counted), card, filters.versions[0] if len(filters.versions) == 1 else None)
    several_cards_note(path, counted["run_id"].to_list(), card, name)
    scope = item_scope(path, filters)
    budget_section(path, filters, card, name, scope)
    trend_section(path, filters, card, name, scope)
    rows = deck_rows(path, filters, card)
    deck_section(path, filters, card, rows, scope)
    turn_section(path, filters, card, name, scope)
    opening_section(path, filters, card, rows, scope)
    play_draw_section(path, filters, card, scope)
    examples_section(rows)
