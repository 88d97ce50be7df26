"""Loading a game's data for the application: rules versions and decks, with user-facing errors."""
from __future__ import annotations

from cardsdb.errors import DataError, DataErrors
from cardsdb.loader import GameData, Ruleset, check_deck, load_ruleset
from cardsdb.registry import GAMES
from workbench.errors import UserError


def known_game(game: str) -> str:
    if game not in GAMES:
        raise UserError(f"unknown game {game!r} (known: {', '.join(GAMES)})")
    return game


def load(game: str, rules: str, data_dir=None) -> tuple[GameData, Ruleset]:
    known_game(game)
    return load_ruleset(game, rules, data_dir)


def deck_pairings(n_decks: int) -> list[tuple[int, int]]:
    """Every pairing of distinct decks of the field (one deck: its mirror)."""
    return [(i, j) for i in range(n_decks) for j in range(i + 1, n_decks)] or [(0, 0)]


def compiled_field(payload: dict) -> tuple:
    """(engine, pool, compiled decks) from a worker payload's ``game``, ``ruleset`` (its
    ``to_payload``) and ``decks`` (model dumps): what a worker process plays a field with."""
    from cardsdb.registry import schema
    from sim.registry import engine as get_engine

    engine = get_engine(payload["game"])
    pool = engine.compile_pool(Ruleset.from_payload(payload["ruleset"]))
    deck_model = schema(payload["game"]).Deck
    return engine, pool, [engine.compile_deck(pool, deck_model.model_validate(d)) for d in payload["decks"]]


def decks_for(data: GameData, ruleset: Ruleset, deck_ids: list[str] | None) -> list:
    """The decks named (or the game's starter decks), each checked against the rules version."""
    if not deck_ids:
        deck_ids = sorted(d.id for d in data.decks.values() if d.starter)
        if not deck_ids:
            raise UserError(f"{data.game} has no starter decks; name decks with --decks")
    errors: list[DataError] = []
    decks = []
    for deck_id in deck_ids:
        try:
            decks.append(check_deck(data, ruleset, deck_id))
        except DataError as err:
            errors.append(err)
        except DataErrors as errs:
            errors.extend(errs.errors)
    if errors:
        raise DataErrors(errors)
    return decks


MAX_SEATS = 8  # a free-for-all's table, at most


def check_mode(game: str, mode: str, seats: int | None, n_decks: int) -> int:
    """The seats of a ``mode`` run of ``game`` (checked: the game has the mode, the field fills
    the table), or a one-line UserError."""
    from sim.registry import engine
    from workbench.runspec import MODES

    if mode not in MODES:
        raise UserError(f"unknown --mode {mode!r} (known: {', '.join(MODES)})")
    has = engine(game).modes
    if mode not in has:
        raise UserError(f"{game} has no {mode} mode (it has: {', '.join(has)})")
    if mode in ("duel", "series", "turf"):
        if seats not in (None, 2):
            what = {"duel": "a duel has", "series": "a series of duels has", "turf": "Turf Defense has"}[mode]
            raise UserError(f"{what} two {'partners' if mode == 'turf' else 'seats'}, not --seats {seats}; "
                            "a table of more is --mode ffa")
        return 2
    seats = 4 if seats is None else seats
    if not 3 <= seats <= MAX_SEATS:
        raise UserError(f"--seats for a free-for-all must be from 3 to {MAX_SEATS}, not {seats}")
    if 1 < n_decks < seats:
        raise UserError(f"a {seats}-seat free-for-all needs at least {seats} decks (or one, for a mirror table); "
                        f"--decks names {n_decks}")
    return seats


def check_bosses(ruleset, names: list[str] | None) -> list[str]:
    """The bosses a Turf Defense run faces: those named (each checked), else every boss of the
    rules version; a one-line UserError for an unknown one or a version without bosses."""
    known = sorted(getattr(ruleset, "bosses", None) or {})
    if not known:
        raise UserError(f"rules version {ruleset.version} of {ruleset.game} has no bosses for Turf Defense")
    for name in names or []:
        if name not in known:
            raise UserError(f"unknown boss {name!r} in {ruleset.game} rules {ruleset.version} (known: {', '.join(known)})")
    return list(names) if names else known
