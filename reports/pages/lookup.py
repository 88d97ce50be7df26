"""Finding a card or a deck and opening its page, and the start the Card and Deck pages share.

The search box (``search_box``: on the Card and Deck pages, and in the Cards page's sidebar)
finds any card of the game by part of its name or id and any deck it played, in any case
(reports/find.py); choosing a result opens its page (``open_item``): the Card page on
``?card=ID``, the Deck page on ``?deck=ID``. Both pages cover every duel run of the game
(``item_start``), narrowed by the sidebar's rules version and pilot filters, which are kept
across pages and in the URL like every page's. A link naming only the card or deck opens the
game that holds it."""
from __future__ import annotations

from urllib.parse import quote

import polars as pl
import streamlit as st

from reports import find
from reports.filters import Filters
from reports.pages.common import (
    PAGES_KEY,
    cached,
    kept_runs,
    one_run_per_seeds,
    page_header,
    percent,
    pick_filters,
    pick_game,
    pilots_line,
    pilots_of,
    register_queries,
    table_with_download,
    win_rate_config,
    with_replay_links,
)

CARD, DECK = "card", "deck"  # the pages' url paths, and the URL parameter each reads (?card=ID, ?deck=ID)
TITLES = {CARD: "Card", DECK: "Deck"}
register_queries(games_with_card=find.games_with_card, games_with_deck=find.games_with_deck)


def duel_runs(runs: pl.DataFrame) -> pl.DataFrame:
    """A game's duel runs (not value twins, free-for-all, series, Turf Defense or campaign runs)."""
    return runs.filter(pl.col("kind") == "duel") if "kind" in runs.columns else runs


def game_run_ids(path, game: str | None) -> tuple[int, ...]:
    runs = cached("runs", str(path))
    return tuple(duel_runs(runs.filter(pl.col("game") == game))["run_id"].to_list()) if runs.height else ()


# --- the search box ----------------------------------------------------------------------------------

def search_box(path, game: str | None, here: str, where=st) -> None:
    """A text box that finds the game's cards (name or id) and decks; a button per result opens
    its page. ``here``: the page it is on (a key for its widgets)."""
    run_ids = game_run_ids(path, game)
    if not run_ids:
        return
    text = where.text_input("Find a card or deck", key=f"find-{here}", placeholder="part of a name or id",
                            help="any card of this game's runs, by part of its name or id, and any deck they played "
                                 "(case does not matter); choose a result to open its page")
    hits = find.find(cached("card_names", str(path), run_ids), cached("options", str(path), run_ids)["decks"], text)
    if text.strip() and not hits:
        where.caption(f"No card or deck of {game} holds “{text.strip()}”.")
    for hit in hits:
        label = f"{TITLES[hit['kind']]}: {hit['name']}" + (f" ({hit['id']})" if hit["name"] != hit["id"] else "")
        if where.button(label, key=f"find-{here}-{hit['kind']}-{hit['id']}", width="stretch"):
            open_item(hit["kind"], hit["id"], here)


def open_item(kind: str, item_id: str, here: str) -> None:
    """Open the Card (``kind`` card) or Deck page on one item: this page again when it is that
    page, else the app switches page (a page run alone, as in the tests, records it in the URL)."""
    if kind == here:
        st.query_params[kind] = item_id
        st.rerun()
    page = st.session_state.get(PAGES_KEY, {}).get(kind)
    if page is not None:
        st.switch_page(page, query_params={kind: item_id})
    st.query_params[kind] = item_id
    st.info(f"{item_id} is ready on the {TITLES[kind]} page.")


def page_url(kind: str, item_id: str) -> str:
    """A link to an item's page; its readable text is the id after ``=``."""
    return f"{kind}?{kind}={quote(item_id, safe='')}"


def with_page_links(frame: pl.DataFrame, column: str, kind: str, config: dict, label: str) -> pl.DataFrame:
    """Turn a column of card or deck ids into links to their pages, described in ``config``."""
    config[column] = st.column_config.LinkColumn(label, display_text=r"=([^&]*)$",
                                                 help=f"open the {TITLES[kind]} page of this {kind}")
    return frame.with_columns(pl.col(column).map_elements(lambda v: page_url(kind, v), return_dtype=pl.Utf8))


# --- the start both pages share ------------------------------------------------------------------------

def item_start(kind: str) -> tuple[str, Filters, str, str] | None:
    """Title, store line and empty states; the game (the one holding the URL's item when the
    session has not chosen one), its duel runs, the rules version and pilot filters, the search
    box, then the item's name as a heading with the pilots and runs it counts. (path, filters
    over every duel run of the game, the item's id, its name), or None when there is nothing to
    show (no store, no duel run, no item asked for, or one the game's runs do not hold)."""
    path = page_header(TITLES[kind])
    if path is None:
        return None
    wanted = st.query_params.get(kind) or None
    if wanted and "keep:game" not in st.session_state and not st.query_params.get("game"):
        games = cached(f"games_with_{kind}", str(path), wanted)
        if games:
            st.session_state["keep:game"] = games[:1]
    # every duel run, but one of each set that replays the same seeds (a sequential diff's base run
    # beside the simulate it reused): pooled, their shared matches counted up to four times
    runs, repeats = one_run_per_seeds(duel_runs(pick_game(path)))
    if runs.is_empty():
        st.info("This game has no duel runs yet: `workbench simulate GAME` plays some.")
        return None
    filters = pick_filters(path, runs, runs["run_id"].to_list(), decks=False)
    search_box(path, filters.game, kind)
    if not wanted:
        st.info(ASK[kind])
        return None
    name = item_name(str(path), kind, wanted, tuple(filters.runs))
    if name is None:
        not_found(str(path), kind, wanted, filters.game)
        return None
    st.header(name)
    st.caption(pilots_line(str(path), filters) + " " + scope_line(str(path), filters, repeats))
    return str(path), filters, wanted, name


ASK = {CARD: "Find a card above, by part of its name or id, to open its page (or open one from the Cards page).",
       DECK: "Find a deck above, by part of its id, to open its page."}


def item_name(path: str, kind: str, item_id: str, run_ids: tuple[int, ...]) -> str | None:
    """The item's name in these runs (a deck's is its id); None when they do not hold it."""
    if kind == DECK:
        return item_id if item_id in cached("options", path, run_ids)["decks"] else None
    found = cached("card_names", path, run_ids).filter(pl.col("card") == item_id)
    return (found["name"][0] or item_id) if found.height else None


def not_found(path: str, kind: str, item_id: str, game: str) -> None:
    """The URL names an item this game's runs do not hold: say where it is, if anywhere."""
    elsewhere = [g for g in cached(f"games_with_{kind}", path, item_id) if g != game]
    where = f" It is in {', '.join(elsewhere)}: pick that game in the sidebar." if elsewhere else ""
    st.warning(f"No {kind} `{item_id}` in the {game} runs of this store.{where}")


def counted_runs(path: str, filters: Filters) -> pl.DataFrame:
    """The runs the page counts: every duel run of the game under the chosen rules versions that
    the pilot filter keeps (every seat played by a chosen pilot, ``kept_runs``)."""
    return kept_runs(path, filters)


def item_scope(path: str, filters: Filters) -> dict[str, str]:
    """What the page's downloads record of their view (file name and ``filters`` column): the
    game, the runs counted (those the rules version and pilot filters keep), the rules version filter, the deck the Deck page counts, and the
    pilots whose play the rows count (the pilot filter's, else every pilot of the runs). Not the
    sidebar's kept runs or decks: these pages count every duel run of the game and offer no deck
    filter."""
    ids = sorted(counted_runs(path, filters)["run_id"].to_list())
    chosen = {"game": filters.game or "", "runs": ",".join(map(str, ids)), "rules": ",".join(filters.versions),
              "decks": ",".join(filters.decks), "pilots": ",".join(pilots_of(path, filters))}
    return {name: text for name, text in chosen.items() if text}


def scope_line(path: str, filters: Filters, repeats: dict[int, int] | None = None) -> str:
    """Which runs the page counts, and their matches: every duel run of the game the filters keep;
    ``repeats`` (``one_run_per_seeds``): the runs left out as replays of a counted one, named."""
    runs = counted_runs(path, filters)
    ids = sorted(runs["run_id"].to_list())
    versions_kept = " under the chosen rules versions" if filters.versions else ""
    seats = f" with every seat played by {' or '.join(filters.pilots)}" if filters.pilots else ""
    if not ids:
        return f"No duel run of {filters.game}{versions_kept}{seats}."
    versions = sorted(set(runs["rules_version"].to_list()))
    lead = f"The duel runs of {filters.game}{versions_kept}{seats}" if seats else \
        f"Every duel run of {filters.game}{versions_kept}"
    left = sorted(r for r, k in (repeats or {}).items() if k in ids)
    replayed = (f" Left out, as they share matches with a run counted here (they would count twice): "
                f"run{'s' if len(left) > 1 else ''} {', '.join(map(str, left))}." if left else "")
    return (f"{lead}: run{'s' if len(ids) > 1 else ''} {', '.join(map(str, ids))} "
            f"({int(runs['matches_done'].sum()):,} matches), rules version{'s' if len(versions) > 1 else ''} "
            f"{', '.join(versions)}.{replayed}")


RATES = ["win_rate", "win_rate_lo", "win_rate_hi"]
EXAMPLES = {"example_win": "example win", "example_loss": "example loss"}


def seat_table(rows: pl.DataFrame, name: str, leading: list[str], games_help: str, extra: dict | None = None,
               scope: dict[str, str] | None = None) -> None:
    """Win rates by seat (``first``: the seat that acted first, on the play) with their intervals,
    shown as percentages (the CSV keeps the rates) and example links; ``leading`` columns first,
    ``extra`` column help for the columns beyond the win-rate ones; ``scope`` as
    ``table_with_download`` takes it."""
    config = {"seat": st.column_config.TextColumn("seat", help="first: the seat that acted first (on the play)"),
              **win_rate_config(games_help, "won / games (a draw is not won)"), **(extra or {})}
    shown = with_replay_links(percent(rows, RATES), dict(EXAMPLES), config)
    order = [*leading, "games", "won", *[c for c in extra or {} if c not in leading], *RATES, *EXAMPLES]
    table_with_download(shown, name, config, download=rows, column_order=order, scope=scope)
