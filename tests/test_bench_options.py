"""``workbench bench``'s kinds (the engine and farm bench, --against, --compiled, --soak, --dask,
--ceilings, --reports, --reports --pages, --stats) each read some of the command's options. One
given to a kind that does not read it is a user mistake, refused in one line before anything
runs: ignored, the user would take the figures for what they asked (``--against REV --modes
ffa`` measured duels)."""
from __future__ import annotations

import pytest

from tests.conftest import run_cli
from workbench.cli import BENCH_READS, bench


@pytest.mark.parametrize("args, unread", [
    (["--against", "HEAD", "--modes", "ffa"], "--modes"),
    (["--compiled", "--modes", "duel"], "--modes"),
    (["--pages"], "--pages"),
    (["--soak", "2", "--pilots", "greedy"], "--pilots"),
    (["--dask", "--games", "frontier"], "--games"),
    (["--ceilings", "--pilots", "greedy"], "--pilots"),
    (["--reports", "--blocks", "3", "--db", "x.duckdb"], "--blocks, --db"),
    (["--stats", "--matches", "3"], "--matches"),
    (["--games", "frontier", "--rows", "5"], "--rows"),
])
def test_an_option_the_chosen_bench_does_not_read_is_refused_in_one_line(args, unread):
    res = run_cli("bench", *args)
    assert res.returncode == 2, res.stdout + res.stderr
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and f"does not read {unread}:" in lines[0], res.stderr
    assert not res.stdout.strip(), "nothing may run before the refusal"


def test_every_option_of_bench_is_read_by_some_kind():
    """An option no kind reads would be refused everywhere: the table must know every option."""
    import typer.main

    names = {p.name for p in typer.main.get_command_from_info(
        typer.models.CommandInfo(callback=bench), pretty_exceptions_short=True,
        rich_markup_mode=None).params}
    assert {"games", "modes", "soak_check", "no_value"} <= names  # the command's options were read
    read = set().union(*BENCH_READS.values())
    assert names - {"ctx"} <= read, names - read


@pytest.mark.parametrize("seeds", ["abc", "200,x", "0,200"])
def test_stats_seed_sizes_that_are_not_sizes_are_one_line(seeds):
    res = run_cli("bench", "--stats", "--seeds", seeds)
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.strip().splitlines() == [f"error: --seeds takes sizes such as 200,500,1000, not {seeds!r}"]


def test_stats_with_no_blocks_is_one_line_before_playing_anything(tmp_path):
    """--blocks 0 played the card value's runs, then crashed (the bad-input audit, 2026-12-07)."""
    db = tmp_path / "s.duckdb"
    res = run_cli("bench", "--stats", "--games", "frontier", "--blocks", "0", "--seeds", "10", "--db", str(db))
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.strip().splitlines() == ["error: --blocks must be at least 1 (a block is one base seed), not 0"]
    assert not db.exists()


@pytest.mark.parametrize("text, field", [
    ("decks: [lawmen-posse, goblin-gold-gang]\npatch: {atk: 4}\n", "card"),          # a KeyError traceback
    ("decks: lawmen-posse\ncard: marshal-gunhand\npatch: {atk: 4}\n", "decks"),       # read letter by letter
    ("decks: [lawmen-posse, goblin-gold-gang]\ncard: marshal-gunhand\n", "patch"),
    ("decks: [a, b]\ndecks: [c, d]\ncard: x\npatch: {atk: 4}\n", None),               # a key twice
])
def test_a_calibration_file_mistake_is_one_error_naming_the_file_and_field(tmp_path, monkeypatch, text, field):
    """The bad-input audit of 2026-12-07: calibration.yaml's mistakes were a traceback or ran."""
    from cardsdb import calibration
    from cardsdb.errors import DataError

    (tmp_path / "frontier").mkdir()
    (tmp_path / "frontier" / "calibration.yaml").write_text(text, encoding="utf-8")
    monkeypatch.setattr(calibration, "DATA_ROOT", tmp_path)
    with pytest.raises(DataError) as info:
        calibration.planted("frontier")
    assert "calibration.yaml" in info.value.line() and info.value.field == field, info.value.line()
