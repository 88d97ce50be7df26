"""What the HTML report (reports/html.py) and the dashboard's Diff page (reports/pages/diff.py) say
about a rules diff: each figure named for what it counts, the runs' code difference shown, "none"
said only of the cards that were tested, an untested card called untested, a headline list that
says when nothing in it is significant, and a sequential verdict in the test's own words. Each
test failed before its fix.

One small diff serves them all: a workspace version buffing two lawmen-posse cards, 60 random
matches per pairing of a three-deck field (a field of three seats each deck in two thirds of its
matches, so a deck's games and the field's matches differ), every card tested; and the same diff
at 4 matches a pairing, where every deck has 8 twins and no card can be tested, which is what the
wording must own up to."""
from __future__ import annotations

import html as markup
import json
import re
import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from reports import db
from reports.diff import version_diff
from tests.conftest import cli_here, run_cli

FIELD = "lawmen-posse,goblin-gold-gang,deeproot-hollow"
PATCH = "version: posse-buff\nextends: base\npatch:\n  hanging-judge: {atk: 9, def: 9}\n  tin-star-recruit: {atk: 2}\n"
UNTESTED = "fewer than 10 twins at a known place, or no spread in where they lay"


def played_diff(folder: Path, matches: int) -> Path:
    ws = folder / "ws"
    assert cli_here("init", str(ws), "--game", "frontier").returncode == 0
    (ws / "frontier" / "rules" / "posse-buff.yaml").write_text(PATCH, encoding="utf-8")
    path = folder / "d.duckdb"
    res = run_cli("diff", "frontier", "--base", "base", "--candidate", "posse-buff", "--decks", FIELD, "--pilots",
                  "random", "--matches", str(matches), "--workers", "1", "--quiet", "--db", str(path), "--data", str(ws))
    assert res.returncode == 0, res.stderr
    return path


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    return played_diff(tmp_path_factory.mktemp("wording"), 60)


@pytest.fixture(scope="module")
def tiny_store(tmp_path_factory) -> Path:
    return played_diff(tmp_path_factory.mktemp("tiny"), 4)


@pytest.fixture(scope="module")
def measured(store) -> dict:
    return version_diff(store, 1, 2)


@pytest.fixture(scope="module")
def tiny_measured(tiny_store) -> dict:
    return version_diff(tiny_store, 1, 2)


@pytest.fixture(scope="module")
def changed_store(store, tmp_path_factory) -> Path:
    """A copy whose candidate run was played by other code, with a sequential diff of the same runs
    recorded after the fixed-size one (the page opens the newest)."""
    from workbench.store import Store

    folder = tmp_path_factory.mktemp("changed")
    shutil.copytree(store.parent, folder, dirs_exist_ok=True)
    path = folder / store.name
    with db.connect(path, read_only=False) as con:
        con.execute("UPDATE runs SET code_version = 'other-code' WHERE run_id = 2")
    # a real +8 under a delta of 16: "no change" was what the page said; the test decided less
    verdict = {"deck": "lawmen-posse", "seeds": 60, "change": 8.0, "lo": 1.0, "hi": 15.0, "llr_up": -3.0,
               "llr_down": -9.0, "decision": "no change"}
    Store(path).record_diff("frontier", 1, 2, "base", "posse-buff", {
        "decision": "no change", "matches_used": 120, "delta_points": 16.0, "delta0_points": None, "alpha": 0.05,
        "beta": 0.05, "verdicts": [verdict]})
    return path


@pytest.fixture(scope="module")
def report(store) -> str:
    from reports.html import build

    return markup.unescape(build(store, [2], 1))


@pytest.fixture(scope="module")
def tiny_report(tiny_store) -> str:
    from reports.html import build

    return markup.unescape(build(tiny_store, [2], 1))


def opened(path: Path) -> AppTest:
    """The Diff page on ``path``'s newest diff (page queries are cached by store path, so each
    store gets its own answers)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WORKBENCH_DB", str(path))
        at = AppTest.from_string("from reports.pages.diff import render\nrender()", default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture(scope="module")
def page(store) -> AppTest:
    return opened(store)


@pytest.fixture(scope="module")
def tiny_page(tiny_store) -> AppTest:
    return opened(tiny_store)


@pytest.fixture(scope="module")
def changed_page(changed_store) -> AppTest:
    return opened(changed_store)


def words(*groups) -> str:
    return "\n".join(e.value for group in groups for e in group)


def none_expected(r: dict) -> str:
    others = r["cards"].filter(~r["cards"]["changed"])
    tested = others.filter(others["p_value"].is_not_null() & others["p_value"].is_not_nan()).height
    if tested == others.height:
        return f"none of the {tested} testable cards"
    assert tested == 0, "the tiny store tests no card"
    return f"none of the {tested} testable cards; {others.height - tested} not testable ({UNTESTED})"


# --- 1: a deck's games against the field's matches ------------------------------------------------

def test_html_power_table_names_a_decks_games_and_shows_the_fields_matches(report, measured):
    table = report[report.index("Matches a diff needs"):]
    for label in ("a deck's paired games", "paired matches of this field", "a deck's unpaired games / version"):
        assert label in table
    assert "unpaired matches per version" not in table
    first = measured["power"].row(0, named=True)
    assert first["paired_field_matches"] > first["paired_matches"]  # three decks: the field needs more
    assert f"<td>{first['paired_field_matches']:,}</td>" in table


def test_page_power_table_names_a_decks_games_and_shows_the_fields_matches(page):
    labels = [v.get("label") for el in page.dataframe for v in json.loads(el.proto.columns).values()]
    assert {"a deck's paired games", "paired matches of this field", "a deck's unpaired games / version"} <= set(labels)
    assert "Seeds = matches / 2" not in words(page.caption)


# --- 2: runs played by different code -------------------------------------------------------------

def test_html_warns_when_the_runs_were_played_by_different_code(changed_store):
    from reports.html import build

    text = markup.unescape(build(changed_store, [2], 1))
    assert re.search(r"class='warn'>[^<]*played by different code \([^)]*other-code\)", text)


def test_page_warns_when_the_runs_were_played_by_different_code(changed_page, page):
    assert "played by different code" in words(changed_page.warning)
    assert "played by different code" not in words(page.warning)


# --- 3: "none" of the cards that were tested ------------------------------------------------------

@pytest.mark.parametrize("size", ["", "tiny_"])
def test_html_says_none_only_of_the_testable_cards(request, size):
    report, measured = request.getfixturevalue(f"{size}report"), request.getfixturevalue(f"{size}measured")
    assert measured["flagged_cards"].is_empty()
    assert f"Benjamini-Yekutieli at 5% FDR): {none_expected(measured)}" in report


@pytest.mark.parametrize("size", ["", "tiny_"])
def test_page_says_none_only_of_the_testable_cards(request, size):
    page, measured = request.getfixturevalue(f"{size}page"), request.getfixturevalue(f"{size}measured")
    expected = none_expected(measured)
    assert f"Other cards that moved beyond their deck**: {expected}" in words(page.markdown)
    assert f"at FDR 5%): {expected}." in words(page.caption)


# --- 4: a changed card that was not tested --------------------------------------------------------

def untested_changed(r: dict) -> list[dict]:
    found = [c for c in r["primary_cards"].iter_rows(named=True) if c["p_value"] != c["p_value"]]
    assert found, "the tiny store must hold a changed card with too few twins to test"
    return found


def test_html_marks_an_untested_changed_card(tiny_report, tiny_measured):
    table = tiny_report[tiny_report.index("The cards you changed"):tiny_report.index("Other cards whose change")]
    for c in untested_changed(tiny_measured):
        row = re.search(rf"<tr><td>{c['card']}</td>.*?</tr>", table).group(0)
        assert row.count("<td>not tested</td>") == 4, row  # low, high, p, q
        assert f"{c['dosed_twins']} twins hold it at a known place, at least 10 needed" in row


def test_page_says_an_untested_changed_card_was_not_tested_and_why(tiny_page, tiny_measured):
    said = [e.value for e in tiny_page.info]
    for c in untested_changed(tiny_measured):
        why = f"not tested: {c['dosed_twins']:,} twins hold it at a known place, at least 10 needed"
        line = next((x for x in said if why in x), None)
        assert line is not None, said
        assert "nan" not in line and "Not flagged" not in line, line


# --- 5: the headline lists when nothing in them is significant ------------------------------------

def test_html_headline_lists_say_when_none_is_significant(report):
    lists = [seg for seg in report.split("<h3>")[1:] if "ranked by estimate</h3>" in seg.split("<table")[0]]
    assert len(lists) == 4  # over- and under-performing within the deck, highest and lowest pooled
    for seg in lists:
        head, rows = seg.split("<table")[0], seg.split("</table>")[0]
        assert ("none significant (Benjamini-Hochberg 5%)" in head) != ('class="sig"' in rows), head
    assert any("none significant" in seg.split("<table")[0] for seg in lists)


# --- 6: a sequential verdict in the test's own words ----------------------------------------------

def test_page_reads_a_sequential_verdict_in_the_tests_words(changed_page):
    said = words(changed_page.markdown)
    assert "**Sequential diff: no change of 16 points or more in any deck tested**" in said
    assert ("the sequential test: **no change of 16 points or more** (its interval leaves out 0: a change smaller "
            "than 16 points is likely)") in said
    assert "**Sequential diff: no change**" not in said
