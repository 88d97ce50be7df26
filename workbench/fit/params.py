"""Which numbers of a weights document are fitted: the positive numbers of its ``weights`` section,
less those that are not a heuristic's price (a win or a loss, the multi-seat placement, integer
thresholds). Keyword tables are left as they are (few positions show each keyword)."""
from __future__ import annotations

import copy
from typing import NamedTuple

# not prices of a position: the ends of the game (always dominant) and the multi-seat standing
NOT_FITTED = frozenset({"win", "out", "placement"})


class Param(NamedTuple):
    """One fitted number: its key in the ``weights`` section and the value it starts from."""
    key: str
    start: float


def fitted_params(document: dict) -> list[Param]:
    """The document's fitted numbers, in the order the section writes them."""
    out = []
    for key, value in document["weights"].items():
        if key in NOT_FITTED or isinstance(value, bool) or not isinstance(value, float) or value <= 0:
            continue
        out.append(Param(key, value))
    return out


def with_values(document: dict, params: list[Param], values) -> dict:
    """A copy of the document with the params set to ``values``."""
    doc = copy.deepcopy(document)
    for param, value in zip(params, values):
        doc["weights"][param.key] = float(value)
    return doc
