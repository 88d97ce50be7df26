"""A rules version's cards as a flat table for a spreadsheet, and an edited table back into the
changes of a new rules version (patch, add, remove) relative to the version it came from.

Columns are the card's fields flattened with dots (cost.mana), lists numbered from 1: a card's
abilities become ``abilities.1.when``, ``abilities.1.do.1.effect``, ``abilities.1.do.1.amount``
and so on, one value a cell, so a spreadsheet holds no JSON. Keywords are one cell like
"ambush; fortify=2; immune=[stun|freeze]" (a keyword's list in brackets, its items split by |).
Derived columns (the faction's or clan's display name, ``faction_name``, beside its id,
budget_cost, stat_points, budget_points, and the rules version the sheet shows) are written for
reading and ignored on import, except that a sheet of another rules version than the import's base
is refused. A column taken out of the sheet leaves that field of each card as it was; an emptied
cell sets the field's default. A cell of
JSON (sheets written before) is still read.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cardsdb.errors import DataError, from_validation
from cardsdb.loader import Ruleset, check_numbers

DERIVED = ("faction_name", "budget_cost", "stat_points", "budget_points", "rules_version")
# columns of plain text: read as written (a name "[Prototype] Alpha Wolf" is no JSON cell, and a
# text's closing newline, as a YAML block writes it, is kept so an unchanged sheet changes nothing)
TEXT_COLUMNS = ("name", "text")


def _keyword_value(value: Any) -> str:
    """A keyword's value in the keywords cell: a number or word, or a list as [a|b]."""
    if isinstance(value, list):
        return "[" + "|".join(str(v) for v in value) + "]"
    return str(value)


def flatten(value: Any, prefix: str, row: dict[str, Any]) -> None:
    """``value`` into ``row`` under dotted column names: a mapping by its keys, a list by its
    positions from 1, anything else as one cell. An empty list or mapping is one empty cell."""
    if isinstance(value, dict) and value:
        for key, v in value.items():
            flatten(v, f"{prefix}.{key}", row)
    elif isinstance(value, list) and value:
        for i, v in enumerate(value, 1):
            flatten(v, f"{prefix}.{i}", row)
    else:
        row[prefix] = "" if isinstance(value, (list, dict)) else value


def card_to_row(card: Any, ruleset: Ruleset) -> dict[str, Any]:
    raw = card.model_dump(by_alias=True, mode="json")
    sch, consts = ruleset.schema, ruleset.constants
    row: dict[str, Any] = {}
    for key, value in raw.items():
        if key == sch.faction_field:  # its name beside it, for reading
            row[key], row["faction_name"] = value, ruleset.factions.get(value)
        elif key == "keywords":
            row[key] = "; ".join(k if v is True else f"{k}={_keyword_value(v)}" for k, v in value.items() if v)
        elif isinstance(value, (list, dict)):
            flatten(value, key, row)
        else:
            row[key] = value
    row["budget_cost"] = sch.budget_cost(card, consts)
    row["stat_points"] = sch.stat_points(card, consts)
    row["budget_points"] = sch.budget_points(card, consts)
    row["rules_version"] = ruleset.version  # which version the sheet shows (import checks its --base)
    return row


def write_cards_csv(ruleset: Ruleset, path: str | Path) -> int:
    rows = [card_to_row(c, ruleset) for c in ruleset.cards.values()]
    columns: list[str] = []
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: "" if row.get(k) is None else row.get(k) for k in columns})
    return len(rows)


def _cell(text: str) -> Any:
    """A spreadsheet cell back into YAML's types (numbers, booleans, empty)."""
    text = text.strip()
    if text == "":
        return None
    if text[0] in "[{":
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            pass  # not JSON after all: the text itself
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def _keyword_cell(text: str) -> Any:
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        try:
            return json.loads(text)  # a sheet written before lists were split by |
        except json.JSONDecodeError:
            return [_cell(v) for v in text[1:-1].split("|") if v.strip()]
    return _cell(text)


def _put(card: dict[str, Any], path: list[str], value: Any) -> None:
    """Set ``value`` at a dotted column's ``path`` (numbers are list positions from 1)."""
    node: Any = card
    for step, nxt in zip(path, path[1:]):
        key: Any = int(step) - 1 if step.isdigit() else step
        empty = [] if nxt.isdigit() else {}
        if isinstance(node, list):
            while len(node) <= key:
                node.append(None)
            node[key] = node[key] if node[key] is not None else empty
            node = node[key]
        else:
            node = node.setdefault(key, empty)
    last = path[-1]
    if isinstance(node, list):
        i = int(last) - 1
        while len(node) <= i:
            node.append(None)
        node[i] = value
    else:
        node[last] = value


def _json_cell(text: str, file: str, label: str, column: str, line: int) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(file, f"{column} is not valid JSON: {exc.msg} (row {line})", card=label,
                        field=column) from None


def row_to_card(row: dict[str, str], file: str, line: int) -> dict[str, Any]:
    card: dict[str, Any] = {}
    label = row.get("id") or f"row {line}"
    for column, text in row.items():
        if column is None:
            raise DataError(file, f"row {line} has more cells than the header", card=label)
        if column in DERIVED:
            continue
        if column in TEXT_COLUMNS:
            if (text or "").strip():
                card[column] = text
            continue
        if column == "keywords":
            kws: dict[str, Any] = {}
            for part in filter(None, (p.strip() for p in (text or "").split(";"))):
                name, _, value = part.partition("=")
                kws[name.strip()] = _keyword_cell(value) if value else True
            if kws:
                card["keywords"] = kws
        elif (text or "").strip()[:1] in ("[", "{") and (column == "abilities" or "." not in column):
            card[column] = _json_cell(text.strip(), file, label, column, line)  # a sheet of JSON cells
        elif "." in column:
            value = _cell(text or "")
            if value is not None:
                _put(card, column.split("."), value)
        else:
            value = _cell(text or "")
            if column == "id" and value is not None:
                value = str(text).strip()
            if value is not None:
                card[column] = value
    return card


def _sheet_field(field: str | None) -> str | None:
    """A validation error's field path as the sheet's columns number lists: from 1
    (``abilities.0.do.0.amount`` is the column ``abilities.1.do.1.amount``)."""
    if not field:
        return field
    return ".".join(str(int(p) + 1) if p.isdigit() else p for p in field.split("."))


def _kept_columns(card: Any, ruleset: Ruleset, header: set[str]) -> dict[str, Any]:
    """The card's cells whose columns the sheet lacks: a column taken out of the sheet means "as
    it was", not "back to the default" (deleting the text column emptied every card's text)."""
    row = card_to_row(card, ruleset)
    return {c: v for c, v in row.items() if c not in header and c not in DERIVED and v not in ("", None)}


def import_cards_csv(path: str | Path, base: Ruleset, notes: list[str] | None = None) -> dict[str, Any]:
    """The changes (patch, add, remove) that turn ``base`` into the sheet's cards. A card's field
    whose column the sheet lacks keeps its value in ``base`` (each such column one line in
    ``notes``). A sheet that says it was exported from another rules version (its
    ``rules_version`` column) is refused: its constants are not in the sheet, so importing it
    against ``base`` would silently drop them."""
    path = Path(path)
    name = str(path)
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            if not reader.fieldnames or "id" not in reader.fieldnames:
                raise DataError(name, "the sheet needs a header row with an 'id' column")
            raw_rows = [(i + 2, r) for i, r in enumerate(reader)]
    except OSError as exc:
        raise DataError(name, f"cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise DataError(name, "not UTF-8 text (save the sheet as CSV UTF-8)") from None
    except csv.Error as exc:
        raise DataError(name, f"not a readable CSV sheet: {exc}") from None
    header = set(reader.fieldnames)
    _check_version(name, raw_rows, base)
    sheet: dict[str, Any] = {}
    kept: set[str] = set()
    for line, row in raw_rows:
        raw = row_to_card(row, name, line)
        label = raw.get("id") or f"row {line}"
        if label in base.cards:
            for column, value in _kept_columns(base.cards[label], base, header).items():
                kept.add(column)
                if column == "keywords":
                    raw["keywords"] = base.cards[label].keywords.model_dump(exclude_defaults=True)
                elif "." in column:
                    _put(raw, column.split("."), value)
                else:
                    raw[column] = value
        try:
            card = base.schema.Card.model_validate(raw)
            check_numbers(base.schema, card, name, card=card.id)
        except ValidationError as exc:
            err = from_validation(name, exc, card=label)[0]
            err.field = _sheet_field(err.field)
            err.message += f" (row {line})"
            raise err from None
        except DataError as err:
            err.message += f" (row {line})"
            raise
        if card.id in sheet:
            raise DataError(name, f"card appears twice (row {line})", card=card.id, field="id")
        sheet[card.id] = card
    patch: dict[str, dict] = {}
    add: list[dict] = []
    for cid, card in sheet.items():
        new = card.model_dump(by_alias=True, mode="json")
        if cid not in base.cards:
            add.append(card.model_dump(by_alias=True, mode="json", exclude_defaults=True))
            continue
        old = base.cards[cid].model_dump(by_alias=True, mode="json")
        changed = {k: new[k] for k in new if new[k] != old.get(k)}
        if "keywords" in changed:  # keywords are replaced whole, written without the defaults
            changed["keywords"] = card.keywords.model_dump(exclude_defaults=True)
        if changed:
            patch[cid] = changed
    if not sheet:  # a header alone (or every row cut) would remove every card of the version
        raise DataError(name, f"the sheet has no card rows: importing it would remove all {len(base.cards)} cards "
                              f"of {base.version}", field="id")
    remove = [cid for cid in base.cards if cid not in sheet]
    if notes is not None and kept:
        tops = sorted({c.split(".")[0] for c in kept})
        notes.append(f"{name}: no column for {', '.join(tops)} of some cards: kept as they are in {base.version}")
    return {"patch": patch, "add": add, "remove": remove}


def _check_version(name: str, rows: list[tuple[int, dict]], base: Ruleset) -> None:
    """A sheet exported from another rules version than ``base`` (its ``rules_version`` column)
    would lose that version's constants and removals: refused in one line."""
    said = {(r.get("rules_version") or "").strip() for _line, r in rows} - {""}
    other = sorted(said - {base.version})
    if other:
        raise DataError(name, f"the sheet was exported from rules version {other[0]!r} (its rules_version column), "
                              f"not {base.version!r}: import it with --base {other[0]}, or clear that column to "
                              f"import its cards against {base.version}", field="rules_version")
