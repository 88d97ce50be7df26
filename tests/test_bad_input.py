"""Every bad input gets one clear line, a non-zero exit, no traceback, and writes nothing.

Each case below is one kind of malformed input (a card, deck, rules or scenario file, a batch
file, a card sheet to import, a command-line argument, a store). It is fed through the real
command line in this process (``workbench.cli.main``), inside a private copy of the game data,
and the test checks the exit code (2), that exactly one line was printed and that it starts with
``error:`` and names what it should, that no traceback appeared, and that no file anywhere in the
private folder was created, changed or removed (a snapshot of the tree before and after). Cases
marked "silent accept" were accepted without a word before, "traceback" crashed.
"""
from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import duckdb
import pytest
import yaml

from tests.conftest import DATA

GAMES = ("frontier", "alleyway", "allegiance")


@dataclass
class Workspace:
    """A private folder: ``data/<game>`` copies of the shipped YAML, and the working folder."""
    root: Path

    @property
    def data(self) -> Path:
        return self.root / "data"

    def game(self, game: str = "frontier") -> Path:
        return self.data / game

    def write(self, rel: str, text: str | bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    def edit_card(self, card_id: str, game: str = "frontier", file: str = "humans.yaml", **changes) -> None:
        path = self.game(game) / "cards" / file
        cards = yaml.safe_load(path.read_text(encoding="utf-8"))
        found = [c for c in cards if c["id"] == card_id]
        assert found, card_id
        found[0].update(changes)
        path.write_text(yaml.safe_dump(cards, sort_keys=False, allow_unicode=True), encoding="utf-8")

    def rules(self, name: str, doc: dict, game: str = "frontier") -> None:
        (self.game(game) / "rules" / f"{name}.yaml").write_text(yaml.safe_dump({"version": name, **doc}))

    def scenario(self, setup, game: str = "frontier", **extra) -> str:
        doc = {"name": "bad", "game": game, "setup": setup, "steps": [], **extra}
        self.write("bad-scenario.yaml", yaml.safe_dump(doc))
        return "bad-scenario.yaml"

    def batch(self, suites: list[dict], **extra) -> str:
        self.write("batch.yaml", yaml.safe_dump({"name": "nightly", "suites": suites, **extra}))
        return "batch.yaml"

    def sheet(self, transform: Callable[[str], str | bytes]) -> str:
        """The base card sheet of Wild Frontier, exported and then spoiled by ``transform``."""
        from cardsdb.loader import load_ruleset
        from cardsdb.spreadsheet import write_cards_csv

        _data, ruleset = load_ruleset("frontier", "base", self.data)
        path = self.root / "sheet.csv"
        write_cards_csv(ruleset, path)
        spoiled = transform(path.read_text(encoding="utf-8"))
        self.write("sheet.csv", spoiled)
        return "sheet.csv"

    def other_duckdb(self, name: str = "other.duckdb") -> str:
        con = duckdb.connect(str(self.root / name))
        con.execute("CREATE TABLE invoices (id INTEGER, total DOUBLE)")
        con.execute("INSERT INTO invoices VALUES (1, 9.5)")
        con.close()
        return name


@dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[Workspace], list[str]]  # spoils the workspace, returns the arguments
    needles: tuple[str, ...] = ()           # words the error line must hold
    banned: tuple[str, ...] = field(default=())  # words it must not (a wrong diagnosis)


VALIDATE = ["cards", "validate", "frontier"]
QUICK = ["--matches", "2", "--workers", "1", "--quiet"]
HUMANS = "data/frontier/cards/humans.yaml"
GOOD_SUITE = {"name": "ok", "game": "frontier", "decks": ["lawmen-posse", "goblin-gold-gang"], "matches": 2}


def _text(ws: Workspace, rel: str) -> str:
    return (ws.root / rel).read_text(encoding="utf-8")


def _validate(game: str = "frontier") -> list[str]:
    return ["cards", "validate", game]


def _card_text(ws: Workspace, old: str, new: str) -> list[str]:
    text = _text(ws, HUMANS)
    assert old in text
    ws.write(HUMANS, text.replace(old, new, 1))
    return VALIDATE


def _sheet_row(text: str, column: str, value: str) -> str:
    """The sheet with the first card's ``column`` set to ``value``."""
    import csv
    import io

    rows = list(csv.DictReader(io.StringIO(text)))
    rows[0][column] = value
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


CASES = [
    # --- card files -------------------------------------------------------------------------------
    Case("card-latin1-byte", lambda ws: (ws.write(HUMANS, _text(ws, HUMANS).replace(
        "Tin Star Recruit", "Tin Star Recru\u00eft").encode("latin-1")), VALIDATE)[1],
         ("humans.yaml", "not UTF-8")),
    Case("card-utf16-file", lambda ws: (ws.write(HUMANS, _text(ws, HUMANS).encode("utf-16")), VALIDATE)[1],
         ("humans.yaml", "not UTF-8")),
    Case("card-duplicate-key", lambda ws: _card_text(ws, "  atk: 1\n  def: 1\n", "  atk: 1\n  def: 1\n  atk: 9\n"),
         ("humans.yaml", "'atk' appears twice")),
    Case("card-atk-past-int32", lambda ws: (ws.edit_card("tin-star-recruit", atk=3_000_000_000), VALIDATE)[1],
         ("card 'tin-star-recruit'", "atk 3000000000 is above the largest value this game allows")),
    Case("card-atk-10e30", lambda ws: (ws.edit_card("tin-star-recruit", atk=10**30), VALIDATE)[1],
         ("card 'tin-star-recruit'", "atk", "above the largest value")),
    Case("card-mana-10e12", lambda ws: (ws.edit_card("tin-star-recruit", cost={"mana": 10**12}), VALIDATE)[1],
         ("cost.mana 1000000000000 is above",)),
    Case("card-keyword-huge", lambda ws: (ws.edit_card("tin-star-recruit", keywords={"fortify": 10**9}), VALIDATE)[1],
         ("keywords.fortify", "above")),
    Case("card-ability-amount-huge", lambda ws: (ws.edit_card(
        "homestead-settler", abilities=[{"when": "played", "do": [{"effect": "damage", "amount": 10**15,
                                                                   "target": "enemy sheriff"}]}]), VALIDATE)[1],
         ("homestead-settler",)),
    Case("card-markup-in-id", lambda ws: (ws.edit_card("tin-star-recruit", id="[/red]"), VALIDATE)[1],
         ("[/red]",)),
    Case("card-pattern-shown-whole", lambda ws: (ws.edit_card("tin-star-recruit", id="Bad Id"), VALIDATE)[1],
         ("[a-z0-9]",)),
    Case("card-markup-in-unknown-field", lambda ws: (ws.edit_card("tin-star-recruit", **{"[bold]x[/bold]": 1}),
                                                     VALIDATE)[1], ("[bold]x[/bold]",)),
    Case("card-file-is-a-mapping", lambda ws: (ws.write(HUMANS, "id: x\nname: y\n"), VALIDATE)[1],
         ("humans.yaml", "list of cards")),
    Case("card-entry-is-a-number", lambda ws: (ws.write(HUMANS, "- 5\n"), VALIDATE)[1], ("humans.yaml", "mapping")),
    Case("card-bad-yaml", lambda ws: (ws.write(HUMANS, "- id: x\n  name: [unclosed\n"), VALIDATE)[1],
         ("humans.yaml", "bad YAML", "line")),
    Case("card-python-tag", lambda ws: (ws.write(HUMANS, "- !!python/object/apply:os.system ['true']\n"),
                                        VALIDATE)[1], ("humans.yaml", "bad YAML")),
    Case("card-nul-byte", lambda ws: (ws.write(HUMANS, "- id: x\x00\n"), VALIDATE)[1], ("humans.yaml",)),
    Case("card-deep-nesting", lambda ws: (ws.write(HUMANS, "[" * 5000 + "]" * 5000), VALIDATE)[1],
         ("humans.yaml",)),
    Case("card-file-is-a-folder", lambda ws: ((ws.game() / "cards" / "folder.yaml").mkdir(), VALIDATE)[1],
         ("folder.yaml", "folder")),
    Case("card-duplicate-id", lambda ws: (ws.write("data/frontier/cards/zz.yaml", "- id: tin-star-recruit\n  "
                                                   "name: Twin\n  type: creature\n  faction: humans\n  cost: "
                                                   "{mana: 1}\n  atk: 1\n  def: 1\n"), VALIDATE)[1],
         ("zz.yaml", "duplicate card id")),
    Case("card-unknown-keyword", lambda ws: (ws.edit_card("tin-star-recruit", keywords={"ambsh": True}), VALIDATE)[1],
         ("unknown keyword 'ambsh'",)),
    # YAML reads yes/no/true/false as flags, which pydantic took for 1 or 0 (silent accept)
    Case("card-atk-yes", lambda ws: _card_text(ws, "  atk: 1\n", "  atk: yes\n"),
         ("humans.yaml", "card 'tin-star-recruit'", "atk", "not yes/no")),
    Case("card-cost-false", lambda ws: (ws.edit_card("tin-star-recruit", cost={"mana": False}), VALIDATE)[1],
         ("card 'tin-star-recruit'", "cost.mana", "not yes/no")),
    Case("card-file-empty", lambda ws: (ws.write(HUMANS, "# nothing yet\n"), VALIDATE)[1],
         ("humans.yaml", "empty", "write []"), ("unknown card",)),
    # --- decks ------------------------------------------------------------------------------------
    Case("deck-copies-yes", lambda ws: (ws.write("data/frontier/decks/lawmen-posse.yaml", _text(
        ws, "data/frontier/decks/lawmen-posse.yaml").replace("tin-star-recruit: 3", "tin-star-recruit: yes")),
        VALIDATE)[1], ("lawmen-posse.yaml", "tin-star-recruit", "not yes/no")),
    # one count too many is one mistake: the deck's size it throws off is not a second line
    Case("deck-copies-nine", lambda ws: (ws.write("data/frontier/decks/lawmen-posse.yaml", _text(
        ws, "data/frontier/decks/lawmen-posse.yaml").replace("tin-star-recruit: 3", "tin-star-recruit: 9")),
        VALIDATE)[1], ("lawmen-posse.yaml", "tin-star-recruit", "9 copies"), ("exactly",)),
    Case("allegiance-deck-misspelt-card", lambda ws: (ws.write("data/allegiance/decks/forge-reapers.yaml", _text(
        ws, "data/allegiance/decks/forge-reapers.yaml").replace("ash-thrall: 3", "ash-thral: 3")),
        _validate("allegiance"))[1], ("forge-reapers.yaml", "ash-thral", "unknown card"), ("warriors",)),
    Case("deck-unknown-card", lambda ws: (ws.write("data/frontier/decks/lawmen-posse.yaml", _text(
        ws, "data/frontier/decks/lawmen-posse.yaml").replace("tin-star-recruit: 3", "no-such-card: 3")), VALIDATE)[1],
         ("lawmen-posse.yaml", "no-such-card")),
    Case("deck-copies-10e30", lambda ws: (ws.write("data/frontier/decks/lawmen-posse.yaml", _text(
        ws, "data/frontier/decks/lawmen-posse.yaml").replace("tin-star-recruit: 3", f"tin-star-recruit: {10**30}")),
        VALIDATE)[1], ("lawmen-posse.yaml",)),
    Case("deck-cards-a-number", lambda ws: (ws.write("data/frontier/decks/lawmen-posse.yaml", _text(
        ws, "data/frontier/decks/lawmen-posse.yaml").split("cards:")[0] + "cards: 5\n"), VALIDATE)[1],
         ("lawmen-posse.yaml", "cards")),
    Case("deck-duplicate-key", lambda ws: (ws.write("data/frontier/decks/lawmen-posse.yaml", _text(
        ws, "data/frontier/decks/lawmen-posse.yaml") + "  tin-star-recruit: 1\n"), VALIDATE)[1],
         ("lawmen-posse.yaml", "appears twice")),
    Case("deck-latin1", lambda ws: (ws.write("data/frontier/decks/lawmen-posse.yaml", _text(
        ws, "data/frontier/decks/lawmen-posse.yaml").replace("Badges", "B\u00e4dges").encode("latin-1")),
        VALIDATE)[1], ("lawmen-posse.yaml", "not UTF-8")),
    Case("deck-copies-a-word", lambda ws: (ws.write("data/frontier/decks/lawmen-posse.yaml", _text(
        ws, "data/frontier/decks/lawmen-posse.yaml").replace("tin-star-recruit: 3", "tin-star-recruit: three")),
        VALIDATE)[1], ("lawmen-posse.yaml", "tin-star-recruit")),
    # --- rules versions ---------------------------------------------------------------------------
    Case("rules-add-without-id", lambda ws: (ws.rules("x", {"extends": "base", "add": [{"name": "Nobody"}]}),
                                             VALIDATE)[1], ("x.yaml", "add", "no id")),
    Case("rules-opening-hand-60", lambda ws: (ws.rules("x", {"extends": "base", "constants": {"opening_hand": 60}}),
                                              VALIDATE)[1], ("x.yaml", "opening_hand", "deck_size 52")),
    Case("rules-zix-hand-60", lambda ws: (ws.rules("x", {"extends": "base", "constants": {"zix_opening_hand": 60}}),
                                          VALIDATE)[1], ("x.yaml", "zix_opening_hand")),
    Case("rules-opening-hand-10e30", lambda ws: (ws.rules("x", {"extends": "base", "constants": {
        "opening_hand": 10**30}}), VALIDATE)[1], ("x.yaml", "opening_hand")),
    Case("rules-weight-infinite", lambda ws: (ws.write("data/frontier/rules/x.yaml", "version: x\nextends: base\n"
                                                       "constants: {gold_budget_weight: .inf}\n"), VALIDATE)[1],
         ("x.yaml", "gold_budget_weight")),
    Case("rules-weight-nan", lambda ws: (ws.write("data/frontier/rules/x.yaml", "version: x\nextends: base\n"
                                                  "constants: {gold_budget_weight: .nan}\n"), VALIDATE)[1],
         ("x.yaml", "gold_budget_weight")),
    Case("rules-extends-itself", lambda ws: (ws.rules("x", {"extends": "x"}), VALIDATE)[1], ("extends loop",)),
    Case("rules-extends-missing", lambda ws: (ws.rules("x", {"extends": "nope"}), VALIDATE)[1], ("'nope'",)),
    Case("rules-patch-unknown-card", lambda ws: (ws.rules("x", {"extends": "base", "patch": {"nope": {"atk": 2}}}),
                                                 VALIDATE)[1], ("card 'nope'", "patch")),
    Case("rules-patch-atk-past-int32", lambda ws: (ws.rules("x", {"extends": "base", "patch": {
        "tin-star-recruit": {"atk": 3_000_000_000}}}), VALIDATE)[1], ("x.yaml", "3000000000", "above")),
    Case("rules-version-not-file-name", lambda ws: (ws.rules("x", {"extends": "base"}), ws.write(
        "data/frontier/rules/x.yaml", "version: y\nextends: base\n"), VALIDATE)[2], ("x.yaml", "file name")),
    Case("rules-unknown-constant", lambda ws: (ws.rules("x", {"extends": "base", "constants": {"hp": 5}}),
                                               VALIDATE)[1], ("x.yaml", "'hp'")),
    Case("rules-remove-unknown", lambda ws: (ws.rules("x", {"extends": "base", "remove": ["nope"]}), VALIDATE)[1],
         ("card 'nope'", "remove")),
    Case("rules-add-is-a-number", lambda ws: (ws.rules("x", {"extends": "base", "add": 5}), VALIDATE)[1],
         ("x.yaml", "add")),
    Case("alleyway-opening-hand-past-deck-min", lambda ws: (ws.rules("x", {"extends": "base", "constants": {
        "opening_hand": 45}}, game="alleyway"), _validate("alleyway"))[1], ("x.yaml", "opening_hand", "deck_min")),
    Case("allegiance-opening-hand-past-deck", lambda ws: (ws.rules("x", {"extends": "base", "constants": {
        "opening_hand": 41}}, game="allegiance"), _validate("allegiance"))[1], ("x.yaml", "opening_hand")),
    Case("alleyway-atk-10e30", lambda ws: (ws.rules("x", {"extends": "base", "patch": {
        "captain-marlow": {"atk": 10**30}}}, game="alleyway"), _validate("alleyway"))[1], ("atk", "above")),
    # a card naming another card the version lacks: a typo'd token or next level used to pass validation
    # and stop the first match that met it (KeyError), or be blamed on a boss whose deck holds it
    Case("alleyway-token-names-no-card", lambda ws: (ws.edit_card(
        "bone-harvest", game="alleyway", file="underworld.yaml", abilities=[{"when": "played", "do": [
            {"effect": "token", "card": "skeletn", "count": 3}]}]), _validate("alleyway"))[1],
         ("underworld.yaml", "bone-harvest", "abilities.0.do.0.card", "'skeletn'")),
    Case("alleyway-promotes-to-no-card", lambda ws: (ws.edit_card(
        "kindle-1", game="alleyway", file="arsonists.yaml", promotes_to="kindle-9"), _validate("alleyway"))[1],
         ("arsonists.yaml", "kindle-1", "promotes_to", "'kindle-9'"), banned=("boss",)),
    Case("alleyway-remove-a-named-token", lambda ws: (ws.rules("x", {"extends": "base", "remove": ["skeleton"]},
                                                               game="alleyway"), _validate("alleyway"))[1],
         ("x.yaml", "'skeleton'", "remove", "bone-harvest")),
    Case("alleyway-patch-a-token-to-no-card", lambda ws: (ws.rules("x", {"extends": "base", "patch": {
        "bone-harvest": {"abilities": [{"when": "played", "do": [{"effect": "token", "card": "ghoul"}]}]}}},
        game="alleyway"), _validate("alleyway"))[1], ("x.yaml", "bone-harvest", "'ghoul'")),
    # --- scenarios --------------------------------------------------------------------------------
    Case("scenario-hand-a-number", lambda ws: ["scenario", "run", ws.scenario({"seats": [{"hand": 5}, {}]})],
         ("bad-scenario.yaml", "hand", "list of card ids")),
    Case("scenario-unit-a-number", lambda ws: ["scenario", "run", ws.scenario({"seats": [{"lanes": {"m3": 7}}, {}]})],
         ("bad-scenario.yaml", "m3")),
    Case("scenario-lanes-a-number", lambda ws: ["scenario", "run", ws.scenario({"seats": [{"lanes": 5}, {}]})],
         ("bad-scenario.yaml", "setup")),
    Case("scenario-active-5", lambda ws: ["scenario", "run", ws.scenario({"active": 5})],
         ("bad-scenario.yaml", "active", "not a seat")),
    Case("scenario-turn-minus-7", lambda ws: ["scenario", "run", ws.scenario({"turn": -7})],
         ("bad-scenario.yaml", "turn", "-7")),
    Case("scenario-seats-oops", lambda ws: ["scenario", "run", ws.scenario({"seats": "oops"})],
         ("bad-scenario.yaml", "seats", "'oops'"), banned=("unknown field 'o'",)),
    Case("scenario-setup-a-list", lambda ws: ["scenario", "run", ws.scenario([1, 2])], ("bad-scenario.yaml",)),
    Case("scenario-unknown-game", lambda ws: ["scenario", "run", ws.scenario({}, game="chess")],
         ("bad-scenario.yaml", "game", "chess")),
    Case("scenario-missing-file", lambda ws: ["scenario", "run", "nope.yaml"], ("nope.yaml", "no such")),
    Case("scenario-seed-2-70", lambda ws: ["scenario", "run", ws.scenario({}, seed=2**70)],
         ("bad-scenario.yaml", "seed")),
    Case("scenario-unknown-rules", lambda ws: ["scenario", "run", ws.scenario({}, rules="nope")],
         ("bad-scenario.yaml", "nope")),
    Case("scenario-unknown-card", lambda ws: ["scenario", "run", ws.scenario({"seats": [{"hand": ["nope"]}, {}]})],
         ("bad-scenario.yaml", "unknown card 'nope'")),
    Case("scenario-duplicate-key", lambda ws: (ws.write("s.yaml", "name: a\nname: b\ngame: frontier\nsetup: {}\n"
                                                        "steps: []\n"), ["scenario", "run", "s.yaml"])[1],
         ("s.yaml", "'name' appears twice")),
    Case("scenario-latin1", lambda ws: (ws.write("s.yaml", "name: caf\xe9\ngame: frontier\nsetup: {}\nsteps: []\n"
                                                 .encode("latin-1")), ["scenario", "run", "s.yaml"])[1],
         ("s.yaml", "not UTF-8")),
    Case("alleyway-scenario-hand-a-number", lambda ws: ["scenario", "run", ws.scenario(
        {"seats": [{"hand": 5}, {}]}, game="alleyway")], ("hand", "list of card ids")),
    Case("allegiance-scenario-turn-minus-1", lambda ws: ["scenario", "run", ws.scenario({"turn": -1},
                                                                                        game="allegiance")],
         ("turn",)),
    # --- batch files ------------------------------------------------------------------------------
    Case("batch-bad-game-in-suite-3", lambda ws: ["batch", ws.batch([
        GOOD_SUITE, {**GOOD_SUITE, "name": "two"}, {**GOOD_SUITE, "name": "three", "game": "chess"}])],
         ("batch.yaml", "suite 'three'", "chess")),
    Case("batch-bad-pilot-in-suite-2", lambda ws: ["batch", ws.batch([
        GOOD_SUITE, {**GOOD_SUITE, "name": "two", "pilots": ["wizard"]}])], ("suite 'two'", "wizard")),
    Case("batch-unknown-baseline", lambda ws: ["batch", ws.batch([{**GOOD_SUITE, "baseline": "nope"}])],
         ("suite 'ok'", "nope")),
    Case("batch-out-is-a-file", lambda ws: (ws.write("report.txt", "x"), ["batch", ws.batch([GOOD_SUITE]),
                                                                          "--out", "report.txt"])[1],
         ("--out", "report.txt", "file")),
    Case("batch-duplicate-suites", lambda ws: ["batch", ws.batch([GOOD_SUITE, GOOD_SUITE])], ("unique",)),
    Case("batch-matches-10e12", lambda ws: ["batch", ws.batch([{**GOOD_SUITE, "matches": 10**12}])],
         ("batch.yaml", "matches")),
    Case("batch-seed-2-70", lambda ws: ["batch", ws.batch([{**GOOD_SUITE, "seed": 2**70}])], ("batch.yaml", "seed")),
    Case("batch-threshold-infinite", lambda ws: (ws.write("b.yaml", "name: n\nthreshold_points: .inf\nsuites:\n"
                                                          "  - {name: ok, game: frontier}\n"), ["batch", "b.yaml"])[1],
         ("b.yaml", "threshold_points")),
    Case("batch-missing-file", lambda ws: ["batch", "nope.yaml"], ("nope.yaml",)),
    Case("batch-a-list", lambda ws: (ws.write("b.yaml", "- 1\n"), ["batch", "b.yaml"])[1], ("b.yaml", "mapping")),
    Case("batch-unknown-deck", lambda ws: ["batch", ws.batch([{**GOOD_SUITE, "decks": ["nope"]}])], ("nope",)),
    Case("batch-bad-day", lambda ws: ["batch", ws.batch([GOOD_SUITE]), "--day", "yesterday"], ("--day",)),
    Case("batch-max-matches-1", lambda ws: ["batch", ws.batch([GOOD_SUITE]), "--max-matches", "1"],
         ("--max-matches",)),
    # --- card sheets (cards import) ---------------------------------------------------------------
    Case("import-as-sub-folder", lambda ws: ["cards", "import", ws.sheet(str), "--game", "frontier", "--as",
                                             "sub/dir"], ("--as", "sub/dir")),
    Case("import-as-escaping", lambda ws: ["cards", "import", ws.sheet(str), "--game", "frontier", "--as",
                                           "../../../escaped"], ("--as",)),
    Case("import-latin1-sheet", lambda ws: ["cards", "import", ws.sheet(
        lambda t: t.replace("Tin Star Recruit", "Tin St\u00e4r").encode("latin-1")), "--game", "frontier",
        "--as", "v2"], ("sheet.csv", "not UTF-8")),
    Case("import-atk-true", lambda ws: ["cards", "import", ws.sheet(
        lambda t: _sheet_row(t, "atk", "TRUE")), "--game", "frontier", "--as", "v2"],
         ("sheet.csv", "atk", "not yes/no")),
    Case("rules-patch-atk-yes", lambda ws: (ws.rules("x", {"extends": "base", "patch": {
        "tin-star-recruit": {"atk": True}}}), VALIDATE)[1], ("x.yaml", "tin-star-recruit", "atk", "not yes/no")),
    Case("import-atk-past-int32", lambda ws: ["cards", "import", ws.sheet(
        lambda t: _sheet_row(t, "atk", "3000000000")), "--game", "frontier", "--as", "v2"],
         ("sheet.csv", "3000000000", "above")),
    Case("import-no-id-column", lambda ws: ["cards", "import", ws.sheet(lambda t: t.replace("id,", "ident,", 1)),
                                            "--game", "frontier", "--as", "v2"], ("sheet.csv", "'id' column")),
    Case("import-nul-byte", lambda ws: ["cards", "import", ws.sheet(lambda t: t.replace("Tin Star", "Tin\x00Star")),
                                        "--game", "frontier", "--as", "v2"], ("sheet.csv", "control character")),
    Case("import-existing-version", lambda ws: ["cards", "import", ws.sheet(str), "--game", "frontier", "--as",
                                                "base"], ("already exists",)),
    Case("import-unchanged-sheet", lambda ws: ["cards", "import", ws.sheet(str), "--game", "frontier", "--as", "v2"],
         ("sheet.csv", "base's as they are", "no rules version written")),
    Case("import-missing-sheet", lambda ws: ["cards", "import", "nope.csv", "--game", "frontier", "--as", "v2"],
         ("nope.csv",)),
    Case("import-bad-abilities-json", lambda ws: ["cards", "import", ws.sheet(
        lambda t: _sheet_row(t, "abilities", "[{oops")), "--game", "frontier", "--as", "v2"],
         ("sheet.csv", "abilities")),
    Case("export-csv-is-a-folder", lambda ws: ((ws.root / "out").mkdir(), ["cards", "export", "frontier", "--csv",
                                                                            "out"])[1], ("--csv", "folder")),
    # --- command-line arguments -------------------------------------------------------------------
    *[Case(f"simulate-{option.strip('-')}-{value}", (lambda o, v: lambda ws: ["simulate", "frontier", o, v,
                                                                               "--quiet"])(option, value),
           (option,))
      for option, value in (("--workers", "0"), ("--workers", "-3"), ("--workers", "1000"),
                            ("--chunk-size", "0"), ("--chunk-size", "-2"), ("--matches", "0"),
                            ("--matches", str(10**12)), ("--seed", str(2**70)), ("--seed", "2**70"),
                            ("--resume", "0"), ("--events", "2"), ("--events", "nan"))],
    *[Case(f"simulate-cluster-{name}", (lambda v: lambda ws: ["simulate", "frontier", "--cluster", v, *QUICK])(value),
           ("--cluster",))
      for name, value in (("banana", "banana"), ("local-0", "local:0"), ("local-abc", "local:abc"),
                          ("port-99999", "tcp://host:99999"))],
    Case("simulate-decks-commas-only", lambda ws: ["simulate", "frontier", "--decks", ",,,", *QUICK], ("--decks",)),
    Case("simulate-decks-markup", lambda ws: ["simulate", "frontier", "--decks", "[/x]", *QUICK], ("[/x]",)),
    Case("simulate-unknown-pilot", lambda ws: ["simulate", "frontier", "--pilots", "wizard", *QUICK], ("wizard",)),
    Case("simulate-pilot-budget-0", lambda ws: ["simulate", "frontier", "--pilots", "mcts:0", *QUICK], ("mcts:0",)),
    Case("simulate-unknown-game", lambda ws: ["simulate", "chess", *QUICK], ("chess",)),
    Case("simulate-no-game", lambda ws: ["simulate", *QUICK], ("name a game",)),
    Case("simulate-unknown-rules", lambda ws: ["simulate", "frontier", "--rules", "nope", *QUICK], ("nope",)),
    Case("simulate-unknown-option", lambda ws: ["simulate", "frontier", "--colour", "red"], ("--colour",)),
    Case("simulate-resume-missing-store", lambda ws: ["simulate", "--resume", "1", "--db", "missing.duckdb"],
         ("missing.duckdb", "no such store")),
    Case("simulate-run-runs-0", lambda ws: ["simulate-run", "frontier", "--runs", "0"], ("--runs",)),
    Case("simulate-run-unknown-crew", lambda ws: ["simulate-run", "frontier", "--crew", "nobody", "--runs", "1"],
         ("nobody",)),
    Case("simulate-run-crew-commas-only", lambda ws: ["simulate-run", "frontier", "--crew", ",", "--runs", "1"],
         ("--crew",)),
    Case("simulate-run-seed-past-int64", lambda ws: ["simulate-run", "frontier", "--runs", "5", "--seed",
                                                     str(2**63 - 2)], ("--seed",)),
    Case("diff-same-version", lambda ws: ["diff", "frontier", "--base", "base", "--candidate", "base"],
         ("same version",)),
    Case("diff-unknown-candidate", lambda ws: ["diff", "frontier", "--base", "base", "--candidate", "nope",
                                               "--matches", "2", "--workers", "1", "--quiet"], ("nope",)),
    Case("diff-csv-under-a-file", lambda ws: (ws.write("f.txt", "x"), ["diff", "frontier", "--base", "base",
                                                                       "--candidate", "second-seat-mana", "--csv",
                                                                       "f.txt/sub", *QUICK])[1], ("--csv",)),
    Case("value-unknown-deck", lambda ws: ["value", "frontier", "--deck", "nope", *QUICK], ("nope",)),
    Case("value-cards-commas-only", lambda ws: ["value", "frontier", "--deck", "lawmen-posse", "--cards", ",,",
                                                *QUICK], ("--cards",)),
    Case("ladder-one-pilot", lambda ws: ["ladder", "frontier", "--pilots", "greedy", "--matches", "2"], ("pilot",)),
    Case("ladder-too-many-matches", lambda ws: ["ladder", "frontier", "--pilots", "random,greedy", "--matches",
                                                str(10**8)], ("matches",)),
    Case("pilot-sensitivity-unknown-pilot", lambda ws: ["pilot-sensitivity", "frontier", "--pilots", "greedy,wizard"],
         ("wizard",)),
    Case("export-unknown-table", lambda ws: ["export", "nope", "--csv", "x.csv"], ("nope",)),
    Case("export-rules-commas-only", lambda ws: ["export", "cards", "--rules", ",", "--csv", "x.csv"], ("--rules",)),
    # a place the permission bits call writable that still refuses files (/proc, as root): the
    # ladder was played and stored, then the CSV crashed (traceback)
    Case("ladder-csv-unmakeable", lambda ws: ["ladder", "frontier", "--pilots", "random,greedy", "--matches", "2",
                                              "--workers", "1", "--csv", "/proc/wb-no-such/ladder"],
         ("--csv /proc/wb-no-such/ladder", "cannot make the folder")),
    Case("init-unmakeable", lambda ws: ["init", "/proc/wb-no-such-ws"], ("/proc/wb-no-such-ws", "cannot make")),
    Case("scenario-misspelt-step", lambda ws: ["scenario", "run", ws.scenario(
        {"seats": [{}, {}]}, steps=[{"expekt": {"turn": 1}}])], ("bad-scenario.yaml", "step 1 names 'expekt'"),
        ("Value error",)),
    Case("report-run-0", lambda ws: ["report", "0", "--html", "r.html"], ("run",)),
    Case("dashboard-port-70000", lambda ws: ["dashboard", "--port", "70000"], ("--port",)),
    # --- stores -----------------------------------------------------------------------------------
    Case("store-another-apps-duckdb", lambda ws: ["simulate", "frontier", "--db", ws.other_duckdb(), *QUICK],
         ("other.duckdb", "not a workbench store")),
    Case("store-diff-into-another-apps-duckdb", lambda ws: ["diff", "frontier", "--base", "base", "--candidate",
                                                            "second-seat-mana", "--db", ws.other_duckdb(), *QUICK],
         ("other.duckdb", "not a workbench store")),
    Case("store-a-text-file", lambda ws: (ws.write("notes.duckdb", "hello"), ["simulate", "frontier", "--db",
                                                                               "notes.duckdb", *QUICK])[1],
         ("notes.duckdb",)),
    Case("store-a-folder", lambda ws: ((ws.root / "dir.duckdb").mkdir(), ["simulate", "frontier", "--db",
                                                                          "dir.duckdb", *QUICK])[1],
         ("dir.duckdb", "folder")),
    Case("store-in-a-missing-folder", lambda ws: ["simulate", "frontier", "--db", "no/such/x.duckdb", *QUICK],
         ("does not exist",)),
    Case("store-events-folder-is-a-file", lambda ws: (ws.write("x.duckdb.events", "x"), [
        "simulate", "frontier", "--db", "x.duckdb", *QUICK])[1], ("x.duckdb.events",)),
    Case("diff-identical-versions", lambda ws: (ws.rules("same", {"extends": "base"}), [
        "diff", "frontier", "--base", "base", "--candidate", "same", *QUICK])[1],
         ("--candidate same", "same cards and rules", "nothing would differ")),
    Case("diff-sequential-cap-below-first-look", lambda ws: [
        "diff", "frontier", "--base", "base", "--candidate", "second-seat-mana", "--until-decided", "--max-matches",
        "50", "--workers", "1", "--quiet"], ("--max-matches 50", "looks first after")),
    Case("export-parquet-named-csv", lambda ws: ["export", "matches", "--parquet", "m.csv", "--db", "x.duckdb"],
         ("--parquet m.csv", "Parquet")),
    Case("export-csv-named-parquet", lambda ws: ["export", "matches", "--csv", "m.parquet", "--db", "x.duckdb"],
         ("--csv m.parquet", "CSV")),
    Case("store-runs-missing", lambda ws: ["runs", "--db", "missing.duckdb"], ("missing.duckdb",)),
    Case("store-export-a-text-file", lambda ws: (ws.write("notes.duckdb", "hello"), [
        "export", "matches", "--csv", "m.csv", "--db", "notes.duckdb"])[1], ("notes.duckdb",)),
    Case("store-resume-another-apps-duckdb", lambda ws: ["simulate", "--resume", "1", "--db", ws.other_duckdb()],
         ("not a workbench store",)),
]


def snapshot(root: Path) -> dict[str, str]:
    """Every file and folder under ``root``: a folder's mark or a file's content hash."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        out[rel] = "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Workspace:
    ws = Workspace(tmp_path)
    for game in GAMES:
        shutil.copytree(DATA / game, ws.game(game), ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(ws.data))
    monkeypatch.setenv("COLUMNS", "200")
    from workbench.commands import scenarios

    monkeypatch.setattr(scenarios, "_POOLS", {})  # pools are cached per data folder name
    return ws


def run_main(argv: list[str], capsys) -> tuple[int, str, str]:
    from workbench.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    captured = capsys.readouterr()
    return exit_info.value.code, captured.out, captured.err


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_is_one_line_and_writes_nothing(case: Case, workspace: Workspace, capsys):
    argv = case.make(workspace)
    if argv[:2] == ["cards", "validate"] or argv[:2] == ["cards", "import"] or argv[:2] == ["cards", "export"]:
        argv = argv + ["--data-dir", str(workspace.data)]
    before = snapshot(workspace.root)
    code, out, err = run_main(argv, capsys)
    text = out + err
    assert "Traceback" not in text, text
    lines = [line for line in text.splitlines() if line.strip()]
    assert code == 2, (code, text)
    assert len(lines) == 1, text
    assert lines[0].startswith("error: "), text
    for needle in case.needles:
        assert needle in lines[0], (needle, lines[0])
    for wrong in case.banned:
        assert wrong not in lines[0], (wrong, lines[0])
    assert snapshot(workspace.root) == before, "the command wrote or changed files"


def test_there_are_at_least_sixty_kinds():
    assert len({c.name for c in CASES}) == len(CASES) >= 60


def test_the_shipped_data_still_passes(capsys, monkeypatch):
    """The new checks (duplicate keys, bounds, hands against decks) refuse nothing shipped."""
    monkeypatch.delenv("WORKBENCH_DATA_DIR", raising=False)
    for game in GAMES:
        code, out, err = run_main(["cards", "validate", game], capsys)
        assert code == 0, err
        assert f"ok: {game}" in out


def test_cards_import_never_writes_into_the_shipped_data(workspace: Workspace, capsys, monkeypatch):
    """Without --data (and no WORKBENCH_DATA), import would have written its rules version into
    the package's own card data; it is refused in one line, as tune refuses it."""
    from cardsdb.workspace import DATA_ROOT, ENV_NAMES

    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    sheet = workspace.sheet(lambda t: _sheet_row(t, "atk", "4"))
    shipped = snapshot(DATA_ROOT / "frontier" / "rules")
    code, out, err = run_main(["cards", "import", str(workspace.root / sheet), "--game", "frontier", "--as",
                               "never-written"], capsys)
    lines = [line for line in (out + err).splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and "shipped card data is not yours to edit" in lines[0], lines
    assert snapshot(DATA_ROOT / "frontier" / "rules") == shipped


@pytest.mark.parametrize("linked", ["frontier", "frontier/rules"])
def test_cards_import_never_writes_into_the_shipped_data_through_a_link(workspace: Workspace, capsys, linked):
    """A workspace whose game (or rules) folder was a link to the shipped one let import write
    cardsdb/frontier/rules/zz.yaml: the guard compared the workspace's root alone."""
    from cardsdb.workspace import DATA_ROOT

    sheet = workspace.sheet(lambda t: _sheet_row(t, "atk", "4"))
    folder = workspace.root / "linked"
    if linked == "frontier":
        folder.mkdir()
        (folder / "frontier").symlink_to(DATA_ROOT / "frontier")
    else:
        shutil.copytree(workspace.game("frontier"), folder / "frontier", ignore=shutil.ignore_patterns("rules"))
        (folder / "frontier" / "rules").symlink_to(DATA_ROOT / "frontier" / "rules")
    shipped = snapshot(DATA_ROOT / "frontier" / "rules")
    code, out, err = run_main(["cards", "import", str(workspace.root / sheet), "--game", "frontier", "--as",
                               "never-written", "--data-dir", str(folder)], capsys)
    lines = [line for line in (out + err).splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and "shipped card data is not yours to edit" in lines[0], lines
    assert snapshot(DATA_ROOT / "frontier" / "rules") == shipped


def test_init_copies_a_game_named_twice_once(tmp_path, capsys):
    """``--game frontier,frontier`` crashed half way (the second copy found the first) and left
    the first behind."""
    code, out, err = run_main(["init", str(tmp_path / "ws"), "--game", "frontier,frontier"], capsys)
    assert code in (0, None), err
    assert sorted(p.name for p in (tmp_path / "ws").iterdir()) == ["frontier"]
