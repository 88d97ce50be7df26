"""Bad data gets one clear line naming the file, the card and the field, exit code 2, and no
traceback: one test per kind of mistake. And the spreadsheet round trip."""
import csv
import shutil

import pytest
import yaml

from tests.conftest import DATA, cli_here, run_cli


@pytest.fixture
def data(tmp_path):
    """A private copy of the card data to break."""
    root = tmp_path / "data"
    shutil.copytree(DATA / "frontier", root / "frontier",
                    ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return root


def cards_file(data):
    return data / "frontier" / "cards" / "humans.yaml"


def edit_card(data, card_id, **changes):
    path = cards_file(data)
    cards = yaml.safe_load(path.read_text())
    for card in cards:
        if card["id"] == card_id:
            card.update(changes)
    path.write_text(yaml.safe_dump(cards, sort_keys=False))


def validate(data):
    return cli_here("cards", "validate", "frontier", "--data-dir", str(data))


def one_clean_error(res, *needles):
    """Exit 2, no traceback, and the error lines name every needle."""
    assert res.returncode == 2, (res.returncode, res.stdout, res.stderr)
    assert "Traceback" not in res.stderr + res.stdout
    lines = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert lines, res.stderr
    matching = [line for line in lines if all(n in line for n in needles)]
    assert matching, f"no error line names {needles}: {lines}"
    return matching[0]


def test_the_shipped_data_is_valid():
    res = cli_here("cards", "validate", "frontier")
    assert res.returncode == 0, res.stderr
    assert "ok: frontier" in res.stdout and "off the stat budget" not in res.stdout


def test_bad_yaml(data):
    cards_file(data).write_text("- id: x\n  name: [unclosed\n")
    one_clean_error(validate(data), "humans.yaml", "bad YAML", "line")


def test_unknown_field(data):
    edit_card(data, "tin-star-recruit", attack=3)
    one_clean_error(validate(data), "humans.yaml", "card 'tin-star-recruit'", "field 'attack'", "unknown field")


def test_wrong_type(data):
    edit_card(data, "tin-star-recruit", atk="three")
    one_clean_error(validate(data), "humans.yaml", "card 'tin-star-recruit'", "field 'atk'")


def test_unknown_keyword(data):
    edit_card(data, "tin-star-recruit", keywords={"ambsh": True})
    one_clean_error(validate(data), "card 'tin-star-recruit'", "field 'keywords.ambsh'", "unknown keyword")


def test_unknown_effect(data):
    edit_card(data, "homestead-settler", abilities=[{"when": "played", "do": [{"effect": "teleport"}]}])
    one_clean_error(validate(data), "card 'homestead-settler'", "field 'abilities.0.do.0'", "teleport")


def test_unknown_card_in_a_deck(data):
    deck = data / "frontier" / "decks" / "lawmen-posse.yaml"
    doc = yaml.safe_load(deck.read_text())
    doc["cards"]["no-such-card"] = doc["cards"].pop("tin-star-recruit")
    deck.write_text(yaml.safe_dump(doc, sort_keys=False))
    one_clean_error(validate(data), "lawmen-posse.yaml", "card 'no-such-card'", "field 'cards'", "unknown card")


@pytest.mark.parametrize("breakage,needles", [
    ("copies", ("card 'tin-star-recruit'", "4 copies, at most 3")),
    ("size", ("field 'cards'", "51 cards, a deck has exactly 52")),
    ("faction", ("card 'pocket-snatcher'", "not one of the deck's races")),
    ("races", ("field 'races'", "3 main races, at most 2")),
])
def test_deck_breaking_construction_rules(data, breakage, needles):
    deck = data / "frontier" / "decks" / "lawmen-posse.yaml"
    doc = yaml.safe_load(deck.read_text())
    cards = doc["cards"]
    if breakage == "copies":
        cards["tin-star-recruit"] = 4
        cards["dust-creek-deputy"] -= 1
    elif breakage == "size":
        cards["tin-star-recruit"] -= 1
    elif breakage == "faction":
        cards["tin-star-recruit"] -= 1
        cards["pocket-snatcher"] = 1
    elif breakage == "races":
        doc["races"] = ["humans", "desert_devils", "goblins"]
    deck.write_text(yaml.safe_dump(doc, sort_keys=False))
    one_clean_error(validate(data), "lawmen-posse.yaml", *needles)


def test_extends_loop(data):
    rules = data / "frontier" / "rules"
    (rules / "a.yaml").write_text("version: a\nextends: b\n")
    (rules / "b.yaml").write_text("version: b\nextends: a\n")
    one_clean_error(validate(data), "field 'extends'", "extends loop")


def test_deleted_base_is_one_line(data):
    """Every version extends base: deleting base.yaml is one mistake, said once, not once per version."""
    rules = data / "frontier" / "rules"
    extenders = sorted(p.stem for p in rules.glob("*.yaml") if p.stem != "base")
    assert len(extenders) >= 2
    (rules / "base.yaml").unlink()
    res = validate(data)
    one_clean_error(res, "no rules version 'base'", f"{len(extenders)} versions extend", *extenders)
    assert len([line for line in res.stderr.splitlines() if line.startswith("error:")]) == 1, res.stderr


def test_unknown_constant(data):
    (data / "frontier" / "rules" / "fast.yaml").write_text("version: fast\nextends: base\nconstants: {startin_hp: 20}\n")
    one_clean_error(validate(data), "fast.yaml", "constants.startin_hp", "unknown field")


def test_missing_rules_version(tmp_path):
    res = run_cli("simulate", "frontier", "--rules", "v9", "--db", str(tmp_path / "x.duckdb"))
    one_clean_error(res, "no rules version 'v9'", "known: ")
    assert not (tmp_path / "x.duckdb").exists()


def test_unknown_deck_and_pilot(tmp_path):
    one_clean_error(run_cli("simulate", "frontier", "--decks", "lawmen-posse,nope", "--db", str(tmp_path / "x.duckdb")),
                    "no deck 'nope'")
    one_clean_error(run_cli("simulate", "frontier", "--pilots", "genius", "--db", str(tmp_path / "x.duckdb")),
                    "unknown pilot 'genius'")


def test_unwritable_database_path(tmp_path):
    res = run_cli("simulate", "frontier", "--matches", "2", "--db", str(tmp_path / "missing" / "x.duckdb"))
    one_clean_error(res, "x.duckdb", "does not exist")


def test_spreadsheet_round_trip_makes_a_version_of_only_the_changes(data, tmp_path):
    sheet = tmp_path / "cards.csv"
    res = cli_here("cards", "export", "frontier", "--rules", "base", "--csv", str(sheet), "--data-dir", str(data))
    assert res.returncode == 0, res.stderr
    rows = list(csv.DictReader(sheet.open(encoding="utf-8")))
    assert {"id", "name", "cost.mana", "atk", "def", "keywords", "budget_cost"} <= set(rows[0])
    for row in rows:
        if row["id"] == "tin-star-recruit":
            row["atk"] = "2"
            row["keywords"] = "warrant; fortify=1"
    rows = [r for r in rows if r["id"] != "liquid-courage"]
    new = dict(rows[0], id="sheet-born-card", name="Sheet Born Card")
    rows.append(new)
    with sheet.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    res = cli_here("cards", "import", str(sheet), "--game", "frontier", "--as", "v2", "--base", "base",
                  "--data-dir", str(data))
    assert res.returncode == 0, res.stderr
    doc = yaml.safe_load((data / "frontier" / "rules" / "v2.yaml").read_text())
    assert doc["extends"] == "base"
    assert doc["patch"] == {"tin-star-recruit": {"atk": 2, "keywords": {"warrant": True, "fortify": 1}}}
    assert doc["remove"] == ["liquid-courage"]
    assert [c["id"] for c in doc["add"]] == ["sheet-born-card"]
    from cardsdb.loader import load_ruleset
    _d, v2 = load_ruleset("frontier", "v2", data)
    _d, base = load_ruleset("frontier", "base", data)
    assert v2.cards["tin-star-recruit"].atk == 2 and v2.hash != base.hash
    assert "liquid-courage" not in v2.cards and "sheet-born-card" in v2.cards
    # importing again under the same name is refused
    one_clean_error(cli_here("cards", "import", str(sheet), "--game", "frontier", "--as", "v2",
                            "--data-dir", str(data)), "already exists")


def test_a_bad_sheet_names_the_row_card_and_column(data, tmp_path):
    sheet = tmp_path / "cards.csv"
    cli_here("cards", "export", "frontier", "--csv", str(sheet), "--data-dir", str(data))
    text = sheet.read_text(encoding="utf-8").splitlines()
    header = text[0].split(",")
    cells = text[1].split(",")
    cells[header.index("atk")] = "lots"
    sheet.write_text("\n".join([text[0], ",".join(cells)] + text[2:]) + "\n", encoding="utf-8")
    res = cli_here("cards", "import", str(sheet), "--game", "frontier", "--as", "v3", "--data-dir", str(data))
    one_clean_error(res, "cards.csv", "field 'atk'", "row 2")
    assert not (data / "frontier" / "rules" / "v3.yaml").exists()


def test_rules_version_patch_and_hash(data):
    (data / "frontier" / "rules" / "tough.yaml").write_text(
        "version: tough\nextends: base\nconstants: {starting_hp: 40}\npatch: {bison-bull: {atk: 9}}\n"
        "remove: [liquid-courage]\n")
    from cardsdb.loader import load_ruleset
    _d, tough = load_ruleset("frontier", "tough", data)
    _d, base = load_ruleset("frontier", "base", data)
    assert tough.constants.starting_hp == 40 and tough.cards["bison-bull"].atk == 9
    assert tough.chain == ["base", "tough"] and tough.hash != base.hash
    _d, again = load_ruleset("frontier", "tough", data)
    assert again.hash == tough.hash


def test_a_version_changes_a_nested_constant_key_by_key(tmp_path):
    """`formations: {descendants: {...}}` changed Shield Wall and silently dropped Blood Crescent
    (the version's mapping replaced the whole of its parent's); `copy_limits: {1: 4}` set every
    other star's limit to 1. Now each changes what it names."""
    from cardsdb.loader import load_ruleset

    root = tmp_path / "data"
    shutil.copytree(DATA / "allegiance", root / "allegiance", ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    (root / "allegiance" / "rules" / "walls.yaml").write_text(
        "version: walls\nextends: base\nconstants:\n  formations: {descendants: {damage_taken: 2}}\n"
        "  copy_limits: {1: 4}\n")
    _d, base = load_ruleset("allegiance", "base", root)
    _d, walls = load_ruleset("allegiance", "walls", root)
    old, new = base.constants.model_dump()["formations"], walls.constants.model_dump()["formations"]
    assert new["black_forge"] == old["black_forge"]
    assert new["descendants"] == {**old["descendants"], "damage_taken": 2}
    assert walls.constants.copy_limits == {**base.constants.copy_limits, 1: 4}


# --- faction and clan names (factions.yaml) -------------------------------------------------------

def factions_file(data, game="frontier"):
    return data / game / "factions.yaml"


@pytest.mark.parametrize("game", ["frontier", "alleyway", "allegiance"])
def test_every_shipped_card_names_a_faction_the_table_names(game):
    from cardsdb.loader import load_game

    loaded = load_game(game)
    assert not loaded.errors, [e.line() for e in loaded.errors[:3]]
    used = {getattr(card, loaded.schema.faction_field) for card in loaded.cards.values()}
    assert used and used <= set(loaded.factions), used - set(loaded.factions)
    assert all(name.strip() for name in loaded.factions.values())
    assert cli_here("cards", "validate", game).returncode == 0


def test_a_card_whose_faction_the_table_lacks_names_the_file_card_and_field(data):
    path = factions_file(data)
    path.write_text(path.read_text().replace("  humans: Humans\n", ""))
    one_clean_error(validate(data), "humans.yaml", "card 'tin-star-recruit'", "field 'faction'",
                    "'humans' is not in", "factions.yaml")


def test_a_clan_the_table_lacks_names_the_card_s_own_field(tmp_path):
    root = tmp_path / "data"
    shutil.copytree(DATA / "alleyway", root / "alleyway", ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    path = factions_file(root, "alleyway")
    path.write_text(path.read_text().replace("  nebula: Nebula\n", ""))
    res = cli_here("cards", "validate", "alleyway", "--data-dir", str(root))
    one_clean_error(res, "nebula.yaml", "card 'archon-of-nebula'", "field 'clan'", "'nebula' is not in")


@pytest.mark.parametrize("text,needles", [
    ("factions:\n  humans: '  '\n", ("field 'factions.humans'", "at least 1 character")),
    ("factions: [humans]\n", ("field 'factions'", "valid dictionary")),
    ("- humans\n", ("a factions file is a YAML mapping",)),
    ("faction:\n  humans: Humans\n", ("field 'faction'", "unknown field")),
])
def test_a_bad_factions_file_names_the_file_and_the_field(data, text, needles):
    factions_file(data).write_text(text)
    one_clean_error(validate(data), "factions.yaml", *needles)


def test_a_workspace_without_the_table_reads_the_shipped_names(data):
    from cardsdb.loader import load_ruleset

    factions_file(data).unlink()  # a workspace made before the file existed
    _data, ruleset = load_ruleset("frontier", "base", data)
    assert ruleset.factions["desert_devils"] == "Desert Devils"


def test_a_version_s_cards_are_checked_against_the_table_and_names_stay_out_of_the_hash(data):
    from cardsdb.errors import DataError
    from cardsdb.loader import load_game, resolve

    loaded = load_game("frontier", data)
    base = resolve(loaded, "base")
    path = factions_file(data)
    path.write_text(path.read_text().replace("Desert Devils", "Devils of the Dunes"))
    renamed = resolve(load_game("frontier", data), "base")
    assert renamed.factions["desert_devils"] == "Devils of the Dunes" and renamed.hash == base.hash
    del loaded.factions["goblins"]  # as a version adding the table's first goblin would find it
    with pytest.raises(DataError) as err:
        resolve(loaded, "base")
    assert "base.yaml" in err.value.line() and "field 'faction'" in err.value.line() and "'goblins'" in err.value.line()


def test_a_version_that_breaks_the_campaign_is_warned_of(data):
    """The campaign used to be checked under base alone: a version dropping a crew's lore card
    passed validation and stopped `simulate-run --rules` instead."""
    (data / "frontier" / "rules" / "nolore.yaml").write_text(
        "version: nolore\nextends: base\nremove: [lucky-nugget-gob]\n")
    res = validate(data)
    assert res.returncode == 0, res.stderr
    text = " ".join(res.stdout.split())  # the console may wrap a long line
    assert text.count("warning: campaign") == 1, res.stdout
    warned = text.split("warning: campaign", 1)[1]
    assert all(w in warned for w in ("under nolore", "crews.yaml", "gold-gang", "lore", "lucky-nugget-gob"))
