"""A stored run is reused (finished) or resumed (stopped, failed, left running) only by the code
version that played it (``runs.code_version``, workbench/store.py ``this_code``). After an upgrade
of the engine, a diff that reused the base run the old code played would credit the upgrade to
the rules change, and a resumed run would hold matches of two codes; such a run is left as it is
and its matches are played afresh as a new run, with one line saying which run and why.

The old code is this process with ``workbench.version.code_version`` patched: the tests never
depend on the checkout's actual commit."""
from __future__ import annotations

import duckdb
import pytest

from workbench import version
from workbench.store import Store, this_code

OLD = "0.0.1+0123456789ab"
DECKS = ["--decks", "goblin-gold-gang,lawmen-posse", "--pilots", "random", "--workers", "1", "--quiet"]
DUEL = ["simulate", "frontier", *DECKS, "--matches", "2"]


def run_main(argv: list[str], capsys) -> tuple[int, list[str]]:
    """The command line in this process: (exit code, the lines it wrote on stderr)."""
    from workbench.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err, captured.err
    return exit_info.value.code, [line for line in captured.err.splitlines() if line.strip()]


def as_old_code(monkeypatch, argv: list[str], capsys) -> None:
    """``argv`` played by another code version (an engine before an upgrade)."""
    with monkeypatch.context() as m:
        m.setattr(version, "code_version", lambda: OLD)
        code, lines = run_main(argv, capsys)
    assert code == 0, lines


def runs(db) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.sql("SELECT run_id, status, code_version, matches_done FROM runs ORDER BY run_id").fetchall()


def not_reused(lines: list[str], run_id: int) -> list[str]:
    return [line for line in lines if line.startswith(f"run {run_id} (")]


def test_a_finished_run_another_code_played_is_not_reused_but_played_afresh(tmp_path, capsys, monkeypatch):
    db = tmp_path / "s.duckdb"
    as_old_code(monkeypatch, [*DUEL, "--db", str(db)], capsys)
    code, lines = run_main([*DUEL, "--db", str(db)], capsys)
    assert code == 0, lines
    said = not_reused(lines, 1)
    assert len(said) == 1 and "is not reused" in said[0] and OLD in said[0] and this_code() in said[0], lines
    assert "played afresh as run 2" in said[0] and not any("reusing run" in line for line in lines), lines
    assert runs(db) == [(1, "done", OLD, 2), (2, "done", this_code(), 2)]  # the old run is kept as it was
    code, lines = run_main([*DUEL, "--db", str(db)], capsys)  # today's run is reused as before
    assert code == 0 and any("reusing run 2" in line for line in lines), lines


def test_a_stopped_run_another_code_played_is_not_resumed(tmp_path, capsys, monkeypatch):
    """Named by ``--resume``: the run stays as it was, its matches are played as a new run."""
    db = tmp_path / "s.duckdb"
    as_old_code(monkeypatch, [*DUEL, "--db", str(db)], capsys)
    Store(db).set_status(1, "stopped")
    code, lines = run_main(["simulate", "--resume", "1", "--db", str(db), "--workers", "1", "--quiet"], capsys)
    assert code == 0, lines
    said = not_reused(lines, 1)
    assert len(said) == 1 and "(stopped) is not resumed" in said[0] and OLD in said[0], lines
    assert "played afresh as run 2" in said[0], lines
    assert runs(db) == [(1, "stopped", OLD, 2), (2, "done", this_code(), 2)]
    with duckdb.connect(str(db), read_only=True) as con:  # the new run records the card data it read
        (first, second), = con.sql("SELECT list(data_dir ORDER BY run_id) FROM runs").fetchall()[0]
    assert first and first == second


def test_a_stopped_run_another_code_played_is_not_finished_by_the_same_command(tmp_path, capsys, monkeypatch):
    db = tmp_path / "s.duckdb"
    as_old_code(monkeypatch, [*DUEL, "--db", str(db)], capsys)
    Store(db).set_status(1, "stopped")
    code, lines = run_main([*DUEL, "--db", str(db)], capsys)
    assert code == 0 and not any("finishing stopped run" in line for line in lines), lines
    assert len(not_reused(lines, 1)) == 1 and "played afresh as run 2" in not_reused(lines, 1)[0], lines
    assert runs(db) == [(1, "stopped", OLD, 2), (2, "done", this_code(), 2)]


def test_a_diff_after_an_upgrade_plays_its_base_again_under_todays_code(tmp_path, capsys, monkeypatch):
    """The paired diff compares two runs of one code; a pair named by hand across codes is warned of."""
    from reports.diff import version_diff

    db = tmp_path / "d.duckdb"
    as_old_code(monkeypatch, ["simulate", "frontier", *DECKS, "--matches", "2", "--swap", "--events", "none",
                              "--db", str(db)], capsys)
    code, lines = run_main(["diff", "frontier", "--base", "base", "--candidate", "first-player-skips-draw",
                            *DECKS, "--matches", "2", "--db", str(db)], capsys)
    assert code == 0, lines
    assert len(not_reused(lines, 1)) == 1 and "played afresh as run 2" in not_reused(lines, 1)[0], lines
    assert [r[:3] for r in runs(db)] == [(1, "done", OLD), (2, "done", this_code()), (3, "done", this_code())]
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.sql("SELECT base_run, candidate_run FROM diffs").fetchall() == [(2, 3)]
    assert not any(line.startswith("warning: runs") for line in lines), lines
    assert version_diff(db, 2, 3)["code_note"] is None
    across = version_diff(db, 1, 3)
    warned = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert across["code_note"] and warned == [across["code_note"]], warned
    assert "runs 1 and 3 were played by different code" in warned[0] and OLD in warned[0]


@pytest.mark.parametrize("status", ["stopped", "failed"])
def test_a_sequential_diff_goes_on_only_with_a_run_of_its_code(tmp_path, capsys, monkeypatch, status):
    from workbench.commands.sequential_diff import open_run
    from workbench.commands.simulate import new_run

    store = Store(tmp_path / "q.duckdb")
    spec, payload = new_run("frontier", "base", ["goblin-gold-gang", "lawmen-posse"], ["random"], matches=4, seed=1,
                            swap=True, events=0.0, chunk_size=2, workers=1)
    with monkeypatch.context() as m:
        m.setattr(version, "code_version", lambda: OLD)
        assert open_run(store, spec, payload) == 1
    store.set_status(1, status)
    assert open_run(store, spec, payload) == 2
    said = not_reused(capsys.readouterr().err.splitlines(), 1)
    assert len(said) == 1 and f"({status}) is not resumed" in said[0] and "played afresh as run 2" in said[0]
    store.set_status(2, status)
    assert open_run(store, spec, payload) == 2  # today's run goes on


def test_a_campaign_batch_another_code_played_is_not_resumed(tmp_path, capsys, monkeypatch):
    db = tmp_path / "c.duckdb"
    batch = ["simulate-run", "frontier", "--crew", "gold-gang", "--runs", "1", "--policy", "random", "--workers",
             "1", "--quiet", "--db", str(db)]
    as_old_code(monkeypatch, batch, capsys)
    Store(db).set_status(1, "stopped")
    code, lines = run_main(["simulate-run", "--resume", "1", "--db", str(db), "--workers", "1", "--quiet"], capsys)
    assert code == 0, lines
    said = not_reused(lines, 1)
    assert len(said) == 1 and "(stopped) is not resumed" in said[0] and "played afresh as run 2" in said[0], lines
    assert [r[:3] for r in runs(db)] == [(1, "stopped", OLD), (2, "done", this_code())]


def _tree(root, files: dict[str, str]):
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


PLAYED = {"sim/g/engine.py": "A = 1\n", "sim/g/weights.yaml": "w: 1\n", "cardsdb/g/cards/c.yaml": "id: c\n",
          "workbench/farm.py": "B = 2\n", "cardsdb/g/scenarios/s.yaml": "name: s\n", "docs/X.md": "doc\n",
          "tests/test_x.py": "T = 3\n", "reports/r.py": "R = 4\n", "sim/g/RULES.md": "rules\n"}


def test_the_code_version_is_a_digest_of_what_a_match_reads_not_of_the_commit(tmp_path):
    """Two uncommitted edits of an engine are two versions (a commit plus "-dirty" could not tell
    them apart, and reused a run the other edit played); docs, tests, reports and scenarios are
    not played, so editing them keeps the version; two clones in two folders agree."""
    one = version.source_digest(_tree(tmp_path / "one", PLAYED))
    assert version.source_digest(_tree(tmp_path / "two", PLAYED)) == one
    for rel in ("sim/g/engine.py", "sim/g/weights.yaml", "cardsdb/g/cards/c.yaml", "workbench/farm.py"):
        edited = _tree(tmp_path / rel.replace("/", "_"), {**PLAYED, rel: PLAYED[rel] + "# edited\n"})
        assert version.source_digest(edited) != one, rel
    # a weight set (fit-weights writes one) is in the run's spec instead (its weights_hash)
    assert version.source_digest(_tree(tmp_path / "fitted", {**PLAYED, "sim/g/weights-trial.yaml": "w: 2\n"})) == one
    for rel in ("cardsdb/g/scenarios/s.yaml", "docs/X.md", "tests/test_x.py", "reports/r.py", "sim/g/RULES.md"):
        edited = _tree(tmp_path / rel.replace("/", "_"), {**PLAYED, rel: PLAYED[rel] + "# edited\n"})
        assert version.source_digest(edited) == one, rel
    moved = {**{k: v for k, v in PLAYED.items() if k != "workbench/farm.py"}, "workbench/chunk.py": "B = 2\n"}
    assert version.source_digest(_tree(tmp_path / "moved", moved)) != one  # a renamed file is another code
    assert this_code().split("+src.")[-1] == version.source_digest()  # this checkout's, as stored


def test_a_run_records_its_commit_for_reading(tmp_path, capsys):
    db = tmp_path / "s.duckdb"
    code, lines = run_main([*DUEL, "--db", str(db)], capsys)
    assert code == 0, lines
    with duckdb.connect(str(db), read_only=True) as con:
        stored = con.sql("SELECT code_commit FROM runs").fetchall()
    assert stored == [(version.code_commit(),)]
