"""``workbench fit-weights GAME``: tune the pilots' evaluate weights by self-play and write them
as the weight set ``weights-<name>.yaml``, for ``greedy@<name>`` (and the other pilots) to be
measured against the game's own weights with ``workbench ladder``.

``--by play`` (the default) tunes for strength: SPSA, the tuned weights against the perturbed
(workbench/fit/spsa.py). ``--by outcomes`` fits a logistic model of who wins on self-play
positions (workbench/fit/logistic.py): a better predictor, which on Wild Frontier made greedy no
stronger (measured: see sim/core/pilots/PILOTS.md)."""
from __future__ import annotations

import copy
import importlib

import numpy as np
from rich.console import Console
from rich.table import Table

from workbench import games
from workbench.errors import UserError
from workbench.fit import positions, spsa
from workbench.fit.document import measure_command, outcomes_header, play_header, write_weight_set
from workbench.fit.logistic import fit
from workbench.fit.params import Param, fitted_params

MAX_FIT_MATCHES = 20_000  # every position's slopes are held in memory
MAX_STEPS, MAX_PAIRS = 10_000, 1_000
BY = ("play", "outcomes")  # SPSA self-play strength; a logistic model of who wins


def plan(game: str, rules: str, pilot: str, matches: int, seed: int, workers: int, data_dir=None) -> dict:
    from sim.core.pilots import check_pilot, weight_set
    from sim.core.weights import SETTINGS, evaluate_module_name
    from sim.registry import engine as get_engine

    games.known_game(game)
    engine = get_engine(game)
    try:
        check_pilot(pilot, engine)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if weight_set(pilot):
        raise UserError(f"--pilot {pilot!r}: the self-play pilot thinks with the game's own weights (no @set)")
    if not 1 <= matches <= MAX_FIT_MATCHES:
        raise UserError(f"--matches must be from 1 to {MAX_FIT_MATCHES:,}")
    data, ruleset = games.load(game, rules, data_dir)
    decks = games.decks_for(data, ruleset, None)
    document = copy.deepcopy(importlib.import_module(evaluate_module_name(engine)).WEIGHTS)
    for section in SETTINGS:  # which pilot thinks with which set, how far search looks: the hand file's to say
        document.pop(section, None)
    params = fitted_params(document)
    jobs = positions.plan_matches(len(decks), matches, seed)
    return {"key": f"fit:{game}:{ruleset.hash}:{pilot}:{matches}:{seed}", "game": game,
            "ruleset": ruleset.to_payload(), "decks": [d.model_dump(by_alias=True) for d in decks],
            "document": document, "params": [tuple(p) for p in params], "jobs": jobs, "pilot": pilot,
            "chunk_size": max(1, min(20, len(jobs) // (4 * workers)))}


def measure(payload: dict, workers: int) -> positions.Sample:
    """Every chunk's positions, in chunk order (the same whatever the worker count)."""
    n_chunks = -(-len(payload["jobs"]) // payload["chunk_size"])
    done: dict[int, positions.Sample] = {}
    if workers == 1:
        positions.init_worker(payload)
        for chunk in range(n_chunks):
            done[chunk] = positions.play_chunk(chunk)[1]
    else:
        from workbench.local_pool import LocalExecutor

        executor = LocalExecutor(min(workers, n_chunks), payload, (positions.init_worker, positions.play_chunk))
        aborted = True
        try:
            for chunk in range(n_chunks):
                executor.submit(chunk)
            while len(done) < n_chunks:
                chunk, sample = executor.next_done()
                done[chunk] = sample
            aborted = False
        finally:
            executor.close(abort=aborted)
    return positions.merge([done[c] for c in sorted(done)])


def run_fit_weights(game: str, rules: str, pilot: str, matches: int, seed: int, name: str, replace: bool,
                    workers: int | None, out: Console, err: Console, data_dir=None, by: str = "play",
                    steps: int = 60, pairs: int = 10) -> dict:
    from sim.core.weights import HAND, check_weight_set_name, weight_set_file
    from sim.registry import engine as get_engine
    from workbench.farm import default_workers

    try:
        check_weight_set_name(name)
        if name == HAND:
            raise ValueError(f"{HAND!r} is the game's own weights.yaml; choose another name")
    except ValueError as exc:
        raise UserError(f"--name: {exc}") from None
    workers = workers if workers is not None else default_workers()
    if by not in BY:
        raise UserError(f"--by {by!r}: one of {', '.join(BY)}")
    if by == "play" and not (1 <= steps <= MAX_STEPS and 1 <= pairs <= MAX_PAIRS):
        raise UserError(f"--steps must be from 1 to {MAX_STEPS:,} and --pairs from 1 to {MAX_PAIRS:,}")
    payload = plan(game, rules, pilot, matches if by == "outcomes" else 1, seed, workers, data_dir)
    path = weight_set_file(get_engine(game), name)
    if path.exists() and not replace:
        raise UserError(f"{path} exists: choose another --name, or --replace it")
    params = [Param(*p) for p in payload["params"]]
    start = np.array([p.start for p in params])
    from sim.core.pilots import split_pilot
    from sim.core.weights import pilot_set
    default_set = pilot_set(get_engine(game), split_pilot(pilot)[0])  # what plain `pilot` thinks with
    how = {"matches": matches, "pilot": pilot, "seed": seed, "rules": rules, "name": name, "steps": steps,
           "pairs": pairs, "default_set": default_set}
    if by == "outcomes":
        sample = measure(payload, workers)
        try:
            result = fit(sample, start)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        weights, lines = result.weights, outcomes_header(game, how, result)
        title = f"fitted on outcomes (ridge {result.ridge:g}, scale {result.scale:.2f} points per log-odd)"
        said = (f"{len(sample.result):,} positions of {matches:,} matches; held-out log loss "
                f"{result.loss_fitted:.4f} fitted vs {result.loss_start:.4f} before ({result.loss_coin:.4f} a coin)")
    else:
        def progress(step) -> None:
            if step.step % 10 == 9:
                err.print(f"step {step.step + 1}/{steps}: score difference {step.score:+.3f}", soft_wrap=True)

        weights, history = spsa.tune(payload, steps, pairs, seed, workers, progress)
        lines = play_header(game, how, history)
        title = f"tuned by play (SPSA, {steps} steps x {2 * pairs} matches)"
        said = f"{sum(s.matches for s in history):,} self-play matches"
    try:
        write_weight_set(path, game, payload["document"], params, weights, lines, how, replace)
    except FileExistsError:
        raise UserError(f"{path} was written by another process while this fit ran: choose another --name, "
                        "or --replace it") from None
    show(params, weights, title, out)
    err.print(f"wrote {path}: {said}", soft_wrap=True)
    if default_set == name:
        err.print(f"note: plain `{pilot}` thinks with the set {name!r} (pilot_sets in weights.yaml): "
                  f"it now plays with these weights", soft_wrap=True)
    err.print(f"measure it: {measure_command(game, pilot, name, default_set)}", soft_wrap=True)
    return {"path": path, "weights": weights}


def show(params, weights, title: str, out: Console) -> None:
    table = Table(title=title)
    for col in ("weight", "before", "fitted", "change"):
        table.add_column(col, justify="left" if col == "weight" else "right")
    for p, w in zip(params, weights):
        table.add_row(p.key, f"{p.start:g}", f"{w:.3f}", f"x{w / p.start:.2f}")
    out.print(table)
