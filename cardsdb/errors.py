"""Data errors a designer can act on: one line naming the file, the card and the field."""
from __future__ import annotations

from difflib import get_close_matches
from pathlib import Path


class DataError(Exception):
    def __init__(self, file: str | Path | None, message: str, card: str | None = None,
                 field: str | None = None, kind: str = "card", via: str | None = None,
                 cause: str | None = None):
        self.file = str(file) if file is not None else None
        self.card = card
        self.kind = kind  # what ``card`` names: a card, or another record of a file (a boss, a crew)
        self.field = field
        self.message = message
        # the rules version being resolved when the mistake is in a file it builds on (``file``
        # is then that file: a parent's, not the version's own)
        self.via = via
        # another file whose content makes this one wrong, and what in it ("rules/hp.yaml
        # (constants.starting_morale 20000)"): the line reads "<cause> leaves <file>: ..."
        self.cause = cause
        super().__init__(self.line())

    def __str__(self) -> str:
        return self.line()

    def line(self) -> str:
        parts = []
        if self.file:
            parts.append(self.file)
        if self.card:
            parts.append(f"{self.kind} {self.card!r}")
        if self.field:
            parts.append(f"field {self.field!r}")
        parts.append(self.message)
        line = ": ".join(parts)
        if self.cause:
            line = f"{self.cause} leaves {line}"
        if self.via:
            line += f" (rules version {self.via!r} builds on this file)"
        return line

    def key(self) -> tuple:
        """The mistake itself, whichever version's resolving met it (``via`` left out)."""
        return (self.cause, self.file, self.kind, self.card, self.field, self.message)


class DataErrors(Exception):
    """Several data errors found in one pass (``cards validate`` shows them all)."""

    def __init__(self, errors: list[DataError]):
        self.errors = errors
        super().__init__("\n".join(e.line() for e in errors))


def from_validation(file, exc, card: str | None = None, prefix: str = "", raw=None,
                    kind: str = "card") -> list[DataError]:
    """Turn a pydantic ValidationError into one DataError per problem. With ``raw`` (what was
    validated) the path drops the tags of tagged unions too."""
    out = []
    errors = exc.errors()
    # keys a file holds that its schema does not know, by where they sit: a missing field beside a
    # near spelling of it ('stepz') is that misspelling, and is said so
    unknown = {tuple(map(str, e["loc"][:-1])): [] for e in errors if e["type"] == "extra_forbidden" and e["loc"]}
    for e in errors:
        if e["type"] == "extra_forbidden" and e["loc"]:
            unknown[tuple(map(str, e["loc"][:-1]))].append(str(e["loc"][-1]))
    for err in errors:
        # pydantic puts the discriminator value in the location of a tagged union ("damage")
        # and validator names ("function-after[...]"); a designer wants the path of the field
        # in their file, so those parts are dropped.
        loc = [str(p) for p in _without_tags(err["loc"], raw) if not str(p).startswith("function-")]
        field = ".".join(([prefix] if prefix else []) + loc) or None
        problem = err["type"]
        if problem == "extra_forbidden":
            what = "keyword" if "keywords" in loc[:-1] else "field"
            message = f"unknown {what} {loc[-1]!r}" if loc else "unknown field"
        elif problem == "missing":
            message = "required field is missing"
            near = get_close_matches(str(err["loc"][-1]), unknown.get(tuple(map(str, err["loc"][:-1])), []), n=1) \
                if err["loc"] else []
            if near:
                message += f" (the file has {near[0]!r}: misspelt?)"
        else:
            # a validator's own words, without pydantic's "Value error, " in front of them
            message = err["msg"].removeprefix("Value error, ")
            if "input" in err and problem not in ("union_tag_invalid",) and not isinstance(err["input"], (dict, list)):
                message += f" (got {err['input']!r})"
        out.append(DataError(file, message, card=card, field=field, kind=kind))
    return out


def _without_tags(loc, raw) -> list:
    """The location without the tags of tagged unions: a part that is not a key of the mapping
    at that point of ``raw`` but one of its values (its ``kind: attack``, ``effect: damage``)."""
    out = []
    node = raw
    for part in loc:
        if isinstance(node, dict) and isinstance(part, str) and part not in node and part in node.values():
            continue
        out.append(part)
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            node = node[part]
        else:
            node = None
    return out
