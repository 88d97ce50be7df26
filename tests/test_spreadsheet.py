"""The card sheet (workbench cards export / import): one value a cell, no JSON, and a sheet
exported and imported unchanged is no change at all, for every game; an edit deep inside an
ability comes back as a patch of that ability."""
import csv

import pytest

from cardsdb.loader import load_ruleset
from cardsdb.spreadsheet import import_cards_csv, write_cards_csv


def exported(tmp_path, game: str = "frontier"):
    """(base's ruleset, the sheet exported from it, its rows as read back)."""
    _data, ruleset = load_ruleset(game, "base")
    path = tmp_path / "cards.csv"
    write_cards_csv(ruleset, path)
    return ruleset, path, list(csv.DictReader(path.open(encoding="utf-8")))


def _rewrite(path, rows, columns=None):
    columns = columns or list(rows[0])
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


@pytest.mark.parametrize("game", ["frontier", "alleyway", "allegiance"])
def test_a_sheet_has_no_json_and_round_trips_unchanged(game, tmp_path):
    ruleset, path, rows = exported(tmp_path, game)
    assert len(rows) == len(ruleset.cards)
    assert not [(r["id"], k) for r in rows for k, v in r.items() if v and v.strip()[:1] in "[{"]
    assert import_cards_csv(path, ruleset) == {"patch": {}, "add": [], "remove": []}


def test_an_edit_inside_an_ability_is_a_patch_of_that_card(tmp_path):
    ruleset, path, rows = exported(tmp_path)
    row = next(r for r in rows if r["id"] == "dust-creek-deputy")
    assert row["abilities.1.do.1.effect"] == "heal" and row["abilities.1.do.1.amount"] == "1"
    row["abilities.1.do.1.amount"] = "2"
    _rewrite(path, rows)
    changes = import_cards_csv(path, ruleset)
    assert list(changes["patch"]) == ["dust-creek-deputy"]
    assert changes["patch"]["dust-creek-deputy"]["abilities"][0]["do"][0]["amount"] == 2


def test_a_column_taken_out_of_the_sheet_keeps_each_cards_field(tmp_path):
    """Deleting the text and campaign_only columns emptied every card's text and made the
    campaign's reward cards playable in duels: "179 cards changed"."""
    ruleset, path, rows = exported(tmp_path)
    columns = [c for c in rows[0] if c not in ("text", "campaign_only") and not c.startswith("cost.")]
    _rewrite(path, rows, columns)
    notes = []
    assert import_cards_csv(path, ruleset, notes) == {"patch": {}, "add": [], "remove": []}
    assert len(notes) == 1 and "campaign_only, cost, text" in notes[0], notes
    row = next(r for r in rows if r["id"] == "dust-creek-deputy")
    row["atk"] = str(int(row["atk"]) + 1)
    _rewrite(path, rows, columns)
    assert list(import_cards_csv(path, ruleset)["patch"]) == ["dust-creek-deputy"]


@pytest.mark.parametrize("name", ["[Prototype] Alpha Wolf", '{"x": 1} Wolf', "Wolf "])
def test_a_name_or_text_is_read_as_written(tmp_path, name):
    """A name starting with [ was read as an old sheet's JSON cell ("name is not valid JSON")."""
    ruleset, path, rows = exported(tmp_path)
    row = next(r for r in rows if r["id"] == "dust-creek-deputy")
    row["name"], row["text"] = name, '["quoted"] text'
    _rewrite(path, rows)
    patch = import_cards_csv(path, ruleset)["patch"]
    assert patch == {"dust-creek-deputy": {"name": name, "text": '["quoted"] text'}}


def test_a_text_written_as_a_yaml_block_round_trips_unchanged(tmp_path):
    """A ``>`` block ends its text with a newline; the import stripped it, so an unchanged sheet
    changed the card and the rules hash."""
    import shutil

    from tests.conftest import DATA

    shutil.copytree(DATA / "frontier", tmp_path / "data" / "frontier", ignore=shutil.ignore_patterns("*.py"))
    cards = tmp_path / "data" / "frontier" / "cards" / "humans.yaml"
    text = cards.read_text(encoding="utf-8")
    i = text.index("  text: ", text.index("id: dust-creek-deputy"))
    end = text.index("\n", i)
    cards.write_text(text[:i] + "  text: >\n    Folded text.\n" + text[end + 1:], encoding="utf-8")
    _data, ruleset = load_ruleset("frontier", "base", tmp_path / "data")
    assert ruleset.cards["dust-creek-deputy"].text == "Folded text.\n"
    path = tmp_path / "cards.csv"
    write_cards_csv(ruleset, path)
    assert import_cards_csv(path, ruleset) == {"patch": {}, "add": [], "remove": []}


def test_a_sheet_of_another_rules_version_is_refused(tmp_path):
    """A sheet exported from second-seat-mana and imported against base lost the version's
    constant without a word ("0 cards changed")."""
    from cardsdb.errors import DataError

    _data, other = load_ruleset("frontier", "second-seat-mana")
    _data, base = load_ruleset("frontier", "base")
    path = tmp_path / "cards.csv"
    write_cards_csv(other, path)
    with pytest.raises(DataError) as info:
        import_cards_csv(path, base)
    assert "exported from rules version 'second-seat-mana'" in str(info.value.line())
    assert import_cards_csv(path, other) == {"patch": {}, "add": [], "remove": []}


def test_an_error_names_the_sheets_column(tmp_path):
    """Errors named ``abilities.0...`` where the sheet's columns count from 1."""
    from cardsdb.errors import DataError

    ruleset, path, rows = exported(tmp_path)
    row = next(r for r in rows if r["id"] == "dust-creek-deputy")
    row["abilities.1.do.1.amount"] = "lots"
    _rewrite(path, rows)
    with pytest.raises(DataError) as info:
        import_cards_csv(path, ruleset)
    assert info.value.field.startswith("abilities.1.do.1"), info.value.line()


def test_a_sheet_with_no_card_rows_is_refused_not_read_as_removing_every_card(tmp_path):
    """The header alone was "0 cards changed, 0 added, 179 removed", exit 0 (the bad-input audit
    of 2026-12-07); a sheet that leaves some cards out still removes just those."""
    from cardsdb.errors import DataError

    ruleset, path, rows = exported(tmp_path)
    path.write_text(path.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    with pytest.raises(DataError) as info:
        import_cards_csv(path, ruleset)
    assert "no card rows" in info.value.line() and f"all {len(ruleset.cards)} cards" in info.value.line()
    _rewrite(path, rows[1:])
    assert import_cards_csv(path, ruleset)["remove"] == [rows[0]["id"]]
