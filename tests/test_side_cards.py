"""What a deck brings into play beside its main list (``DeckBase.side_cards``), which tune's
``reachable`` follows to decide which pairings a card change can touch: a game's own fields
(Frontier's Deputies, AlleyWay's leader and Hideout, Allegiance's strongholds and bastion),
never one game's field name read in the shared layer."""
from __future__ import annotations

import pytest

from sim.registry import ENGINES
from workbench import games
from workbench.tune.versions import reachable


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_every_starter_deck_names_cards_beside_its_list_and_tune_reaches_them(game):
    from cardsdb.tune import raw_card

    data, ruleset = games.load(game, "base")
    raw = {cid: raw_card(c) for cid, c in ruleset.cards.items()}
    decks = [d for d in games.decks_for(data, ruleset, None)]
    assert decks
    for deck in decks:
        side = deck.side_cards()
        assert side, (game, deck.id)
        assert set(side) <= set(ruleset.cards), (game, deck.id)
        assert not set(side) & set(deck.cards), (game, deck.id)  # beside the list, not in it
        assert set(side) | set(deck.cards) <= reachable(deck, raw)
