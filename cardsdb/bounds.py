"""Numbers a game can hold. The schemas say what a field means (a cost is at least 0); this says
how large any number in a game's data may be, so ``atk: 3000000000`` is an error naming the card
and the field instead of a conversion error when the store writes its 32-bit ``attack`` column,
and ``mana: 10**12`` cannot validate and then play nonsense. Each game's schema sets
``max_number`` (generous next to its real scale); ``.inf`` and ``.nan`` are refused everywhere."""
from __future__ import annotations

import math
import unicodedata
from typing import Any, Iterator

from pydantic import BaseModel

DEFAULT_MAX_NUMBER = 99_999
INT32_MAX = 2**31 - 1  # the store's INTEGER columns: no game may allow more
INT64_MAX = 2**63 - 1  # its BIGINT columns (seeds)


def max_number(schema: Any) -> int:
    return min(int(getattr(schema, "max_number", DEFAULT_MAX_NUMBER)), INT32_MAX)


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float, str)):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _leaves(item, f"{path}.{i}" if path else str(i))


def number_problem(model: BaseModel | dict, limit: int) -> str | None:
    """The first number of a validated model (or plain data) out of ``-limit..limit`` or not
    finite, or text with a control character (a NUL from a spreadsheet: YAML cannot even hold
    one), in words naming its field; None when every value fits."""
    data = model.model_dump(by_alias=True) if isinstance(model, BaseModel) else model
    for path, value in _leaves(data, ""):
        if isinstance(value, str):
            bad = next((c for c in value if unicodedata.category(c) == "Cc" and c not in "\n\r\t"), None)
            if bad is not None:
                return f"{path} holds the control character {bad!r}"
            continue
        if isinstance(value, float) and not math.isfinite(value):
            return f"{path} {value} is not a finite number"
        if value > limit:
            return f"{path} {value} is above the largest value this game allows ({limit:,})"
        if value < -limit:
            return f"{path} {value} is below the smallest value this game allows ({-limit:,})"
    return None
