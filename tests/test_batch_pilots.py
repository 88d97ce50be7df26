"""A batch never compares runs played by different pilots: a suite whose pilots changed overnight
(or whose pilots think with other weights) is not compared with the night before, the summary
and the batch's output say so in one line naming both runs' pilots, and no alert comes of it.
Where a comparison is made, its files name the pilots that played both runs.

Tiny match counts on purpose: these check what is compared and said, not what a comparison finds
(tests/test_batch.py, tests/test_trust.py)."""
import json
import shutil

import duckdb

from reports import db
from tests.conftest import DATA
from tests.test_batch import batch

DECKS = "decks: [lawmen-posse, goblin-gold-gang]"


def suite_file(path, pilot: str, matches: int = 12):
    path.write_text(f"name: nightly\nthreshold_points: 3\nsuites:\n"
                    f"  - {{name: pair, game: frontier, rules: base, {DECKS}, pilots: [{pilot}],"
                    f" matches: {matches}, seed: 1}}\n")
    return path


def test_a_change_of_pilots_overnight_is_not_compared_and_says_so(tmp_path):
    spec, store, out = tmp_path / "nightly.yaml", tmp_path / "b.duckdb", tmp_path / "out"
    res = batch(store, out, suite_file(spec, "random"), "--day", "2026-12-01")
    assert res.returncode == 0, res.stdout + res.stderr
    res = batch(store, out, suite_file(spec, "greedy"), "--day", "2026-12-02")
    assert res.returncode == 4, res.stdout + res.stderr  # no alert, but nothing compared: not "nothing moved"
    folder = out / "nightly" / "2026-12-02"
    line = ("vs previous (run 1): not compared: run 1 was played by random,random and run 2 by greedy,greedy; "
            "a change of pilots is not a rules change")
    summary = (folder / "summary.md").read_text()
    assert f"- {line}" in summary, summary
    assert "1 comparison not made" in summary and "pilots greedy,greedy" in summary, summary
    assert line in res.stderr and "0 alerts, 1 comparison not made" in res.stderr, res.stderr
    assert (folder / "alerts.csv").read_text().count("\n") == 1  # the header alone
    assert (folder / "pair" / "alerts.csv").read_text().count("\n") == 1
    assert not list((folder / "pair").glob("vs_*.csv"))  # no diff tables of unlike runs
    html = (folder / "pair" / "report.html").read_text()
    assert "<h2>Version diff" not in html and "pilots random" not in html
    # the store keeps what was found as the night before; the suite raised no alert
    suites = db.query(store, "SELECT previous_run, alerts FROM batch_suites ORDER BY batch_id")
    assert suites.rows() == [(None, 0), (1, 0)]
    assert db.query(store, "SELECT alerts FROM batches ORDER BY batch_id")["alerts"].to_list() == [0, 0]


def test_pilots_thinking_with_other_weights_are_not_compared(tmp_path):
    """The same pilot names, but the night before's run was played with other weight files
    (``weights_hash`` in its spec, as after ``fit-weights --replace``): not twins either."""
    spec, store, out = suite_file(tmp_path / "nightly.yaml", "greedy", matches=4), tmp_path / "b.duckdb", tmp_path / "out"
    res = batch(store, out, spec, "--day", "2026-12-01")
    assert res.returncode == 0, res.stdout + res.stderr
    with duckdb.connect(str(store)) as con:  # run 1 as if played before the weights changed
        (text,) = con.execute("SELECT spec FROM runs WHERE run_id = 1").fetchone()
        then = {**json.loads(text), "weights_hash": "0123456789abcdef"}
        con.execute("UPDATE runs SET spec = ?, spec_hash = 'before-the-weights-changed' WHERE run_id = 1",
                    [json.dumps(then, sort_keys=True)])
    res = batch(store, out, spec, "--day", "2026-12-02")
    assert res.returncode == 4, res.stdout + res.stderr
    summary = (out / "nightly" / "2026-12-02" / "summary.md").read_text()
    assert ("- vs previous (run 1): not compared: runs 1 and 2 were both played by greedy,greedy, but thinking "
            "with other weights (0123456789abcdef in run 1, ") in summary, summary
    assert "weights is not a rules change" in summary and "1 comparison not made" in summary, summary


def test_a_comparison_of_the_same_pilots_names_them_in_every_file(tmp_path):
    """Alike pilots: the comparison is made, and its alerts, diff tables and report name the
    pilots that played both runs (the same, so once)."""
    data = tmp_path / "data"
    shutil.copytree(DATA / "frontier", data / "frontier", ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    env = {"WORKBENCH_DATA_DIR": str(data)}
    spec, store, out = suite_file(tmp_path / "nightly.yaml", "random", 40), tmp_path / "b.duckdb", tmp_path / "out"
    res = batch(store, out, spec, "--day", "2026-12-01", env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    base = data / "frontier" / "rules" / "base.yaml"  # a rules change during the day: run 2 is new
    base.write_text(base.read_text() + "patch:\n  tin-star-recruit: {atk: 8, def: 8}\n")
    res = batch(store, out, spec, "--day", "2026-12-02", env=env)
    assert res.returncode in (0, 3), res.stdout + res.stderr
    folder = out / "nightly" / "2026-12-02"
    summary = (folder / "summary.md").read_text()
    assert "- vs previous (run 1): " in summary and "not compared" not in summary, summary
    decks = (folder / "pair" / "vs_previous_decks.csv").read_text().splitlines()
    assert "pilots" in decks[0].split(",") and all('"random,random",1,2' in row for row in decks[1:]), decks
    assert all('"random,random",1,2' in row for row in (folder / "alerts.csv").read_text().splitlines()[1:])
    html = (folder / "pair" / "report.html").read_text()
    assert "<h2>Version diff: run 1 → run 2</h2>" in html and "pilots random,random." in html


def test_a_night_after_other_pilots_is_compared_with_the_last_night_of_the_same_pilots(tmp_path):
    """One night of other pilots made every later night compare with that night, skip the
    comparison, and exit 0: a card changed on any of them went unreported."""
    spec, store, out = tmp_path / "nightly.yaml", tmp_path / "b.duckdb", tmp_path / "out"
    assert batch(store, out, suite_file(spec, "random"), "--day", "2026-12-01").returncode == 0
    assert batch(store, out, suite_file(spec, "random"), "--day", "2026-12-02").returncode == 0
    res = batch(store, out, suite_file(spec, "greedy", matches=4), "--day", "2026-12-03")
    assert res.returncode == 4, res.stdout + res.stderr
    res = batch(store, out, suite_file(spec, "random"), "--day", "2026-12-04")
    assert res.returncode == 0, res.stdout + res.stderr
    summary = (out / "nightly" / "2026-12-04" / "summary.md").read_text()
    assert ("passed over run 2 (2026-12-03), played by other pilots or weights; compared with run 1 (2026-12-02), "
            "the last night played by the same pilots") in summary, summary
    assert "not compared" not in summary, summary
    suites = db.query(store, "SELECT previous_run FROM batch_suites ORDER BY batch_id")["previous_run"].to_list()
    assert suites == [None, 1, 1, 1], suites


def test_an_alert_against_the_baseline_that_fired_the_night_before_is_standing(tmp_path):
    """A suite pinned to a baseline version raised the same alerts every night nothing changed,
    and exit 3 mailed them every night."""
    data = tmp_path / "data"
    shutil.copytree(DATA / "frontier", data / "frontier", ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    (data / "frontier" / "rules" / "strong.yaml").write_text(
        "version: strong\nextends: base\npatch:\n  tin-star-recruit: {atk: 8, def: 8}\n")
    spec = tmp_path / "b.yaml"
    spec.write_text(f"name: nightly\nthreshold_points: 3\nsuites:\n"
                    f"  - {{name: pair, game: frontier, rules: base, baseline: strong, {DECKS}, pilots: [random],"
                    f" matches: 150, seed: 1}}\n")
    store, out = tmp_path / "b.duckdb", tmp_path / "out"
    env = {"WORKBENCH_DATA_DIR": str(data)}
    first = batch(store, out, spec, "--day", "2026-12-01", env=env)
    assert first.returncode == 3, first.stdout + first.stderr
    second = batch(store, out, spec, "--day", "2026-12-02", env=env)
    assert second.returncode == 0, second.stdout + second.stderr
    rows = (out / "nightly" / "2026-12-02" / "alerts.csv").read_text().splitlines()
    assert rows[0].endswith(",standing") and len(rows) > 1 and all(r.endswith(",true") for r in rows[1:]), rows
    summary = (out / "nightly" / "2026-12-02" / "summary.md").read_text()
    assert "standing against the baseline" in summary and "(standing: it fired the night before too)" in summary
