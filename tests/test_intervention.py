"""Interventions: a card replaced at the same places of the shuffled deck (``workbench value``),
the deck positions the ledger records, and the value command end to end."""
from __future__ import annotations

import csv

import pytest

from cardsdb.loader import load_ruleset
from cardsdb.reference import reference_for, reference_ids
from sim.core.decks import replace_cards
from sim.core.match import play_match
from sim.registry import engine
from tests.conftest import DATA, run_cli
from workbench.runspec import RunSpec

GAMES = ("frontier", "alleyway", "allegiance")


def _setup(game: str):
    data, ruleset = load_ruleset(game, "base", DATA)
    eng = engine(game)
    pool = eng.compile_pool(ruleset)
    starters = sorted(d.id for d in data.decks.values() if d.starter)[:2]
    decks = [eng.compile_deck(pool, data.decks[d]) for d in starters]
    return data, ruleset, eng, pool, starters, decks


def _positions(result, seat: int) -> dict[int, int]:
    return {row.card: row.deck_position for row in result.ledger.rows(seat) if row.copies}


@pytest.mark.parametrize("game", GAMES)
def test_the_ledger_records_where_each_card_lay_in_the_shuffled_deck(game):
    _data, _rules, eng, pool, _ids, decks = _setup(game)
    r = play_match(eng, pool, decks, 11, ["random", "random"])
    for seat, deck in enumerate(decks):
        rows = [row for row in r.ledger.rows(seat) if row.copies]
        positions = sorted(row.deck_position for row in rows)
        assert len(set(positions)) == len(positions), "each card's first copy has its own place"
        assert 0 <= positions[0] and positions[-1] < len(deck.cards)
        assert positions[0] == 0, "some card was on top"
        # a card's first copy cannot lie deeper than all places but its other copies' allow
        for row in rows:
            assert row.deck_position <= len(deck.cards) - row.copies


@pytest.mark.parametrize("game", GAMES)
def test_a_replaced_card_takes_the_same_places_and_leaves_every_other_card_where_it_was(game):
    _data, ruleset, eng, pool, _ids, decks = _setup(game)
    card = max(set(decks[0].cards), key=decks[0].cards.count)  # a card with the most copies
    name = eng.card_name(pool, card)
    ref = pool.ids[reference_for(ruleset, name, reference_ids(game))]
    variant = replace_cards(decks[0], {card: ref})
    assert type(variant.cards) is type(decks[0].cards) and len(variant.cards) == len(decks[0].cards)
    assert [c for c in variant.cards if c != ref] == [c for c in decks[0].cards if c != card]
    for seed in (3, 4, 5):
        a = play_match(eng, pool, decks, seed, ["random", "random"])
        b = play_match(eng, pool, [variant, decks[1]], seed, ["random", "random"])
        assert a.error is None and b.error is None
        pa, pb = _positions(a, 0), _positions(b, 0)
        assert pb[ref] == pa[card], "the reference lies where the card lay"
        assert {c: p for c, p in pa.items() if c != card} == {c: p for c, p in pb.items() if c != ref}
        assert _positions(a, 1) == _positions(b, 1), "the opponent's shuffle is untouched"


@pytest.mark.parametrize("game", GAMES)
def test_replacing_a_card_by_itself_replays_the_very_same_match(game):
    _data, _rules, eng, pool, _ids, decks = _setup(game)
    card = decks[0].cards[0]
    same = replace_cards(decks[0], {card: card})
    a = play_match(eng, pool, decks, 21, ["greedy", "greedy"])
    b = play_match(eng, pool, [same, decks[1]], 21, ["greedy", "greedy"])
    assert a.events.digest() == b.events.digest()


def test_a_run_spec_without_an_intervention_keeps_its_old_shape_and_hash():
    spec = RunSpec(game="frontier", rules="base", decks=["a", "b"], pilots=["random"], matches=10)
    assert "substitute" not in spec.to_json() and "kind" not in spec.to_json() and spec.kind == "duel"
    swapped = RunSpec(game="frontier", rules="base", decks=["a", "b"], pilots=["random"], matches=10,
                      substitute={"0": {"x": "y"}})
    assert swapped.kind == "value" and swapped.spec_hash() != spec.spec_hash()
    assert RunSpec.from_json(swapped.to_json()) == swapped


@pytest.fixture(scope="module")
def value_store(tmp_path_factory):
    db = tmp_path_factory.mktemp("value") / "value.duckdb"
    out = tmp_path_factory.mktemp("value_csv")
    args = ("value", "frontier", "--deck", "lawmen-posse", "--cards", "marshal-gunhand,tin-star-recruit",
            "--against", "goblin-gold-gang", "--matches", "60", "--pilots", "random", "--db", str(db), "--quiet",
            "--csv", str(out))
    first = run_cli(*args)
    assert first.returncode == 0, first.stderr
    again = run_cli(*args)
    assert again.returncode == 0, again.stderr
    return db, out, first, again


def test_value_measures_each_card_against_its_reference_and_reuses_finished_twins(value_store):
    from reports import db as store

    db, out, first, again = value_store
    assert "Card value: lawmen-posse against goblin-gold-gang" in first.stdout and "pilots random" in first.stdout
    assert "reusing run" in again.stderr and "reusing run" not in first.stderr
    rows = store.query(db, "SELECT * FROM card_value ORDER BY value_id, card").to_dicts()
    assert [r["value_id"] for r in rows] == [1, 1, 2, 2]
    by = {(r["value_id"], r["card"]): r for r in rows}
    for card, ref in (("marshal-gunhand", "reference-creature-3"), ("tin-star-recruit", "reference-creature-1")):
        a, b = by[(1, card)], by[(2, card)]
        assert a["reference"] == ref and a["copies"] == 3 and a["twins"] == 60
        assert a["value_points"] == b["value_points"] and a["variant_run"] == b["variant_run"]
        assert a["value_lo"] <= a["value_points"] <= a["value_hi"]
        assert a["value_points"] == pytest.approx(100 * (a["wr_with"] - a["wr_without"]))
    kinds = dict(store.query(db, "SELECT run_id, kind FROM runs").iter_rows())
    assert sorted(kinds.values()) == ["duel", "value", "value"], "the replaced runs stay out of default views"
    with open(out / "card_value.csv", newline="", encoding="utf-8") as fh:
        header = next(csv.reader(fh))
    assert header[:12] == ["game", "rules_version", "deck", "card", "name", "copies", "twins", "value_points",
                           "value_lo", "value_hi", "p_value", "q_value"]


def test_the_replaced_run_holds_the_reference_where_the_card_was(value_store):
    from reports import db as store

    db, *_ = value_store
    full, variant = store.query(db, "SELECT base_run, variant_run FROM card_value WHERE card = 'marshal-gunhand'").row(0)
    pairs = store.query(db, """
        SELECT f.deck_position AS card_at, v.deck_position AS ref_at
        FROM card_games f JOIN matches m ON m.run_id = f.run_id AND m.match_no = f.match_no
        JOIN card_games v ON v.run_id = ? AND v.match_no = f.match_no AND v.seat = f.seat
        WHERE f.run_id = ? AND f.card = 'marshal-gunhand' AND v.card = 'reference-creature-3'
              AND f.seat = CASE WHEN m.swapped THEN 1 ELSE 0 END""", [variant, full])
    assert pairs.height == 60 and (pairs["card_at"] == pairs["ref_at"]).all()


@pytest.mark.parametrize("args, words", [
    (("--deck", "no-such-deck"), ["unknown deck 'no-such-deck'"]),
    (("--deck", "lawmen-posse", "--cards", "bison-bull,fuse-lighter"), ["lawmen-posse.yaml", "fuse-lighter"]),
    (("--deck", "lawmen-posse", "--cards", "bison-bull", "--all"), ["--cards or --all"]),
    (("--deck", "lawmen-posse", "--against", "nobody"), ["--against", "nobody"]),
    (("--deck", "lawmen-posse", "--reference", "no-card"), ["--reference", "no-card"]),
])
def test_value_mistakes_get_one_line_and_exit_2(tmp_path, args, words):
    res = run_cli("value", "frontier", *args, "--matches", "2", "--db", str(tmp_path / "v.duckdb"), "--quiet")
    assert res.returncode == 2, res.stderr
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert all(w in lines[0] for w in words), lines[0]
    assert not (tmp_path / "v.duckdb").exists(), "nothing written for a mistake"


def test_a_value_twin_replays_with_its_card_replaced(value_store):
    from reports import db as store
    from workbench.replay import replay_match

    db, *_ = value_store
    full, variant = store.query(db, "SELECT base_run, variant_run FROM card_value WHERE card = 'marshal-gunhand'").row(0)
    for match_no in range(0, 60, 7):
        out = replay_match(db, variant, match_no)
        assert out["consistent"] and out["warning"] is None, (match_no, out["stored"])
    assert all(replay_match(db, full, m)["consistent"] for m in range(0, 60, 13))


def test_a_finished_run_is_reused_whatever_chunks_it_was_cut_into(tmp_path):
    from reports import db as store

    db = tmp_path / "w.duckdb"
    args = ("value", "frontier", "--deck", "lawmen-posse", "--cards", "tin-star-recruit", "--against",
            "goblin-gold-gang", "--matches", "24", "--pilots", "random", "--db", str(db), "--quiet")
    first = run_cli(*args, "--workers", "1")
    assert first.returncode == 0, first.stderr
    again = run_cli(*args, "--workers", "2")
    assert again.returncode == 0, again.stderr
    assert again.stderr.count("reusing run") == 2, again.stderr
    assert store.query(db, "SELECT count(*) AS n FROM runs")["n"][0] == 2
    values = store.query(db, "SELECT value_points FROM card_value ORDER BY value_id")["value_points"].to_list()
    assert values[0] == values[1]
