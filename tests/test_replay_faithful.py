"""The Replay page shows the stored match, or says it cannot (the replay audit's defects 1 to 4).

1. A run is replayed from its own data folder (``runs.data_dir``), not the dashboard's; what is
   loaded is checked against the run (rules version and deck hashes) and, when the run kept the
   match's event log, event by event: "agrees event for event" only when every event matches.
   A version only the run's folder holds (a what-if's ``try-*``), or only the store (a version
   ``workbench tune`` tried in memory, ``tune-*``), replays instead of failing.
2. The board after a turn is taken after the turn's end-of-turn effects, not at its last decision.
3. A card-value twin says which card its deck plays replaced.
4. The Match box answers a number the run never stored with the numbers it did store.

Each test failed before its fix."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from reports import db
from tests.conftest import run_cli

SCRIPT = "from reports.pages.replay import render\nfrom workbench.replay import replay_match\nrender(replay_match)"
DECKS = "lawmen-posse,goblin-gold-gang"
TRY, TUNE = "try-gunhand-atk-4", "tune-0123456789ab"
pytestmark = pytest.mark.usefixtures("fresh_cache")  # page queries are cached in-process


def cli(*args: str) -> None:
    res = run_cli(*args)
    assert res.returncode == 0, res.stderr


def simulate(store: Path, data: Path, *args: str) -> None:
    cli("simulate", "frontier", "--pilots", "random", "--workers", "1", "--db", str(store), "--data", str(data),
        "--quiet", *args)


@pytest.fixture(scope="module")
def setup(tmp_path_factory) -> dict:
    """Three workspaces: ``ws`` (the dashboard's, as shipped), ``ws2`` (lawmen-posse edited: two
    copies of a card swapped for others; rules versions try-* and tune-* beside base), ``ws3``
    (base's starting HP edited). Runs: 1 lawmen-posse against goblin-gold-gang from ws2, 2 the
    same from ws3, 3 under the what-if version from ws2, 4 under the tune version (its file then
    removed, as a tune candidate never has one), 5 and 6 a card-value twin pair, 7 three decks."""
    root = tmp_path_factory.mktemp("faithful")
    ws, ws2, ws3 = root / "ws", root / "ws2", root / "ws3"
    cli("init", str(ws), "--game", "frontier")
    shutil.copytree(ws, ws2)
    shutil.copytree(ws, ws3)
    deck = ws2 / "frontier" / "decks" / "lawmen-posse.yaml"
    text = deck.read_text()
    assert "  marshal-gunhand: 3\n" in text and "  homestead-settler: 2\n" in text and "  fort-redrock-sentry: 2\n" in text
    deck.write_text(text.replace("  marshal-gunhand: 3\n", "  marshal-gunhand: 1\n")
                    .replace("  homestead-settler: 2\n", "  homestead-settler: 3\n")
                    .replace("  fort-redrock-sentry: 2\n", "  fort-redrock-sentry: 3\n"))
    rules = ws2 / "frontier" / "rules"
    for name in (TRY, TUNE):
        (rules / f"{name}.yaml").write_text(f"version: {name}\nextends: base\npatch:\n  marshal-gunhand: {{atk: 4}}\n")
    base = ws3 / "frontier" / "rules" / "base.yaml"
    assert "  starting_hp: 30 " in base.read_text()
    base.write_text(base.read_text().replace("  starting_hp: 30 ", "  starting_hp: 24 "))
    store = root / "replays.duckdb"
    simulate(store, ws2, "--decks", DECKS, "--matches", "8")                      # run 1
    simulate(store, ws3, "--decks", DECKS, "--matches", "4")                      # run 2
    simulate(store, ws2, "--decks", DECKS, "--matches", "2", "--rules", TRY)      # run 3
    simulate(store, ws2, "--decks", DECKS, "--matches", "2", "--rules", TUNE)     # run 4
    (rules / f"{TUNE}.yaml").unlink()
    cli("value", "frontier", "--deck", "lawmen-posse", "--cards", "marshal-gunhand", "--against", "goblin-gold-gang",
        "--matches", "2", "--pilots", "random", "--workers", "1", "--db", str(store), "--quiet")  # runs 5, 6
    simulate(store, ws, "--decks", "lawmen-posse,goblin-gold-gang,ironhold-garrison", "--matches", "4")  # run 7
    return {"ws": ws, "ws2": ws2, "ws3": ws3, "store": store}


@pytest.fixture()
def dashboard(setup, monkeypatch) -> dict:
    """The dashboard on the store, its data folder the untouched workspace ``ws``."""
    monkeypatch.setenv("WORKBENCH_DB", str(setup["store"]))
    monkeypatch.setenv("WORKBENCH_DATA", str(setup["ws"]))
    return setup


def page(run_id: int, match_no: int) -> AppTest:
    at = AppTest.from_string(SCRIPT, default_timeout=90)
    at.query_params["run"], at.query_params["match"] = str(run_id), str(match_no)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(elements) -> list[str]:
    return [e.value for e in elements]


def sql(path: Path, query: str, params: list | None = None) -> list[tuple]:
    return db.query(path, query, params).rows()


def moved_store(setup: dict, tmp_path: Path, run_id: int) -> Path:
    """A copy of the store (file and event log) whose run ``run_id`` names a data folder that is gone."""
    mine = tmp_path / "moved.duckdb"
    shutil.copy(setup["store"], mine)
    shutil.copytree(setup["store"].with_name(setup["store"].name + ".events"), mine.with_name(mine.name + ".events"))
    with db.connect(mine, read_only=False) as con:
        con.execute("UPDATE runs SET data_dir = ? WHERE run_id = ?", [str(tmp_path / "gone"), run_id])
    return mine


# --- 1: the run's own data folder, its hashes, its event log -------------------------------------------

def test_a_run_replays_from_its_own_data_folder_event_for_event(dashboard):
    from workbench.replay import replay_match

    store, ws2 = dashboard["store"], dashboard["ws2"]
    inconsistent = [m for m in range(8) if not replay_match(store, 1, m)["consistent"]]
    assert not inconsistent, "the dashboard's own decks played other matches"
    at = page(1, 1)
    [success] = texts(at.success)
    assert success.startswith("The replay agrees with the stored result event for event:")
    for match_no in range(8):
        out = replay_match(store, 1, match_no)
        assert out["data_dir"] == str(ws2.resolve())
        [(logged,)] = sql(store, "SELECT count(*) FROM events WHERE run_id = 1 AND match_no = ?", [match_no])
        assert out["events_compared"]["agree"] is True and out["events_compared"]["stored"] == logged > 0
        assert not [w for w in out["warnings"] if "hash" in w or "gone" in w]
    assert any(f"`{ws2.resolve()}`, the run's own data folder" in c for c in texts(at.caption))


def test_a_data_folder_that_is_gone_is_said_and_a_differing_match_never_agrees(dashboard, tmp_path, monkeypatch):
    from workbench.replay import replay_match

    store = moved_store(dashboard, tmp_path, 1)
    monkeypatch.setenv("WORKBENCH_DB", str(store))
    outs = [replay_match(store, 1, m) for m in range(8)]
    for out in outs:
        said = out["warning"] or ""
        assert f"read its cards and decks from {tmp_path / 'gone'}, which is gone" in said
        assert "the decks lawmen-posse, goblin-gold-gang in" in said and "deck hash" in said
        assert "content hash" not in said, "the rules version is the same: only the decks differ"
        assert out["data_dir"] == str(dashboard["ws"].resolve())
    differing = [m for m, out in enumerate(outs) if out["events_compared"]["agree"] is False]
    assert differing, "another deck plays another match"
    assert not any(outs[m]["consistent"] for m in differing)
    at = page(1, differing[0])
    assert not [s for s in texts(at.success) if "agrees" in s]
    warnings = texts(at.warning)
    assert any("the run logged" in w for w in warnings), warnings  # the first event that differs
    assert any("which is gone" in w for w in warnings) and any("deck hash" in w for w in warnings)


def test_another_rules_content_is_named_as_the_rules_version_not_the_decks(dashboard, tmp_path, monkeypatch):
    from workbench.replay import replay_match

    store = moved_store(dashboard, tmp_path, 2)
    monkeypatch.setenv("WORKBENCH_DB", str(store))
    out = replay_match(store, 2, 0)
    said = out["warning"] or ""
    assert "rules version base in" in said and "is not the one run 2 played (content hash" in said
    assert "deck hash" not in said
    assert out["events_compared"]["agree"] is False and not out["consistent"]
    at = page(2, 0)
    assert not [s for s in texts(at.success) if "agrees" in s]


@pytest.mark.parametrize("run_id, version", [(3, TRY), (4, TUNE)])
def test_a_whatif_or_tune_version_replays_from_where_it_lives(dashboard, run_id, version):
    """try-*: a file of the run's folder only; tune-*: no file at all, rebuilt from the store's cards."""
    from workbench.replay import replay_match

    out = replay_match(dashboard["store"], run_id, 1)
    assert out["rules"] == version and out["consistent"] and out["events_compared"]["agree"] is True
    assert out["rebuilt"] == ("base" if version == TUNE else None)
    at = page(run_id, 1)
    assert texts(at.success)[0].startswith("The replay agrees with the stored result event for event")
    assert not at.error


# --- 2: the board after a turn, after its end-of-turn effects ----------------------------------------

def test_the_board_after_a_turn_is_the_one_the_next_turn_begins_from(dashboard, monkeypatch):
    """The board each turn shows is the state the moment the next turn begins (recorded inside
    the engine), not the one at the turn's last decision."""
    import sim.frontier.turns as turns
    import workbench.replay as replay_mod

    began: dict[int, dict] = {}
    watchers = []
    real_new_turn = turns.new_turn

    def new_turn(state, seat):
        if state.events is not None:  # the replay's own match, not a pilot's lookahead
            began[state.turn] = watchers[-1].engine.board(state)
        real_new_turn(state, seat)

    class Kept(replay_mod.BoardWatcher):
        def __init__(self, engine):
            super().__init__(engine)
            watchers.append(self)

    monkeypatch.setattr(turns, "new_turn", new_turn)
    monkeypatch.setattr(replay_mod, "BoardWatcher", Kept)
    moved = 0
    for match_no in range(12):  # run 7: read from the dashboard's own data folder
        began.clear()
        out = replay_mod.replay_match(dashboard["store"], 7, match_no)
        assert out["consistent"], (match_no, out["stored"])
        for entry in out["timeline"][:-1]:
            t = entry["turn"]
            assert entry["board"] == began[t], (match_no, t)
            moved += watchers[-1].boards[t] != began[t]
    assert moved, "some turn's end-of-turn effects changed the board after its last decision"
    at = page(7, 0)
    assert any(c.startswith("Each seat's numbers after every turn (after its end-of-turn effects") for c in texts(at.caption))


# --- 3: a card-value twin says what it replaced ---------------------------------------------------------

def test_a_value_twin_says_which_card_its_deck_plays_replaced(dashboard):
    [(twin,)] = sql(dashboard["store"], "SELECT run_id FROM runs WHERE kind = 'value'")
    at = page(twin, 0)
    assert any("p0 plays lawmen-posse with marshal-gunhand replaced by reference-creature-3" in c
               for c in texts(at.caption)), texts(at.caption)
    seats = at.dataframe[0].value
    assert list(seats["deck"]) == ["lawmen-posse", "goblin-gold-gang"]
    assert list(seats["replaced"]) == ["marshal-gunhand replaced by reference-creature-3", ""]


# --- 4: only stored match numbers ------------------------------------------------------------------------

def test_the_match_box_answers_a_number_never_stored_with_those_that_were(dashboard, tmp_path, monkeypatch):
    """A stopped run of three pairings stored each pairing's first matches only (numbered from the
    pairing's offset): a number in a gap is answered with the stored ones, not replayed."""
    store = tmp_path / "stopped.duckdb"
    shutil.copy(dashboard["store"], store)
    shutil.copytree(dashboard["store"].with_name(dashboard["store"].name + ".events"),
                    store.with_name(store.name + ".events"))
    with db.connect(store, read_only=False) as con:
        con.execute("DELETE FROM matches WHERE run_id = 7 AND match_no % 4 >= 2")
        con.execute("UPDATE runs SET status = 'stopped', matches_done = 6 WHERE run_id = 7")
    monkeypatch.setenv("WORKBENCH_DB", str(store))
    at = page(7, 2)
    said = [w for w in texts(at.warning) if "has no stored match 2" in w]
    assert said and "it stored matches 0\u20131, 4\u20135 and 8\u20139 (6 of the 12 matches it asked for" in said[0], \
        texts(at.warning)
    assert not at.subheader, "a match that was never stored is not replayed"
    box = next(n for n in at.sidebar.number_input if n.label == "Match")
    box.set_value(5).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.subheader[0].value.startswith("Run 7 · match 5 ·")
