"""Replay a stored match by playing its seed again with full logging.

Matches are deterministic, so a replay shows every board state even when the run kept no event
log. The replay reads the cards and decks from the run's own data folder (``runs.data_dir``), the
dashboard's only when that folder is gone or was never recorded (and says so); it checks what it loaded against the run
(the rules version's content hash, the decks' hash, the code version) and names what differs; and
it is checked against what the store recorded: the winner, reason and length, and, when the run
kept this match's event log, every event, so "agrees" is said only of the very match that was
stored. A rules version that exists only in the store (one ``workbench tune`` tried in memory) is
rebuilt from the cards the store kept for it. This is the one view that needs ``sim``; the
dashboard receives ``replay_match`` from the app entry, so ``reports`` stays free of ``sim``."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import NamedTuple

from cardsdb.errors import DataError, DataErrors
from reports import db
from sim.core.decks import compile_decks
from sim.core.match import play_match
from sim.core.seating import Seating
from sim.core.state import hold_turns, turn_held
from sim.registry import engine as get_engine
from workbench import games
from workbench.runspec import RunSpec, deck_hash


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
    """The match turn by turn: the events of each turn and the board at its end (after its
    end-of-turn effects, before the next turn begins; the last turn shows the final board). A
    campaign run's fight is rebuilt by playing its whole run again (the fight's decks and HP come
    from the run before it).

    Besides the replay: ``data_dir`` (the folder its cards were read from), ``warnings`` (each
    way what was loaded differs from what the run played: another data folder, another content
    hash of the rules version or of the decks, another code version; ``warning``, the same in one
    line), ``events_compared`` (the comparison with the stored event log: counts, ``agree``,
    ``first_difference``), ``rebuilt`` (the version a rules version found only in the store was
    rebuilt over), ``substituted`` (a value twin's replaced cards per seat) and ``consistent``: the
    replay is the stored match as far as the store can tell (the same result, every stored event
    replayed as logged, and, without a log, the same cards and decks)."""
    run = db.query(path, "SELECT * FROM runs WHERE run_id = ?", [run_id])
    if run.is_empty():
        raise ValueError(f"no run {run_id} in {path}")
    run = run.row(0, named=True)
    stored = db.query(path, "SELECT * FROM matches WHERE run_id = ? AND match_no = ?", [run_id, match_no])
    if stored.is_empty():
        raise ValueError(f"run {run_id} has no match {match_no}")
    stored = stored.row(0, named=True)
    spec_json = json.loads(run["spec"])
    kind = run.get("kind") or "duel"
    folder, warnings = run_data(run)
    data, ruleset, rebuilt = load_version(path, spec_json["game"], spec_json["rules"], folder, run["rules_hash"])
    replay = _campaign_fight if kind == "campaign" else _duel
    out, played = replay(spec_json, match_no, data, ruleset)
    differs = []  # what was loaded is not what the run played
    if ruleset.hash != run["rules_hash"]:
        differs.append(f"rules version {out['rules']} in {folder} is not the one run {run_id} played (content hash "
                       f"{run['rules_hash']} then, {ruleset.hash} now): its cards or constants changed since the run")
    then_decks = spec_json.get("content_hash" if kind == "campaign" else "deck_hash")
    if then_decks and played.deck_hash != then_decks:
        what = (f"stage {spec_json.get('stage')}, its crews or their decks" if kind == "campaign"
                else f"the decks {', '.join(dict.fromkeys(spec_json['decks']))}")
        differs.append(f"{what} in {folder} are not those run {run_id} played ({'content' if kind == 'campaign' else 'deck'} "
                       f"hash {then_decks} then, {played.deck_hash} now): a deck was edited since the run")
    warnings += differs
    code = _code_note(run)
    if code:
        warnings.append(code)
    events = compare_events(path, run_id, match_no, stored, played)
    same_result = (out["winner"] == stored["winner_seat"] and out["turns"] == stored["turns"]
                   and out["reason"] == stored["reason"])
    if events["agree"] is not None:
        consistent = same_result and events["agree"]
    else:
        consistent = same_result and not differs
    return {"run_id": run_id, "match_no": match_no, **out, "consistent": consistent,
            "stored": {"winner": stored["winner_seat"], "turns": stored["turns"], "reason": stored["reason"]},
            "events_compared": events, "data_dir": str(folder), "run_data_dir": run.get("data_dir"),
            "rebuilt": rebuilt, "warnings": warnings, "warning": " ".join(warnings) or None}


def run_data(run: dict) -> tuple[str, list[str]]:
    """The data folder to replay a run from: the one it read (``runs.data_dir``) while it is
    there, else the dashboard's (``WORKBENCH_DATA``, or the shipped data), with the warning that
    says so."""
    from cardsdb.workspace import data_root

    recorded = run.get("data_dir")
    if recorded and os.path.isdir(recorded):
        return recorded, []
    here = str(data_root().resolve())
    if recorded:
        return here, [f"run {run['run_id']} read its cards and decks from {recorded}, which is gone: this replay reads "
                      f"the dashboard's data folder {here} instead, which may hold other cards or decks"]
    return here, [f"run {run['run_id']} does not record the data folder it read (a store from before it did): this "
                  f"replay reads the dashboard's data folder {here}, which may not be the run's"]


def load_version(path, game: str, rules: str, folder, rules_hash: str):
    """(data, ruleset, rebuilt) of the run's rules version from ``folder``. A version that is no
    file there (one ``workbench tune`` tried in memory, ``tune-<hash>``) is rebuilt from the
    cards the store kept for the run's content hash over the version it extends; ``rebuilt``
    then names that version (else None)."""
    from cardsdb.loader import load_game, resolve

    games.known_game(game)
    data = load_game(game, folder)
    if data.errors:
        raise DataErrors(data.errors)
    if rules in data.rules:
        return data, resolve(data, rules), None
    found = stored_version(path, data, rules, rules_hash)
    if found is None:
        known = ", ".join(sorted(data.rules)) or "none"
        raise DataError(data.root / "rules", f"no rules version {rules!r} (known: {known}), and the store keeps no "
                        f"cards of it (content hash {rules_hash}) to rebuild it from")
    ruleset, base = found
    return data, ruleset, base


def stored_version(path, data, rules: str, rules_hash: str):
    """(ruleset, the version it extends) of a rules version rebuilt from the store's ``cards``
    rows of ``rules_hash`` and the constants and bosses of a version of ``data``: the first whose
    result has exactly that content hash; None when none has."""
    from pydantic import ValidationError

    from cardsdb.loader import Ruleset, _content_hash, resolve

    rows = db.query(path, "SELECT card, name, type, extra FROM cards WHERE rules_hash = ? ORDER BY card", [rules_hash])
    if rows.is_empty():
        return None
    rows = list(rows.iter_rows(named=True))
    for version in sorted(data.rules):
        try:
            start = resolve(data, version)
        except (DataError, DataErrors):
            continue
        cards = {}
        try:
            for r in rows:
                known = start.cards.get(r["card"])
                raw = known.model_dump(by_alias=True) if known is not None else {"type": r["type"]}
                raw.update(json.loads(r["extra"] or "{}"))
                raw.update(id=r["card"], name=r["name"])
                cards[r["card"]] = data.schema.Card.model_validate(raw)
        except (ValidationError, ValueError, TypeError):
            continue
        if _content_hash(start.constants, cards, start.bosses) == rules_hash:
            return Ruleset(data.game, rules, [*start.chain, rules], start.constants, cards, rules_hash, data.schema,
                           start.bosses, dict(data.factions)), version
    return None


def _code_note(run: dict) -> str | None:
    """A line when this process's code is not the code that played the run (None: the same, or
    a run stored before the code version was)."""
    from workbench.store import this_code

    then = run.get("code_version")
    now = this_code()
    if not then or then == now:
        return None
    return (f"run {run['run_id']} was played by code {then}; this replay runs {now}: a change to the engine or "
            "the pilots may play the match otherwise")


class Played(NamedTuple):
    """What a replay compares beyond its timeline: the hash of the decks it played (a campaign's
    content hash), and its events in the form the store keeps them, with the means to say them."""
    deck_hash: str
    rows: list
    engine: object
    pool: object
    names: dict


def stored_event_rows(engine, pool, events) -> list[tuple]:
    """The replay's events as the store keeps them (workbench/chunk.py ``_add_events``): turn,
    seat, kind, card, target, amount, lane, detail."""
    if events is None:
        return []
    kinds = engine.kinds.names
    label: dict[int, str | None] = {}

    def name(cid: int):
        if cid not in label:
            label[cid] = engine.card_name(pool, cid)
        return label[cid]

    return [(events.turn[i], events.seat[i], kinds[events.kind[i]], name(events.card[i]), name(events.target[i]),
             events.amount[i], None if events.lane[i] < 0 else events.lane[i], events.detail[i])
            for i in range(len(events))]


def _said(played: Played, row: tuple) -> str:
    turn, seat, kind, card, target, amount, lane, detail = row
    lane = None if lane is None else played.engine.lane_name(played.pool, lane)
    return f"turn {turn}: " + describe_event(played.names, kind, seat, card, target, amount, lane, detail)


def compare_events(path, run_id: int, match_no: int, stored: dict, played: Played) -> dict:
    """The replay's events against the stored event log of the match: ``stored`` and
    ``replayed`` (counts; ``stored`` None without a log), ``agree`` (None: nothing to compare)
    and ``first_difference`` in words; ``unreadable``: why a log the match kept cannot be read."""
    out = {"stored": None, "replayed": len(played.rows), "agree": None, "first_difference": None, "unreadable": None}
    if not stored.get("events_logged"):
        return out
    try:
        rows = db.query(path, "SELECT turn, seat, kind, card, target, amount, lane, detail FROM events "
                              "WHERE run_id = ? AND match_no = ? ORDER BY seq", [run_id, match_no]).rows()
    except Exception as exc:  # a store whose event-log parts are gone or damaged: say so, compare the result
        out["unreadable"] = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return out
    rows = [tuple(r) for r in rows]
    out["stored"] = len(rows)
    for i, (then, now) in enumerate(zip(rows, played.rows)):
        if then != now:
            out["agree"] = False
            out["first_difference"] = (f"event {i + 1} of the match differs: the run logged \u201c{_said(played, then)}\u201d, "
                                       f"the replay \u201c{_said(played, now)}\u201d")
            return out
    if len(rows) != len(played.rows):
        n = min(len(rows), len(played.rows))
        longer, what = (rows, "the run logged") if len(rows) > n else (played.rows, "the replay goes on with")
        out["agree"] = False
        out["first_difference"] = (f"the run logged {len(rows):,} events and the replay {len(played.rows):,}: the first "
                                   f"{n:,} agree, then {what} \u201c{_said(played, longer[n])}\u201d")
        return out
    out["agree"] = True
    return out


def substitution_words(substitute: dict, slot: int) -> str | None:
    """The cards a value twin's deck slot plays replaced (``RunSpec.substitute``), in words."""
    replaced = (substitute or {}).get(str(slot)) or (substitute or {}).get(slot)
    if not replaced:
        return None
    return ", ".join(f"{card} replaced by {by}" for card, by in sorted(replaced.items()))


def _duel(spec_json: dict, match_no: int, data, ruleset):
    spec = RunSpec.from_json(spec_json)
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
    substituted = [substitution_words(spec.substitute, s) for s in slots]
    seating = None
    if spec.mode == "turf":  # the engine adds the boss's seat, as the farm played it (chunk.play_turf)
        from workbench.chunk import TURF_TEAMS

        seating = Seating("turf", teams=TURF_TEAMS, boss=spec.boss_of(pairing))
        pilots.append(spec.boss_pilot)
        names.append(f"boss:{seating.boss}")
        substituted.append(None)
    watcher = BoardWatcher(engine)
    result = play_match(engine, pool, compiled, seed, pilots, log=True, on_decision=watcher,
                        pilot_salt=spec.pilot_salt, seating=seating)
    out = {"seed": seed, "game": spec.game, "rules": spec.rules, "decks": names, "pilots": pilots,
           **({"substituted": substituted} if any(substituted) else {}),
           **timeline(engine, pool, ruleset, result, watcher.boards, watcher)}
    return out, Played(deck_hash(decks), stored_event_rows(engine, pool, result.events), engine, pool,
                       {c.id: c.name for c in ruleset.cards.values()})


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


def _campaign_fight(spec_json: dict, match_no: int, data, ruleset):
    from cardsdb.loader import load_campaign
    from sim.registry import campaign as get_campaign
    from workbench.campaign.spec import MAX_FIGHTS, CampaignSpec

    spec = CampaignSpec.from_json(spec_json)
    camp = load_campaign(data, ruleset, spec.stage)
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
    return out, Played(camp.hash, stored_event_rows(engine, pool, f.result.events), engine, pool,
                       {c.id: c.name for c in ruleset.cards.values()})


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
    the one at the next decision, not the final board. ``ended`` keeps, for each turn whose last
    decision passed the turn, the table board after that decision's action and the turn's
    end-of-turn effects, before the next turn begins (no draw, no resources, no start-of-turn
    effect of the next seat): a lookahead clone of the state at the turn's last decision, held
    where its turn passes (sim/core/state.py ``hold_turns``), plays that action again.
    ``decisions`` keeps every decision with its drawn board, from which ``timeline`` builds the
    steps of each turn."""

    def __init__(self, engine):
        self.engine = engine
        self.boards: dict[int, dict] = {}
        self.ended: dict[int, dict] = {}
        self.decided: set[int] = set()  # the turns that asked a decision
        self.decisions: list[Decision] = []
        self._turn = -1
        self._played: list[int] = []
        self._last = None  # (turn, clone of the state before its action, the action) of the last decision

    def __call__(self, state, action) -> None:
        if self._last is not None and self._last[0] != state.turn:
            self.turn_passed()
        board = self.engine.board(state)
        for skipped in range(self._turn + 1, state.turn):
            self.boards.setdefault(skipped, board)
        self._turn = state.turn
        self.boards[state.turn] = board
        self.decided.add(state.turn)
        self._last = (state.turn, self.engine.clone(state), action)
        if state.events is not None:
            drawn = self.engine.drawn_board(state)
            if self.decisions and self.decisions[-1].drawn == drawn:
                drawn = self.decisions[-1].drawn  # one object for an unchanged board: a smaller replay to cache
            self.decisions.append(Decision(state.turn, state.to_act, self.engine.describe(state, action),
                                           len(state.events), drawn, self.new_plays(state)))

    def turn_passed(self) -> None:
        """The last decision's turn has passed: its board once its action and end-of-turn effects
        are done, from the clone held where the turn passes (kept only when the clone did stop
        there, or the match ended inside that action)."""
        turn, clone, action = self._last
        self._last = None
        hold_turns(clone)
        self.engine.apply(clone, action)
        if turn_held(clone) is not None or clone.over:
            self.ended[turn] = self.engine.board(clone)

    def finish(self, state) -> None:
        """After the match: the end board of the last decision's turn, if the match went on past it."""
        if self._last is not None and self._last[0] != state.turn:
            self.turn_passed()

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
    in plain words, ``said``) and the table board at its end (``board``; ``board_at`` says which:
    ``end``, after the turn's end-of-turn effects, before the next turn begins, as the watcher
    saw it, the last turn's being the final board; ``decision``, at the turn's last decision,
    before its end-of-turn effects, when no watcher saw the turn pass; ``events``, a turn that
    asked no decision, once its events were done). With the ``watcher`` that saw the
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
    ended: dict[int, dict] = {}
    if watcher is not None and result.state is not None:
        watcher.finish(result.state)
        ended = watcher.ended
    entries = []
    for t in sorted(turns):
        if t == last:
            board, at = final, "end"
        elif t in ended:
            board, at = ended[t], "end"
        elif watcher is None or t in watcher.decided:
            board, at = boards.get(t, final), "decision"
        else:  # a turn that asked no decision: the board its events left (at the next decision)
            board, at = boards.get(t, final), "events"
        entries.append({**turns[t], "board": board, "board_at": at})
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
