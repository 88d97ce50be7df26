"""Planted truth on every registered game (tests/test_planted.py makes a test class per game, so
that the test workers share out the calibration-sized runs: pytest-xdist's loadscope keeps a
module on one worker but spreads classes): one ordinary card of a starter deck
made moderately stronger (one cost step of stats, cardsdb/<game>/calibration.yaml), greedy
pilots. ``workbench diff`` must flag that card as the cause and (almost) no card the version left
alone; ``workbench value`` must find the card gained value, with the change's interval above zero.
``value`` is checked on Wild Frontier only: its code is the same for every game (the per-game
part, each game's reference cards, has its own tests in tests/test_reference_cards.py), and its
two extra runs per game doubled the cost of these tests.

Each game is one fixed seed, so each test is one deterministic draw from what ``workbench bench
--stats`` measures over many blocks (its detection rates are in the closing notes and RULES.md);
the sizes below are the smallest at which that calibration found the buff in every block, read
by dose (reports/attribution.py, 2026-12-07): Frontier 4 of 4 at 500 seeds, Allegiance 4 of 4 at
200 (its matches cost three times Frontier's), AlleyWay 6 of 6 at 1,000 (5 of 6 at 500, so 500
would leave a new draw, after any engine change, about one chance in six of a false alarm here).

Wild Frontier's planted runs are the session's shared evidence runs (shared_frontier_store, seed 1):
tests/test_trust.py reads the same diff and tests/test_null_evidence.py pairs its A/A twin and its
value against the same base, so the three files play six runs of 1,000 matches, not nine. Its two
draws (seed 3 here, seed 1 in test_trust) became one; the calibration's blocks, not a second
fixed seed, are what says how often the buff is found."""
from __future__ import annotations

from cardsdb.calibration import PLANTED_VERSION, planted, planted_data
from tests.conftest import run_cli

SEEDS = {"frontier": 500, "alleyway": 1000, "allegiance": 200}
DEFAULT_SEEDS = 500  # a game without its own calibrated size
VALUE_GAMES = ("frontier",)  # where ``value`` is checked too (see above)


def play_planted(game: str, tmp_path_factory, worker_id: str, with_value: bool):
    """The planted diff (and ``value``, if asked) of ``game`` in a fresh store. Wild Frontier's
    runs are the session's shared ones (shared_frontier_store: the commands below reuse them, at
    its seed); each other game plays its own, at seed 3."""
    root = tmp_path_factory.mktemp(f"planted-{game}")
    data = planted_data(game, root / "data")
    plant = planted(game)
    db = root / "base.duckdb"
    seed = "3"
    if game == "frontier":
        shared_frontier_store(tmp_path_factory, worker_id, root, tuple(FRONTIER_RUNS) if with_value else ("base", "planted"))
        seed = str(FRONTIER_SEED)
    env = {"WORKBENCH_DATA_DIR": str(data)}
    matches = str(2 * SEEDS.get(game, DEFAULT_SEEDS))
    diff = run_cli("diff", game, "--base", "base", "--candidate", PLANTED_VERSION, "--matches", matches,
                   "--decks", ",".join(plant.decks), "--pilots", "greedy", "--db", str(db), "--quiet", "--seed", seed,
                   env=env, timeout=1800)
    assert diff.returncode == 0, diff.stderr
    if not with_value:
        return game, plant, db, diff, None
    value = run_cli("value", game, "--deck", plant.decks[0], "--cards", plant.card, "--against", plant.decks[1],
                    "--rules", PLANTED_VERSION, "--base-rules", "base", "--matches", matches, "--pilots", "greedy",
                    "--db", str(db), "--quiet", "--seed", seed, env=env, timeout=1800)
    assert value.returncode == 0, value.stderr
    if game == "frontier":  # both commands read the shared runs and played none of their own
        from reports import db as store
        assert store.query(db, "SELECT count(*) FROM runs").item() == len(FRONTIER_RUNS), value.stderr
    return game, plant, db, diff, value


def check_diff_flags_the_buffed_card_and_almost_no_other(planted_game):
    import polars as pl

    from reports import db as store
    from reports.diff import version_diff

    game, plant, db, diff, _value = planted_game
    base, candidate = store.query(db, "SELECT base_run, candidate_run FROM diffs").row(0)
    r = version_diff(db, base, candidate)
    assert r["changed_cards"]["card"].to_list() == [plant.card]
    row = r["cards"].filter(pl.col("card") == plant.card).row(0, named=True)
    assert row["changed"] and row["flagged"] and row["effect_points"] > 0 and row["effect_lo"] > 0, row
    unchanged = r["cards"].filter(~pl.col("changed"))
    assert r["flagged_cards"].height <= max(1, round(0.05 * unchanged.height)), r["flagged_cards"]["card"].to_list()
    said = " ".join(diff.stdout.split())  # (a long line is wrapped)
    assert f"you changed {plant.card} (changed: " in said and " -> " in said, diff.stdout  # what changed, then its effect
    assert "): its effect within its deck is +" in said, diff.stdout
    assert "FLAGGED" in diff.stdout
    # every calibration.yaml plants a card only its first deck holds: the diff must find that deck
    # from the changed card. Both decks is touched_decks' fallback when no deck holds a changed
    # card (reports/diff.touched_decks), so it is no answer here.
    assert r["touched_decks"] == [plant.decks[0]], r["touched_decks"]


def check_value_finds_the_buffed_card_gained_value(planted_game):
    from reports import db as store
    from reports.intervention import value_change

    game, plant, db, _diff, value = planted_game
    rows = store.query(db, "SELECT rules_version, value_points, base_run, variant_run FROM card_value "
                           "WHERE card = ? ORDER BY value_id", [plant.card]).to_dicts()
    by = {r["rules_version"]: r for r in rows}
    assert set(by) == {"base", PLANTED_VERSION}
    assert by[PLANTED_VERSION]["value_points"] > by["base"]["value_points"]
    change = value_change(db, (by["base"]["base_run"], by["base"]["variant_run"]),
                          (by[PLANTED_VERSION]["base_run"], by[PLANTED_VERSION]["variant_run"]))
    assert change["change_lo"] > 0, change
    assert "reusing run" in value.stderr, "value reuses the diff's runs of the deck as written"
    assert f"Card value, base -> {PLANTED_VERSION}" in value.stdout


# The Frontier evidence runs (greedy, the calibration pairing, seed 1, SEEDS["frontier"] seeds from
# both seats), by name: (rules version, the planted card replaced by its reference card). The
# planted test's diff and value, tests/test_trust.py's diff and tests/test_null_evidence.py's A/A
# diff and value read these same runs, so each is played once a session (shared_frontier_store).
FRONTIER_SEED = 1  # the CLI's default base seed
FRONTIER_RUNS = {"base": ("base", False), "planted": (PLANTED_VERSION, False),
                 "base-ref": ("base", True), "planted-ref": (PLANTED_VERSION, True)}


def shared_frontier_store(tmp_path_factory, worker_id: str, into, runs: tuple[str, ...]) -> None:
    """Copy into the folder ``into`` a store (``base.duckdb`` and its event log) holding at least
    the FRONTIER_RUNS named in ``runs``, as ``workbench diff`` and ``workbench value`` plan them
    (same specs, same hashes, so either command reuses them). The store is the test session's,
    shared by its workers: whichever worker asks first for a run plays it, under a file lock (as
    pytest-xdist's docs show for session-wide fixtures), and every later ask reuses it. Each asker
    gets its own copy to add to."""
    import fcntl
    import shutil

    if worker_id == "master":  # not under xdist: this session's own folder
        shared = tmp_path_factory.getbasetemp() / "shared-frontier"
    else:  # pytest-N/popen-gwK: pytest-N is this session's, shared by its workers
        shared = tmp_path_factory.getbasetemp().parent / "shared-frontier"
    shared.mkdir(exist_ok=True)
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        _play_frontier_runs(shared / "base.duckdb", runs)
        shutil.copy2(shared / "base.duckdb", into / "base.duckdb")
        shutil.copytree(shared / "base.duckdb.events", into / "base.duckdb.events")


def _play_frontier_runs(db, runs: tuple[str, ...]) -> None:
    """Each named run, played unless the store holds it (``ensure_run`` reuses a stored run)."""
    import io

    import pytest
    from rich.console import Console

    from cardsdb.reference import reference_for, reference_ids
    from workbench import games
    from workbench.calibration import Calibration
    from workbench.store import Store

    data = planted_data("frontier", db.parent / "data")
    plant = planted("frontier")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WORKBENCH_DATA_DIR", str(data))
        cal = Calibration(Store(db), "frontier", data, ["greedy"], 2, Console(file=io.StringIO()))
        _data, ruleset = games.load("frontier", "base", data)
        swap = {"0": {plant.card: reference_for(ruleset, plant.card, reference_ids("frontier", data))}}
        for name in runs:
            rules, referenced = FRONTIER_RUNS[name]
            cal.run(rules, SEEDS["frontier"], FRONTIER_SEED, substitute=swap if referenced else None)
