"""Every keyword and effect of every game has its handler in the engine, its stat-budget weight and
at least one scenario (issue 15, item 7). The vocabularies come from each game's card schema, so a
new keyword or effect fails here, naming the game, the word and what it lacks, until all three
exist. How each is found: tests/vocabulary.py; what to add where: docs/adding-a-keyword.md."""
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
