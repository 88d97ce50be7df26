"""The input-handling audit's gaps, each closed: a crew id twice in a campaign file, a copied deck
file that kept its id, ``*.yml`` files, hidden files (an editor's lock link), a parent's mistake in
an ``extends`` chain, and a rules version that breaks AlleyWay's bosses. Each mistake gets one
clear line naming the file, the record and the field, exit 2, no traceback."""
from __future__ import annotations

import shutil

import pytest
import yaml

from cardsdb.errors import DataError, DataErrors
from cardsdb.loader import load_campaign, load_game, load_ruleset, resolve
from tests.conftest import DATA, cli_here


def copy_game(tmp_path, game: str = "frontier"):
    """A private copy of one game's data, and its folder."""
    root = tmp_path / "data"
    shutil.copytree(DATA / game, root / game, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return root, root / game


def validate(root, game: str = "frontier"):
    return cli_here("cards", "validate", game, "--data-dir", str(root))


def error_lines(res) -> list[str]:
    assert "Traceback" not in res.stderr + res.stdout, res.stderr
    return [line for line in res.stderr.splitlines() if line.startswith("error:")]


def one_error(res, *needles) -> str:
    """Exit 2, exactly one error line, naming every needle."""
    assert res.returncode == 2, (res.returncode, res.stdout, res.stderr)
    lines = error_lines(res)
    assert len(lines) == 1, lines
    assert all(n in lines[0] for n in needles), (needles, lines[0])
    return lines[0]


def raised(call) -> list[str]:
    """The error lines ``call()`` raises (DataError or DataErrors)."""
    with pytest.raises((DataError, DataErrors)) as caught:
        call()
    exc = caught.value
    return [e.line() for e in exc.errors] if isinstance(exc, DataErrors) else [exc.line()]


# --- finding 1: a crew id twice in the campaign's crews file -----------------------------------------

def test_a_crew_id_twice_is_one_line_naming_the_file_the_crew_and_the_field(tmp_path):
    """Renaming gold-gang's id to dust-creek-lawmen silently replaced the first crew: validate said
    ok, and simulate-run played Grixx's Gold Gang as the Dust Creek Lawmen."""
    root, game = copy_game(tmp_path)
    crews = game / "campaign" / "crews.yaml"
    text = crews.read_text(encoding="utf-8")
    assert "\n- id: gold-gang\n" in text
    crews.write_text(text.replace("\n- id: gold-gang\n", "\n- id: dust-creek-lawmen\n"), encoding="utf-8")
    line = one_error(validate(root), "crews.yaml", "crew 'dust-creek-lawmen'", "field 'id'", "duplicate crew id",
                     "Grixx's Gold Gang")
    assert "card 'dust-creek-lawmen'" not in line
    data, base = load_ruleset("frontier", "base", root)
    lines = raised(lambda: load_campaign(data, base, "ashfall-trail"))
    assert len(lines) == 1 and "crew 'dust-creek-lawmen'" in lines[0], lines


@pytest.mark.parametrize("where", ["rewards", "unlocks"])
def test_a_reward_card_listed_twice_is_named(tmp_path, where):
    """Rewards and a crew's unlocks are offered as a set: a card listed twice was silently one card
    (a slip for another card, most likely). Lore lists copies in the run deck, so it may repeat."""
    root, game = copy_game(tmp_path)
    if where == "rewards":
        path = game / "campaign" / "ashfall-trail.yaml"
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        doc["rewards"].append(doc["rewards"][0])
        needles = ("ashfall-trail.yaml", f"card '{doc['rewards'][0]}'", "field 'rewards'", "listed twice")
    else:
        path = game / "campaign" / "crews.yaml"
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        doc[0]["unlocks"].append(doc[0]["unlocks"][0])
        doc[1]["lore"].append(doc[1]["lore"][0])  # two copies of a lore card: allowed
        needles = ("crews.yaml", f"crew '{doc[0]['id']}'", "field 'unlocks'", doc[0]["unlocks"][0], "listed twice")
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    one_error(validate(root), *needles)


def test_a_crew_s_reference_problem_names_the_crew(tmp_path):
    root, game = copy_game(tmp_path)
    path = game / "campaign" / "crews.yaml"
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc[0]["lore"] = ["no-such-card"]
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    one_error(validate(root), "crews.yaml", f"crew '{doc[0]['id']}'", "field 'lore'", "unknown card", "no-such-card")


# --- finding 4: a deck file copied with its id unchanged ---------------------------------------------

@pytest.mark.parametrize("copy", ["lawmen-aggro", "aa-lawmen", "zz-lawmen"])
def test_a_copied_deck_file_names_the_copy_the_id_and_both_files(tmp_path, copy):
    """The copy kept `id: lawmen-posse`: the error blamed the untouched lawmen-posse.yaml and named
    no id. Now the copy is the file at fault, whichever sorts first."""
    root, game = copy_game(tmp_path)
    original = game / "decks" / "lawmen-posse.yaml"
    text = original.read_text(encoding="utf-8")
    (game / "decks" / f"{copy}.yaml").write_text(text.replace("name: Lawmen Posse", "name: Lawmen Aggro"),
                                                 encoding="utf-8")
    line = one_error(validate(root), f"{copy}.yaml: deck 'lawmen-posse': field 'id'", "duplicate deck id",
                     "decks/lawmen-posse.yaml")
    assert not line.startswith("error: " + str(original)), line


def test_a_deck_file_s_name_is_its_id(tmp_path):
    root, game = copy_game(tmp_path)
    path = game / "decks" / "lawmen-posse.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("id: lawmen-posse", "id: lawmen-posse-2"),
                    encoding="utf-8")
    one_error(validate(root), "lawmen-posse.yaml", "deck 'lawmen-posse-2'", "field 'id'",
              "must match the file name 'lawmen-posse'")


@pytest.mark.parametrize("game", ["frontier", "alleyway", "allegiance"])
def test_every_shipped_deck_file_is_named_by_its_id(game):
    data = load_game(game)
    assert not data.errors, [e.line() for e in data.errors[:3]]
    assert data.decks and all(data.deck_files[d].stem == d for d in data.decks)


# --- finding 7: *.yml files ------------------------------------------------------------------------

NEW_CARD = ("- id: tin-star-veteran\n  name: Tin Star Veteran\n  type: creature\n  faction: humans\n"
            "  cost: {mana: 2}\n  atk: 2\n  def: 2\n")


def test_a_yml_card_file_is_read_like_a_yaml_one(tmp_path):
    """new-cards.yml was passed over without a word, and the deck naming its card said "unknown card"."""
    root, game = copy_game(tmp_path)
    (game / "cards" / "new-cards.yml").write_text(NEW_CARD, encoding="utf-8")
    deck = game / "decks" / "lawmen-posse.yaml"
    deck.write_text(deck.read_text(encoding="utf-8").replace("  tin-star-recruit: 3", "  tin-star-veteran: 3"),
                    encoding="utf-8")
    res = validate(root)
    assert res.returncode == 0, res.stderr
    _data, base = load_ruleset("frontier", "base", root)
    assert base.cards["tin-star-veteran"].atk == 2


def test_yml_rules_deck_and_boss_files_are_read_and_named_by_their_file(tmp_path):
    root, game = copy_game(tmp_path)
    (game / "rules" / "tough.yml").write_text("version: tough\nextends: base\nconstants: {starting_hp: 40}\n")
    (game / "decks" / "lawmen-posse.yaml").rename(game / "decks" / "lawmen-posse.yml")
    _data, tough = load_ruleset("frontier", "tough", root)
    assert tough.constants.starting_hp == 40
    data = load_game("frontier", root)
    assert data.deck_files["lawmen-posse"].name == "lawmen-posse.yml"
    # the version's name is still its file's name
    (game / "rules" / "tough.yml").write_text("version: rough\nextends: base\n")
    one_error(validate(root), "tough.yml", "field 'version'", "must match the file name 'tough'")


@pytest.mark.parametrize("folder,stem,what", [("rules", "base", "rules version"), ("decks", "lawmen-posse", "deck")])
def test_one_name_in_a_yaml_and_a_yml_file_is_one_line_naming_both(tmp_path, folder, stem, what):
    root, game = copy_game(tmp_path)
    shutil.copy(game / folder / f"{stem}.yaml", game / folder / f"{stem}.yml")
    one_error(validate(root), f"{stem}.yml", f"{stem}.yaml", f"{what} '{stem}'", "keep one")


def test_a_yml_boss_file_is_read(tmp_path):
    root, game = copy_game(tmp_path, "alleyway")
    (game / "bosses" / "the-house.yaml").rename(game / "bosses" / "the-house.yml")
    data = load_game("alleyway", root)
    assert not data.errors and data.boss_files["the-house"].name == "the-house.yml"


# --- finding 8: hidden files and dangling links ------------------------------------------------------

def test_an_editor_lock_link_and_hidden_files_are_passed_over(tmp_path):
    """Emacs's lock `.#humans.yaml` (a link to user@host.pid, which is no file) blocked every command
    with a message naming the link's target."""
    root, game = copy_game(tmp_path)
    (game / "cards" / ".#humans.yaml").symlink_to("me@host.123:1700000000")
    (game / "decks" / ".#lawmen-posse.yaml").symlink_to("me@host.123:1700000000")
    (game / "rules" / ".draft.yaml").write_text("not: [valid\n")  # a hidden half-written file
    (game / "cards" / ".humans.yaml.swp").write_bytes(b"\x00\x01vim swap")
    res = validate(root)
    assert res.returncode == 0, res.stderr
    assert "me@host" not in res.stdout + res.stderr


def test_a_dangling_data_link_names_the_link_not_its_target(tmp_path):
    """A link with a data file's name whose file is gone is not passed over (its cards would vanish
    without a word): one line naming the link."""
    root, game = copy_game(tmp_path)
    (game / "cards" / "moved.yaml").symlink_to(tmp_path / "elsewhere" / "moved.yaml")
    line = one_error(validate(root), "cards/moved.yaml", "link", "not there")
    assert line.startswith("error: ") and "elsewhere" in line.split("cards/moved.yaml", 1)[1]


# --- finding 5: a parent's mistake in an extends chain ------------------------------------------------

def chain(game, mid: str, child: str = "version: child\nextends: mid\npatch:\n  bison-bull: {atk: 7}\n"):
    (game / "rules" / "mid.yaml").write_text(mid)
    (game / "rules" / "child.yaml").write_text(child)


@pytest.mark.parametrize("mid,needles", [
    ("version: mid\nextends: base\nconstants: {starting_hp: 0}\n", ("field 'constants.starting_hp'", "(got 0)")),
    ("version: mid\nextends: base\npatch:\n  bison-bull: {def: -2}\n", ("card 'bison-bull'", "field 'def'")),
    ("version: mid\nextends: base\npatch:\n  bison-bull: {cost: {mana: -1}}\n", ("card 'bison-bull'", "field 'cost.mana'")),
    ("version: mid\nextends: base\nconstants: {opening_hand: 60}\n", ("opening_hand",)),
])
def test_a_parent_s_mistake_names_the_parent_s_file(tmp_path, mid, needles):
    """mid.yaml's `starting_hp: 0` was blamed on child.yaml, which only extends mid."""
    root, game = copy_game(tmp_path)
    chain(game, mid)
    data = load_game("frontier", root)
    [line] = raised(lambda: resolve(data, "child"))
    assert "mid.yaml" in line and "child.yaml" not in line and "rules version 'child'" in line, line
    assert all(n in line for n in needles), line
    [own] = raised(lambda: resolve(data, "mid"))
    assert own.startswith(line.split(" (rules version 'child'")[0]) and "'child'" not in own, (own, line)
    # cards validate says it once, naming mid.yaml
    one_error(validate(root), "mid.yaml", *needles)
    # and a command run on the child version names mid.yaml too
    res = cli_here("cards", "export", "frontier", "--rules", "child", "--csv", str(tmp_path / "c.csv"),
                   "--data-dir", str(root))
    one_error(res, "mid.yaml", "'child'", *needles)
    assert not (tmp_path / "c.csv").exists()


def test_the_child_s_own_mistake_still_names_the_child(tmp_path):
    root, game = copy_game(tmp_path)
    chain(game, "version: mid\nextends: base\npatch:\n  bison-bull: {def: 2}\n",
          "version: child\nextends: mid\nconstants: {starting_hp: 0}\npatch:\n  bison-bull: {atk: -1}\n")
    data = load_game("frontier", root)
    [line] = raised(lambda: resolve(data, "child"))
    assert "child.yaml" in line and "field 'atk'" in line and "builds on" not in line, line


# --- finding 3: a rules version that breaks AlleyWay's bosses -----------------------------------------

def test_a_version_raising_starting_morale_names_itself_the_constant_and_the_boss(tmp_path):
    root, game = copy_game(tmp_path, "alleyway")
    (game / "rules" / "hp.yaml").write_text("version: hp\nextends: base\n"
                                            "constants: {starting_morale: 20000, morale_cap: 20000}\n")
    lines = raised(lambda: load_ruleset("alleyway", "hp", root))
    assert len(lines) == len(load_game("alleyway", root).bosses), lines
    line = next(x for x in lines if "iron-curtain" in x)
    assert "rules/hp.yaml (constants.starting_morale 20000) leaves " in line, line
    assert "bosses/iron-curtain.yaml: boss 'iron-curtain': field 'morale'" in line and "morale_cap" not in line, line
    res = cli_here("simulate", "alleyway", "--data-dir", str(root), "--rules", "hp", "--decks",
                   "graves-garrison,cinder-wildfire", "--pilots", "random", "--workers", "1", "--matches", "2",
                   "--quiet", "--db", str(tmp_path / "s.duckdb"))
    assert res.returncode == 2 and all("hp.yaml (constants.starting_morale 20000) leaves" in x
                                       for x in error_lines(res)), res.stderr
    assert not (tmp_path / "s.duckdb").exists()


def test_a_version_removing_a_boss_s_card_names_the_removal(tmp_path):
    root, game = copy_game(tmp_path, "alleyway")
    (game / "rules" / "rm.yaml").write_text("version: rm\nextends: base\nremove: [lucky-lou-1]\n")
    lines = raised(lambda: load_ruleset("alleyway", "rm", root))
    assert lines and all(x.startswith(f"{game / 'rules' / 'rm.yaml'} (remove lucky-lou-1) leaves ")
                         or "rules/rm.yaml (remove lucky-lou-1) leaves " in x for x in lines), lines
    assert any("boss 'the-house': field 'deck.cards'" in x and "(lucky-lou-1)" in x for x in lines), lines


def test_a_grandparent_s_change_is_named_not_the_version_s(tmp_path):
    root, game = copy_game(tmp_path, "alleyway")
    (game / "rules" / "hp.yaml").write_text("version: hp\nextends: base\n"
                                            "constants: {starting_morale: 20000, morale_cap: 20000}\n")
    (game / "rules" / "kid.yaml").write_text("version: kid\nextends: hp\nconstants: {deck_min: 40}\n")
    lines = raised(lambda: load_ruleset("alleyway", "kid", root))
    assert all("hp.yaml (constants.starting_morale 20000) leaves" in x and "kid.yaml" not in x for x in lines), lines
    # validate: each boss once (hp's lines; kid meets the very same)
    res = validate(root, "alleyway")
    assert res.returncode == 2 and len(error_lines(res)) == len(lines), res.stderr


def test_a_boss_file_s_own_mistake_is_one_line_naming_the_boss_file_only(tmp_path):
    """A boss the base version already refuses is the boss file's mistake: no rules file is named,
    and validate says it once, not once per rules version."""
    root, game = copy_game(tmp_path, "alleyway")
    path = game / "bosses" / "the-furnace-king.yaml"
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["morale"] = 5000
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    assert len(load_game("alleyway", root).rules) >= 2
    line = one_error(validate(root, "alleyway"), "bosses/the-furnace-king.yaml: boss 'the-furnace-king': field 'morale'",
                     "more Morale")
    assert "leaves" not in line and "rules/" not in line, line
