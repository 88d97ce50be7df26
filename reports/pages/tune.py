"""Rebalancing page: a stored ``workbench tune`` proposal: the card numbers it changes, every
deck's field win rate before and after on fresh seeds (with intervals), the candidates its search
tried, and for a one-card proposal the value measured at each number."""
from __future__ import annotations

import plotly.graph_objects as go
import polars as pl
import streamlit as st

from reports import tune as tn
from reports.pages.common import (
    cached,
    count,
    distinct,
    glossary,
    one_connection_per_render,
    page_header,
    pct,
    percent,
    pts,
    sidebar_choice,
    store_reads,
    table_with_download,
    with_pilots_subtitle,
)

NO_PROPOSAL = ("No rebalancing proposal in this store yet. `workbench tune` searches for the fewest card-number "
               "changes that bring every deck's field win rate into a band, verifies them on fresh seeds and writes "
               "them as a rules version into a workspace, for example:\n\n"
               "`workbench init my-data && workbench tune frontier --band 45-55 --data my-data`")
HELP = {
    "field win rate": tn.MEANING,
    "before / after": tn.VERIFIED + "; 95% Wilson intervals",
    "paired change": "after minus before over the twins (the same seed, seat and opponent), with its paired 95% "
                     "interval: the luck both versions share cancels",
    "search estimate": "the deck's field win rate on the search's own seeds, at its start and with the proposal: "
                       "what the search steered by (the verification is the figure to trust)",
    "surplus": "the card's stat points minus its budget points under the game's stat budget, in stat points "
               "(0: on the line)",
    "objective": "the search's score of a candidate: squared points outside the target band, summed over decks "
                 "(0: every deck inside)",
    "value": "the deck with the card minus the same deck with its copies replaced by a vanilla reference card of its "
             "cost, same seeds and seats, in win-rate points with a paired 95% interval (0: worth a vanilla body)",
}


_read = store_reads("tune", proposals=tn.proposals, rows=tn.proposal_table)


def _proposals(path: str) -> pl.DataFrame:
    return _read("proposals", path)


def _rows(path: str, table: str, tune_id: int) -> pl.DataFrame:
    return _read("rows", path, table, tune_id)


def label(r: dict) -> str:
    cards = r.get("cards") if r.get("cards") is not None else r["changes"]
    what = (f"{r['card']} {r['field']}" if r["kind"] == "card" else
            f"{cards} card{'s' if cards != 1 else ''} changed, band {r['band_lo']:.0%}-{r['band_hi']:.0%}")
    return f"tune {r['tune_id']}: {r['game']} {r['base_version']} -> {r['version'] or '(no change)'} ({what})"


def deck_chart(decks: pl.DataFrame, band: tuple[float, float]) -> go.Figure:
    fig = go.Figure()
    for column, name in (("wr_before", "before"), ("wr_after", "after")):
        rates = decks[column].to_numpy()
        lo, hi = decks[f"{column}_lo"].to_numpy(), decks[f"{column}_hi"].to_numpy()
        fig.add_trace(go.Bar(name=name, y=decks["deck"].to_list(), x=rates * 100, orientation="h",
                             error_x={"type": "data", "symmetric": False, "array": (hi - rates) * 100,
                                      "arrayminus": (rates - lo) * 100},
                             hovertemplate="%{y}: %{x:.1f}%<extra>" + name + "</extra>"))
    for x in band:
        fig.add_vline(x=x * 100, line_dash="dash", line_color="grey")
    # plotly's margins take 180 px (the title's above, the axis title's below): 60 px a deck's two bars on top
    fig.update_layout(barmode="group", xaxis_title="field win rate (%)", height=180 + 60 * decks.height,
                      margin={"l": 10}, title="Field win rate before and after, fresh seeds (band dashed)")
    return fig


@one_connection_per_render
def render() -> None:
    path = page_header("Rebalancing proposals")
    if path is None:
        return
    found = _proposals(str(path))
    if found.is_empty():
        st.info(NO_PROPOSAL)
        return
    rows = {r["tune_id"]: r for r in found.iter_rows(named=True)}
    chosen = sidebar_choice("proposal", "Proposal", list(rows), list(rows)[:1], many=False,
                            format_func=lambda i: label(rows[i]), help="a stored `workbench tune` (the newest first)")
    glossary(HELP)
    p = rows[chosen]
    # what the downloads record: the proposal and the pilots that played it, not the duel pages' runs
    scope = {"game": p["game"], "proposal": str(chosen), "pilots": ",".join(distinct(p["pilots"]))}
    st.subheader(label(p))
    st.markdown(f"**{p['verdict']}**")
    st.caption(f"Pilots **{p['pilots']}**; field {p['decks']}; seed {p['seed']}; "
               f"{p['matches_search']:,} matches in the search and {p['matches_verify']:,} in verification"
               + (f"; written to `{p['file']}`" if p["file"] else "") + ".")
    changes = _rows(str(path), "tune_changes", chosen)
    if changes.height:
        st.markdown("#### Changes")
        table_with_download(changes.select("name", "field", "before", "after", "surplus_before", "surplus_after",
                                           "decks", "card"), f"tune_{chosen}_changes", CHANGES_CONFIG,
                            scope=scope)
    if p["kind"] == "card":
        _card(path, p, chosen, scope)
        return
    decks = _rows(str(path), "tune_decks", chosen)
    verified = decks.filter(pl.col("wr_after").is_not_null())
    if verified.height:
        st.plotly_chart(with_pilots_subtitle(deck_chart(verified, (p["band_lo"], p["band_hi"])), distinct(p["pilots"])),
                        width="stretch")
    st.markdown("#### Decks")
    shown = percent(decks, ["search_before", "search_after", "wr_before", "wr_before_lo", "wr_before_hi", "wr_after",
                            "wr_after_lo", "wr_after_hi", "change", "change_lo", "change_hi"])
    table_with_download(shown, f"tune_{chosen}_decks", {
        "search_before": pct("search start", HELP["search estimate"]),
        "search_after": pct("search end", HELP["search estimate"]),
        "games_before": count("games", "the deck's matches x seats in the verification, per version"),
        "wr_before": pct("before", HELP["before / after"]), "wr_before_lo": pct("lo", "95% Wilson"),
        "wr_before_hi": pct("hi", "95% Wilson"), "wr_after": pct("after", HELP["before / after"]),
        "wr_after_lo": pct("lo", "95% Wilson"), "wr_after_hi": pct("hi", "95% Wilson"),
        "change": pts("paired change", HELP["paired change"]), "change_lo": pts("lo", "paired 95%"),
        "change_hi": pts("hi", "paired 95%"), "in_band": st.column_config.CheckboxColumn("in band")},
        download=decks, column_order=["deck", "wr_before", "wr_before_lo", "wr_before_hi", "wr_after", "wr_after_lo",
                                      "wr_after_hi", "change", "change_lo", "change_hi", "in_band", "games_before",
                                      "search_before", "search_after"], scope=scope)
    steps = _rows(str(path), "tune_steps", chosen)
    if steps.height:
        with st.expander(f"The search: {steps.height} candidates tried, {int(steps['accepted'].sum())} taken"):
            table_with_download(percent(named_steps(path, steps), ["deck_wr"]), f"tune_{chosen}_steps", {
                "round": count("round", "the search's round"), "step": count("step", "the step within its round"),
                "candidate_no": count("candidate", "the candidate's number within its step"),
                "direction": st.column_config.TextColumn("direction", help="nerf or buff: the way the deck was off"),
                "name": st.column_config.TextColumn("card", help="the card the candidate changes"),
                "before": CHANGES_CONFIG["before"], "after": CHANGES_CONFIG["after"],
                "objective": st.column_config.NumberColumn("objective", help=HELP["objective"], format="%.1f"),
                "deck_wr": pct("deck with it", "the deck's estimate with the candidate, search seeds"),
                "matches": count("matches", "matches the candidate was measured on"),
                "run_id": st.column_config.NumberColumn("run", help="the run that played the candidate", format="%d"),
                "accepted": st.column_config.CheckboxColumn("taken")}, download=steps, column_order=STEPS_ORDER,
                scope=scope)


CHANGES_CONFIG = {
    "name": st.column_config.TextColumn("card", help="the card changed"),
    "field": st.column_config.TextColumn("field", help="the card's number that changes"),
    "before": st.column_config.NumberColumn("before", help="the number before the change", format="%g"),
    "after": st.column_config.NumberColumn("after", help="the number after it", format="%g"),
    "surplus_before": st.column_config.NumberColumn("surplus before", help=HELP["surplus"], format="%+.1f"),
    "surplus_after": st.column_config.NumberColumn("surplus after", help=HELP["surplus"], format="%+.1f"),
    "decks": st.column_config.TextColumn("decks", help="the decks of the field that hold the card")}
STEPS_ORDER = ["round", "step", "candidate_no", "deck", "direction", "name", "field", "before", "after", "objective",
               "accepted", "deck_wr", "matches", "run_id", "card"]


def named_steps(path, steps: pl.DataFrame) -> pl.DataFrame:
    """The search's candidates with their card's name beside its id (from the runs that played them)."""
    runs = tuple(sorted(steps["run_id"].drop_nulls().unique().to_list()))
    names = cached("card_names", str(path), runs).select("card", "name").unique("card") if runs else \
        pl.DataFrame(schema={"card": pl.Utf8, "name": pl.Utf8})
    return steps.join(names, on="card", how="left")


def _card(path, p: dict, chosen: int, scope: dict[str, str]) -> None:
    st.markdown(f"**Why**: {p['why']}")
    values = _rows(str(path), "tune_values", chosen)
    if values.is_empty():
        return
    fig = go.Figure(go.Scatter(
        x=values["number"].to_list(), y=values["value_points"].to_list(), mode="markers+lines",
        error_y={"type": "data", "symmetric": False,
                 "array": (values["value_hi"] - values["value_points"]).to_list(),
                 "arrayminus": (values["value_points"] - values["value_lo"]).to_list()}))
    fig.add_hline(y=0, line_dash="dash", line_color="grey")
    fig.update_layout(xaxis_title=p["field"], yaxis_title="value (win-rate points)", height=360,
                      title=f"{p['card']}: value at each {p['field']} measured (0: worth a vanilla body of its cost)")
    st.plotly_chart(with_pilots_subtitle(fig, distinct(p["pilots"])), width="stretch")
    table_with_download(values.select("number", "value_points", "value_lo", "value_hi", "twins", "surplus",
                                      "reference", "chosen"), f"tune_{chosen}_values", {
        "number": st.column_config.NumberColumn(p["field"], help=f"the card's {p['field']} measured", format="%g"),
        "reference": st.column_config.TextColumn("reference card id", help="the vanilla card of its cost that "
                                                 "replaced its copies"),
        "value_points": pts("value", HELP["value"]), "value_lo": pts("lo", "paired 95%"),
        "value_hi": pts("hi", "paired 95%"), "twins": count("twins", "paired match x seat rows of the deck"),
        "surplus": st.column_config.NumberColumn("surplus", help=HELP["surplus"], format="%+.1f"),
        "chosen": st.column_config.CheckboxColumn("proposed")}, scope=scope)
