"""Replay a stored match by playing its seed again with full logging.

Matches are deterministic, so a replay shows every board state even when the run kept no event
log. The replay is checked against what the store recorded (winner and length); if the rules
files changed since the run, the replay says so. This is the one view that needs ``sim``; the
dashboard receives ``replay_match`` from the app entry, so ``reports`` stays free of ``sim``."""
from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

from reports import db
from sim.core.decks import compile_decks
from sim.core.match import play_match
from sim.core.seating import Seating
from sim.registry import engine as get_engine
from workbench import games
from workbench.runspec import RunSpec


def describe_event(names: dict, kind: str, seat: int, card, target, amount, lane: str | None, detail) -> str:
    parts = [f"p{seat}" if seat >= 0 else "-", kind.replace("_", " ")]
    if card is not None:
        parts.append(names.get(card, card))
    if target is not None:
        parts.append("-> " + names.get(target, target))
    if amount:
        parts.append(f"({amount})")
    if lane is not None:
        parts.append(f"@ {lane}")
    if detail:
        parts.append(f"[{detail}]")
    return " ".join(parts)


def replay_match(path: str | Path, run_id: int, match_no: int) -> dict:
    """The match turn by turn: the events of each turn and the board at its end (at the turn's
    last decision; the last turn shows the final board). A campaign run's fight is rebuilt by
    playing its whole run again (the fight's decks and HP come from the run before it)."""
    run = db.query(path, "SELECT * FROM runs WHERE run_id = ?", [run_id])
    if run.is_empty():
        raise ValueError(f"no run {run_id} in {path}")
    run = run.row(0, named=True)
    stored = db.query(path, "SELECT * FROM matches WHERE run_id = ? AND match_no = ?", [run_id, match_no])
    if stored.is_empty():
        raise ValueError(f"run {run_id} has no match {match_no}")
    stored = stored.row(0, named=True)
    kind = run.get("kind") or "duel"
    replay = _campaign_fight if kind == "campaign" else _duel
    out, ruleset = replay(json.loads(run["spec"]), match_no)
    warning = None
    if ruleset.hash != run["rules_hash"]:
        warning = (f"rules version {out['rules']} changed since run {run_id} (hash {run['rules_hash']} -> "
                   f"{ruleset.hash}): this replay uses today's cards and may differ from the stored match")
    consistent = (out["winner"] == stored["winner_seat"] and out["turns"] == stored["turns"]
                  and out["reason"] == stored["reason"])
    return {"run_id": run_id, "match_no": match_no, **out, "consistent": consistent,
            "stored": {"winner": stored["winner_seat"], "turns": stored["turns"], "reason": stored["reason"]},
            "warning": warning}


def _duel(spec_json: dict, match_no: int):
    spec = RunSpec.from_json(spec_json)
    data, ruleset = games.load(spec.game, spec.rules)
    decks = games.decks_for(data, ruleset, spec.decks)
    engine = get_engine(spec.game)
    pool = engine.compile_pool(ruleset)
    every = compile_decks(engine, pool, decks, spec.substitute)  # a value twin replays with its card replaced
    if spec.mode == "series":  # the game's seats follow the series' earlier games: replay those first
        seed, slots = _series_game(spec, engine, pool, every, match_no)
    else:
        seed, pairing, rotation = spec.match(match_no)
        slots = spec.seat_slots(pairing, rotation)
    compiled = [every[s] for s in slots]
    pilots = [spec.pilots[s] for s in slots]
    names = [spec.decks[s] for s in slots]
    seating = None
    if spec.mode == "turf":  # the engine adds the boss's seat, as the farm played it (chunk.play_turf)
        from workbench.chunk import TURF_TEAMS

        seating = Seating("turf", teams=TURF_TEAMS, boss=spec.boss_of(pairing))
        pilots.append(spec.boss_pilot)
        names.append(f"boss:{seating.boss}")
    watcher = BoardWatcher(engine)
    result = play_match(engine, pool, compiled, seed, pilots, log=True, on_decision=watcher,
                        pilot_salt=spec.pilot_salt, seating=seating)
    out = {"seed": seed, "game": spec.game, "rules": spec.rules, "decks": names,
           "pilots": pilots, **timeline(engine, pool, ruleset, result, watcher.boards, watcher)}
    return out, ruleset


def _series_game(spec: RunSpec, engine, pool, decks, match_no: int) -> tuple[int, list[int]]:
    """The seed and seating of a series' game (workbench/chunk.series_games), its earlier games
    played again without a log to find who sat where."""
    from workbench.chunk import STOP, series_games

    best_of = pool.consts.series_best_of
    series_no, target = divmod(match_no, best_of)
    found: dict = {}

    def play(game_no: int, seed: int, slots: list[int], _swapped: bool):
        if game_no == target + 1:
            found.update(seed=seed, slots=slots)
            return STOP
        return play_match(engine, pool, [decks[s] for s in slots], seed, [spec.pilots[s] for s in slots],
                          log=False, pilot_salt=spec.pilot_salt).winner

    series_games(spec, pool.consts, series_no, play)
    if not found:
        raise ValueError(f"match {match_no} is not a game of series {series_no} (it ended before game {target + 1})")
    return found["seed"], found["slots"]


def _campaign_fight(spec_json: dict, match_no: int):
    from sim.registry import campaign as get_campaign
    from workbench.campaign.spec import MAX_FIGHTS, CampaignSpec
    from workbench.campaign.stage import load_stage

    spec = CampaignSpec.from_json(spec_json)
    _data, ruleset, camp = load_stage(spec.game, spec.rules, spec.stage)
    engine = get_engine(spec.game)
    pool = engine.compile_pool(ruleset)
    runner = get_campaign(spec.game)
    content = runner.compile(engine, pool, camp)
    run_no, fight = divmod(match_no, MAX_FIGHTS)
    _crew_index, crew, seed = spec.run(run_no)
    watcher = BoardWatcher(engine)
    rec = runner.play_run(content, crew, seed, spec.policy, spec.fight_pilot, log=True,
                          watch=lambda f: watcher if f == fight else None)
    if rec.error:
        raise RuntimeError(f"campaign run {run_no} (crew {crew}, seed {seed}) failed on replay: "
                           f"{rec.error.splitlines()[0]}")
    found = [f for f in rec.fights if f.fight == fight]
    if not found:
        raise ValueError(f"campaign run {run_no} (crew {crew}, seed {seed}) has no fight {fight} on replay")
    f = found[0]
    out = {"seed": f.result.seed, "game": spec.game, "rules": spec.rules, "decks": f.decks, "pilots": f.pilots,
           "campaign": {"run_no": run_no, "fight": fight, "crew": crew, "run_seed": seed, "stage": spec.stage,
                        "player_seat": f.player_seat},
           **timeline(engine, pool, ruleset, f.result, watcher.boards, watcher)}
    return out, ruleset


class Decision(NamedTuple):
    """One decision of a replay, as the watcher saw it before the action: the turn, the seat that
    chose, the action in the engine's words, how many events were logged before it, the drawn
    board then, and the cards first played since the decision before (by seat, card id)."""
    turn: int
    seat: int
    action: str
    events: int
    drawn: dict
    plays: list


class BoardWatcher:
    """The ``on_decision`` hook of a replay. ``boards`` keeps, for each turn, the table board at
    its last decision: the board as the turn's actions left it, before the action that ends it
    (its End Phase) and before the next seat draws and is paid. A turn that asked no decision
    (Allegiance's setup, turn 0, where the Strongholds are placed) gets the board its events left,
    the one at the next decision, not the final board. ``decisions`` keeps every decision with its
    drawn board, from which ``timeline`` builds the steps of each turn."""

    def __init__(self, engine):
        self.engine = engine
        self.boards: dict[int, dict] = {}
        self.decisions: list[Decision] = []
        self._turn = -1
        self._played: list[int] = []

    def __call__(self, state, action) -> None:
        board = self.engine.board(state)
        for skipped in range(self._turn + 1, state.turn):
            self.boards.setdefault(skipped, board)
        self._turn = state.turn
        self.boards[state.turn] = board
        if state.events is not None:
            drawn = self.engine.drawn_board(state)
            if self.decisions and self.decisions[-1].drawn == drawn:
                drawn = self.decisions[-1].drawn  # one object for an unchanged board: a smaller replay to cache
            self.decisions.append(Decision(state.turn, state.to_act, self.engine.describe(state, action),
                                           len(state.events), drawn, self.new_plays(state)))

    def new_plays(self, state) -> list[tuple[int, int]]:
        """(seat, card) of every card the ledger saw first played since the last call."""
        if state.ledger is None:
            return []
        firsts = state.ledger.first_played
        self._played += [0] * (len(firsts) - len(self._played))
        found = []
        for seat, cards in enumerate(firsts):
            if len(cards) > self._played[seat]:
                found += [(seat, card) for card in list(cards)[self._played[seat]:]]
                self._played[seat] = len(cards)
        return found


def timeline(engine, pool, ruleset, result, boards: dict[int, dict], watcher: BoardWatcher | None = None) -> dict:
    """Winner, reason, turns, and per turn its events (in the engine's shorthand, ``events``, and
    in plain words, ``said``) and the table board at its end. With the ``watcher`` that saw the
    match, each turn also has its ``steps`` (the turn's start, then one per decision), each with
    its events in words and the drawn board after it, and the match the turn and step at which
    each card was first played (``first_played``)."""
    names = {c.id: c.name for c in ruleset.cards.values()}
    ev = result.events
    turns: dict[int, dict] = {}
    words = []
    for i in range(len(ev)):
        t = ev.turn[i]
        entry = turns.setdefault(t, {"turn": t, "seat": ev.seat[i], "events": [], "said": []})
        card = engine.card_name(pool, ev.card[i])
        target = engine.card_name(pool, ev.target[i])
        lane = ev.lane[i]
        lane = None if lane < 0 else engine.lane_name(pool, lane)
        entry["events"].append(describe_event(names, engine.kinds.name(ev.kind[i]), ev.seat[i], card, target,
                                              ev.amount[i], lane, ev.detail[i]))
        words.append(engine.event_words(pool, ev.seat[i], ev.kind[i], ev.card[i], ev.target[i], ev.amount[i],
                                        ev.lane[i], ev.detail[i]))
        entry["said"].append(words[-1])
    final = engine.board(result.state)
    last = max(turns) if turns else None
    entries = [{**turns[t], "board": final if t == last else boards.get(t, final)} for t in sorted(turns)]
    out = {"winner": result.winner, "reason": result.reason, "turns": result.turns, "timeline": entries}
    if watcher is not None and watcher.decisions and ev is not None:
        out["first_played"] = _steps(engine, pool, names, result, watcher, entries, words)
    return out


def _steps(engine, pool, names: dict, result, watcher: BoardWatcher, entries: list[dict], words: list[str]) -> list:
    """Cut each turn into steps: its start (the events before its first decision: draws, income,
    start-of-turn effects, or a setup that asks no decision) and one step per decision, each with
    the drawn board after it. An event logged while a decision of an earlier turn resolved (the
    next seat's draw inside the action that ends a turn) opens its own turn's start."""
    decisions = watcher.decisions
    ev = result.events
    n = len(ev)
    after = [d.drawn for d in decisions[1:]] + [engine.drawn_board(result.state)]
    plays_after = [d.plays for d in decisions[1:]] + [watcher.new_plays(result.state)]
    start_events: dict[int, list[int]] = {}
    step_events: list[list[int]] = [[] for _ in decisions]
    k = -1
    for i in range(n):
        while k + 1 < len(decisions) and decisions[k + 1].events <= i:
            k += 1
        if k >= 0 and decisions[k].turn == ev.turn[i]:
            step_events[k].append(i)
        else:
            start_events.setdefault(ev.turn[i], []).append(i)
    by_turn: dict[int, list[int]] = {}
    for k, d in enumerate(decisions):
        by_turn.setdefault(d.turn, []).append(k)

    def card_word(seat: int, card: int) -> str:
        slug = engine.card_name(pool, card)
        return names.get(slug, slug or str(card))

    first_played = []
    setup_plays = decisions[0].plays
    for entry in entries:
        t = entry["turn"]
        mine = by_turn.get(t, [])
        opening = start_events.get(t, [])
        if mine:
            start_board = decisions[mine[0]].drawn
        else:  # no decision this turn: the board once its events were done
            done = (opening[-1] + 1) if opening else 0
            start_board = next((d.drawn for d in decisions if d.events >= done), after[-1])
        steps = [{"label": f"start of turn {t}", "seat": entry["seat"], "said": [words[i] for i in opening],
                  "board": start_board, "played": []}]
        if setup_plays and entry is entries[0]:
            steps[0]["played"] = setup_plays
        for k in mine:
            said = [words[i] for i in step_events[k]]
            d = decisions[k]
            label = said[0] if said else f"p{d.seat} chooses: {d.action}"
            steps.append({"label": label, "seat": d.seat, "said": said, "board": after[k], "played": plays_after[k]})
        for index, step in enumerate(steps):
            plays, step["played"] = step["played"], []
            for seat, card in plays:
                step["played"].append(card_word(seat, card))
                first_played.append({"card": step["played"][-1], "seat": seat, "turn": t, "step": index})
        entry["steps"] = steps
    return first_played
