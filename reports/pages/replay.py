"""Match replay page: one match turn by turn, rebuilt by playing its seed again with full logging
(so it works when the run kept no event log): the events of each turn, the board after it, each
seat's numbers over the match, and whether the replay agrees with what the store recorded.

Opened from any example link (the URL carries ``?run=&match=``) or button (the request waits in
the session), or by choosing a run and a match. ``reports`` may not import ``sim``: the replay
function is handed in by the app entry (``workbench.replay.replay_match``)."""
from __future__ import annotations

from typing import Callable

import plotly.graph_objects as go
import polars as pl
import streamlit as st

from reports.pages.common import REPLAY_REQUEST, cached, page_header, replay_button, run_label, table_with_download

ReplayFn = Callable[[str, int, int], dict]
SHOWN = "_replay_shown"  # the (run, match) the page showed last, so a new request can move the widgets


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
    labels = {r["run_id"]: run_label(r) for r in mine.iter_rows(named=True)}
    if st.session_state.get("replay_run") not in labels:
        st.session_state["replay_run"] = next(iter(labels))
    run_id = st.sidebar.selectbox("Run", list(labels), format_func=labels.get, key="replay_run")
    run = mine.filter(pl.col("run_id") == run_id).row(0, named=True)
    match_no = pick_fight(path, run) if run["kind"] == "campaign" else pick_duel(run)
    if match_no is None:
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


def pick_duel(run: dict) -> int:
    series = run.get("kind") == "series"
    last = max(run["matches_target"] * (SERIES_GAMES if series else 1) - 1, 0)
    if st.session_state.get("replay_match", 0) > last:
        st.session_state["replay_match"] = last
    return int(st.sidebar.number_input(
        "Match", min_value=0, max_value=last, step=1, key="replay_match",
        help="the match number within the run (0 is the first)" + (
            "; in a series run, game g of series s is match 3s + g - 1 (a series that ended early has no later "
            "games)" if series else "")))


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


def seat_numbers(timeline: list[dict]) -> pl.DataFrame:
    """Each seat's numeric values (life, resources, cards in hand...) after every turn."""
    rows = []
    for entry in timeline:
        for seat in entry["board"].get("seats", []):
            rows.append({"turn": entry["turn"], **{k: v for k, v in seat.items()
                                                  if k == "seat" or (isinstance(v, (int, float)) and not isinstance(v, bool))}})
    return pl.DataFrame(rows) if rows else pl.DataFrame()


def board_rows(timeline: list[dict], part: str) -> pl.DataFrame:
    rows = [{"turn": e["turn"], **r} for e in timeline for r in e["board"].get(part, [])]
    return pl.DataFrame(rows, infer_schema_length=None) if rows else pl.DataFrame()


def event_rows(timeline: list[dict]) -> pl.DataFrame:
    rows = [{"turn": e["turn"], "acting_seat": f"p{e['seat']}", "n": i + 1, "event": text}
            for e in timeline for i, text in enumerate(e["events"])]
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
    stored = result["stored"]
    said = f"seat {stored['winner']} won" if stored["winner"] is not None else "a draw"
    if result["consistent"]:
        st.success(f"The replay agrees with the stored result: {said} ({stored['reason']}) after "
                   f"{stored['turns']} turns.")
    else:
        got = f"seat {result['winner']} won" if result["winner"] is not None else "a draw"
        st.error(f"The replay differs from the stored match: stored {said} ({stored['reason']}, {stored['turns']} turns), "
                 f"replayed {got} ({result['reason']}, {result['turns']} turns). The rules files, decks or code "
                 "changed since the run.")
    if result.get("warning"):
        st.warning(result["warning"])


def twin_buttons(path, run_id: int, match_no: int, seat: int | None) -> None:
    """When the run is one side of a version diff: open the same match under the other version."""
    diffs = cached("diffs", str(path))
    if diffs.is_empty():
        return
    twins = diffs.filter((pl.col("base_run") == run_id) | (pl.col("candidate_run") == run_id))
    seen = set()
    for d in twins.iter_rows(named=True):
        base = d["base_run"] == run_id
        other, version = (d["candidate_run"], d["candidate_version"]) if base else (d["base_run"], d["base_version"])
        if other in seen:
            continue
        seen.add(other)
        key = f"{other}:{match_no}" + (f":{seat}" if seat is not None else "")
        replay_button(f"Open its twin under {version} (run {other})", key, f"twin-{other}",
                      note=f"the twin of run {run_id} match {match_no} in diff {d['diff_id']}",
                      where=st.columns([2, 3])[0])


def turn_view(result: dict, turn: int, focus: str | None) -> None:
    entry = next(e for e in result["timeline"] if e["turn"] == turn)
    decks = result["decks"]
    deck = decks[entry["seat"]] if 0 <= entry["seat"] < len(decks) else ""
    left, right = st.columns([1, 1])
    left.markdown(f"**Turn {turn}**: p{entry['seat']} ({deck}) acts, {len(entry['events'])} events")
    lines = [("» " if focus and focus in text else "  ") + text for text in entry["events"]]
    left.code("\n".join(lines) or "(no events)", language=None, wrap_lines=True)
    right.markdown(f"**Board after turn {turn}**")
    seats = pl.DataFrame(entry["board"].get("seats", []))
    if seats.height:
        right.dataframe(seats.to_pandas(), hide_index=True, width="stretch")
    field = pl.DataFrame(entry["board"].get("field", []), infer_schema_length=None)
    if field.height:
        right.dataframe(field.to_pandas(), hide_index=True, width="stretch")
    else:
        right.caption("No units on the board.")


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
    st.dataframe(seats.to_pandas(), hide_index=True)
    verdict(result)
    twin_buttons(path, run["run_id"], match_no, target.get("seat") if target else None)
    if not result["timeline"]:
        st.info("The replay logged no events.")
        return
    turns = [e["turn"] for e in result["timeline"]]
    numbers = seat_numbers(result["timeline"])
    # open on the first turn that shows the example (the focus card's first event), else turn one
    first = next((e["turn"] for e in result["timeline"] if focus and any(focus in t for t in e["events"])), turns[0])
    turn = st.select_slider("Turn", turns, value=first, key=f"replay_turn_{run['run_id']}_{match_no}_{focus}",
                            help="the events of this turn and the board when it ended")
    stats = [c for c in numbers.columns if c not in ("turn", "seat")] if numbers.height else []
    if stats:
        stat = st.selectbox("Seat number to chart", stats, key="replay_stat",
                            help="each seat's value after every turn (from the board view of the game)")
        st.plotly_chart(stat_chart(numbers, stat, result["decks"], turn), width="stretch")
    turn_view(result, turn, focus)
    st.subheader("The whole match")
    tag = f"replay_run{run['run_id']}_match{match_no}"
    st.markdown("**Every event, turn by turn**")
    table_with_download(event_rows(result["timeline"]), f"{tag}_events")
    if numbers.height:
        st.markdown("**Each seat after every turn**")
        table_with_download(numbers, f"{tag}_seats")
    field = board_rows(result["timeline"], "field")
    if field.height:
        st.markdown("**The board after every turn** (one row per unit)")
        table_with_download(field, f"{tag}_board")
