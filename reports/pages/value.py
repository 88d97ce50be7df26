"""Card value page: what each card adds to its deck's win rate, measured by intervention
(``workbench value``: twin matches on the same seeds and seats with the card's copies replaced by a
vanilla reference card), ranked with paired 95% intervals, for one deck, opponent and pilot."""
from __future__ import annotations

import polars as pl
import streamlit as st

from reports.pages.columns import unique_names
from reports.pages.common import (
    cached,
    count,
    glossary,
    one_connection_per_render,
    page_header,
    pct,
    percent,
    pts,
    sidebar_choice,
    table_with_download,
)
from reports.value import COLOURS, MEANING, card_sets, context_title, contexts, pilot_words, value_chart

HELP = {
    "win rate added": f"{MEANING}, in win-rate points; paired 95% interval",
    "twins": "paired (match, seat) rows of the deck: the same seed and seat played with and without the card",
    "reference": "the vanilla card that took the card's place, at the same deck positions",
    "pilots": "the AI pilots that played the twins; another pilot can value a card differently",
    "McNemar p": "McNemar's test on the twins whose result differs with and without the card",
    "q (BH)": "Benjamini-Hochberg q-value over the cards of the same measurement; significant when below 0.05",
}
NO_VALUE = ("No card value measured yet. `workbench value` plays a deck as written and, on the same seeds and "
            "seats, with each card's copies replaced by a vanilla reference card, for example:\n\n"
            "`workbench value frontier --deck lawmen-posse --all --matches 1000`")
ABOUT = (f"**Win rate added**: {MEANING}, so the luck of the shuffle cancels twin by twin. Bars carry the "
         f"paired 95% interval; {COLOURS}.")
# (column, the name its choice is kept under and in the URL, sidebar label, help, shown even with a
# single option); the game is the one every page keeps
FILTERS = (
    ("game", "game", "Game", "which game's measurements to show", True),
    ("rules_version", "value_rules", "Rules version", "the rules version the deck was measured under", True),
    ("deck", "value_deck", "Deck", "the deck whose cards were measured", True),
    ("against", "value_against", "Against", "the opponent the deck played: 'field' or one deck", False),
    ("pilots", "value_pilots", "Pilots", HELP["pilots"], False),
    ("rules_hash", "value_cards", "Card set", "the card data the version held when measured (its hash): a version "
     "edited between measurements, or of one name in two data folders, is two card sets", False),
)
ORDER = ["card", "name", "copies", "twins", "value_points", "value_lo", "value_hi", "wr_with", "wr_without",
         "p_value", "q_value", "significant", "reference", "value_id", "base_run", "variant_run", "created_at"]


def narrow(values: pl.DataFrame, column: str, name: str, label: str, help: str, always: bool) -> pl.DataFrame:
    """A sidebar choice among the column's values, kept across pages and in the URL as ``name``,
    starting at the newest measurement's; none is offered for a single value unless ``always``
    (game, version and deck are always named, so the page says what it shows). ``some``: a kept
    value another game or deck does not offer stays kept for when it returns."""
    options = sorted(values[column].unique().to_list())
    if len(options) < 2 and not always:
        return values
    newest = values.sort("value_id")[column][-1]
    chosen = sidebar_choice(name, label, options, [newest], many=False, some=True, help=help)
    return values.filter(pl.col(column) == chosen)


def value_scope(context: dict, card_set: bool = False) -> dict[str, str]:
    """What the download records (``table_with_download``'s ``scope``): the measurement's game,
    rules version, deck, opponent and pilots, not the runs the duel pages keep."""
    scope = {"game": context["game"], "rules": context["rules_version"]}
    if card_set:  # the version was measured under more than one card set: which one
        scope["card_set"] = context["rules_hash"][:8]
    return scope | {"deck": context["deck"], "against": context["against"], "pilots": context["pilots"]}


def column_config() -> dict:
    number = st.column_config.NumberColumn
    return {"card": st.column_config.TextColumn("card id", pinned=True),
            "name": st.column_config.TextColumn("name", pinned=True),
            "copies": count("copies", "copies of the card in the deck, all replaced"),
            "twins": count("twins", HELP["twins"]),
            "value_points": pts("win rate added", HELP["win rate added"]),
            "value_lo": pts("lo", "paired 95% lower bound"), "value_hi": pts("hi", "paired 95% upper bound"),
            "wr_with": pct("WR with", "the deck's win rate as written, over the twins"),
            "wr_without": pct("WR without", "the same deck's win rate with the card replaced by the reference"),
            "p_value": number("McNemar p", help=HELP["McNemar p"], format="%.3g"),
            "q_value": number("q (BH)", help=HELP["q (BH)"], format="%.3g"),
            "significant": st.column_config.CheckboxColumn("significant", help=HELP["q (BH)"]),
            "reference": st.column_config.TextColumn("reference", help=HELP["reference"]),
            "value_id": count("measurement", "the `workbench value` measurement the row comes from"),
            "base_run": count("run as written", "the run of the deck as written"),
            "variant_run": count("run replaced", "the run with the card replaced, on the same seeds and seats")}


def provenance(ranking: pl.DataFrame) -> str:
    ids = sorted(set(ranking["value_id"].to_list()))
    runs = sorted(set(ranking["base_run"].to_list()) | set(ranking["variant_run"].to_list()))
    return (f"{ranking.height} card{'s' if ranking.height > 1 else ''}; "
            f"measurement{'s' if len(ids) > 1 else ''} {', '.join(map(str, ids))} "
            f"(runs {', '.join(map(str, runs))}), up to {ranking['twins'].max():,} twins per card.")


@one_connection_per_render
def render() -> None:
    path = page_header("Card value")
    if path is None:
        return
    values = cached("card_values", str(path))
    if values.is_empty():
        st.info(NO_VALUE)
        return
    for column, name, label, help, always in FILTERS:
        values = narrow(values, column, name, label, help, always)
    glossary(HELP)
    context = contexts(values)[0]
    # the version measured under more than one card set: the title names which
    several = context["rules_version"] in card_sets(cached("card_values", str(path)).filter(
        pl.col("game") == context["game"]))
    # the pilots deck by deck ("lawmen-posse: greedy; goblin-gold-gang: random"), not "greedy,random"
    context = context | {"pilots": pilot_words(path, values)}
    st.subheader(context_title(context, several))
    st.markdown(f"Pilots: **{context['pilots']}**. Every figure below was produced by these pilots; another pilot "
                "can value the same card differently.")
    st.caption(ABOUT)
    st.caption(provenance(values))
    title = f"Win rate added per card: {context_title(context, several)}"
    st.plotly_chart(value_chart(unique_names(values), title), width="stretch")  # one label a card: "Kade (kade-2)"
    shown = percent(values, ["wr_with", "wr_without"])
    table_with_download(shown, "card_value", column_config(), download=values, column_order=ORDER,
                        scope=value_scope(context, several))
