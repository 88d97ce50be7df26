"""Readable tables (issue 18, item 3): every column a table shows gets a human label (the page's
own, else one made from the column name), its internal name in the help tooltip (the name the
CSV, ``workbench export`` and METRICS.md use), and a width that fits both its label and its
values as they are formatted, so no number is clipped. ``table_with_download`` applies it to
every table of the dashboard."""
from __future__ import annotations

import re

import polars as pl

CHAR_PX = 8  # one character of the table's font, about
LABEL_EXTRA_PX = 40  # the header's sort arrow and help icon
CELL_EXTRA_PX = 24  # a cell's padding
MIN_PX, MAX_PX = 56, 340
SAMPLE = 500  # rows read to fit a width

# labels for columns many tables share; any other column reads as its name in words
LABELS = {
    "card": "card id", "run_id": "run", "rules_version": "rules version", "match_no": "match",
    "games": "games", "won": "won", "win_rate": "win rate", "win_rate_lo": "lo", "win_rate_hi": "hi",
    "deck": "deck", "opponent": "opponent", "pilot": "pilot", "pilots": "pilots", "faction": "faction / clan id",
    "faction_name": "faction / clan",
    "type": "type", "cost": "cost", "budget_cost": "cost", "keyword": "keyword id", "example": "example match",
    "example_win": "example win", "example_loss": "example loss", "p_value": "p", "q_value": "q (BH)",
}
WORDS = {"wr": "WR", "oh": "OH", "gih": "GIH", "gd": "GD", "gns": "GNS", "gp": "GP", "iwd": "IWD", "n": "n",
         "pct": "%", "avg": "average", "hp": "HP", "lo": "lo", "hi": "hi", "pos": "position", "no": "number"}


def human(column: str) -> str:
    """A column's label when its page gives none: ``clear_rate_lo`` -> "clear rate lo"."""
    if column in LABELS:
        return LABELS[column]
    return " ".join(WORDS.get(w, w) for w in re.split(r"[_\s]+", column) if w)


def _printf(fmt: str, value) -> str:
    """A value as Streamlit's printf-style number format shows it (Python's % is the same for the
    formats the pages use: %d, %.1f, %+.1f, %.3g, %g, with text around them)."""
    try:
        return fmt % value
    except (TypeError, ValueError):
        return str(value)


def _texts(values: pl.Series, spec: dict) -> list[str]:
    """The sampled cells as the table shows them."""
    kind = (spec.get("type_config") or {}).get("type")
    fmt = (spec.get("type_config") or {}).get("format")
    sample = values.drop_nulls().head(SAMPLE).to_list()
    if kind == "checkbox":
        return ["xx"]
    if kind == "progress":
        return ["x" * 14]
    if kind == "link" and (spec.get("type_config") or {}).get("display_text"):
        return [str(v).split("ex=")[-1] for v in sample]
    if kind in ("datetime", "date", "time"):
        return ["2026-01-01 00:00:00"] if sample else []
    if values.dtype.is_numeric():
        if isinstance(fmt, str) and "%" in fmt:
            return [_printf(fmt, v) for v in sample]
        return [f"{v:,}" if isinstance(v, int) else f"{v:,.4f}".rstrip("0").rstrip(".") for v in sample]
    if isinstance(values.dtype, pl.List):
        return [", ".join(map(str, v)) for v in sample]
    return [str(v) for v in sample]


def fitted_width(values: pl.Series, spec: dict) -> int:
    """Pixels for the column: its label or its widest shown value, whichever is wider, within
    ``MIN_PX``..``MAX_PX`` (a long text is cut with an ellipsis there; its tooltip shows it whole)."""
    label = CHAR_PX * len(spec.get("label") or "") + LABEL_EXTRA_PX
    cells = max((len(t) for t in _texts(values, spec)), default=0) * CHAR_PX + CELL_EXTRA_PX
    return int(min(MAX_PX, max(MIN_PX, label, cells)))


def unique_names(frame: pl.DataFrame) -> pl.DataFrame:
    """A table's card names made unique: a name several of its card ids share (AlleyWay's Striver
    levels kade-1, kade-2 and kade-3 are all "Kade") is shown with the id, "Kade (kade-2)"; a
    name of one card stays as it is. By id rather than by level: every game's cards have one, the
    CSV and the card's page name it, and AlleyWay's end in the level. ``card`` may hold links to
    the card's page (``card?card=ID``): the id is what follows the '='."""
    if "name" not in frame.columns or "card" not in frame.columns or frame.schema["name"] != pl.Utf8:
        return frame
    card_id = pl.col("card").cast(pl.Utf8).str.split("=").list.last()
    shared = pl.col("name").is_not_null() & (card_id.n_unique().over("name") > 1)
    return frame.with_columns(pl.when(shared).then(pl.format("{} ({})", "name", card_id))
                              .otherwise(pl.col("name")).alias("name"))


def readable_config(frame: pl.DataFrame, config: dict | None) -> dict:
    """The page's column config completed for every column of ``frame``: a label, the internal
    name in the help, a fitted width. A column the page hides (``None``) stays hidden; a plain
    string is a label; the page's own label, help, width and format are kept."""
    out = dict(config or {})
    for column in frame.columns:
        given = out.get(column, ...)
        if given is None:
            continue
        spec = {"label": given} if isinstance(given, str) else {} if given is ... else dict(given)
        spec["label"] = spec.get("label") or human(column)
        if frame[column].dtype.is_integer() and frame[column].null_count() and not spec.get("type_config"):
            # pandas holds an integer column with gaps as floats: whole numbers, not 1000.0
            spec["type_config"] = {"type": "number", "format": "%d"}
        note = f"internal name: `{column}`"
        spec["help"] = f"{spec['help']} ({note})" if spec.get("help") else note
        if spec.get("width") is None:
            spec["width"] = fitted_width(frame[column], spec)
        out[column] = spec
    return out
