"""A designer's workspace (workbench init, --data, WORKBENCH_DATA) and run reuse that does not
depend on how a run was executed (chunk size, worker count)."""
import os

import yaml

from reports import db
from tests.conftest import cli_here, run_cli

PAIR = "goblin-gold-gang,lawmen-posse"


def _attack_of(folder, card_id):
    for path in (folder / "frontier" / "cards").glob("*.yaml"):
        for card in yaml.safe_load(path.read_text()) or []:
            if card["id"] == card_id:
                return path, card
    raise AssertionError(card_id)


def test_init_copies_the_data_and_never_overwrites(tmp_path):
    ws = tmp_path / "ws"
    r = cli_here("init", str(ws), "--game", "frontier")
    assert r.returncode == 0, r.stderr
    assert (ws / "frontier" / "cards").is_dir() and (ws / "frontier" / "rules" / "base.yaml").is_file()
    assert not list(ws.rglob("*.py")) and not (ws / "alleyway").exists()
    before = sorted(p.relative_to(ws) for p in ws.rglob("*"))
    again = cli_here("init", str(ws))  # every game: frontier is there, so nothing is copied
    assert again.returncode == 2 and again.stderr.count("\n") == 1
    assert "frontier" in again.stderr and "never overwritten" in again.stderr
    assert sorted(p.relative_to(ws) for p in ws.rglob("*")) == before
    assert cli_here("cards", "validate", "frontier", "--data", str(ws)).returncode == 0


def test_a_missing_data_folder_or_game_is_one_line(tmp_path):
    r = cli_here("cards", "validate", "frontier", "--data", str(tmp_path / "nope"))
    assert r.returncode == 2 and "no such folder" in r.stderr and "workbench init" in r.stderr
    cli_here("init", str(tmp_path / "ws"), "--game", "frontier")
    r = cli_here("cards", "validate", "alleyway", "--data", str(tmp_path / "ws"))
    assert r.returncode == 2 and "no alleyway folder" in r.stderr and r.stderr.count("\n") == 1


def test_an_edited_workspace_is_what_runs_read(tmp_path):
    ws = tmp_path / "ws"
    cli_here("init", str(ws), "--game", "frontier")
    path, card = _attack_of(ws, "iron-horse-cavalry")
    path.write_text(path.read_text().replace(f"atk: {card['atk']}\n", f"atk: {card['atk'] - 1}\n", 1))
    store = tmp_path / "s.duckdb"
    common = ("simulate", "frontier", "--decks", PAIR, "--pilots", "random", "--matches", "4", "--events", "none",
              "--quiet", "--db", str(store), "--workers", "1")
    assert run_cli(*common).returncode == 0
    r = run_cli(*common, "--data", str(ws))
    assert r.returncode == 0, r.stderr
    env = run_cli(*common, env={"WORKBENCH_DATA": str(ws)})  # the same data by the variable: reused
    assert env.returncode == 0 and "reusing run 2" in env.stderr
    runs = db.query(store, "SELECT run_id, data_dir, rules_hash FROM runs ORDER BY 1").rows()
    assert len(runs) == 2 and runs[0][2] != runs[1][2]
    assert runs[1][1] == str(ws.resolve()) and runs[0][1] != runs[1][1]
    stored = db.query(store, """SELECT extra FROM cards WHERE rules_hash = ? AND card = 'iron-horse-cavalry'""",
                      [runs[1][2]]).rows()
    assert f'"atk": {card["atk"] - 1}' in stored[0][0]


def test_a_mistake_in_the_workspace_names_file_card_and_field(tmp_path):
    ws = tmp_path / "ws"
    cli_here("init", str(ws), "--game", "frontier")
    path, card = _attack_of(ws, "iron-horse-cavalry")
    path.write_text(path.read_text().replace(f"atk: {card['atk']}\n", "atk: lots\n", 1))
    store = tmp_path / "s.duckdb"
    r = cli_here("simulate", "frontier", "--decks", PAIR, "--matches", "2", "--db", str(store), "--data", str(ws))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert path.name in r.stderr and "iron-horse-cavalry" in r.stderr and "atk" in r.stderr
    assert not store.exists()


def test_data_option_lasts_one_command():
    saved = os.environ.get("WORKBENCH_DATA")
    from cardsdb.registry import DATA_ROOT
    cli_here("cards", "validate", "frontier", "--data", str(DATA_ROOT))
    assert os.environ.get("WORKBENCH_DATA") == saved


def _matches(store):
    return db.query(store, """SELECT match_no, seed, winner_seat, turns, decisions FROM matches
                              ORDER BY match_no""").rows()


def test_results_do_not_depend_on_chunk_size_or_workers_and_reuse_ignores_them(tmp_path):
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    common = ("simulate", "frontier", "--decks", PAIR, "--pilots", "random", "--matches", "12", "--events", "none",
              "--quiet")
    assert run_cli(*common, "--db", str(a), "--workers", "1", "--chunk-size", "4").returncode == 0
    assert run_cli(*common, "--db", str(b), "--workers", "2", "--chunk-size", "6").returncode == 0
    assert _matches(a) == _matches(b) and len(_matches(a)) == 12
    cards = "SELECT match_no, seat, card, copies, played, deck_position FROM card_games ORDER BY ALL"
    assert db.query(a, cards).rows() == db.query(b, cards).rows()
    # a diff with other workers (so another chunk size) reuses the finished run of the same matches
    r = run_cli("diff", "frontier", "--base", "base", "--candidate", "second-seat-mana", "--decks", PAIR,
                "--pilots", "random", "--matches", "12", "--quiet", "--db", str(a), "--workers", "2")
    assert r.returncode == 0, r.stderr
    assert "reusing run 1" in r.stderr
    assert db.query(a, "SELECT count(*) FROM runs").rows() == [(2,)]


def test_ctrl_c_during_init_leaves_no_half_copied_workspace(tmp_path, monkeypatch):
    """Ctrl-C while the second game is being copied (the bad-input audit of 2026-12-07: half a
    game stayed, and init then refused the folder as taken): nothing stays, and init again works."""
    import pytest

    from cardsdb import workspace

    real_copy = workspace.copy_game
    copied = []

    def interrupted(game, into):
        if game == "alleyway":  # part of it copied, then the user presses Ctrl-C
            (into / "cards").mkdir(parents=True)
            raise KeyboardInterrupt
        copied.append(game)
        return real_copy(game, into)

    monkeypatch.setattr(workspace, "copy_game", interrupted)
    ws = tmp_path / "ws"
    with pytest.raises(KeyboardInterrupt):
        workspace.init_workspace(ws, ["frontier", "alleyway"])
    assert copied == ["frontier"] and not ws.exists()
    monkeypatch.setattr(workspace, "copy_game", real_copy)
    assert cli_here("init", str(ws), "--game", "frontier").returncode == 0
