"""The bench's measuring process: plays blocks of matches, times lookahead candidates and farm
runs in whatever source tree it is started in, and answers one JSON line per request.

``workbench bench --against REV`` starts two of these, one in a worktree of REV and one in
today's tree, and alternates blocks between them. So this file must run against the code of any
revision: it imports nothing of today's bench, only the contract every revision has kept
(``sim.registry.engine``, ``sim.core.match.play_match(..., log=True, on_decision=...)``,
``workbench.games.load/decks_for``, ``engine.compile_pool/compile_deck/legal_actions/clone/apply/
evaluate``), and the farm's ``new_run``/``create``/``run_chunks`` for the writer's figure.

usage: python driver.py ROOT   (ROOT: the source tree to import from)
requests (stdin, one JSON object a line): {"op": "hello"}, {"op": "matches", ...},
{"op": "positions", ...}, {"op": "lookahead", ...}, {"op": "farm", ...}; each answer is one JSON
line on stdout, ``{"error": "..."}`` when the request failed.
"""
from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
import time
import traceback

FIRST_SEED = 10_000  # the seed of match 0; match i plays seed FIRST_SEED + i // 2 from both seats


def pairings(n_decks: int) -> list[tuple[int, int]]:
    """Every pairing of the starter decks (a game with one deck plays its mirror)."""
    return [(i, j) for i in range(n_decks) for j in range(i + 1, n_decks)] or [(0, 0)]


def match_seating(i: int, n_decks: int) -> tuple[tuple[int, int], int]:
    """Match ``i`` of a bench: (deck index per seat, seed). Matches rotate through the pairings,
    each seed played from both seats, so any run of matches is the same on every revision."""
    a, b = pairings(n_decks)[(i // 2) % len(pairings(n_decks))]
    return ((a, b) if i % 2 == 0 else (b, a)), FIRST_SEED + i // 2


def table_seating(i: int, n_decks: int, seats: int) -> tuple[list[int], int]:
    """Match ``i`` of a free-for-all bench: (deck index per seat, seed). Matches go round every
    table of ``seats`` starter decks, each seed in every rotation of its table (as a run does)."""
    from workbench.runspec import tables

    every = tables(n_decks, seats)
    table = every[(i // seats) % len(every)]
    k = i % seats
    return list(table[k:] + table[:k]), FIRST_SEED + i // seats


def match_digest(r) -> str:
    """What a match did, for "same work": its result and every event it logged (the event log's
    own digest), so two revisions count as playing the same matches only if each decision and
    each draw came out alike, not merely the same winner after as many turns."""
    events = getattr(r, "events", None)
    logged = events.digest() if events is not None and hasattr(events, "digest") else ""
    return repr((r.winner, r.reason, r.turns, r.decisions, logged))


class Game:
    """One game's engine, pool and compiled starter decks, loaded once per process."""

    def __init__(self, name: str):
        from sim.registry import engine
        from workbench import games

        data, ruleset = games.load(name, "base")
        self.decks = games.decks_for(data, ruleset, None)
        self.engine = engine(name)
        self.pool = self.engine.compile_pool(ruleset)
        self.compiled = [self.engine.compile_deck(self.pool, d) for d in self.decks]
        self.positions: list[tuple] = []  # (state, seat, actions) taken from greedy matches

    def play(self, i: int, pilots: list[str], on_decision=None, engine=None, thinking=None):
        """Match ``i`` of the bench, logging on. ``engine`` and ``thinking`` (today's tree only:
        ``bench --ceilings``) replace the match's engine and the engines its pilots think with;
        ``thinking`` is passed only when given, as a revision's ``play_match`` may not take it."""
        from sim.core.match import play_match

        (a, b), seed = match_seating(i, len(self.compiled))
        extra = {} if thinking is None else {"thinking": thinking}
        return play_match(engine or self.engine, self.pool, [self.compiled[a], self.compiled[b]], seed, pilots,
                          log=True, on_decision=on_decision, **extra)


class Driver:
    def __init__(self):
        self.games: dict[str, Game] = {}

    def game(self, name: str) -> Game:
        if name not in self.games:
            self.games[name] = Game(name)
        return self.games[name]

    def hello(self) -> dict:
        """Where the code comes from (so the caller can check it is the tree it meant), the
        pilots this revision knows and how its modules with a compiled build load (``compiled``
        or ``source``, by module; none before revisions had them)."""
        import sim

        try:
            from sim.core.pilots import PILOTS
            pilots = sorted(PILOTS)
        except ImportError:
            pilots = None
        try:
            from sim.core.compiled import builds
            compiled = builds()
        except ImportError:
            compiled = {}
        return {"sim": os.path.dirname(os.path.abspath(sim.__file__)), "pilots": pilots, "compiled": compiled}

    def decks(self, game: str) -> dict:
        return {"decks": [getattr(d, "id", str(d)) for d in self.game(game).decks]}

    def matches(self, game: str, pilots: list[str], start: int, count: int) -> dict:
        """Matches ``start`` .. ``start + count - 1``, logging on; CPU and wall seconds of the
        block, and a digest of what happened (same digest on two revisions: same matches)."""
        g = self.game(game)
        digest = hashlib.sha256()
        decisions = errors = 0
        wall, cpu = time.perf_counter(), time.process_time()
        for i in range(start, start + count):
            r = g.play(i, pilots)
            decisions += r.decisions
            errors += r.error is not None
            digest.update(match_digest(r).encode())
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        return {"cpu": cpu, "wall": wall, "matches": count, "decisions": decisions, "errors": errors,
                "digest": digest.hexdigest()[:16]}

    def positions(self, game: str, pilot: str, matches: int, every: int, limit: int, start: int = 0) -> dict:
        """Keep every ``every``-th decision with more than one legal action from seeded matches
        ``start`` .. ``start + matches - 1`` of ``pilot`` (a clone of the state, the deciding seat,
        its legal actions), at most ``limit``; they replace the positions kept before."""
        g = self.game(game)
        engine, seen = g.engine, [0]
        g.positions = []

        def keep(state, action):
            if len(g.positions) >= limit:
                return
            actions = engine.legal_actions(state)
            if len(actions) > 1:
                seen[0] += 1
                if seen[0] % every == 0:
                    g.positions.append((engine.clone(state), state.to_act, actions))

        digest = hashlib.sha256()
        for i in range(start, start + matches):
            r = g.play(i, [pilot, pilot], keep)
            digest.update(match_digest(r).encode())
        return {"positions": len(g.positions), "candidates": sum(len(p[2]) for p in g.positions),
                "digest": digest.hexdigest()[:16]}

    def lookahead(self, game: str) -> dict:
        """Every kept position's every legal action tried once as a greedy pilot tries it: clone,
        apply, evaluate. The values' checksum tells whether two revisions valued alike.

        Time it once per set of positions: a second pass over the same positions measures the
        engine's tables of positions already valued (Allegiance's made a second pass 2.5x
        cheaper), not a candidate as a pilot meets it."""
        g = self.game(game)
        engine = g.engine
        clone, apply, evaluate = engine.clone, engine.apply, engine.evaluate
        total = 0.0
        candidates = 0
        wall, cpu = time.perf_counter(), time.process_time()
        for state, seat, actions in g.positions:
            for action in actions:
                trial = clone(state)
                apply(trial, action)
                total += evaluate(trial, seat)
            candidates += len(actions)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        return {"cpu": cpu, "wall": wall, "candidates": candidates, "checksum": round(total, 6)}

    def farm(self, game: str, matches: int, seed: int) -> dict:
        """Random matches, events logged, through the farm (one worker) into a scratch store:
        this process's CPU around ``run_chunks`` (the writer and the farm's own work) and the
        writer's CPU when the farm reports it."""
        import tempfile
        from pathlib import Path

        from workbench.commands.simulate import create, new_run
        from workbench.farm import run_chunks
        from workbench.store import Store

        with tempfile.TemporaryDirectory() as tmp:
            store = Store(Path(tmp) / "bench.duckdb")
            spec, payload = new_run(game, "base", None, ["random"], matches=matches, seed=seed, swap=True, events=1.0,
                                    chunk_size=None, workers=1)
            run_id = create(store, spec, payload)
            wall, cpu = time.perf_counter(), time.process_time()
            report = run_chunks(store, run_id, {**payload, "run_id": run_id, "events_dir": str(store.events_dir)},
                                list(range(spec.n_chunks)), 1)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        stored = report.get("matches_stored") if isinstance(report, dict) else report.matches_stored
        writer = report.get("writer_cpu_s") if isinstance(report, dict) else getattr(report, "writer_cpu_s", None)
        return {"cpu": cpu, "wall": wall, "matches": stored, "writer_cpu": writer}


def serve(requests, answer) -> None:
    driver = Driver()
    for line in requests:
        if not line.strip():
            continue
        request = json.loads(line)
        op = request.pop("op")
        try:
            reply = getattr(driver, op)(**request)
        except Exception as exc:  # one request failed: say why, stay up for the next
            reply = {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc(limit=6)}
        answer.write(json.dumps(reply) + "\n")
        answer.flush()


def main() -> None:
    root = os.path.abspath(sys.argv[1])
    sys.path[0] = root  # the tree measured, not this file's folder
    os.chdir(root)
    answer = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    sys.stdout = sys.stderr  # anything the code under test prints stays out of the answers
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the caller's to handle: it stops us
    try:
        serve(sys.stdin, answer)
    except BrokenPipeError:
        pass


if __name__ == "__main__":
    main()
