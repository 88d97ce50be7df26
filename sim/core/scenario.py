"""Play a scenario: set up its position, take its steps, check its expectations.

Steps (each a one-key mapping):
    do: "<action words>"        or a list of them; the action must be legal
    illegal: "<action words>"   or a list; each must NOT be legal now
    legal: "<action words>"     or a list; each must be legal now (nothing is done)
    expect: {path: value, ...}  dotted paths into the game's snapshot, e.g. p1.hp, p0.lanes.m3.def
"""
from __future__ import annotations

from typing import Any

_MISSING = object()


def lookup(snapshot: dict, path: str) -> Any:
    value: Any = snapshot
    for part in str(path).split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def run_scenario(engine: Any, pool: Any, setup: dict, steps: list[dict], seed: int = 0) -> list[str]:
    """Failures in words (empty when every expectation holds)."""
    try:
        state = engine.scenario_state(pool, setup, seed)
    except ValueError as exc:
        return [f"setup: {exc}"]
    failures: list[str] = []
    for number, step in enumerate(steps, 1):
        if not isinstance(step, dict) or len(step) != 1:
            return failures + [f"step {number}: write one of do / illegal / expect, got {step!r}"]
        (verb, body), = step.items()
        if verb == "do":
            for text in _as_list(body):
                try:
                    action = engine.parse_action(state, text)
                except ValueError as exc:
                    return failures + [f"step {number}: {exc}"]
                engine.apply(state, action)
        elif verb == "illegal":
            for text in _as_list(body):
                try:
                    engine.parse_action(state, text)
                except ValueError:
                    continue
                failures.append(f"step {number}: '{text}' should not be legal here, but it is")
        elif verb == "legal":
            for text in _as_list(body):
                try:
                    engine.parse_action(state, text)
                except ValueError as exc:
                    failures.append(f"step {number}: {exc}")
        elif verb == "expect":
            if not isinstance(body, dict):
                return failures + [f"step {number}: expect takes a mapping of path: value"]
            snap = engine.snapshot(state)
            for path, want in body.items():
                got = lookup(snap, path)
                if got is _MISSING:
                    failures.append(f"step {number}: {path}: no such value in the state")
                elif got != want:
                    failures.append(f"step {number}: {path}: expected {want!r}, got {got!r}")
        else:
            return failures + [f"step {number}: unknown step {verb!r} (use do, legal, illegal, expect)"]
        problems = engine.check_invariants(state)
        if problems:
            return failures + [f"step {number}: invariant broken: {problems[0]}"]
    return failures


def named_action(engine: Any, state: Any, text: str) -> Any:
    """The legal action whose ``engine.describe`` words are ``text``; a unique prefix such as
    "attack m3" is enough. ValueError lists the legal ones otherwise (a game's ``parse_action``)."""
    want = " ".join(str(text).split())
    legal = engine.legal_actions(state)
    names = [engine.describe(state, a) for a in legal]
    if want in names:
        return legal[names.index(want)]
    prefixed = [a for a, name in zip(legal, names) if name.startswith(want + " ")]
    if len(prefixed) == 1:
        return prefixed[0]
    shown = "; ".join(names) if names else "none (the match is over)"
    raise ValueError(f"'{want}' is not a legal action here. Legal: {shown}")


def card_id(pool: Any, slug: Any, where: str) -> int:
    """A position's card slug as the pool's id; an unknown one names where it was written."""
    if slug not in pool.ids:
        raise ValueError(f"{where}: unknown card {slug!r}")
    return pool.ids[slug]


def check_fields(spec: dict, keys: Any, where: str) -> None:
    """Refuse a field the position format does not know, naming where it is and the fields
    allowed (``keys``, listed in the order given)."""
    unknown = set(spec) - set(keys)
    if unknown:
        raise ValueError(f"{where}: unknown field {sorted(unknown)[0]!r} (use {', '.join(keys)})")


def _as_list(body: Any) -> list:
    return body if isinstance(body, list) else [body]
