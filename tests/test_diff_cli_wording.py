"""What `workbench diff` says, from an audit of its claims: a sequential verdict says what the
test decided (which of +delta and +delta0 the evidence sits nearer), the tables after a
sequential stop read the matches the test looked at, and "none" is said of the cards tested."""
import re
import shutil

import polars as pl
import pytest

from tests.conftest import DATA, run_cli

DECKS = "lawmen-posse,goblin-gold-gang"


@pytest.fixture(scope="module")
def reused(tmp_path_factory):
    """A fixed 300-match diff, then a sequential one on the same seeds (its runs reused) that
    decides at its first look (100 matches) under a wide --delta."""
    root = tmp_path_factory.mktemp("seq")
    data = root / "data"
    shutil.copytree(DATA / "frontier", data / "frontier", ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    (data / "frontier" / "rules" / "planted.yaml").write_text(
        "version: planted\nextends: base\npatch:\n  marshal-gunhand: {atk: 4, def: 3}\n")
    db, env = root / "d.duckdb", {"WORKBENCH_DATA_DIR": str(data)}
    common = ["diff", "frontier", "--base", "base", "--candidate", "planted", "--decks", DECKS, "--pilots", "random",
              "--workers", "1", "--db", str(db), "--quiet"]
    fixed = run_cli(*common, "--matches", "300", env=env)
    assert fixed.returncode == 0, fixed.stderr
    seq = run_cli(*common, "--max-matches", "300", "--until-decided", "--delta", "50", env=env)
    assert seq.returncode == 0, seq.stderr
    return fixed.stdout, " ".join(seq.stdout.split()), db


def test_the_sequential_verdict_says_what_the_test_decided(reused):
    _fixed, text, _db = reused
    assert "sequential diff: no change of 50 points or more in any deck tested after 100 of at most 300" in text, text
    assert "decision" in text and "no change of 50 points or more" in text
    assert "sequential diff: no change after" not in text


def test_the_tables_after_a_stop_read_the_matches_the_test_looked_at(reused):
    fixed, text, _db = reused
    assert re.search(r"runs \d+ and \d+, 300 twin matches", " ".join(fixed.split())), fixed
    assert re.search(r"runs \d+ and \d+, 100 twin matches", text), text  # not the 300 stored


def test_none_is_said_of_the_cards_tested(reused):
    """"none" was said over every card, 15 of the 45 untested (too few twins near the top or deep,
    under the top/deep contrast the attribution used before its dose): the count it is said over is
    the count tested."""
    from reports.diff import version_diff

    fixed, _text, db = reused
    flat = " ".join(fixed.split())
    said = re.search(r"FDR 5%\): none of the (\d+) testable cards(; (\d+) not testable)?", flat)
    others = version_diff(db, 1, 2)["cards"].filter(~pl.col("changed"))
    tested = others.filter(pl.col("p_value").is_not_nan()).height
    assert said and int(said.group(1)) == tested > 0, flat
    assert int(said.group(3) or 0) == others.height - tested, flat


def test_the_stored_sequential_diff_reads_the_matches_its_test_looked_at(reused, tmp_path):
    """`export diff_decks --diff 2` (and the Diff page) read every stored twin of the reused runs."""
    import csv

    db = reused[2]
    out = tmp_path / "decks.csv"
    res = run_cli("export", "diff_decks", "--diff", "2", "--csv", str(out), "--db", str(db))
    assert res.returncode == 0, res.stderr
    twins = {r["deck"]: int(r["twins"]) for r in csv.DictReader(out.open(encoding="utf-8"))}
    assert twins and max(twins.values()) == 100, twins  # 100 matches looked at, 300 stored
