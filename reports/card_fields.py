"""A card's own fields as the store keeps them (``cards.extra``: the game's fields as JSON), read
field by field: flattened to dotted names (``cost.mana``, ``keywords.fortify``), the numbers and
keywords a designer may change from the dashboard, and what differs between two versions of a
card (``atk: 4 -> 3``), so a diff names the fields a change touched instead of showing two
whole cards. Nothing here names a game: the fields are whatever the game's card model dumps."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

KEYWORDS = "keywords"
COST = "cost"
NOT_EDITED = ("abilities",)  # lists of effects: edited in the YAML, not in a number box


def parse(extra: str | dict | None) -> dict:
    """The ``extra`` JSON of a ``cards`` row as a mapping ({} when there is none)."""
    if extra is None:
        return {}
    return extra if isinstance(extra, dict) else json.loads(extra)


def flatten(fields: dict, prefix: str = "") -> dict[str, Any]:
    """Every leaf of a card's fields under a dotted name; a list is one leaf."""
    out: dict[str, Any] = {}
    for key, value in fields.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, f"{name}."))
        else:
            out[name] = value
    return out


@dataclass(frozen=True)
class Editable:
    """One field the "Try a change" form offers: a number, or a keyword's on/off toggle."""
    path: str      # dotted name, as ``flatten`` gives it
    label: str
    kind: str      # "number" or "toggle"
    value: Any

    @property
    def keyword(self) -> bool:
        return self.path.startswith(f"{KEYWORDS}.")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def editable(fields: dict) -> list[Editable]:
    """The card's numbers (its cost first, then its stats, then numbered keywords) and its
    keywords' toggles, every keyword of the game's vocabulary (the dump lists them all). Fields
    the card does not have (None), lists and abilities are left to the YAML."""
    flat = {k: v for k, v in flatten(fields).items() if k.split(".")[0] not in NOT_EDITED}
    cost = [k for k in flat if k == COST or k.startswith(f"{COST}.")]
    keyword = [k for k in flat if k.startswith(f"{KEYWORDS}.")]
    stats = [k for k in flat if k not in cost and k not in keyword]
    out = [Editable(k, k, "number", flat[k]) for k in cost + stats if _is_number(flat[k])]
    out += [Editable(k, k.split(".", 1)[1], "number", flat[k]) for k in keyword if _is_number(flat[k])]
    out += [Editable(k, k.split(".", 1)[1], "toggle", flat[k]) for k in keyword if isinstance(flat[k], bool)]
    return out


def edits_of(fields: dict, values: dict[str, Any]) -> dict[str, Any]:
    """The form's values that differ from the card's (a whole number stays a whole number)."""
    flat = flatten(fields)
    out = {}
    for path, value in values.items():
        old = flat.get(path)
        if _is_number(value) and isinstance(old, int) and float(value).is_integer():
            value = int(value)
        if value != old:
            out[path] = value
    return out


def shown(value: Any) -> str:
    """A field's value as a designer reads it."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, dict)):
        text = json.dumps(value, separators=(", ", ": "))
        return text if len(text) <= 80 else text[:77] + "..."
    return str(value)


def leaves(value: Any, name: str = "") -> dict[str, Any]:
    """Every leaf under a dotted name, lists by index too (``abilities[0].damage``): a change
    inside an ability read as two 80-character JSON dumps of the whole ability list."""
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in leaves(item, f"{name}.{key}" if name else key).items()}
    if isinstance(value, list) and value:
        return {k: v for i, item in enumerate(value) for k, v in leaves(item, f"{name}[{i}]").items()}
    return {name: value}


def field_changes(base: str | dict | None, candidate: str | dict | None) -> list[dict]:
    """The fields that differ between two versions of a card: (field, base, candidate), in the
    order the fields are dumped, down to the leaf (``leaves``); a keyword by its name alone."""
    old, new = leaves(parse(base)), leaves(parse(candidate))
    names = list(old) + [k for k in new if k not in old]
    return [{"field": k.split(".", 1)[1] if k.startswith(f"{KEYWORDS}.") else k, "base": old.get(k),
             "candidate": new.get(k)} for k in names if old.get(k) != new.get(k)]


ARROW = "→"  # a change as the dashboard writes it; files and job records keep "->", plain to type and grep


def change_text(changes: list[dict], arrow: str = "->") -> str:
    """``atk 4 -> 3, fortify 1 -> 2``: the changes in one line (``ARROW`` for the dashboard)."""
    return ", ".join(f"{c['field']} {shown(c['base'])} {arrow} {shown(c['candidate'])}" for c in changes)
