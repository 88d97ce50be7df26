"""The card sheet (workbench cards export / import): one value a cell, no JSON, and a sheet
exported and imported unchanged is no change at all, for every game; an edit deep inside an
ability comes back as a patch of that ability."""
import csv

import pytest

from cardsdb.loader import load_ruleset
from cardsdb.spreadsheet import import_cards_csv, write_cards_csv


@pytest.mark.parametrize("game", ["frontier", "alleyway", "allegiance"])
def test_a_sheet_has_no_json_and_round_trips_unchanged(game, tmp_path):
    _data, ruleset = load_ruleset(game, "base")
    path = tmp_path / "cards.csv"
    write_cards_csv(ruleset, path)
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    assert len(rows) == len(ruleset.cards)
    assert not [(r["id"], k) for r in rows for k, v in r.items() if v and v.strip()[:1] in "[{"]
    assert import_cards_csv(path, ruleset) == {"patch": {}, "add": [], "remove": []}


def test_an_edit_inside_an_ability_is_a_patch_of_that_card(tmp_path):
    _data, ruleset = load_ruleset("frontier", "base")
    path = tmp_path / "cards.csv"
    write_cards_csv(ruleset, path)
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    row = next(r for r in rows if r["id"] == "dust-creek-deputy")
    assert row["abilities.1.do.1.effect"] == "heal" and row["abilities.1.do.1.amount"] == "1"
    row["abilities.1.do.1.amount"] = "2"
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    changes = import_cards_csv(path, ruleset)
    assert list(changes["patch"]) == ["dust-creek-deputy"]
    assert changes["patch"]["dust-creek-deputy"]["abilities"][0]["do"][0]["amount"] == 2
