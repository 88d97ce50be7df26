"""Every game's ``rules/base.yaml`` lists every constant of its rules schema with exactly its
default, so a designer reading the file sees everything that can be changed and what it is
(issue 15). One test per game the data package knows (cardsdb/registry.py): a game added there is
checked too."""
from __future__ import annotations

import pytest

from cardsdb.registry import DATA_ROOT, GAMES, schema
from cardsdb.yamlfile import read_yaml


def base_constants(game: str) -> dict:
    return read_yaml(DATA_ROOT / game / "rules" / "base.yaml").get("constants") or {}


def gaps(game: str) -> list[str]:
    """What base.yaml gets wrong: a constant left out, or listed with another value than its
    default (compared as the schema reads them: a YAML mapping becomes the same records)."""
    model = schema(game).Constants
    listed = base_constants(game)
    read = model.model_validate(listed)
    default = model()
    out = [f"{name} is missing (default {getattr(default, name)!r})" for name in model.model_fields
           if name not in listed]
    out += [f"{name} is {getattr(read, name)!r}, its default is {getattr(default, name)!r}"
            for name in model.model_fields if name in listed and getattr(read, name) != getattr(default, name)]
    return out


@pytest.mark.parametrize("game", sorted(GAMES))
def test_base_yaml_lists_every_constant_with_its_default(game):
    problems = gaps(game)
    assert not problems, f"cardsdb/{game}/rules/base.yaml: " + "; ".join(problems)


def test_a_missing_or_changed_constant_is_found(monkeypatch):
    """The check itself: a constant left out and one changed are both reported, by name."""
    listed = dict(base_constants("alleyway"))
    listed.pop("hand_limit")
    listed["opening_hand"] = listed["opening_hand"] + 1
    monkeypatch.setattr(f"{__name__}.base_constants", lambda game: listed)
    problems = gaps("alleyway")
    assert any(p.startswith("hand_limit is missing") for p in problems)
    assert any(p.startswith("opening_hand is 6") for p in problems)
    assert len(problems) == 2
