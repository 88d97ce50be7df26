"""``workbench report`` against its five reported defects: runs that share matches pooled (their
matches counted twice), two runs of the same pilot refused as of different pilots, a Frontier Run
campaign reported as duels, NaN placement gains ranked first, and cards that share a name shown
alike. Tiny random-pilot runs through the CLI, as a user would make them."""
from __future__ import annotations

import re

import pytest

from tests.conftest import run_cli


def _simulate(db, *args: str, pilots: str = "random") -> None:
    res = run_cli(*args, "--pilots", pilots, "--workers", "1", "--db", str(db), "--quiet")
    assert res.returncode == 0, res.stderr


def _report(db, out, *runs: int):
    return run_cli("report", *map(str, runs), "--html", str(out), "--db", str(db))


def _refused(res, out, *words: str) -> None:
    """A user's mistake: one line, exit 2, no traceback, no file written."""
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert all(w in lines[0] for w in words), lines[0]
    assert not out.exists()


@pytest.fixture(scope="module")
def duels(tmp_path_factory):
    """Frontier duels: run 1 of two decks; runs 2 and 3 ``value``'s twins, run 2 (the unchanged
    deck) replaying run 1's pairing; run 4 a field of three decks on other seeds (random too); run 5
    run 1's decks under greedy, on other seeds."""
    db = tmp_path_factory.mktemp("duels") / "d.duckdb"
    _simulate(db, "simulate", "frontier", "--decks", "goblin-gold-gang,lawmen-posse", "--matches", "4")
    _simulate(db, "value", "frontier", "--deck", "lawmen-posse", "--cards", "tin-star-recruit", "--against",
              "goblin-gold-gang", "--matches", "4")
    _simulate(db, "simulate", "frontier", "--decks", "goblin-gold-gang,lawmen-posse,ironhold-garrison",
              "--matches", "2", "--seed", "2")
    _simulate(db, "simulate", "frontier", "--decks", "goblin-gold-gang,lawmen-posse", "--matches", "2", "--seed", "3",
              pilots="greedy")
    return db


def test_runs_sharing_matches_are_refused(duels, tmp_path):
    out = tmp_path / "r.html"
    _refused(_report(duels, out, 1, 2), out, "share matches", "count twice")


def test_runs_of_one_pilot_over_other_decks_report_together(duels, tmp_path):
    out = tmp_path / "r.html"
    res = _report(duels, out, 1, 4)
    assert res.returncode == 0, res.stderr
    assert " · pilots random · " in out.read_text(encoding="utf-8")  # the pilot seated, once


def test_runs_of_other_pilots_are_still_refused(duels, tmp_path):
    out = tmp_path / "r.html"
    _refused(_report(duels, out, 1, 5), out, "different pilots", "(random; greedy)")


@pytest.fixture(scope="module")
def alleyway(tmp_path_factory):
    """AlleyWay: run 1 a 4-seat free-for-all, run 2 a duel, each with archon-star-fleet (Kade at
    three levels, kade-1 to kade-3, all named "Kade")."""
    db = tmp_path_factory.mktemp("alleyway") / "a.duckdb"
    _simulate(db, "simulate", "alleyway", "--mode", "ffa", "--seats", "4", "--decks",
              "archon-star-fleet,cinder-wildfire,graves-garrison,marlows-crew", "--matches", "4", "--events", "none")
    _simulate(db, "simulate", "alleyway", "--decks", "archon-star-fleet,marlows-crew", "--matches", "4",
              "--events", "none")
    return db


def _section(text: str, title: str) -> str:
    """The HTML from ``title`` to the next heading of its level or above, tags dropped."""
    start = text.index(title)
    end = min((i for i in (text.find("<h2>", start), text.find("<h3>", start + len(title))) if i > 0),
              default=len(text))
    return re.sub(r"<[^>]+>", " ", text[start:end])


def test_ffa_card_gains_leave_nan_out(alleyway, tmp_path):
    out = tmp_path / "r.html"
    res = _report(alleyway, out, 1)
    assert res.returncode == 0, res.stderr
    text = out.read_text(encoding="utf-8")
    for title in ("Cards that go with a better place when played", "... and with a worse one"):
        assert "nan" not in _section(text, title).lower().split(), title


def test_cards_sharing_a_name_read_with_their_id(alleyway, tmp_path):
    for run in (1, 2):
        out = tmp_path / f"r{run}.html"
        res = _report(alleyway, out, run)
        assert res.returncode == 0, res.stderr
        text = out.read_text(encoding="utf-8")
        assert not re.search(r">Kade<|\"Kade \(n=", text), run  # a cell or a bar of "Kade" alone
    assert "Kade (kade-" in (tmp_path / "r2.html").read_text(encoding="utf-8")  # the duel's chart lists every card


def test_a_campaign_run_gets_its_own_report(tmp_path):
    db = tmp_path / "c.duckdb"
    res = run_cli("simulate-run", "frontier", "--crew", "gold-gang", "--runs", "2", "--policy", "random",
                  "--workers", "1", "--db", str(db), "--quiet")
    assert res.returncode == 0, res.stderr
    out = tmp_path / "r.html"
    res = _report(db, out, 1)
    assert res.returncode == 0, res.stderr
    text = out.read_text(encoding="utf-8")
    assert "Clear rate" in text and "gold-gang" in text
    assert "<h2>Matchups</h2>" not in text and "rational field" not in text and "over- and under-perform" not in text
