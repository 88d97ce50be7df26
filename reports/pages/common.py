"""What every dashboard page shares: the store path, the sidebar filters, friendly empty states,
tables with their CSV download and column help, and the links from any aggregate row to a
replay of an example match. Pages open the store briefly, once per render at most
(``one_connection_per_render``), never holding a connection across renders, so a batch writing
the file is never blocked for long."""
from __future__ import annotations

import functools
import os
from pathlib import Path

import polars as pl
import streamlit as st

from cardsdb.tune import PREFIX as TUNE_PREFIX
from cardsdb.whatif import PREFIX as WHATIF_PREFIX
from reports import campaign, cards, costs, db, diff, keywords, matchups, meta, overview, pilot_weights, value
from reports.export import undefined_as_null
from reports.filters import Filters
from reports.overview import one_run_per_seeds  # noqa: F401 (the pages' name for it)

DEFAULT_DB = "workbench.duckdb"
PCT = "%.1f%%"
POINTS = "%+.1f pts"

# The pages the app registered (streamlit_app.py puts them here by url path), so a page can
# switch to another one; a page run alone (as in the tests) has none and only records the request.
PAGES_KEY = "_pages"
REPLAY_REQUEST = "replay_request"


def db_path() -> Path:
    return Path(os.environ.get("WORKBENCH_DB", DEFAULT_DB))


def _options(path: str, run_ids: tuple[int, ...]) -> dict[str, list[str]]:
    """The rules versions, decks and pilots of some runs (``pilots``: every pilot seated in them),
    and the pilots the Pilot filter offers (``pilot_choices``: those that played some of them alone,
    every seat, ``alone_pilot``; a pilot filter chooses a run only when every seat's pilot is
    chosen, so a pilot seated only against another, or in a campaign's fights, chooses none)."""
    marks = ", ".join("?" for _ in run_ids)
    seats = db.query(path, f"SELECT DISTINCT deck, pilot FROM match_seats WHERE run_id IN ({marks})", list(run_ids))
    runs = db.query(path, f"SELECT DISTINCT rules_version, pilots FROM runs WHERE run_id IN ({marks})", list(run_ids))
    alone = {alone_pilot(p) for p in runs["pilots"].to_list()} - {None}
    return {"versions": sorted(set(runs["rules_version"].to_list())), "decks": sorted(set(seats["deck"].to_list())),
            "pilots": sorted(set(seats["pilot"].to_list())), "pilot_choices": sorted(alone)}


def _diffs(path: str) -> pl.DataFrame:
    if not db.has_tables(path, "diffs"):
        return pl.DataFrame()
    return db.query(path, "SELECT * FROM diffs ORDER BY diff_id DESC")


def _card_names(path: str, run_ids: tuple[int, ...]) -> pl.DataFrame:
    marks = ", ".join("?" for _ in run_ids)
    return db.query(path, f"""SELECT DISTINCT c.card, c.name, c.type, c.faction,
                                     {cards.faction_name_sql(path)} AS faction_name, c.budget_cost AS cost
                              FROM cards c JOIN runs r ON r.rules_hash = c.rules_hash
                              WHERE r.run_id IN ({marks}) ORDER BY c.card""", list(run_ids))


def _run_card_sets(path: str) -> dict[int, str]:
    """Each run's card set as the run picker names it (``cards.with_card_set`` over the store's
    runs): its rules version, with its card data's short hash where runs of the game stored under
    that name hold other card data (a workspace with one card edited, run as "base")."""
    runs = db.query(path, "SELECT run_id, game, rules_version, rules_hash FROM runs")
    return dict(zip(runs["run_id"].to_list(), cards.with_card_set(runs)["card_set"].to_list()))


QUERIES = {
    "runs": overview.runs, "run_card_sets": _run_card_sets, "card_sets": cards.counted_card_sets,
    "first_seat": overview.first_seat, "win_reasons": overview.win_reasons,
    "game_lengths": overview.game_lengths, "card_stats": cards.card_stats, "card_metrics": cards.card_metrics,
    "turn_played": cards.win_rate_by_turn_played, "keyword_impact": keywords.keyword_impact,
    "keyword_prices": keywords.keyword_prices, "stat_budget": costs.stat_budget, "deck_curves": costs.deck_curves,
    "win_rate_by_cost": costs.win_rate_by_cost, "matchups": matchups.matchups, "deck_field": matchups.deck_field,
    "meta_mix": meta.meta_mix, "version_diff": diff.version_diff, "stored_limit": diff.stored_limit, "twins": diff.twins, "options": _options, "diffs": _diffs,
    "card_names": _card_names, "campaign_runs": campaign.campaign_runs, "clear_rates": campaign.clear_rates,
    "reward_lift": campaign.reward_lift, "campaign_fights": campaign.fights, "card_values": value.card_values,
    "has_tables": db.has_tables, "reweighted": pilot_weights.reweighted_pilots,
}


def store_state(path: str | Path) -> tuple:
    """What the store holds, as cheap to read as a file's size: the database file's and its
    write-ahead log's modification time and size. Every stored chunk is a committed write that
    changes them, so a query cached under this key is fresh the moment a writing run stores
    more (to the file system's timestamp resolution: two writes within one tick of it and the
    same size read as one), and answered from the cache as long as nothing was stored. Reading
    it opens no connection (a held connection would block the writer)."""
    state = []
    for name in (str(path), f"{path}.wal"):
        try:
            st_ = os.stat(name)
        except OSError:
            state.append(None)
            continue
        state.append((st_.st_mtime_ns, st_.st_size))
    return tuple(state)


@st.cache_data(max_entries=512, show_spinner=False)
def _cached(fn_name: str, path: str, state: tuple, *args):
    return QUERIES[fn_name](path, *args)


def cached(fn_name: str, path: str, *args):
    """A query's result cached per store state (``store_state``): a re-render, another page or
    another session asks the store nothing until a run stores more."""
    return _cached(fn_name, path, store_state(path), *args)


def one_connection_per_render(render):
    """A page's ``render`` whose queries share one connection to the store (``db.reading``),
    opened by the first query the cache cannot answer and closed when the render ends. Opening
    the store costs about 30 ms of CPU (most of it DuckDB starting up), and a cold render asks a
    dozen queries or more; a render answered from the cache opens none. A writing run waits for
    one render at most: nothing is held between renders."""
    @functools.wraps(render)
    def rendered(*args, **kwargs):
        with db.reading(db_path(), lazily=True):
            return render(*args, **kwargs)
    return rendered


# --- empty states and the filters every page starts with ------------------------------------------

def store_ready(path: Path) -> bool:
    """Show a friendly message and return False when there is nothing to show yet."""
    if not path.exists():
        st.info(f"No database at `{path}` yet. Run a simulation first, for example:\n\n"
                "`workbench simulate frontier --matches 200`")
        return False
    try:
        ready = cached("has_tables", str(path), "runs", "matches", "card_games")
    except db.StoreError as exc:
        st.warning(str(exc))
        return False
    if not ready:
        st.info(f"`{path}` holds no runs yet. Run `workbench simulate frontier` to fill it.")
        return False
    return True


# --- filters that follow you: kept across pages in the session, and in the URL ------------------

def _url_list(name: str) -> list[str]:
    raw = st.query_params.get(name)
    return [v for v in str(raw).split(",") if v] if raw else []


def kept(name: str, options: list, default: list, many: bool, some: bool = False) -> list:
    """The remembered choice of filter ``name`` among ``options``: this session's (it follows
    the user from page to page), else the URL's (a copied link opens the same view), else
    ``default``. Values no longer offered are dropped; ``sync_url`` writes the choice back to
    the URL. ``some``: the page offers only some of the filter's values (the Pilots page, the
    games with a ladder), so a kept choice it does not offer is not gone: the page shows the
    default, and the pages that offer the choice still find it kept."""
    ss = st.session_state
    chosen = ss.get(f"keep:{name}")
    if chosen is None:
        by_text = {str(o): o for o in options}
        chosen = [by_text[v] for v in _url_list(name) if v in by_text] or None
    if chosen is None:
        chosen = list(default)
    else:  # an emptied multiselect stays empty; a choice whose values are all gone falls back
        valid = [o for o in chosen if o in options]
        if chosen and not valid and some:
            return list(default) if many else list(default)[:1]
        chosen = valid if valid or not chosen else list(default)
    if not many:
        chosen = chosen[:1] or list(default)[:1]
    ss[f"keep:{name}"] = chosen
    return chosen


def _remember(name: str, widget_key: str, many: bool) -> None:
    value = st.session_state[widget_key]
    st.session_state[f"keep:{name}"] = list(value) if many else [value]


def sync_url(**values: list) -> None:
    """Write the filters' choices into the URL (only when they changed: a rewrite reruns nothing,
    but keeps the browser history short)."""
    for name, chosen in values.items():
        text = ",".join(str(v) for v in chosen)
        if st.query_params.get(name) != text:
            if text:
                st.query_params[name] = text
            elif name in st.query_params:
                del st.query_params[name]


def sidebar_choice(name: str, label: str, options: list, default: list, many: bool, some: bool = False,
                   where=st.sidebar, **widget):
    """A sidebar selectbox (or multiselect with ``many``) whose choice is ``kept`` across pages
    and in the URL (``some``: see ``kept``); ``where`` draws it elsewhere (a page's section of
    its own). The widget's own state is set before it is drawn (a page change forgets widget
    state; the kept choice does not)."""
    chosen = kept(name, options, default, many, some)
    key = f"w:{name}"
    st.session_state[key] = chosen if many else chosen[0]
    draw = where.multiselect if many else where.selectbox
    value = draw(label, options, key=key, on_change=_remember, args=(name, key, many), **widget)
    sync_url(**{name: list(value) if many else [value]})
    return value


def newest_first_games(runs: pl.DataFrame) -> list[str]:
    """The games, the newest run's first (the view a designer opens is the one just played)."""
    return list(dict.fromkeys(runs.sort("run_id", descending=True)["game"].to_list()))


def pick_game(path: Path) -> pl.DataFrame:
    """Sidebar filter: the game (kept across pages and in the URL; default: the newest run's);
    returns that game's runs, newest first."""
    runs = cached("runs", str(path))
    if runs.is_empty():
        return runs
    games = newest_first_games(runs)
    game = sidebar_choice("game", "Game", sorted(games), [games[0]], many=False, help="which game's runs to show")
    return runs.filter(pl.col("game") == game)


def run_label(r: dict, card_set: str | None = None) -> str:
    """A run as the pickers list it; ``card_set``: its rules version as ``_run_card_sets`` names it
    (with the hash where two runs' card data share the name), else the version's name."""
    return (f"run {r['run_id']}: {r['decks']} ({card_set or r['rules_version']}, {r['pilots']}, "
            f"{r['matches_done']} matches, {r['status']})")


# the modes with a page of their own: kind -> (what a run is called, its page)
MODE_PAGES = {"ffa": ("free-for-all", "Free-for-all"), "series": ("series", "Series"),
              "turf": ("Turf Defense", "Turf Defense")}


def pick_runs(path: Path) -> tuple[pl.DataFrame, list[int]]:
    """Sidebar filters: game, then runs (default: the game's newest duel run, or its newest run
    when it has only campaign batches). Returns the game's runs and the chosen run ids; when every
    run of the game is of a mode with its own page, those runs and no choice (``no_runs_note``)."""
    game_runs = mine = pick_game(path)
    if mine.is_empty():
        return mine, []
    # free-for-all seats are not a duel's two, and a series' later games seat the loser first:
    # each mode has its own page
    for kind, (_, page) in MODE_PAGES.items():
        if "kind" in mine.columns and (mine["kind"] == kind).any():
            st.sidebar.caption(f"{page} runs are on the {page} page.")
            mine = mine.filter(pl.col("kind") != kind)
    if mine.is_empty():
        return game_runs, []
    sets = cached("run_card_sets", str(path))
    labels = {r["run_id"]: run_label(r, sets.get(r["run_id"])) for r in mine.iter_rows(named=True)}
    ids = list(labels)
    duels = mine.filter(pl.col("kind") == "duel")["run_id"].to_list() if "kind" in mine.columns else ids
    # a what-if's or tune's trial run is a duel run too: the newest one is no default (after a
    # what-if, the pages opened on the trial's cards as if they were the game's)
    trials = set(mine.filter(is_trial())["run_id"].to_list())
    default = [r for r in duels if r not in trials] or duels or ids
    # options are run ids (their labels, which count a writing run's matches, are only shown), so
    # a run that stores more does not reset the choice
    chosen = sidebar_choice("runs", "Runs", ids, default[:1], many=True, format_func=labels.get,
                            help="the runs whose matches are counted; several are pooled")
    warn_same_matches(mine, chosen)
    return mine, chosen


def is_trial(column: str = "rules_version") -> pl.Expr:
    """A what-if's or tune's trial version (``try-...``, ``tune-...``): a designer's experiment,
    never what a page shows by default as the game's cards."""
    return pl.col(column).str.starts_with(WHATIF_PREFIX) | pl.col(column).str.starts_with(TUNE_PREFIX)


def no_runs_note(runs: pl.DataFrame) -> str:
    """What a page over duel runs says when it counts no run: pick one, or, when the game's runs
    are all of modes with pages of their own (there is no Runs choice then), where they are."""
    kinds = runs["kind"].unique(maintain_order=True).to_list() if "kind" in runs.columns and runs.height else []
    if not kinds or not set(kinds) <= set(MODE_PAGES):
        return "Pick at least one run in the sidebar."
    names = " and ".join(MODE_PAGES[k][0] for k in kinds)
    pages = " or ".join(f"the {MODE_PAGES[k][1]} page" for k in kinds)
    return f"The store's {runs['game'][0]} runs are all {names} runs, which have a page of their own: open {pages}."


def warn_same_matches(runs: pl.DataFrame, chosen: list[int]) -> None:
    """Two chosen runs playing the same matches on the seeds they share (same decks, pilots, cards
    and seed, however many matches each played or however chunked) would be pooled into a match
    counted twice and a falsely narrow interval: say so, offer to keep the longest."""
    if "matches_key" not in runs.columns or len(chosen) < 2:
        return
    _kept, repeats = one_run_per_seeds(runs.filter(pl.col("run_id").is_in(chosen)))
    for keep in sorted(set(repeats.values())):
        ids = sorted([r for r, k in repeats.items() if k == keep] + [keep])
        st.sidebar.warning(f"Runs {', '.join(map(str, ids))} share matches (the same decks, pilots, cards and "
                           "seeds, in all or some of their pairings): pooled, each such match counts more than once "
                           "and the intervals are too narrow.")
        if st.sidebar.button(f"Keep only run {keep}", key=f"dedupe-{'-'.join(map(str, ids))}"):
            st.session_state["keep:runs"] = [r for r in chosen if r == keep or r not in ids]
            st.rerun()


def page_header(title: str) -> Path | None:
    """Title, store line and the friendly empty states; the store's path when it has runs."""
    st.title(title)
    path = db_path()
    st.caption(f"Store: `{path}`")
    return path if store_ready(path) else None


def mode_page(title: str, read_runs, label, no_runs: str, help: dict[str, str], key: str,
              tables: tuple[str, ...] = ("runs",), pick: str | None = None,
              unit: str = "matches") -> tuple[str, pl.DataFrame, list[int]] | None:
    """The start every mode's page shares (Free-for-all, Series, Turf Defense): title, store line,
    the friendly empty states, the sidebar's choice of that mode's runs (``read_runs(path)``,
    each labelled by ``label(row)``, kept across pages and in the URL as ``key``) and the glossary.
    (path, runs, chosen run ids), or None when there is nothing to show."""
    st.title(title)
    path = db_path()
    st.caption(f"Store: `{path}`")
    if not path.exists():
        st.info(f"No database at `{path}` yet. " + no_runs)
        return None
    try:
        runs = read_runs(str(path)) if cached("has_tables", str(path), *tables) else None
    except db.StoreError as exc:
        st.warning(str(exc))
        return None
    if runs is None or runs.is_empty():
        st.info(no_runs)
        return None
    labels = {r["run_id"]: label(r) for r in runs.iter_rows(named=True)}
    ids = list(labels)
    # kept under the page's own name: another mode's runs, or the duel pages', are other runs
    run_ids = sidebar_choice(key, f"{title} runs", ids, ids[:1], many=True, format_func=labels.get,
                             help=f"the runs whose {unit} are counted; several are pooled")
    glossary(help)
    if not run_ids:
        st.info(f"Pick at least one {pick or title} run in the sidebar.")
        return None
    return str(path), runs, run_ids


def page_start(title: str) -> tuple[Path, pl.DataFrame, list[int]] | None:
    """The page header and the run filters every page starts with; None when there is nothing
    to show."""
    path = page_header(title)
    if path is None:
        return None
    runs, run_ids = pick_runs(path)
    return path, runs, run_ids


def filtered_page(title: str, help: dict[str, str]) -> tuple[Path, Filters] | None:
    """The start of a page over matches: header, game, runs, rules version, deck and pilot filters,
    and the page's glossary in the sidebar; None when there is nothing to show."""
    start = page_start(title)
    if start is None:
        return None
    path, runs, run_ids = start
    if not run_ids:
        st.info(no_runs_note(runs))
        return None
    filters = pick_filters(path, runs, run_ids)
    glossary(help)
    return path, filters


def pick_filters(path: Path, runs: pl.DataFrame, run_ids: list[int], decks: bool = True,
                 pilots: bool = True) -> Filters:
    """Sidebar filters below the runs: rules version, deck and pilot (empty means all)."""
    opts = cached("options", str(path), tuple(run_ids))
    # kept across pages and in the URL, like the game and the runs
    versions = sidebar_choice("rules", "Rules version", list(opts["versions"]), [], many=True,
                              placeholder="all versions",
                              help="count only the chosen runs' matches under these rules versions")
    chosen_decks = sidebar_choice("decks", "Deck", list(opts["decks"]), [], many=True, placeholder="all decks",
                                  help="count only seats playing these decks") if decks else []
    # only the pilots that played some chosen run alone: any other choice would choose no run
    # (a run seating two pilots against each other counts only with both chosen; a campaign run
    # with none), and the pilots line says so of the runs no choice keeps apart (``pool_note``)
    choices = list(opts["pilot_choices"])
    asked = st.session_state.get("keep:pilots")
    asked = _url_list("pilots") if asked is None else asked
    unoffered = [p for p in asked if p not in choices] if pilots else []
    chosen_pilots = sidebar_choice(
        "pilots", "Pilot", choices, [], many=True,
        placeholder="all pilots" if choices else "all pilots (no chosen run is one pilot's alone)",
        help="count only matches whose every seat was played by one of these AI pilots (one pilot: its play against "
             "itself); offered: the pilots that played some chosen run alone") if pilots else []
    if unoffered:
        st.sidebar.caption(f"Not offered: {', '.join(map(str, unoffered))}, which played no chosen run alone (a pilot "
                           "filter keeps a run only when every seat's pilot is chosen), so "
                           f"{'they' if len(unoffered) > 1 else 'it'} would count nothing.")
    game = runs["game"][0] if runs.height else None
    return Filters(game=game, runs=list(run_ids), versions=versions, decks=chosen_decks, pilots=chosen_pilots)


def card_filters(frame: pl.DataFrame, cost: str = "cost") -> tuple[pl.DataFrame, tuple[float, float] | None]:
    """Sidebar filters on card attributes (faction or clan, type, cost); empty means all. Returns
    the rows kept and the cost range chosen (None when every cost is kept)."""
    if frame.is_empty():
        return frame, None
    out, cost_range = frame, None
    for column, label in (("faction", "Faction / clan"), ("type", "Card type")):
        shown = shown_values(frame, column)
        values = sorted((x for x in frame[column].unique().to_list() if x is not None), key=lambda v: shown(v).lower())
        chosen = st.sidebar.multiselect(label, values, format_func=shown, placeholder="all",
                                        help=f"show only cards of these {label.lower()} values")
        if chosen:
            out = out.filter(pl.col(column).is_in(chosen))
    known = frame[cost].drop_nulls()
    if known.len() and known.min() < known.max():
        lo, hi = float(known.min()), float(known.max())
        picked = st.sidebar.slider("Cost", lo, hi, (lo, hi), step=1.0 if (known % 1 == 0).all() else 0.5,
                                   help="the card's budget cost (the one number its game's cost curve uses)")
        if tuple(picked) != (lo, hi):
            cost_range = tuple(picked)
            out = out.filter(pl.col(cost).is_between(*picked))
    return out, cost_range


def shown_values(frame: pl.DataFrame, column: str):
    """How a filter on ``column`` shows its values: a faction (or clan) id by its name, when the
    frame carries the names (the filter still keeps ids); anything else as it is."""
    names = dict(frame.select(column, "faction_name").unique(column).iter_rows()) \
        if column == "faction" and "faction_name" in frame.columns else {}
    return lambda value: names.get(value) or str(value)


def glossary(items: dict[str, str], title: str = "What the numbers mean") -> None:
    with st.sidebar.expander(title):
        for name, text in items.items():
            st.markdown(f"**{name}**: {text}")


# --- tables ----------------------------------------------------------------------------------------

def percent(frame: pl.DataFrame, columns) -> pl.DataFrame:
    """Rates (0 to 1) as percentages for reading; the CSV keeps the rates."""
    return frame.with_columns((pl.col(c) * 100) for c in columns if c in frame.columns)


def pct(label: str, help: str) -> st.column_config.NumberColumn:
    return st.column_config.NumberColumn(label, help=help, format=PCT)


def pts(label: str, help: str) -> st.column_config.NumberColumn:
    return st.column_config.NumberColumn(label, help=help, format=POINTS)


def count(label: str, help: str) -> st.column_config.NumberColumn:
    return st.column_config.NumberColumn(label, help=help, format="%d")


# a card's faction (or clan): its name where a table reads it, its id (the card files') kept beside
FACTION_COLUMN = st.column_config.TextColumn("faction / clan", help="the card's faction or clan, by name")
FACTION_ID_COLUMN = st.column_config.TextColumn("faction / clan id", help="the faction's or clan's id in the card files")


def win_rate_config(games_help: str, rate_help: str) -> dict:
    """Column help for the games / won / win rate / Wilson bounds columns many tables share."""
    return {"games": count("games", games_help), "won": count("won", "of those, games won"),
            "win_rate": pct("win rate", rate_help), "win_rate_lo": pct("lo", "95% Wilson lower bound"),
            "win_rate_hi": pct("hi", "95% Wilson upper bound")}


ROW_PX, MAX_TABLE_PX = 35, 735  # a row of st.dataframe, and at most 20 rows before it scrolls


def table_height(rows: int) -> int:
    """Tall enough for the whole table up to 20 rows (Streamlit's default shows about 10)."""
    return min(MAX_TABLE_PX, ROW_PX * (rows + 1) + 3)


FILTER_NAMES = ("game", "runs", "rules", "decks", "pilots")


def chosen_filters() -> dict[str, str]:
    """The sidebar filters this session has chosen (``kept``), by name, as text."""
    out = {}
    for name in FILTER_NAMES:
        chosen = st.session_state.get(f"keep:{name}")
        if chosen:
            out[name] = ",".join(str(v) for v in chosen)
    return out


def run_scope(runs: pl.DataFrame, run_ids: list[int], pilots: list[str] | None = None) -> dict[str, str]:
    """What a download records (``table_with_download``'s ``scope``) on a page that counts runs
    of its own choice (a mode's, the campaign batches): their games and ids, not the runs the
    duel pages keep, and the pilots whose play they hold (``pilots``: as the page names them;
    else every pilot seated in those runs, ``scope_pilots``)."""
    games = sorted(set(runs.filter(pl.col("run_id").is_in(run_ids))["game"].to_list()))
    scope = {"game": ",".join(games), "runs": ",".join(map(str, sorted(run_ids)))}
    return scope | ({"pilots": ",".join(pilots)} if pilots else {})


# --- which pilots produced a figure -----------------------------------------------------------------
# Every balance figure says which pilot produced it: a page's text names them, and every download's
# ``filters`` column does (``scope_pilots``).

def run_pilots(path, run_ids) -> list[str]:
    """Every pilot seated in these runs' matches, by name."""
    ids = tuple(int(r) for r in run_ids)
    return list(cached("options", str(path), ids)["pilots"]) if ids else []


def pilots_of(path, filters: Filters) -> list[str]:
    """The pilots whose seats a page counts: those the pilot filter keeps, else every pilot of the
    chosen runs."""
    return list(filters.pilots) or run_pilots(path, filters.runs)


def distinct(names) -> list[str]:
    """Names without repeats, in their order: a run's ``pilots`` (one per deck slot, "greedy,greedy")
    as the pilots that played it ("greedy")."""
    parts = names.split(",") if isinstance(names, str) else names
    return list(dict.fromkeys(p.strip() for p in parts if p and p.strip()))


POOLED = " Their seats are pooled; pick one pilot in the sidebar to see its play alone."
PLAY = "Every figure on this page is a fact about these pilots' play."


def seat_pilots(pilots: str | None) -> list[str] | None:
    """A run's pilots, one per deck slot (its ``pilots``, "greedy,random"); None for a campaign
    run, whose ``pilots`` ("policy/fight pilot") names no seat's pilot alone."""
    if not pilots or "/" in pilots:
        return None
    return [p.strip() for p in pilots.split(",") if p.strip()]


def alone_pilot(pilots: str | None) -> str | None:
    """The pilot that played every seat of a run (its ``pilots``), else None (a run of two pilots
    against each other, a campaign run): the runs a one-pilot filter can choose."""
    names = distinct(seat_pilots(pilots) or [])
    return names[0] if len(names) == 1 else None


def chosen_runs(path, filters: Filters) -> pl.DataFrame:
    """The runs the filters choose before the pilot filter: the chosen runs (every run of the game
    when none is) under the chosen rules versions."""
    runs = cached("runs", str(path))
    if filters.game:
        runs = runs.filter(pl.col("game") == filters.game)
    if filters.runs:
        runs = runs.filter(pl.col("run_id").is_in([int(r) for r in filters.runs]))
    return runs.filter(pl.col("rules_version").is_in(filters.versions)) if filters.versions else runs


def kept_by_pilots(pilots: str | None, chosen: list[str]) -> bool:
    """Whether a pilot filter (``chosen``; empty: none) keeps a run of these ``pilots``: every seat's
    pilot chosen (``Filters.where``), never a campaign run."""
    if not chosen:
        return True
    seats = seat_pilots(pilots)
    return seats is not None and set(seats) <= set(chosen)


def kept_runs(path, filters: Filters) -> pl.DataFrame:
    """The runs a page counts: the chosen ones (``chosen_runs``) the pilot filter keeps."""
    runs = chosen_runs(path, filters)
    if not filters.pilots or runs.is_empty():
        return runs
    return runs.filter(pl.Series([kept_by_pilots(p, filters.pilots) for p in runs["pilots"].to_list()], dtype=pl.Boolean))


def pilot_choices(path, filters: Filters) -> list[str]:
    """The pilots the Pilot filter offers for the chosen runs (those that played one alone)."""
    ids = tuple(int(r) for r in filters.runs) or tuple(chosen_runs(path, filters)["run_id"].to_list())
    return list(cached("options", str(path), ids)["pilot_choices"]) if ids else []


def _runs_named(ids: list[int], campaign: bool = False) -> str:
    word = ("Campaign run" if campaign else "Run") + ("s" if len(ids) > 1 else "")
    listed = ", ".join(map(str, ids[:-1])) + f" and {ids[-1]}" if len(ids) > 1 else str(ids[0])
    return f"{word} {listed}"


def pool_note(path, filters: Filters, pooled: str = POOLED, pilot_filter: bool = True, campaigns: bool = True) -> str:
    """What the pilots line says of how the pilots' play is pooled, after the figures: ``pooled``
    (how to see one pilot alone) when several pilots are counted and a choice can part them; then
    each chosen run of two pilots against each other, named (its figures are neither pilot's
    alone, pooled in or left out by the pilot filter), and, with ``campaigns``, each campaign run,
    which no pilot choice selects. ``pilot_filter``: the page has the Pilot filter (the Overview
    has none: its runs choose its pilots), and the notes say which choice counts such a run."""
    pilots = pilots_of(path, filters)
    offered = set(pilot_choices(path, filters)) if pilot_filter else set()
    chosen = chosen_runs(path, filters)
    mixed: dict[tuple[tuple[str, ...], bool], list[int]] = {}
    camp: dict[bool, list[int]] = {}
    for run_id, kind, run_pilots_ in chosen.select("run_id", "kind", "pilots").sort("run_id").iter_rows():
        counted = kept_by_pilots(run_pilots_, filters.pilots)
        seats = seat_pilots(run_pilots_)
        if seats is None or kind == "campaign":
            camp.setdefault(counted, []).append(run_id)
        elif len(set(seats)) > 1:
            mixed.setdefault((tuple(distinct(seats)), counted), []).append(run_id)
    parts = []
    if len(pilots) > 1 and (offered or not pilot_filter):
        parts.append(pooled.strip())
    for (names, counted), ids in mixed.items():
        several = len(ids) > 1
        text = f"{_runs_named(ids)} seat{'' if several else 's'} {' against '.join(names)}"
        if counted:
            text += ", pooled in here"
        if not pilot_filter or (counted and filters.pilots):
            parts.append(text + ".")
            continue
        it = "they count" if several else "it counts"
        if set(names) <= offered:
            both = "both" if len(names) == 2 else "all of them"
            text += f": {'under a pilot filter ' if counted else ''}{it} only with {both} chosen."
        else:
            text += f": no pilot choice selects {'them' if several else 'it'}, so {it} only with no pilot filter."
        parts.append(text)
    if campaigns and pilot_filter:
        for counted, ids in camp.items():
            several = len(ids) > 1
            parts.append(f"{_runs_named(ids, campaign=True)} seat{'' if several else 's'} "
                         f"{'their' if several else 'its'} crews' pilot against the enemies'"
                         + (", pooled in here" if counted else "")
                         + f": no pilot choice selects {'them' if several else 'it'}, so "
                         f"{'they count' if several else 'it counts'} only with no pilot filter.")
    return "".join(f" {p}" for p in parts)


def pilots_line(path, filters: Filters, figures: str = PLAY, pooled: str = POOLED, pilot_filter: bool = True) -> str:
    """The page's pilots line: which pilots produced its figures (``figures`` says which figures
    are facts about their play), how their play is pooled and how to see one alone (``pool_note``:
    ``pooled`` when they are several and a choice parts them; the runs that seat two pilots against
    each other, or are campaign runs, named), and a warning when a pilot name thought with two
    weight sets (``reweighted_note``)."""
    pilots = pilots_of(path, filters)
    return (f"Pilots: {', '.join(pilots)}. {figures}{pool_note(path, filters, pooled, pilot_filter)}"
            f"{reweighted_note(path, filters)}")


def reweighted_note(path, filters: Filters) -> str:
    """A warning when a pilot of the runs counted (the chosen ones the pilot filter keeps,
    ``kept_runs``) thought with other weight files in some of them (reports/pilot_weights.py):
    one name, two pilots, pooled."""
    counted = tuple(int(r) for r in kept_runs(path, filters)["run_id"].to_list())
    names = [p for p in cached("reweighted", str(path), counted) if not filters.pilots or p in filters.pilots]
    if not names:
        return ""
    return (f" Careful: {', '.join(names)} thought with other weight files in some of these runs (the game's "
            "weights changed between them), so two pilots' play is pooled under one name; pick the runs of one.")


def pooled_versions_note(path, filters: Filters, figures: str = "These figures") -> str | None:
    """A warning when the runs a page counts hold more than one card set (rules version, or one
    version's name with two hashes of card data) and ``figures`` pool their matches: which, and
    how to see one alone; None when they hold one."""
    sets = cached("card_sets", str(path), filters)
    if sets.height < 2:
        return None
    # the Rules version filter chooses by name: two card sets of one name are parted by their runs
    how = ("choose one rules version in the sidebar" if sets["rules_version"].n_unique() == sets.height else
           "choose the runs of one card set in the sidebar (Runs: the hash after @ names it)")
    return (f"{figures} pool the matches of {sets.height} rules versions: {', '.join(sets['card_set'].to_list())}. "
            f"A deck or keyword plays differently under each; {how} to read one alone.")


def pilots_note(path, filters: Filters) -> str:
    """``pilots: greedy, random``: the pilots whose seats a figure counts (the pilot filter's, else
    every pilot of the runs)."""
    return "pilots: " + ", ".join(pilots_of(path, filters))


def with_pilots_subtitle(fig, pilots: list[str]):
    """A chart that names the pilots whose play it shows, under its title (so an image of the
    chart, saved alone, still says who played)."""
    fig.update_layout(title_subtitle_text=f"Pilots: {', '.join(pilots)}")
    return fig


def scope_pilots(what: dict[str, str]) -> dict[str, str]:
    """A download's filters with the pilots its rows count, last: the ones it names (a pilot
    filter, a page's own), else every pilot seated in the runs it names. Without either it is left
    as it is."""
    pilots = what.get("pilots")
    if not pilots and what.get("runs"):
        pilots = ",".join(run_pilots(db_path(), [r for r in str(what["runs"]).split(",") if r.strip().isdigit()]))
    rest = {k: v for k, v in what.items() if k != "pilots"}
    return rest | {"pilots": pilots} if pilots else rest


# the filters a file's name leaves to its filters column (lists that would make the name long)
COLUMN_ONLY = ("rules", "decks", "pilots")


def download_name(name: str, filters: dict[str, str]) -> str:
    """``name`` plus the game and runs it covers and a page's own choice (``ladder-2``), e.g.
    ``card_stats__frontier__runs-2-5.csv``."""
    parts = [name]
    for key, text in filters.items():
        if key == "game":
            parts.append(text)
        elif key == "runs":
            parts.append("runs-" + text.replace(",", "-"))
        elif key not in COLUMN_ONLY:
            parts.append(f"{key}-{text}")
    return "__".join(parts)[:120] + ".csv"  # a long run list is cut: the filters column has it whole


def readable_table(frame: pl.DataFrame, column_config: dict | None = None, **kwargs):
    """A table as the dashboard shows every table: each column a human label, its internal name in
    the help, a width that fits its values (reports/pages/columns.py). ``table_with_download``
    adds the CSV; a table without one (a live progress, a turn's board) is drawn with this alone.
    Card names several of its cards share are shown with their ids (``unique_names``)."""
    from reports.pages.columns import readable_config, unique_names

    shown = unique_names(frame)
    return st.dataframe(shown.to_pandas(), hide_index=True, column_config=readable_config(shown, column_config),
                        **kwargs)


def table_with_download(frame: pl.DataFrame, name: str, column_config: dict | None = None,
                        download: pl.DataFrame | None = None, select_key: str | None = None,
                        column_order: list[str] | None = None, scope: dict[str, str] | None = None,
                        played: bool = True):
    """The table as shown, and under it its CSV (``download`` when the shown table is formatted
    for reading, e.g. rates as percentages, and the file should hold the documented columns).
    With ``select_key`` one row can be selected; returns the selected row index or None.
    ``scope``: the filters the table counts, by name, when they are not the sidebar's kept
    choice (the Card and Deck pages count every duel run of the game, not the runs kept). The
    file's ``filters`` column always names the pilots its rows count (``scope_pilots``); the file
    name leaves them out (``COLUMN_ONLY``). ``played=False``: the rows are card or deck definitions,
    which no pilot plays (a stat budget, a price list, a deck list), so no pilots are recorded."""
    kwargs = {"key": select_key, "on_select": "rerun", "selection_mode": "single-row"} if select_key else {}
    event = readable_table(frame, column_config, width="stretch", column_order=column_order,
                           height=table_height(frame.height), **kwargs)
    data = download if download is not None else frame
    flat = data.with_columns(pl.col(c).list.join("; ") for c, t in data.schema.items() if isinstance(t, pl.List))
    # the pilots always: a figure says which pilots produced it (not only when a pilot filter is chosen)
    what = chosen_filters() if scope is None else scope
    what = scope_pilots(what) if played else {k: v for k, v in what.items() if k != "pilots"}
    if what:  # the file says which view it came from, in a column a spreadsheet keeps with each row
        flat = flat.with_columns(pl.lit("; ".join(f"{k}={v}" for k, v in what.items())).alias("filters"))
    # as every exported CSV: an undefined number is an empty cell, not the word NaN (reports/export.py)
    st.download_button(f"Download {name} as CSV", undefined_as_null(flat).write_csv().encode("utf-8"),
                       file_name=download_name(name, what), mime="text/csv", key=f"csv-{name}")
    if select_key and event is not None:
        rows = event.selection.rows
        return rows[0] if rows else None
    return None


# --- links to example matches -------------------------------------------------------------------------

def parse_example(key: str | None) -> tuple[int, int, int | None] | None:
    """(run, match, seat) from an example key ``r<run>-m<match>[-s<seat>]`` (or the older
    ``run:match[:seat]``); None when there is none."""
    if not key:
        return None
    text = str(key)
    if text.startswith("r"):
        parts = [int(p[1:]) for p in text.split("-")]
    else:
        parts = [int(p) for p in text.split(":")]
    return parts[0], parts[1], parts[2] if len(parts) > 2 else None


def replay_url(key: str | None) -> str | None:
    """A link to the Match replay page for an example key; the trailing ``ex`` only gives the
    link its readable text (r<run>-m<match>-s<seat>)."""
    found = parse_example(key)
    if found is None:
        return None
    run, match, seat = found
    return f"replay?run={run}&match={match}" + (f"&seat={seat}" if seat is not None else "") + f"&ex={key}"


def with_replay_links(frame: pl.DataFrame, columns: dict[str, str], config: dict) -> pl.DataFrame:
    """Turn example-key columns into links to their replay, and describe them in ``config``."""
    out = frame
    for column, label in columns.items():
        if column in frame.columns:
            out = out.with_columns(pl.col(column).map_elements(replay_url, return_dtype=pl.Utf8))
            config[column] = st.column_config.LinkColumn(
                label, display_text=r"ex=(.*)$",
                help="an example match (r<run>-m<match>-s<seat>: run, match, seat) that shows this row; click to replay it turn by turn")
    return out


def request_replay(run_id: int, match_no: int, seat: int | None = None, note: str | None = None,
                   focus: str | None = None) -> None:
    """Open the Match replay page on a match: the request waits in the session (and the URL),
    and the app switches page when it registered one."""
    st.session_state[REPLAY_REQUEST] = {"run": int(run_id), "match": int(match_no), "seat": seat, "note": note,
                                        "focus": focus}
    params = {"run": str(run_id), "match": str(match_no)} | ({"seat": str(seat)} if seat is not None else {})
    page = st.session_state.get(PAGES_KEY, {}).get("replay")
    if page is not None:
        st.switch_page(page, query_params=params)
    st.query_params.update(params)
    st.info(f"Match {match_no} of run {run_id} is ready on the Match replay page.")


def replay_button(label: str, key: str | None, widget_key: str, note: str | None = None, primary: bool = False,
                  where=st, focus: str | None = None) -> None:
    """A button that opens the replay of an example match (disabled when there is none)."""
    found = parse_example(key)
    clicked = where.button(label, key=widget_key, disabled=found is None, type="primary" if primary else "secondary",
                           help=f"replay match {key} turn by turn" if found else "no such example in these matches")
    if clicked and found:
        request_replay(*found, note=note, focus=focus)


def example_buttons(row: dict | None, columns: dict[str, str], name: str, note: str) -> None:
    """Under a table with row selection: buttons that replay the selected row's example matches."""
    if row is None:
        st.caption("Select a row (the box at its left) to replay one of its example matches here, "
                   "or click a link in the table to open it in a new tab.")
        return
    present = {c: t for c, t in columns.items() if c in row}
    for (column, text), where in zip(present.items(), st.columns(len(present) + 2)):
        replay_button(text, row[column], f"replay-{name}-{column}", note=f"{note}: {text.lower()}", where=where)


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


def register_queries(**queries) -> None:
    """Add a page's own queries to ``QUERIES`` (name -> a function of the store path and
    hashable arguments), so ``cached`` serves them like the shared ones; the page module calls
    it when it is imported."""
    QUERIES.update(queries)


def store_reads(page: str, **queries):
    """A page's own queries registered (``register_queries``, each as ``<page>:<name>``) and their
    reader, ``read(name, path, *args)``, cached per store state like the shared ones (a cache
    with a time limit would ask the store again on every render after it, written to or not)."""
    register_queries(**{f"{page}:{name}": fn for name, fn in queries.items()})
    return lambda name, path, *args: cached(f"{page}:{name}", path, *args)
