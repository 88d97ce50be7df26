"""Matchups page: the deck-vs-deck matrix (the row deck's win rate against the column deck, with
its sample size and 95% interval), each deck against the whole field, and the meta a rational
field would play (the matrix's equilibrium mix of decks, reports/meta.py). A line at the top
names the pilots: every figure here is a fact about their play. When the counted matches hold more
than one pilot, each matrix cell, table row and field bar names the pilot of its deck (and of the
opponent, or the field): reports/matchups.py never pools two pilot pairings into one figure."""
from __future__ import annotations

import plotly.graph_objects as go
import polars as pl
import streamlit as st

from reports import meta
from reports.matchups import PILOT_COLUMNS, pilots_in
from reports.pages.common import (
    cached,
    count,
    example_buttons,
    filtered_page,
    kept_runs,
    one_connection_per_render,
    pct,
    percent,
    pilots_line,
    pool_note,
    pooled_versions_note,
    table_with_download,
    win_rate_config,
    with_pilots_subtitle,
    with_replay_links,
)

HELP = {
    "win rate": "matches the row deck won against the column deck, over all their matches (a draw is not a win); "
                "95% Wilson interval",
    "games": "matches between the two decks (a mirror match counts once for each seat)",
    "field": "a deck's win rate against every other deck pooled (mirror matches left out)",
    "pilot": "the pilot that played the row deck",
    "opponent pilot": "the pilot that played the opponent deck",
    "field pilot": "the pilot that played every deck of the field (a field of two pilots is two rows)",
    "equilibrium share": "the deck's share of the Nash equilibrium mix of the game whose payoff is the row deck's "
                         "win rate minus 50% (a draw counts half): the field no deck can beat on average; "
                         "95% bootstrap interval over seeds",
    "WR vs the mix": "the deck's win rate (a draw counts half) against a field playing the equilibrium mix, its "
                     "own mirror included at 50%: 50% for every deck the mix plays, less for a deck it leaves out",
}


def sides(m: pl.DataFrame, mixed: bool) -> tuple[list[tuple], list[tuple]]:
    """Each row's deck and its opponent as the matrix keys them: (deck,), or (deck, pilot) when the
    rows hold more than one pilot, so a cell never reads as a deck's own where it was its pilot's."""
    if not mixed:
        return [(d,) for d in m["deck"]], [(o,) for o in m["opponent"]]
    return list(zip(m["deck"], m["pilot"])), list(zip(m["opponent"], m["opponent_pilot"]))


def side_label(key: tuple) -> str:
    """A matrix side as the axes name it: the deck, and its pilot in brackets when keyed by it."""
    return key[0] if len(key) == 1 else f"{key[0]} ({key[1]})"


def heatmap(m: pl.DataFrame, mixed: bool = False) -> go.Figure:
    """The matrix; ``mixed``: the rows hold several pilots, and each side is a deck as one pilot
    played it (a deck two pilots played is two rows, not one pooled)."""
    rows, cols = sides(m, mixed)
    keys = sorted(set(rows) | set(cols))
    decks = [side_label(k) for k in keys]
    cell = {(r, c): row for r, c, row in zip(rows, cols, m.iter_rows(named=True))}
    z, text, hover = [], [], []
    for dk, d in zip(keys, decks):
        z.append([]), text.append([]), hover.append([])
        for ok, o in zip(keys, decks):
            r = cell.get((dk, ok))
            if r is None or r["win_rate"] is None:
                z[-1].append(None), text[-1].append("no matches"), hover[-1].append(f"{d} vs {o}: no matches")
                continue
            z[-1].append(r["win_rate"] * 100)
            text[-1].append(f"{r['win_rate']:.1%}<br>n={r['games']:,}")
            hover[-1].append(f"{d} vs {o}<br>won {r['win_rate']:.1%} (95% CI {r['win_rate_lo']:.1%} to "
                             f"{r['win_rate_hi']:.1%})<br>n = {r['games']:,} matches, {r['drawn']:,} drawn")
    fig = go.Figure(go.Heatmap(z=z, x=decks, y=decks, text=text, texttemplate="%{text}", customdata=hover,
                               hovertemplate="%{customdata}<extra></extra>", colorscale="RdBu", zmid=50, zmin=0, zmax=100,
                               colorbar={"title": "row deck<br>win rate (%)"}))
    by = " (pilot)" if mixed else ""
    fig.update_layout(title="Deck against deck: the row deck's win rate" + (", each deck as its pilot played it"
                                                                          if mixed else ""),
                      xaxis_title="Opponent deck" + by, yaxis_title="Deck" + by,
                      height=max(380, 90 * len(decks) + 160), yaxis={"autorange": "reversed"})
    return fig


def field_label(r: dict, mixed: bool) -> str:
    """A field bar's name: the deck, and when the field holds several pilots the deck's and the
    field's (two bars of one deck otherwise shared a label, and plotly drew them as one)."""
    pilots = f"{r['pilot']} against {r['opponent_pilot']}, " if mixed else ""
    return f"{r['deck']} ({pilots}n={r['games']:,})"


def field_chart(field: pl.DataFrame, mixed: bool = False) -> go.Figure:
    rows = field.sort("win_rate").to_dicts()
    labels = [field_label(r, mixed) for r in rows]
    fig = go.Figure(go.Bar(
        x=[r["win_rate"] * 100 for r in rows], y=labels, orientation="h", marker={"color": "#1f77b4"},
        error_x={"type": "data", "symmetric": False, "array": [(r["win_rate_hi"] - r["win_rate"]) * 100 for r in rows],
                 "arrayminus": [(r["win_rate"] - r["win_rate_lo"]) * 100 for r in rows]},
        customdata=[[r["win_rate_lo"] * 100, r["win_rate_hi"] * 100] for r in rows],
        hovertemplate="%{y}: %{x:.1f}% won (95% CI %{customdata[0]:.1f} to %{customdata[1]:.1f})<extra></extra>"))
    fig.add_vline(x=50, line_dash="dot", line_color="gray")
    fig.update_layout(title="Each deck against the field (95% Wilson interval)", xaxis_title="Win rate (%)",
                      yaxis_title="", height=max(260, 50 * len(rows) + 140))
    return fig


RATE_CONFIG = win_rate_config(HELP["games"], HELP["win rate"]) | {"drawn": count("drawn", "matches drawn")}
PILOT_CONFIG = {"pilot": st.column_config.TextColumn("pilot", help=HELP["pilot"]),
                "opponent_pilot": st.column_config.TextColumn("opponent pilot", help=HELP["opponent pilot"])}
MIXED = (" Each row names the pilot of its deck and of the opponent's: matches of other pilots are never pooled into "
         "one figure, so a deck two pilots played has a row (and a line of the matrix) for each.")


def shown_columns(frame: pl.DataFrame, mixed: bool) -> list[str] | None:
    """A table's column order: every column when the rows hold several pilots, else all but the
    pilot columns (one pilot, which the pilots line names; the CSV keeps them)."""
    return None if mixed else [c for c in frame.columns if c not in PILOT_COLUMNS]


def side(row: dict, deck: str, pilot: str, mixed: bool) -> str:
    """A deck of a selected row, for its replay note: with its pilot when the rows hold several."""
    return f"{row[deck]} ({row[pilot]})" if mixed else row[deck]


@one_connection_per_render
def render() -> None:
    start = filtered_page("Matchups", HELP)
    if start is None:
        return
    path, filters = start
    m = cached("matchups", str(path), filters)
    if m.is_empty():
        st.info("No two-seat matches in these runs.")
        return
    mixed = len(pilots_in(m)) > 1
    st.caption(pilots_line(path, filters) + " Two-seat matches only. The row deck's win rate against the column deck; "
               "hover a cell for its 95% interval. A deck filter keeps the rows of those decks." + (MIXED if mixed else ""))
    # the matrix, the field and the meta all pool the counted runs' matches, whatever their rules
    note = pooled_versions_note(path, filters, "The matchups, the field and the meta")
    if note:
        st.warning(note)
    st.plotly_chart(with_pilots_subtitle(heatmap(m, mixed), pilots_in(m)), width="stretch")
    config = dict(RATE_CONFIG, deck="deck", opponent="opponent", **PILOT_CONFIG)
    shown = with_replay_links(percent(m, ["win_rate", "win_rate_lo", "win_rate_hi"]), {"example": "example match"}, config)
    picked = table_with_download(shown, "matchups", config, download=m, select_key="matchups_table",
                                 column_order=shown_columns(shown, mixed))
    row = m.row(picked, named=True) if picked is not None else None
    example_buttons(row, {"example": "Replay an example match"}, "matchup",
                    f"{side(row, 'deck', 'pilot', mixed)} against {side(row, 'opponent', 'opponent_pilot', mixed)}"
                    if row else "")
    field_section(path, filters)
    meta_section(path, filters)


def field_section(path, filters) -> None:
    st.subheader("Each deck against the field")
    field = cached("deck_field", str(path), filters)
    if field.is_empty():
        st.info("Every match in these runs is a mirror match.")
        return
    raw = field
    # a deck's field is split by the field's pilot too (reports/matchups.deck_field says why)
    mixed = len(pilots_in(raw)) > 1
    if mixed:
        st.caption("Each deck as one pilot played it against the field as one pilot played it: a field of two "
                   "pilots is two rows, never pooled.")
    st.plotly_chart(with_pilots_subtitle(field_chart(raw, mixed), pilots_in(raw)), width="stretch")
    config = dict(RATE_CONFIG, win_rate=pct("win rate", HELP["field"]), pilot=PILOT_CONFIG["pilot"],
                  opponent_pilot=st.column_config.TextColumn("field pilot", help=HELP["field pilot"]))
    shown = with_replay_links(percent(raw, ["win_rate", "win_rate_lo", "win_rate_hi"]),
                              {"example_win": "example win", "example_loss": "example loss"}, config)
    picked = table_with_download(shown, "deck_field", config, download=raw, select_key="field_table",
                                 column_order=shown_columns(shown, mixed))
    row = raw.row(picked, named=True) if picked is not None else None
    field_of = f" ({row['opponent_pilot']})" if row and mixed else ""
    example_buttons(row, {"example_win": "Replay a win", "example_loss": "Replay a loss"}, "field",
                    f"deck {side(row, 'deck', 'pilot', mixed)} against the field{field_of}" if row else "")


META_CONFIG = {
    "deck": st.column_config.TextColumn("deck", pinned=True),
    "share": pct("equilibrium share", HELP["equilibrium share"]),
    "share_lo": pct("share lo", "95% bootstrap lower bound (percentile)"),
    "share_hi": pct("share hi", "95% bootstrap upper bound (percentile)"),
    "in_mix": pct("in the mix", "of the bootstrap resamples, those whose equilibrium plays this deck at all"),
    "wr_vs_mix": pct("WR vs the mix", HELP["WR vs the mix"]),
    "wr_vs_mix_lo": pct("lo", "95% bootstrap lower bound, the mix held fixed"),
    "wr_vs_mix_hi": pct("hi", "95% bootstrap upper bound, the mix held fixed"),
    "games": count("games", "the deck's matches against the other decks of the matrix"),
    "note": st.column_config.TextColumn("note", help="why a deck is not in the matrix"),
}
META_RATES = ["share", "share_lo", "share_hi", "in_mix", "wr_vs_mix", "wr_vs_mix_lo", "wr_vs_mix_hi"]


# the meta is a game between decks a field chooses; a campaign's fights are its crews against the
# map's enemies (reports/meta.py seed_scores keeps duel runs)
CAMPAIGNS_ONLY = ("The meta is solved over duel runs, and the chosen runs are campaign runs: their fights pit each "
                  "crew against the enemies on its map, not decks a field chooses between, so there is no game to "
                  "solve. The matrix and field figures above count those fights; pick a duel run in the sidebar to "
                  "see the meta.")


def campaign_runs(path, filters) -> list[int]:
    """The chosen runs that are campaign batches."""
    runs = cached("runs", str(path))
    return runs.filter(pl.col("run_id").is_in(filters.runs) & (pl.col("kind") == "campaign"))["run_id"].to_list()


def campaign_note(path, filters, campaigns: list[int]) -> str:
    """The meta's note on the chosen campaign runs it leaves out: counted above when the pilot
    filter kept them (it keeps none: a campaign run's fights seat no one pilot), else not counted
    on this page at all."""
    if not campaigns:
        return ""
    counted = set(kept_runs(path, filters)["run_id"].to_list())
    above = [r for r in campaigns if r in counted]
    runs = ", ".join(map(str, campaigns))
    if above:
        return (f" Over the chosen duel runs only: the fights of campaign run {runs}, counted above, are left out "
                "(a crew meets the enemies on its map, not a field).")
    return (f" Over the duel runs the pilot filter keeps. The fights of campaign run {runs} are counted nowhere on this page: "
            "the pilot filter chooses no campaign run (a crew meets the enemies on its map, not a field).")


def meta_section(path, filters) -> None:
    """The equilibrium mix: what a field that adapted to these matchups would play."""
    st.subheader("The meta a rational field would play")
    mix = cached("meta_mix", str(path), filters)
    campaigns = campaign_runs(path, filters)
    if mix["share"].is_null().all():
        st.info(CAMPAIGNS_ONLY if len(campaigns) == len(filters.runs) else
                "No two different decks met in these duel runs, so there is no game to solve.")
        return
    pilots = mix["pilots"][0]
    # the duel runs' pooling as the pilots line says it (the campaign runs are not in the meta)
    st.markdown(f"{meta.MEANING}. Pilots: **{pilots}**." + (pool_note(path, filters, campaigns=False) if "," in pilots
                                                            else ""))
    st.caption(meta.METHOD.format(resamples=meta.RESAMPLES) + ". A deck filter solves the game of those decks alone."
               + campaign_note(path, filters, campaigns))
    order = [c for c in META_CONFIG if c != "note" or mix["note"].is_not_null().any()]
    table_with_download(percent(mix, META_RATES), "meta_mix", META_CONFIG, download=mix, column_order=order)
