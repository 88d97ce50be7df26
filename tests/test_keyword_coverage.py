"""Every keyword and effect of every game has its handler in the engine, its stat-budget weight and
at least one scenario (issue 15, item 7). The vocabularies come from each game's card schema, so a
new keyword or effect fails here, naming the game, the word and what it lacks, until all three
exist. How each is found: tests/vocabulary.py; what to add where: docs/adding-a-keyword.md.
That a scenario asserts what a keyword does, not only places a card carrying it, is checked by
mutation: each keyword taken off every card, and each effect dropped from every card, must make
some scenario fail (checked to fail with stampede.yaml, Stampede's only asserting scenario, and
AlleyWay's tax.yaml taken away)."""
from __future__ import annotations

import pytest

from cardsdb.registry import GAMES
from sim.registry import ENGINES
from tests import vocabulary as found

PLAYED = sorted(set(GAMES) & set(ENGINES))  # games with both data and an engine


def words(game: str) -> list[tuple[str, str]]:
    vocab = found.vocabulary(game)
    return [("keyword", k) for k in sorted(vocab.keywords)] + [("effect", e) for e in sorted(vocab.effects)]


def gaps(game: str, what: str) -> list[str]:
    """'<game>: <kind> <word>: <what is missing>' for every word lacking ``what``."""
    out = []
    for kind, word in words(game):
        if what == "handler" and not found.has_handler(game, word, kind):
            out.append(f"{game}: {kind} {word}: no handler (sim/{game}/ never names it where it decides)")
        elif what == "budget":
            missing = found.keyword_priced(game, word) if kind == "keyword" else found.effect_priced(game, word)
            if missing:
                out.append(f"{game}: {kind} {word}: {missing}")
        elif what == "scenario" and not found.exercised(game).get(f"{kind}:{word}"):
            out.append(f"{game}: {kind} {word}: no scenario (no card of cardsdb/{game}/scenarios/ carries it)")
    return out


@pytest.mark.parametrize("what", ["handler", "budget", "scenario"])
@pytest.mark.parametrize("game", PLAYED)
def test_every_keyword_and_effect_has_it(game, what):
    missing = gaps(game, what)
    assert not missing, f"{len(missing)} missing:\n" + "\n".join(missing)


@pytest.mark.parametrize("game", PLAYED)
def test_the_vocabulary_is_found(game):
    """The checks above look at real lists: each game has keywords, effects and scenarios."""
    vocab = found.vocabulary(game)
    assert vocab.keywords and vocab.effects and found.scenario_files(game)


def test_a_word_the_engines_never_name_has_no_handler_weight_or_scenario():
    for game in PLAYED:
        assert not found.has_handler(game, "no_such_word", "keyword")
        assert not found.has_handler(game, "no_such_word", "effect")
        assert found.keyword_priced(game, "no_such_word") is not None
        assert found.effect_priced(game, "no_such_word") is not None
        assert "keyword:no_such_word" not in found.exercised(game)


def test_the_places_found_are_the_real_ones():
    """Spot checks against places read by hand (docs/adding-a-keyword.md follows them)."""
    frontier, alleyway = found.engine_names("frontier"), found.engine_names("alleyway")
    assert frontier.aliases["venom"] == {"VENOM"} and "VENOM" in frontier.constants  # combat.py tests the bit
    assert "burrow" in frontier.attributes  # pool.py compiles Burrow into a Cover effect
    assert alleyway.aliases["must_be_attacked_first"] == {"GUARD"} and "GUARD" in alleyway.constants
    assert "burn" in alleyway.decided  # statuses.OPS dispatches it
    assert "venom" in found.exercised("frontier")["keyword:venom"]
    assert "collateral" in found.exercised("alleyway")["keyword:collateral"]


def test_a_handler_taken_out_is_missed(tmp_path, monkeypatch):
    """The same engine (a copy) where no module reads Venom's bit any more: Venom has no handler."""
    import re
    import shutil

    package = tmp_path / "sim" / "frontier"
    shutil.copytree(found.ROOT / "sim" / "frontier", package)
    readers = [p for p in package.rglob("*.py") if p.name != "pool.py" and re.search(r"\bVENOM\b", p.read_text())]
    assert readers, "no module reads VENOM: the check below would prove nothing"
    for path in readers:  # every read now names another constant (imports still parse)
        path.write_text(re.sub(r"\bVENOM\b", "NOT_VENOM", path.read_text()))
    monkeypatch.setattr(found, "ROOT", tmp_path)
    found.engine_names.cache_clear()
    try:
        assert not found.has_handler("frontier", "venom", "keyword")
        assert found.has_handler("frontier", "quickdraw", "keyword")
        assert any("keyword venom: no handler" in gap for gap in gaps("frontier", "handler"))
    finally:
        found.engine_names.cache_clear()


def _without_keyword(value, keywords_model, keyword: str):
    """``value`` (a card, or anything inside one) with ``keyword`` set to its default wherever a
    ``Keywords`` model sits (an Equip's keywords too); the very object when it held none."""
    if isinstance(value, keywords_model):
        default = keywords_model.model_fields[keyword].get_default(call_default_factory=True)
        return value if getattr(value, keyword) == default else value.model_copy(update={keyword: default})
    return _rebuilt(value, lambda inner: _without_keyword(inner, keywords_model, keyword))


def _without_effect(value, effect: str):
    """``value`` with every effect named ``effect`` dropped from the lists that hold it (nested
    effects too); the very object when it held none."""
    if isinstance(value, (list, tuple)):
        kept = [item for item in value if getattr(item, "effect", None) != effect]
        new = [_without_effect(item, effect) for item in kept]
        return type(value)(new) if len(kept) != len(value) or any(a is not b for a, b in zip(new, kept)) else value
    return _rebuilt(value, lambda inner: _without_effect(inner, effect))


def _rebuilt(value, change):
    """``value`` with ``change`` applied to what it holds (a model's fields, a list's or a dict's
    items), copied only where something changed."""
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        changed = {name: new for name in type(value).model_fields
                   if (new := change(old := getattr(value, name))) is not old}
        return value.model_copy(update=changed) if changed else value
    if isinstance(value, (list, tuple)):
        new = [change(item) for item in value]
        return type(value)(new) if any(a is not b for a, b in zip(new, value)) else value
    if isinstance(value, dict):
        new = {k: change(item) for k, item in value.items()}
        return new if any(new[k] is not value[k] for k in value) else value
    return value


def _unasserted(game: str, mutants) -> list[str]:
    """For each (word, mutant of a card) in ``mutants``: the word, when the game's base-rules
    scenarios all pass with every card of the base rules so changed (or no card carries it)."""
    import dataclasses

    check = found.scenario_check(game)
    base = check.base
    out = []
    for word, mutate in mutants:
        cards = {cid: mutate(card) for cid, card in base.cards.items()}
        carried = sum(cards[cid] is not card for cid, card in base.cards.items())
        if not carried:
            out.append(f"{word}: no card carries it")
        elif not check.fails(check.engine.compile_pool(dataclasses.replace(base, cards=cards))):
            out.append(f"{word}: taken off its {carried} cards, every scenario still passes")
    return out


@pytest.mark.parametrize("game", PLAYED)
def test_every_keyword_taken_off_the_cards_fails_a_scenario(game):
    """The behavioural half of "every keyword has a scenario": with a keyword taken off every card
    of the base rules (a mutant of the card data, the engine untouched), at least one of the
    game's base-rules scenarios must fail. A scenario that only places a card carrying the
    keyword (the check above) while asserting nothing the keyword does would pass the mutant."""
    keywords_model = found.schema_module(game).Keywords
    mutants = [(k, lambda card, k=k: _without_keyword(card, keywords_model, k)) for k in sorted(keywords_model.model_fields)]
    missing = _unasserted(game, mutants)
    assert not missing, f"{game}: " + "; ".join(missing)


@pytest.mark.parametrize("game", PLAYED)
def test_every_effect_taken_out_of_the_cards_fails_a_scenario(game):
    """The same for effects: with every effect of one kind dropped from the base rules' cards, at
    least one base-rules scenario must fail."""
    mutants = [(e, lambda card, e=e: _without_effect(card, e)) for e in sorted(found.vocabulary(game).effects)]
    missing = _unasserted(game, mutants)
    assert not missing, f"{game}: " + "; ".join(missing)
