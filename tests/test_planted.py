"""Planted truth in every registered game (what is checked, and why ``value`` only in some:
tests/planted.py). One test class per game: pytest-xdist's loadscope sends each class to a worker
of its own, so the games' runs are played side by side."""
import pytest

from sim.registry import ENGINES
from tests.planted import (
    VALUE_GAMES,
    check_diff_flags_the_buffed_card_and_almost_no_other,
    check_value_finds_the_buffed_card_gained_value,
    play_planted,
)


@pytest.mark.heavy
class PlantedTruth:
    game: str

    @pytest.fixture(scope="class")
    @classmethod
    def planted_game(cls, tmp_path_factory, worker_id):
        return play_planted(cls.game, tmp_path_factory, worker_id, with_value=cls.game in VALUE_GAMES)

    @pytest.mark.slow
    def test_diff_flags_the_buffed_card_and_almost_no_other(self, planted_game):
        check_diff_flags_the_buffed_card_and_almost_no_other(planted_game)



class PlantedValue:
    """The value check, for the games of VALUE_GAMES."""

    @pytest.mark.slow
    def test_value_finds_the_buffed_card_gained_value(self, planted_game):
        check_value_finds_the_buffed_card_gained_value(planted_game)


for _game in ENGINES:
    _bases = (PlantedTruth, PlantedValue) if _game in VALUE_GAMES else (PlantedTruth,)
    globals()[f"TestPlanted{_game.title()}"] = type(f"TestPlanted{_game.title()}", _bases, {"game": _game})
