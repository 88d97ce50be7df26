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
