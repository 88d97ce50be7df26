"""Every balance figure says which pilot produced it, and runs of different pilots are never pooled
into one figure: the mode diffs (series, free-for-all, Turf) split by deck and pilots and name
them; a batch suite whose decks different pilots played gets no HTML report (as `workbench report`
refuses it), and a mode suite writes no duel tables; `workbench report --diff` refuses twins whose
pilots thought with other weights.

Tiny match counts on purpose: these check what is split, named and refused, not what a diff finds."""
import csv
import json

import duckdb

import reports.stats
from reports.alerts import mode_alerts
from tests.conftest import cli_here, run_cli
from tests.test_batch import batch

SERIES_DECKS = "archon-star-fleet,cinder-wildfire,graves-garrison"


def test_a_series_diff_splits_its_decks_by_pilots_and_names_them(tmp_path, monkeypatch):
    """cinder-wildfire's series against greedy archon and against random graves were one rate
    (41.7%: 0% and 83% pooled), and neither the title nor the CSV named a pilot."""
    db, out = tmp_path / "s.duckdb", tmp_path / "csv"
    res = run_cli("diff", "alleyway", "--base", "base", "--candidate", "switch-before-attacking", "--mode", "series",
                  "--decks", SERIES_DECKS, "--pilots", "greedy,random,random", "--matches", "2", "--workers", "1",
                  "--db", str(db), "--quiet", "--csv", str(out), env={"COLUMNS": "200"})
    assert res.returncode == 0, res.stderr
    assert ("Decks' series win rate by pilots: base -> switch-before-attacking (runs 1 and 2, pilots greedy "
            "(archon-star-fleet), random (cinder-wildfire), random (graves-garrison); same seeds, unpaired)"
            in " ".join(res.stdout.split())), res.stdout
    with open(out / "diff_decks.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0])[:3] == ["deck", "pilot", "opponent_pilot"], rows[0]
    cinder = {r["opponent_pilot"]: r for r in rows if r["deck"] == "cinder-wildfire"}
    assert set(cinder) == {"greedy", "random"} and all(r["pilot"] == "random" for r in cinder.values()), rows
    assert {(r["deck"], r["pilot"]) for r in rows if r["opponent_pilot"] == "greedy"} == {
        ("cinder-wildfire", "random"), ("graves-garrison", "random")}
    # each alert names the deck's pilots (every interval made to leave out zero, so every row alerts)
    monkeypatch.setattr(reports.stats, "diff_interval", lambda k1, n1, k0, n0: ([0.01] * len(k1), [0.02] * len(k1)))
    found, _decks = mode_alerts(db, 1, 2, 0.0, "diff", "series")
    assert found.height == len(rows)
    assert {(a["name"], a["pilots"]) for a in found.iter_rows(named=True)} >= {
        ("cinder-wildfire", "random against greedy"), ("cinder-wildfire", "random against random")}


def test_report_makes_a_mixed_pilot_mode_run_s_report_as_the_batch_does(tmp_path):
    """A series run of greedy's deck against random's: its report is the mode's tables alone, each
    row a deck and its pilots, so `workbench report` makes it (it refused, while the nightly batch
    made the same report); a duel run of two pilots is still refused."""
    db = tmp_path / "m.duckdb"
    res = run_cli("simulate", "alleyway", "--mode", "series", "--decks", SERIES_DECKS, "--pilots", "greedy,random,random",
                  "--matches", "2", "--workers", "1", "--db", str(db), "--quiet")
    assert res.returncode == 0, res.stderr
    made = cli_here("report", "1", "--db", str(db), "--html", str(tmp_path / "series.html"))
    assert made.returncode == 0, made.stderr
    page = (tmp_path / "series.html").read_text()
    assert "greedy" in page and "random" in page and "Cards that over- and under-perform" not in page
    res = run_cli("simulate", "frontier", "--decks", "lawmen-posse,goblin-gold-gang", "--pilots", "greedy,random",
                  "--matches", "2", "--workers", "1", "--db", str(db), "--quiet")
    assert res.returncode == 0, res.stderr
    refused = cli_here("report", "2", "--db", str(db), "--html", str(tmp_path / "duel.html"))
    assert refused.returncode == 2 and "played by different pilots" in refused.stderr, refused.stderr


def test_a_batch_makes_no_report_for_a_mixed_suite_and_no_duel_tables_for_a_mode_suite(tmp_path):
    spec = tmp_path / "b.yaml"
    spec.write_text("name: audit\nthreshold_points: 3\nsuites:\n"
                    "  - {name: fr-mixed, game: frontier, rules: base, baseline: second-seat-mana,"
                    " decks: [lawmen-posse, goblin-gold-gang], pilots: [greedy, random], matches: 4, seed: 1}\n"
                    "  - {name: aw-turf, game: alleyway, rules: base, baseline: switch-before-attacking, mode: turf,"
                    " decks: [archon-star-fleet, cinder-wildfire], bosses: [iron-curtain], pilots: [random],"
                    " boss_pilot: greedy, matches: 2, seed: 1}\n")
    store, out = tmp_path / "b.duckdb", tmp_path / "out"
    res = batch(store, out, spec, "--day", "2026-12-07", "--workers", "1")
    assert res.returncode == 0, res.stdout + res.stderr
    folder = out / "audit" / "2026-12-07"
    # the mixed suite: `workbench report` refuses its run, so the batch writes no report, saying why
    refused = cli_here("report", "1", "--db", str(store), "--html", str(tmp_path / "r.html"))
    assert refused.returncode == 2 and "played by different pilots" in refused.stderr, refused.stderr
    assert not (folder / "fr-mixed" / "report.html").exists()
    summary = (folder / "summary.md").read_text()
    line = ("- no report.html (as `workbench report` would refuse it): run 1's decks were played by different pilots "
            "(lawmen-posse: greedy, goblin-gold-gang: random)")
    assert line in summary, summary
    assert "no report.html" in res.stderr, res.stderr
    assert (folder / "fr-mixed" / "vs_baseline_decks.csv").exists()  # its comparison is still made
    # the Turf suite: its own tables alone (its partners are not opponents), its diff by pilots
    turf = folder / "aw-turf"
    assert (turf / "report.html").exists() and (turf / "turf_bosses.csv").exists()
    assert not [p.name for p in turf.glob("*.csv") if p.name in ("matchups.csv", "cards.csv", "deck_field.csv")]
    header = (turf / "vs_baseline_decks.csv").read_text().splitlines()[0].split(",")
    assert header[:3] == ["deck", "partner_pilots", "boss_pilot"], header
    assert "## aw-turf (alleyway, rules base, run 3, pilots random,random, boss greedy)" in summary, summary


def test_a_report_diff_of_pilots_thinking_with_other_weights_is_refused(tmp_path):
    """Runs 2 and 15 of the audit's store: both greedy, both rules base, other weights_hash; the
    report called the weights' effect a version diff."""
    db = tmp_path / "w.duckdb"
    res = run_cli("diff", "frontier", "--base", "base", "--candidate", "second-seat-mana", "--matches", "4",
                  "--decks", "lawmen-posse,goblin-gold-gang", "--pilots", "greedy", "--workers", "1",
                  "--db", str(db), "--quiet")
    assert res.returncode == 0, res.stderr
    html = tmp_path / "r.html"
    res = cli_here("report", "2", "--diff", "1", "--db", str(db), "--html", str(html))
    assert res.returncode == 0 and "Version diff: run 1 → run 2" in html.read_text(), res.stderr  # twins
    with duckdb.connect(str(db)) as con:  # run 2 as if its greedy had thought with other weights
        (text,) = con.execute("SELECT spec FROM runs WHERE run_id = 2").fetchone()
        con.execute("UPDATE runs SET spec = ? WHERE run_id = 2",
                    [json.dumps({**json.loads(text), "weights_hash": "0123456789abcdef"}, sort_keys=True)])
    res = cli_here("report", "2", "--diff", "1", "--db", str(db), "--html", str(tmp_path / "r2.html"))
    assert res.returncode == 2, res.stdout + res.stderr
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: --diff 1: not a version diff: runs 1 and 2 were both "
                                                   "played by greedy,greedy, but thinking with other weights ("), lines
    assert "0123456789abcdef in run 2" in lines[0] and not (tmp_path / "r2.html").exists()
