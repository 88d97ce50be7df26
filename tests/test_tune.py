"""``workbench tune``: rebalancing proposals written as rules versions into a workspace.

Random pilots and few matches: these check what the command does (a valid version the loader
reads, nothing proposed when nothing is wrong, a planted imbalance met where it was planted, the
same proposal from the same seed, one card's fair number with its reason, bad input in one line),
not how good its proposals are (docs/ARCHITECTURE.md and reports/METRICS.md give the greedy
figures).

The plant here is deliberately absurd (a 1-Mana 1/1 made a 12/12): the point is that tune pulls
an absurd number back, in the right deck and the right direction, at a size these tests can
afford; at 30 random matches per opponent the 12/12 measured +35 points of value (95% +20 to
+47.5) against the 1-Mana reference, so the direction is not left to chance. It says nothing of
whether tune's measurements find a moderate change: that is tests/test_planted.py (a +1/+1 found
by ``diff``, which verifies tune's field proposals, and by ``value``, which measures a card's fair
number) and tests/test_null_evidence.py (their A/A nulls)."""
from __future__ import annotations

import pytest
import yaml

from cardsdb.loader import load_ruleset
from reports import db
from reports.tune import proposal_table, proposals
from tests.conftest import cli_here, run_cli

FIELD = "deeproot-hollow,goblin-gold-gang,lawmen-posse"
PLANTED = "stonebeard-miner"  # a 3-of in deeproot-hollow, planted as a 12/12 for 1 Mana (base: 1/1): absurd on purpose
CARD_KEPT = "ash-wraith"  # the hand-made one-card proposal's card: a 3/2 for 3 Mana in goblin-gold-gang


def workspace(tmp_path, name="ws"):
    ws = tmp_path / name
    assert cli_here("init", str(ws), "--game", "frontier").returncode == 0
    (ws / "frontier" / "rules" / "planted.yaml").write_text(
        f"version: planted\nextends: base\npatch:\n  {PLANTED}: {{atk: 12, def: 12}}\n", encoding="utf-8")
    return ws


def tune(ws, store, *extra, runner=run_cli):
    # one card's fair number (--card --stat) verifies nothing and refuses the field search's options
    search = [] if "--card" in extra and "--stat" in extra else ["--verify-matches", "30"]
    return runner("tune", "frontier", "--decks", FIELD, "--pilots", "random", "--matches", "30",
                  *search, "--workers", "1", "--quiet", "--db", str(store), "--data", str(ws), *extra)


def tree(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_the_shipped_data_is_refused_in_one_line(tmp_path):
    store = tmp_path / "s.duckdb"
    r = cli_here("tune", "frontier", "--db", str(store))
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "workbench init" in r.stderr and "shipped" in r.stderr
    assert not store.exists()


@pytest.mark.parametrize("args, words", [
    (("--band", "55-45"), "LOW must be below HIGH"),
    (("--band", "half"), "--band takes LOW-HIGH"),
    (("--card", PLANTED), "--card and --stat go together"),
    (("--card", "no-such-card", "--stat", "atk"), "no card 'no-such-card'"),
    (("--card", PLANTED, "--stat", "speed"), "--stat 'speed'"),
    (("--card", "root-snare", "--stat", "atk"), "has no atk"),
    (("--card", "mossback-warden", "--stat", "atk"), "beside the deck"),
    (("--as", "base"), "already exists"),
    (("--as", "../out"), "a rules version name"),
    (("--decks", "lawmen-posse"), "at least two different decks"),
    (("--decks", "lawmen-posse,nope"), "nope"),
    (("--rules", "nope"), "no rules version 'nope'"),
    (("--pilots", "clairvoyant"), "clairvoyant"),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, args, words):
    ws = workspace(tmp_path)
    before = tree(tmp_path)
    r = tune(ws, tmp_path / "s.duckdb", *args, runner=cli_here)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and words in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and tree(tmp_path) == before


def test_a_field_in_band_needs_no_change(tmp_path):
    ws, store = workspace(tmp_path), tmp_path / "s.duckdb"
    r = tune(ws, store, "--band", "10-90")
    assert r.returncode == 0, r.stderr
    assert "already inside the band: no change proposed" in r.stdout
    assert not (ws / "frontier" / "rules" / "base-tuned.yaml").exists()
    p = proposals(store).row(0, named=True)
    assert p["changes"] == 0 and p["version"] is None and p["in_band"] and p["matches_verify"] == 0
    assert proposal_table(store, "tune_changes", p["tune_id"]).is_empty()
    assert proposal_table(store, "tune_decks", p["tune_id"]).height == 3


def _planted_proposal(tmp_path, name):
    ws, store = workspace(tmp_path, name), tmp_path / f"{name}.duckdb"
    r = tune(ws, store, "--rules", "planted", "--band", "40-60", "--max-changes", "2", "--matches-budget", "500",
             "--csv", str(tmp_path / name))
    assert r.returncode in (0, 1), r.stderr
    return ws, store, r


@pytest.fixture(scope="module")
def planted_proposal(tmp_path_factory):
    """One planted proposal, read by the tests below (a tune costs tens of seconds)."""
    tmp = tmp_path_factory.mktemp("planted")
    return (tmp, *_planted_proposal(tmp, "a"))


def test_a_planted_imbalance_is_met_in_its_deck_by_a_valid_version(planted_proposal):
    tmp_path, ws, store, r = planted_proposal
    p = proposals(store).row(0, named=True)
    changes = proposal_table(store, "tune_changes", p["tune_id"])
    assert 1 <= changes["card"].n_unique() == p["cards"] <= 2 and p["version"] == "planted-tuned"
    assert changes.height == p["changes"]  # --max-changes counts cards; a card may move in several numbers
    assert all("deeproot-hollow" in decks.split(",") for decks in changes["decks"]), changes
    decks = {d["deck"]: d for d in proposal_table(store, "tune_decks", p["tune_id"]).iter_rows(named=True)}
    assert decks["deeproot-hollow"]["wr_after"] < decks["deeproot-hollow"]["wr_before"]
    assert decks["deeproot-hollow"]["change_lo"] <= decks["deeproot-hollow"]["change"] <= 0
    # the proposal is a rules version the loader reads: it extends the starting one with the changes
    path = ws / "frontier" / "rules" / "planted-tuned.yaml"
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert doc["extends"] == "planted" and set(doc["patch"]) == set(changes["card"])
    _data, ruleset = load_ruleset("frontier", "planted-tuned", ws)
    assert ruleset.hash == p["rules_hash"]
    assert cli_here("cards", "validate", "frontier", "--data", str(ws)).returncode == 0
    # the verification played that very version, and the diff pairs it with the starting one
    runs = db.query(store, "SELECT run_id, rules_version, rules_hash FROM runs WHERE run_id IN (?, ?) ORDER BY 1",
                    [p["base_run"], p["candidate_run"]]).rows()
    assert [r[1] for r in runs] == ["planted", "planted-tuned"] and runs[1][2] == ruleset.hash
    assert db.query(store, "SELECT candidate_run FROM diffs WHERE diff_id = ?", [p["diff_id"]]).item() == p["candidate_run"]
    steps = proposal_table(store, "tune_steps", p["tune_id"])
    assert steps["accepted"].sum() >= changes.height and (steps["deck"] == "deeproot-hollow").any()
    assert f"wrote {path}" in r.stdout and (tmp_path / "a" / "tune_decks.csv").exists()
    assert 0 < p["matches_search"] <= 500 and p["matches_verify"] % (2 * 30 * 3) == 0


@pytest.mark.slow
def test_the_same_seed_gives_the_same_proposal(planted_proposal, tmp_path):
    _tmp, ws_a, store_a, _ = planted_proposal
    ws_b, store_b, _ = _planted_proposal(tmp_path, "b")
    text = [(ws / "frontier" / "rules" / "planted-tuned.yaml").read_text(encoding="utf-8") for ws in (ws_a, ws_b)]
    assert text[0] == text[1]
    tables = [proposal_table(s, "tune_steps", 1).drop("run_id") for s in (store_a, store_b)]
    assert tables[0].equals(tables[1])


def test_one_cards_fair_number_names_why(tmp_path):
    ws, store = workspace(tmp_path), tmp_path / "s.duckdb"
    r = tune(ws, store, "--rules", "planted", "--card", PLANTED, "--stat", "atk", "--matches", "30",
             "--csv", str(tmp_path / "csv"))
    assert r.returncode == 0, r.stderr
    p = proposals(store).row(0, named=True)
    assert p["kind"] == "card" and p["card"] == PLANTED and p["field"] == "atk"
    values = proposal_table(store, "tune_values", p["tune_id"])
    # the CSVs hold the store's rows and columns, and the pilots that played them (last), a header
    # even when a table has no row (a kept number changes nothing: tune_changes.csv was a single newline)
    for table, rows in (("tune_values", values), ("tune_changes", proposal_table(store, "tune_changes", p["tune_id"]))):
        header = (tmp_path / "csv" / f"{table}.csv").read_text(encoding="utf-8").splitlines()
        assert header[0].split(",") == [*rows.columns, "pilots"] and len(header) == rows.height + 1, (table, header[:2])
    assert values.height >= 1 and values["chosen"].sum() == 1 and (values["reference"] == "reference-creature-1").all()
    chosen = values.filter(values["chosen"]).row(0, named=True)
    assert "why:" in r.stdout and any(w in p["why"] for w in ("nearest 0", "holds 0", "comes nearer 0"))
    assert "budget line" in p["why"]
    # a 12/12 for 1 Mana is worth more than the 1-Mana reference beyond doubt: tune must measure it
    # so, ask for a weaker card, and write that number as a version the loader reads
    first = values.filter(values["number"] == 12).row(0, named=True)
    assert first["value_lo"] > 0, first
    assert chosen["number"] < 12 and p["version"] == "planted-stonebeard-miner-atk", (chosen, p["version"])
    doc = yaml.safe_load((ws / "frontier" / "rules" / f"{p['version']}.yaml").read_text(encoding="utf-8"))
    assert doc["patch"] == {PLANTED: {"atk": chosen["number"]}}
    assert load_ruleset("frontier", p["version"], ws)[1].cards[PLANTED].atk == chosen["number"]


# --- the page and the report, on a hand-made store ------------------------------------------------

def hand_made_proposals(path):
    """Two proposals recorded by hand into the store at ``path`` (a tune costs tens of seconds):
    a field proposal (tune 1: one change, both decks into the band) and, newest, one card's number
    (tune 2); the Rebalancing page's browser test reads them too."""
    from workbench.store import Store
    from workbench.tune.record import record

    store = Store(path)
    base = {"game": "frontier", "base_version": "base", "pilots": "greedy", "seed": 1, "search_matches": 100,
            "matches_search": 5000, "matches_verify": 6000}
    record(store, {**base, "kind": "field", "version": "base-tuned", "rules_hash": "abc", "file": "ws/base-tuned.yaml",
                   "decks": "goblin-gold-gang,lawmen-posse", "band_lo": 0.45, "band_hi": 0.55, "changes": 1,
                   "in_band": True, "verdict": "every deck inside 45%-55% on fresh seeds with 1 change", "why": "done"},
           {"tune_changes": [{"change_no": 1, "card": "bison-bull", "name": "Bison Bull", "field": "cost", "before": 4,
                              "after": 3, "surplus_before": 0.0, "surplus_after": 2.0, "decks": "lawmen-posse"}],
            "tune_decks": [{"deck": d, "search_before": w0, "search_after": w1, "games_before": 400, "wr_before": w0,
                            "wr_before_lo": w0 - 0.05, "wr_before_hi": w0 + 0.05, "games_after": 400, "wr_after": w1,
                            "wr_after_lo": w1 - 0.05, "wr_after_hi": w1 + 0.05, "twins": 400, "change": w1 - w0,
                            "change_lo": w1 - w0 - 0.03, "change_hi": w1 - w0 + 0.03, "in_band": True}
                           for d, w0, w1 in (("goblin-gold-gang", 0.62, 0.53), ("lawmen-posse", 0.38, 0.47))],
            "tune_steps": [{"round": 1, "step": 1, "candidate_no": 1, "deck": "lawmen-posse", "direction": "buff",
                            "card": "bison-bull", "field": "cost", "before": 4, "after": 3, "objective": 4.0,
                            "accepted": True, "run_id": 3, "matches": 500, "deck_wr": 0.47}]})
    record(store, {**base, "kind": "card", "version": None, "decks": "goblin-gold-gang,lawmen-posse", "changes": 0,
                   "verdict": f"{CARD_KEPT} atk: keep 3", "why": "keep 3: its value's 95% interval holds 0",
                   "card": CARD_KEPT, "field": "atk"},
           {"tune_values": [{"card": CARD_KEPT, "field": "atk", "number": 3, "deck": "goblin-gold-gang",
                             "reference": "reference-creature-3", "twins": 200,
                             "value_points": 0.5, "value_lo": -1.0, "value_hi": 2.0, "p_value": 0.5, "surplus": 0.0,
                             "chosen": True, "run_id": 1, "reference_run": 2}]})
    return store.path


def test_the_rebalancing_page_and_report_show_a_proposal(tmp_path, monkeypatch, fresh_cache):
    from streamlit.testing.v1 import AppTest

    from reports.html import _tune_section

    path = hand_made_proposals(tmp_path / "hand.duckdb")
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    at = AppTest.from_string("from reports.pages.tune import render\nrender()", default_timeout=60).run()
    assert not at.exception, at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "every deck inside 45%-55%" not in text  # the newest proposal (the card's) is shown first
    assert "keep 3" in text and at.get("plotly_chart")
    at.sidebar.selectbox[0].set_value(1).run()
    text = " ".join(m.value for m in at.markdown)
    assert "every deck inside 45%-55% on fresh seeds with 1 change" in text and not at.exception
    assert len(at.dataframe) >= 2 and at.get("plotly_chart")
    report = _tune_section(path, ["frontier"])
    assert "Rebalancing proposals" in report and "bison-bull" in report and "53.0%" in report
    assert _tune_section(path, ["alleyway"]) == ""


def test_the_page_without_proposals_says_how_to_make_one(tmp_path, monkeypatch, small_store, fresh_cache):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = AppTest.from_string("from reports.pages.tune import render\nrender()", default_timeout=60).run()
    assert not at.exception and any("workbench tune" in i.value for i in at.info)


def test_a_budget_line_past_the_allowed_numbers_says_so():
    """It read "the budget line is at atk -7" (an attack cannot be negative); the tie-break it
    feeds takes the nearest allowed number."""
    from workbench.tune.fair import Fair, Measured, budget_text, choose

    f = Fair("c", "atk", "d", [], 9, 9, -7.0, allowed=(0, None))
    assert budget_text(f).endswith("below the lowest atk allowed (0): no allowed atk puts it on the line")
    f.budget_number = 3.5
    assert budget_text(f) == "the budget line (stat points = budget points) is at atk 3.5"
    value = {"value_points": 5.0, "value_lo": 1.0, "value_hi": 9.0}
    f.budget_number = -7.0
    f.measured = [Measured(n, dict(value), 0.0, 1, 2, "ref") for n in (9, 0, 1)]
    assert choose(f) == 0  # a tie on value: the allowed number nearest the line


def _measured(pairs):
    from workbench.tune.fair import Measured

    return [Measured(n, {"value_points": v, "value_lo": v - 4, "value_hi": v + 4}, 0.0, 1, 2, "ref") for n, v in pairs]


def test_the_fair_search_narrows_a_bracket_instead_of_stopping_past_numbers_never_measured():
    """atk 7 (+6.2), 6 (+7.5), 5 (+6.8), then a noisy secant jumped to 1 (-0.2); the next guess
    rounded back to 1 and the search stopped, proposing 7 -> 1 with 2, 3 and 4 never measured."""
    from cardsdb.tune import Knob
    from workbench.tune.fair import next_number

    atk = Knob("atk", ("atk",))
    raw = {"atk": 7}
    seen = _measured([(7, 6.2), (6, 7.5), (5, 6.8), (1, -0.2)])
    assert next_number(atk, raw, seen, -1) == 2  # between 5 and 1, where the line through them crosses 0
    assert next_number(atk, raw, seen + _measured([(2, 0.9)]), -1) is None  # 0 lies between 2 and 1
    assert next_number(atk, raw, seen + _measured([(2, -1.5)]), -1) in (3, 4)  # 0 lies between 5 and 2
    # no bracket yet: on past the furthest number measured the way the card is being moved
    assert next_number(atk, raw, _measured([(7, 6.2), (6, 7.5)]), -1) == 5  # the values did not fall
    assert next_number(atk, raw, _measured([(7, 6.0), (6, 4.0)]), -1) == 4  # the secant: 0 at 4
    # a cost: a weaker card costs more (the number moves up)
    cost = Knob("cost", ("cost",), stronger=-1)
    assert next_number(cost, {"cost": 3}, _measured([(3, 6.0), (4, 4.0)]), -1) == 6


def test_one_cards_fair_number_keeps_each_pilot_with_its_deck(tmp_path):
    """--decks goblin-gold-gang,deeproot-hollow --pilots greedy,random measures the card in
    deeproot-hollow (the deck that holds it), first in the run: the pilots followed it, so
    deeproot-hollow played greedy and goblin-gold-gang random, the other way round from asked."""
    from reports import db

    ws, store = workspace(tmp_path), tmp_path / "s.duckdb"
    decks = ["goblin-gold-gang", "deeproot-hollow"]
    r = tune(ws, store, "--rules", "planted", "--card", PLANTED, "--stat", "atk", "--matches", "4",
             "--decks", ",".join(decks), "--pilots", "greedy,random")
    assert r.returncode == 0, r.stderr
    runs = db.query(store, "SELECT decks, pilots FROM runs")
    assert runs.height
    given = dict(zip(decks, ["greedy", "random"]))
    for row in runs.iter_rows(named=True):
        pairs = dict(zip(row["decks"].split(","), row["pilots"].split(",")))
        assert pairs == given, (row, given)


def test_a_kept_number_says_when_its_interval_is_no_evidence_of_fairness():
    """A 3-Mana 7/8 (+8 budget points) at value +5.0 [-1.7, +11.6] read "keep 3: its value's 95%
    interval holds 0", as if the card were fair."""
    from workbench.tune.fair import Fair, Measured, why

    f = Fair("c", "cost", "d", ["o"], 3, 3, 7.0, allowed=(0, None))
    f.measured = [Measured(3, {"value_points": 5.0, "value_lo": -1.7, "value_hi": 11.6}, 8.0, 1, 2, "ref")]
    text = why(f)
    assert text.startswith("keep 3: its value's 95% interval holds 0, but that is no evidence it is fair")
    assert "13.3 points wide" in text and "+8.0 points off its cost" in text and "more --matches" in text
    f.measured = [Measured(3, {"value_points": 0.1, "value_lo": -0.4, "value_hi": 0.6}, 0.0, 1, 2, "ref")]
    assert why(f).startswith("keep 3: its value's 95% interval holds 0. value in d")


def test_a_tune_stopped_before_its_record_is_stored_leaves_no_proposal_file(tmp_path, monkeypatch):
    """The stop audit: a tune stopped between writing its proposal's rules file and storing its
    record left the file, and the same command then refused to run ("rules version ... already
    exists"). The stop is made to land there: the record's store raises KeyboardInterrupt."""
    import workbench.commands.tune as tune_command
    from workbench.cli import main

    def stopped(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(tune_command, "record", stopped)
    ws, store = workspace(tmp_path), tmp_path / "s.duckdb"
    with pytest.raises(SystemExit) as ended:
        main(["tune", "frontier", "--decks", FIELD, "--pilots", "random", "--matches", "30", "--workers", "1", "--quiet",
              "--db", str(store), "--data", str(ws), "--rules", "planted", "--card", PLANTED, "--stat", "atk"])
    assert ended.value.code == 130
    assert not (ws / "frontier" / "rules" / "planted-stonebeard-miner-atk.yaml").exists()
    assert sorted(p.name for p in (ws / "frontier" / "rules").glob("planted*")) == ["planted.yaml"]
