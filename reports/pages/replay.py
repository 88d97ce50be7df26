"""Match replay page: one match turn by turn, rebuilt by playing its seed again with full logging
(so it works when the run kept no event log): the table drawn as the game looks at any turn and
any step within it (reports/board/), the events in plain words beside it, each seat's numbers
over the match, and whether the replay agrees with what the store recorded. It can open on the
turn a chosen card was first played, and show a diff's twin (the same match under the other
rules version) side by side.

Opened from any example link (the URL carries ``?run=&match=``) or button (the request waits in
the session), or by choosing a run and a match. ``reports`` may not import ``sim``: the replay
function is handed in by the app entry (``workbench.replay.replay_match``)."""
from __future__ import annotations

from typing import Callable

import plotly.graph_objects as go
import polars as pl
import streamlit as st

from reports import db
from reports.board import draw, from_plain, pixel_width
from reports.pages.common import (
    REPLAY_REQUEST,
    cached,
    distinct,
    one_connection_per_render,
    page_header,
    readable_table,
    replay_button,
    run_label,
    store_reads,
    table_with_download,
)

ReplayFn = Callable[[str, int, int], dict]
SHOWN = "_replay_shown"  # the (run, match) the page showed last, so a new request can move the widgets


def _last_stored(path: str, run_id: int) -> int | None:
    """The highest match number a run has stored (None: none yet); a run's Match box goes no
    further (matches_target counts the matches asked, not those stored)."""
    return db.query(path, "SELECT max(match_no) AS last FROM matches WHERE run_id = ?", [run_id])["last"][0]


def _stored_ranges(path: str, run_id: int) -> list[tuple[int, int]]:
    """The runs of consecutive match numbers a run has stored, (first, last) in order: a stopped
    run with several pairings (a sequential diff) stores each pairing's matches from its own
    offset, so its numbers have gaps."""
    rows = db.query(path, """SELECT min(match_no) AS first, max(match_no) AS last FROM (
                                 SELECT match_no, match_no - row_number() OVER (ORDER BY match_no) AS island
                                 FROM matches WHERE run_id = ?) GROUP BY island ORDER BY first""", [run_id])
    return [(int(a), int(b)) for a, b in rows.rows()]


read = store_reads("replay", last_stored=_last_stored, stored_ranges=_stored_ranges)


def ranges_text(ranges: list[tuple[int, int]], most: int = 8) -> str:
    """Stored match numbers in words: ``0-99, 700-799 and 1,400-1,499``; past ``most`` stretches,
    the first and last few and how many lie between."""
    parts = [f"{a:,}" if a == b else f"{a:,}\u2013{b:,}" for a, b in ranges]
    if len(parts) > most:
        parts = [*parts[:most // 2], f"{len(parts) - most + 1:,} more stretches", *parts[-(most // 2 - 1):]]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


@st.cache_data(ttl=60, show_spinner="Replaying the match...")
def _replay(_fn: ReplayFn, path: str, run_id: int, match_no: int) -> dict:
    return _fn(path, run_id, match_no)


def requested() -> dict | None:
    """The match asked for: the URL's ``run`` and ``match`` first (a link), else the session's
    request (a button on another page)."""
    qp, req = st.query_params, st.session_state.get(REPLAY_REQUEST)
    try:
        run, match = int(qp["run"]), int(qp["match"])
    except (KeyError, ValueError):
        return req
    seat = qp.get("seat")
    same = req is not None and (req["run"], req["match"]) == (run, match)
    return {"run": run, "match": match, "seat": int(seat) if seat and seat.isdigit() else None,
            "note": req.get("note") if same else None, "focus": req.get("focus") if same else None}


def pick_match(path, runs: pl.DataFrame) -> tuple[dict, int | None, dict | None]:
    """Sidebar: game, run and match, moved to the requested match when a new request arrives."""
    target = requested()
    ids = runs["run_id"].to_list()
    if target and (target["run"], target["match"]) != st.session_state.get(SHOWN):
        if target["run"] in ids:
            run = runs.filter(pl.col("run_id") == target["run"]).row(0, named=True)
            st.session_state["replay_game"] = run["game"]
            st.session_state["replay_run"] = target["run"]
            if run["kind"] == "campaign":  # a fight's number is not bounded by the count of runs
                st.session_state["replay_match"] = target["match"]
                st.session_state.pop("replay_campaign_run", None)  # pick_fight finds the fight's run
            else:
                st.session_state["replay_match"] = max(0, min(target["match"], max(run["matches_target"] - 1, 0)))
        else:
            st.warning(f"Run {target['run']} is not in this store; pick a run in the sidebar.")
            target = None
    games = sorted(runs["game"].unique().to_list())
    game = st.sidebar.selectbox("Game", games, key="replay_game", help="which game's runs to list")
    mine = runs.filter(pl.col("game") == game)
    sets = cached("run_card_sets", str(path))  # a workspace's run as "base" is named with its hash
    labels = {r["run_id"]: run_label(r, sets.get(r["run_id"])) for r in mine.iter_rows(named=True)}
    if st.session_state.get("replay_run") not in labels:
        st.session_state["replay_run"] = next(iter(labels))
    run_id = st.sidebar.selectbox("Run", list(labels), format_func=labels.get, key="replay_run")
    run = mine.filter(pl.col("run_id") == run_id).row(0, named=True)
    match_no = pick_fight(path, run) if run["kind"] == "campaign" else pick_duel(path, run)
    if match_no is None:
        if target and target["run"] == run_id:  # the request is answered (nothing stored there): the box may move on
            st.session_state[SHOWN] = (target["run"], target["match"])
        return run, None, None
    if target and (target["run"], target["match"]) != (run_id, match_no):
        target = None  # the designer moved on from the requested match
    st.session_state[SHOWN] = (run_id, int(match_no))
    st.session_state[REPLAY_REQUEST] = {"run": run_id, "match": int(match_no),
                                        **{k: target.get(k) if target else None for k in ("seat", "note", "focus")}}
    params = {"run": str(run_id), "match": str(match_no)} | (
        {"seat": str(target["seat"])} if target and target["seat"] is not None else {})
    if dict(st.query_params) != params:
        st.query_params.from_dict(params)
    return run, int(match_no), target


SERIES_GAMES = 3  # a series run's match numbers: series_no * 3 + game_no - 1 (a best of 3)


def pick_duel(path, run: dict) -> int | None:
    """A match of the run, among those it has stored (not those it asked for): the Match box goes
    from the first stored number to the last, and a number in a gap between them (a stopped run
    of several pairings stores each pairing's matches from its own offset) is answered with the
    numbers that exist, not replayed. None, said in words, when it has stored none yet."""
    series = run.get("kind") == "series"
    last = read("last_stored", str(path), run["run_id"])
    if last is None:
        st.info(f"Run {run['run_id']} holds no stored matches yet, so there is none to replay. A run stopped before "
                f"it stored any goes on with `workbench simulate --resume {run['run_id']}`.")
        return None
    ranges = read("stored_ranges", str(path), run["run_id"])
    first = ranges[0][0] if ranges else 0
    if st.session_state.get("replay_match", first) > last:
        st.session_state["replay_match"] = last
    if st.session_state.get("replay_match", first) < first:
        st.session_state["replay_match"] = first
    stored = sum(b - a + 1 for a, b in ranges)
    gaps = len(ranges) > 1
    if series:  # a series that ended early has no later games: gaps of its own
        how = f"{stored:,} games stored"
    else:
        how = (f"{stored:,} of the {run['matches_target']:,} matches it asked for; the numbers between were never "
               "stored: each pairing's matches are numbered from its own offset, and a stopped run keeps only the "
               "chunks it finished")
    match_no = int(st.sidebar.number_input(
        "Match", min_value=first, max_value=last, step=1, key="replay_match",
        help="the match number within the run" + (
            f"; the run stored matches {ranges_text(ranges)} ({how})" if gaps else " (0 is the first)") + (
            "; in a series run, game g of series s is match 3s + g - 1 (a series that ended early has no later "
            "games)" if series else "")))
    if gaps and not any(a <= match_no <= b for a, b in ranges):
        st.warning(f"Run {run['run_id']} has no stored match {match_no:,}: it stored matches {ranges_text(ranges)} "
                   f"({how}). Pick one of those in the sidebar.")
        return None
    return match_no


def pick_fight(path, run: dict) -> int | None:
    """A campaign batch: a campaign run, then one of its fights (stored as matches)."""
    fights = cached("campaign_fights", str(path), run["run_id"])
    if fights.is_empty():
        st.sidebar.info("This campaign batch has no fights stored yet.")
        return None
    wanted = st.session_state.get("replay_match")
    runs = fights["run_no"].unique(maintain_order=True).to_list()
    if st.session_state.get("replay_campaign_run") not in runs:
        hit = fights.filter(pl.col("match_no") == wanted)
        st.session_state["replay_campaign_run"] = hit["run_no"][0] if hit.height else runs[0]
    crews = dict(zip(fights["run_no"].to_list(), fights["crew"].to_list(), strict=True))
    run_no = st.sidebar.selectbox("Campaign run", runs, key="replay_campaign_run",
                                  format_func=lambda r: f"run {r} ({crews[r]})",
                                  help="one campaign run of the batch: a crew walking the stage's map")
    mine = fights.filter(pl.col("run_no") == run_no)
    labels = {r["match_no"]: f"step {r['step']} · {r['kind']} vs {r['enemy']} · {r['result']} "
                             f"(HP {r['hp_before']} -> {r['hp_after']})" for r in mine.iter_rows(named=True)}
    if wanted not in labels:
        st.session_state["replay_match"] = next(iter(labels))
    return int(st.sidebar.selectbox("Fight", list(labels), format_func=labels.get, key="replay_match",
                                    help="a fight of that run; it is replayed by playing the whole run again"))


AFTER_TURN = ("after every turn (after its end-of-turn effects, before the next turn's draw and resources; the "
              "last turn: the final board)")


def board_moment(timeline: list[dict]) -> str:
    """When the tables' and chart's boards were taken: after each turn's end-of-turn effects; a
    turn the replay could not see pass (AlleyWay's opening hands, turn 0, pass into turn 1 inside
    the setup) at its last decision, and every turn so from a replay function of before."""
    early = [e["turn"] for e in timeline[:-1] if e.get("board_at", "decision") == "decision"]
    if not early:
        return AFTER_TURN
    if len(early) == len(timeline) - 1:
        return "at each turn's last decision (before end-of-turn effects; the last turn: the final board)"
    named = ", ".join(str(t) for t in early[:5]) + (", ..." if len(early) > 5 else "")
    return f"{AFTER_TURN}; turn{'s' if len(early) > 1 else ''} {named}: at the turn's last decision instead"


def seat_numbers(timeline: list[dict]) -> pl.DataFrame:
    """Each seat's numeric values (life, resources, cards in hand...) after every turn (the
    board ``timeline`` gives each turn: after its end-of-turn effects)."""
    rows = []
    for entry in timeline:
        for seat in entry["board"].get("seats", []):
            rows.append({"turn": entry["turn"], **{k: v for k, v in seat.items()
                                                  if k == "seat" or (isinstance(v, (int, float)) and not isinstance(v, bool))}})
    return pl.DataFrame(rows) if rows else pl.DataFrame()


def board_rows(timeline: list[dict], part: str) -> pl.DataFrame:
    rows = [{"turn": e["turn"], **r} for e in timeline for r in e["board"].get(part, [])]
    return pl.DataFrame(rows, infer_schema_length=None) if rows else pl.DataFrame()


# the match's tables: a board's own numbers (life, resources, a unit's attack...) read by their names
# in words; the columns every game shares are labelled here
SEATS_CONFIG = {"seat": st.column_config.TextColumn("seat", help="p0 acts first"),
                "deck": st.column_config.TextColumn("deck"), "pilot": st.column_config.TextColumn("pilot"),
                "result": st.column_config.TextColumn("result", help="won, lost or a draw"),
                "example": st.column_config.TextColumn("example", help="the seat the example was chosen for"),
                "replaced": st.column_config.TextColumn("cards replaced", help="a card-value twin (workbench value): "
                                                        "the deck as played, with every copy of the card replaced")}
EVENT_CONFIG = {
    "turn": st.column_config.NumberColumn("turn", help="player-turns from the start", format="%d"),
    "acting_seat": st.column_config.TextColumn("seat", help="the seat whose turn it is"),
    "n": st.column_config.NumberColumn("#", help="the event's place in its turn", format="%d"),
    "event": st.column_config.TextColumn("event", help="what happened, in plain words"),
    "engine_log": st.column_config.TextColumn("engine log", help="the same event as the engine logs it: its kind, "
                                              "cards, amount and place")}
BOARD_CONFIG = {"turn": EVENT_CONFIG["turn"], "seat": SEATS_CONFIG["seat"],
                "card": st.column_config.TextColumn("card", help="the card as the board shows it (its name)"),
                "hand": st.column_config.NumberColumn("in hand", help="cards in the seat's hand", format="%d"),
                "deck": st.column_config.NumberColumn("in deck", help="cards left in the seat's deck", format="%d")}


def event_rows(timeline: list[dict]) -> pl.DataFrame:
    """Every event: in plain words, and as the engine logs it (kind, cards, amount, place)."""
    rows = [{"turn": e["turn"], "acting_seat": f"p{e['seat']}", "n": i + 1, "event": said, "engine_log": text}
            for e in timeline for i, (said, text) in enumerate(zip(e.get("said", e["events"]), e["events"], strict=True))]
    return pl.DataFrame(rows) if rows else pl.DataFrame()


def stat_chart(numbers: pl.DataFrame, stat: str, decks: list[str], turn: int) -> go.Figure:
    fig = go.Figure()
    for seat, part in numbers.group_by("seat", maintain_order=True):
        seat = seat[0]
        index = int(str(seat).lstrip("p")) if str(seat).lstrip("p").isdigit() else None
        name = f"{seat} ({decks[index]})" if index is not None and index < len(decks) else str(seat)
        fig.add_trace(go.Scatter(x=part["turn"], y=part[stat], mode="lines+markers", name=name,
                                 hovertemplate=f"after turn %{{x}}: {stat} %{{y}}<extra>{name}</extra>"))
    fig.add_vline(x=turn, line_dash="dot", line_color="gray", annotation_text=f"turn {turn}")
    fig.update_layout(title=f"{stat} of each seat after every turn", xaxis_title="Turn (player-turns)",
                      yaxis_title=stat, legend_title="seat", height=360, margin={"t": 60})
    return fig


def verdict(result: dict) -> None:
    """Whether the replay is the stored match: "agrees event for event" only when the run kept
    this match's event log and every event was replayed as logged; without a log, "agrees" with
    the stored result only when the cards and decks read are the ones the run played. Then each
    way what was read differs from what the run played (its data folder, its rules version's or
    decks' content, the code)."""
    stored = result["stored"]
    said = f"seat {stored['winner']} won" if stored["winner"] is not None else "a draw"
    ended = f"{said} ({stored['reason']}) after {stored['turns']} turns"
    events = result.get("events_compared") or {}
    same = (result["winner"] == stored["winner"] and result["turns"] == stored["turns"]
            and result["reason"] == stored["reason"])
    warnings = result.get("warnings")
    if warnings is None:  # a replay function of before the list
        warnings = [result["warning"]] if result.get("warning") else []
    if not same:
        got = f"seat {result['winner']} won" if result["winner"] is not None else "a draw"
        st.error(f"The replay differs from the stored match: stored {said} ({stored['reason']}, {stored['turns']} turns), "
                 f"replayed {got} ({result['reason']}, {result['turns']} turns). The rules files, decks or code "
                 "changed since the run" + (" (below)." if warnings else "."))
        if events.get("first_difference"):
            st.warning(f"The first difference from the stored event log: {events['first_difference']}.")
    elif events.get("agree") is True:
        st.success(f"The replay agrees with the stored result event for event: {ended}, and each of the "
                   f"{events['stored']:,} events the run logged for this match was replayed as logged.")
    elif events.get("agree") is False:
        st.warning(f"The replay ends as the stored match did ({ended}) but is not the stored match: "
                   f"{events['first_difference']}. The rules files, decks or code changed since the run"
                   + (" (below)." if warnings else "."))
    elif result.get("consistent", True):
        why = (f"its event log cannot be read ({events['unreadable']})" if events.get("unreadable") else
               "the run kept no event log of this match")
        st.success(f"The replay agrees with the stored result: {ended}. Only the winner, reason and length were "
                   f"compared: {why}.")
    else:
        st.warning(f"The replay ends as the stored match did ({ended}), but it read other cards or decks than the run "
                   "played (below), and the run kept no event log of this match to compare event by event: it may "
                   "be another match.")
    for line in warnings:
        st.warning(line[0].upper() + line[1:])


def source_caption(result: dict) -> None:
    """Where the replay read its cards and decks, and how (a version rebuilt from the store)."""
    folder, recorded = result.get("data_dir"), result.get("run_data_dir")
    if not folder:
        return
    own = recorded and folder == recorded
    st.caption(f"Cards and decks read from `{folder}`" + (", the run's own data folder" if own else "")
               + (f"; rules version {result['rules']} is no file there (a version `workbench tune` tried in memory): "
                  f"it was rebuilt from the cards the store kept for it, over {result['rebuilt']}, to the same "
                  "content hash" if result.get("rebuilt") else "") + ".")


def substitution_caption(result: dict) -> None:
    """A card-value twin (``workbench value``): which seat's deck plays which card replaced."""
    changed = result.get("substituted") or []
    said = [f"p{seat} plays {result['decks'][seat]} with {words}" for seat, words in enumerate(changed) if words]
    if said:
        st.caption("A card-value twin (`workbench value`): " + "; ".join(said) + " (every copy, in the same places "
                   "of the shuffled deck).")


def twin_runs(path, run_id: int) -> list[dict]:
    """The other side of every version diff this run is part of: its run, rules version and diff."""
    diffs = cached("diffs", str(path))
    if diffs.is_empty():
        return []
    out, seen = [], set()
    for d in diffs.filter((pl.col("base_run") == run_id) | (pl.col("candidate_run") == run_id)).iter_rows(named=True):
        base = d["base_run"] == run_id
        other, version = (d["candidate_run"], d["candidate_version"]) if base else (d["base_run"], d["base_version"])
        if other not in seen:
            seen.add(other)
            out.append({"run": other, "version": version, "diff": d["diff_id"]})
    return out


def twin_buttons(twins: list[dict], run_id: int, match_no: int, seat: int | None) -> None:
    """When the run is one side of a version diff: open the same match under the other version."""
    for twin in twins:
        other = twin["run"]
        key = f"{other}:{match_no}" + (f":{seat}" if seat is not None else "")
        replay_button(f"Open its twin under {twin['version']} (run {other})", key, f"twin-{other}",
                      note=f"the twin of run {run_id} match {match_no} in diff {twin['diff']}",
                      where=st.columns([2, 3])[0])


def turn_tables(entry: dict) -> None:
    """The board after the turn as tables (every number of each seat and unit), and the turn's
    events in the engine's own shorthand, for a designer checking the engine."""
    turn = entry["turn"]
    title = {"decision": f"Board at turn {turn}'s last decision (before end-of-turn effects)",
             "events": f"Board after turn {turn} (at the next decision: the turn asked none)"}.get(
        entry.get("board_at"), f"Board after turn {turn}")
    with st.expander(f"{title} as tables, and the engine's log"):
        seats = pl.DataFrame(entry["board"].get("seats", []))
        if seats.height:
            readable_table(seats, BOARD_CONFIG, width="stretch")
        field = pl.DataFrame(entry["board"].get("field", []), infer_schema_length=None)
        if field.height:
            readable_table(field, BOARD_CONFIG, width="stretch")
        else:
            st.caption("No units on the board.")
        st.code("\n".join(entry["events"]) or "(no events)", language=None, wrap_lines=True)


MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]<>#|$~:"})


def md(text: str) -> str:
    """Plain text that markdown shows as it is (card names with brackets, dollars, stars...)."""
    return text.translate(MD_SPECIAL)


def steps_of(entry: dict) -> list[dict]:
    """The turn's steps (its start, then one per decision); an older replay without steps has one."""
    return entry.get("steps") or [{"label": f"turn {entry['turn']}", "seat": entry["seat"],
                                   "said": entry.get("said", entry["events"]), "board": None, "played": []}]


def default_step(steps: list[dict]) -> int:
    """Where a turn opens: the last step that did something (the board as the turn left it)."""
    return max((i for i, step in enumerate(steps) if step["said"]), default=len(steps) - 1)


def event_lines(entry: dict, step: int, focus: str | None) -> str:
    """The turn's events in plain words, step by step: the chosen step's in bold, later ones grey;
    a step that logged nothing (a choice inside an action) shows its choice when chosen."""
    out = []
    for i, s in enumerate(steps_of(entry)):
        lines = s["said"] or ([s["label"]] if i == step else [])
        for text in lines:
            line = ("» " if focus and focus in text else "") + md(text)
            out.append(f"**▶ {line}**" if i == step else f":gray[{line}]" if i > step else line)
    return "  \n".join(out) or "(no events)"


def marks_of(board, step: dict, chosen: str | None) -> set[str]:
    """The cards to frame: those the step's events name, and the card chosen."""
    named = {c.name for c in board.cards() if not c.face_down and any(c.name in t for t in step["said"])}
    return named | ({chosen} if chosen else set())


def board_view(result: dict, turn: int, step: int, chosen: str | None, focus: str | None, where=st) -> None:
    """One match's drawn board at a turn's step, with the step in words and its card frames."""
    entry = next((e for e in result["timeline"] if e["turn"] == turn), None)
    if entry is None:  # a twin that ended sooner: its last board
        entry = result["timeline"][-1]
        where.caption(f"This match ended after turn {entry['turn']}; its last board:")
        step = len(steps_of(entry)) - 1
    steps = steps_of(entry)
    step = min(step, len(steps) - 1)
    here = steps[step]
    decks = result["decks"]
    if here["board"] is None:
        where.info("This replay carries no drawn board (an older replay function); see the tables below.")
        return
    board = from_plain(here["board"])
    where.markdown(draw(board, {i: d for i, d in enumerate(decks)}, marks_of(board, here, chosen)), unsafe_allow_html=True)
    where.caption(f"Turn {entry['turn']}, step {step} of {len(steps) - 1}: {here['label']}. The board after this step"
                  + (f"; first played here: {', '.join(here['played'])}" if here["played"] else "")
                  + ". Hover a card for all it says.")


def open_on(result: dict, focus: str | None) -> tuple[int, int]:
    """The turn and step a replay opens on: where the example's card was first played, else the
    first turn whose events name it, else the first turn."""
    timeline = result["timeline"]
    for played in result.get("first_played", []):
        if focus and played["card"] == focus:
            return played["turn"], played["step"]
    for e in timeline:
        if focus and any(focus in t for t in e.get("said", []) + e["events"]):
            return e["turn"], default_step(steps_of(e))
    return timeline[0]["turn"], default_step(steps_of(timeline[0]))


def card_chooser(result: dict, keys: str, turn_key: str, step_key) -> str | None:
    """A card of the match: choosing one moves the turn and step to where it was first played."""
    played = result.get("first_played", [])
    if not played:
        return None
    key = f"replay_card_{keys}"

    def jump() -> None:
        index = st.session_state.get(key)
        if index is not None:
            p = played[index]
            st.session_state[turn_key] = p["turn"]
            st.session_state[step_key(p["turn"])] = p["step"]

    index = st.selectbox("Open on the turn a card was first played", list(range(len(played))), index=None, key=key,
                         format_func=lambda i: f"{played[i]['card']} (p{played[i]['seat']}), turn {played[i]['turn']}",
                         on_change=jump, placeholder="choose a card played in this match",
                         help="every card played in the match, in the order each was first played; the board opens "
                              "on the step that played it, the card framed in amber")
    return played[index]["card"] if index is not None else None


@one_connection_per_render
def render(replay_fn: ReplayFn) -> None:
    path = page_header("Match replay")
    if path is None:
        return
    runs = cached("runs", str(path))
    if runs.is_empty():
        st.info(f"`{path}` holds no runs yet. Run `workbench simulate frontier` to fill it.")
        return
    run, match_no, target = pick_match(path, runs)
    if match_no is None:
        return
    try:
        result = _replay(replay_fn, str(path), run["run_id"], match_no)
    except ValueError as exc:  # no such match (yet): a run still going, or a number past its end
        st.warning(f"{exc}. Pick another match in the sidebar.")
        return
    except Exception as exc:  # the game data or engine cannot replay it: say so, keep the page alive
        st.error(f"This match cannot be replayed: {type(exc).__name__}: {exc}")
        return
    st.subheader(f"Run {result['run_id']} · match {result['match_no']} · seed {result['seed']}")
    focus = target.get("focus") if target else None
    if target and target.get("note"):
        st.caption(f"Opened as an example of: {target['note']}"
                   + (" (its events are marked » below)" if focus else ""))
    seats = pl.DataFrame({"seat": [f"p{i}" for i in range(len(result["decks"]))], "deck": result["decks"],
                          "pilot": result["pilots"],
                          "result": ["won" if result["winner"] == i else "draw" if result["winner"] is None else "lost"
                                     for i in range(len(result["decks"]))]})
    if any(result.get("substituted") or []):  # a card-value twin: the deck played with a card replaced
        seats = seats.with_columns(pl.Series("replaced", [w or "" for w in result["substituted"]], dtype=pl.String))
    if target and target.get("seat") is not None:
        seats = seats.with_columns(pl.when(pl.col("seat") == f"p{target['seat']}").then(pl.lit("◀ the example's seat"))
                                   .otherwise(pl.lit("")).alias("example"))
    if result.get("campaign"):
        c = result["campaign"]
        st.markdown(f"A fight of campaign run **{c['run_no']}** (crew **{c['crew']}**, run seed {c['run_seed']}, "
                    f"stage {c['stage']}): the crew sits at p{c['player_seat']}. It was rebuilt by playing the "
                    "whole run again, so its decks and HP are the ones the run had reached.")
    st.markdown(f"**{result['game']}**, rules version **{result['rules']}**: p0 acts first; "
                f"{len(result['timeline'])} turns, ended by **{result['reason']}**.")
    readable_table(seats, SEATS_CONFIG)
    substitution_caption(result)
    verdict(result)
    source_caption(result)
    twins = twin_runs(path, run["run_id"])
    twin_buttons(twins, run["run_id"], match_no, target.get("seat") if target else None)
    if not result["timeline"]:
        st.info("The replay logged no events.")
        return
    turns = [e["turn"] for e in result["timeline"]]
    numbers = seat_numbers(result["timeline"])
    keys = f"{run['run_id']}_{match_no}_{focus}"
    turn_key = f"replay_turn_{keys}"

    def step_key(t: int) -> str:
        return f"replay_step_{keys}_{t}"

    if turn_key not in st.session_state or st.session_state[turn_key] not in turns:  # open where the example is
        first_turn, first_step = open_on(result, focus)
        st.session_state[turn_key] = first_turn
        st.session_state[step_key(first_turn)] = first_step
    chosen = card_chooser(result, keys, turn_key, step_key) or focus
    turn = st.select_slider("Turn", turns, key=turn_key, help="the turn to show: its board and its events in words")
    entry = next(e for e in result["timeline"] if e["turn"] == turn)
    steps = steps_of(entry)
    key = step_key(turn)
    if st.session_state.get(key) not in range(len(steps)):
        st.session_state[key] = default_step(steps)
    step = st.select_slider("Step within the turn", list(range(len(steps))), key=key,
                            format_func=lambda i: f"{i}: {steps[i]['label'][:70]}",
                            help="0 is the turn's start (draws, income, start-of-turn effects); each later step is "
                                 "one decision and what it set off. The board shows the table after the step.")
    twin = pick_twin(twins, run["run_id"], match_no)
    if twin is None:
        drawn = steps[min(step, len(steps) - 1)]["board"]
        left, right = st.columns([pixel_width(from_plain(drawn)) if drawn else 600, 420])  # the board as wide as it can
        board_view(result, turn, step, chosen, focus, left)
        deck = result["decks"][entry["seat"]] if 0 <= entry["seat"] < len(result["decks"]) else ""
        right.markdown(f"**Turn {turn}**: p{entry['seat']} ({deck}) acts, {len(entry['events'])} events")
        right.markdown(event_lines(entry, step, focus))
    else:
        twin_view(replay_fn, str(path), result, twin, (turn, step), chosen, focus)
    turn_tables(entry)
    stats = [c for c in numbers.columns if c not in ("turn", "seat")] if numbers.height else []
    if stats:
        stat = st.selectbox("Seat number to chart", stats, key="replay_stat",
                            help=f"each seat's value {board_moment(result['timeline'])} (from the board view of "
                                 "the game)")
        st.plotly_chart(stat_chart(numbers, stat, result["decks"], turn), width="stretch")
    st.subheader("The whole match")
    tag = f"replay_run{run['run_id']}_match{match_no}"
    # the downloads record this match's game, run and pilots, not the runs the duel pages keep
    scope = {"game": result["game"], "runs": str(run["run_id"]), "pilots": ",".join(distinct(result["pilots"]))}
    st.markdown("**Every event, turn by turn**")
    table_with_download(event_rows(result["timeline"]), f"{tag}_events", EVENT_CONFIG, scope=scope)
    if numbers.height:
        st.markdown("**Each seat after every turn**")
        st.caption(f"Each seat's numbers {board_moment(result['timeline'])}.")
        table_with_download(numbers, f"{tag}_seats", BOARD_CONFIG, scope=scope)
    field = board_rows(result["timeline"], "field")
    if field.height:
        st.markdown("**The board after every turn** (one row per unit)")
        st.caption(f"Each unit {board_moment(result['timeline'])}.")
        table_with_download(field, f"{tag}_board", BOARD_CONFIG, scope=scope)


def pick_twin(twins: list[dict], run_id: int, match_no: int) -> dict | None:
    """A toggle per twin run: show the same match under the other rules version beside this one."""
    for twin in twins:
        if st.toggle(f"Side by side with its twin under {twin['version']} (run {twin['run']})",
                     key=f"replay_twin_{run_id}_{match_no}_{twin['run']}",
                     help="the same seed, seats, decks and pilots played under the other rules version of the "
                          "diff: the boards at the same turn and step, so you see where the versions part"):
            return twin
    return None


def twin_view(replay_fn: ReplayFn, path: str, result: dict, twin: dict, at: tuple[int, int], chosen: str | None,
              focus: str | None) -> None:
    """This match and its twin, their boards and events at the same turn and step, side by side."""
    turn, step = at
    try:
        other = _replay(replay_fn, path, twin["run"], result["match_no"])
    except Exception as exc:  # the twin cannot be replayed: say so, keep this match
        st.error(f"The twin (run {twin['run']}) cannot be replayed: {type(exc).__name__}: {exc}")
        return
    for where, res, name in zip(st.columns(2), (result, other), (result["rules"], twin["version"]), strict=True):
        where.markdown(f"**{name}** (run {res['run_id']}): " + (
            f"seat {res['winner']} won" if res["winner"] is not None else "a draw") + f", {res['reason']}, "
            f"{len(res['timeline'])} turns")
        board_view(res, turn, step, chosen, focus, where)
        entry = next((e for e in res["timeline"] if e["turn"] == turn), None)
        if entry is not None:
            where.markdown(event_lines(entry, min(step, len(steps_of(entry)) - 1), focus))
