"""Exports a spreadsheet opens cleanly: UTF-8 CSV with a header row, no index column, ISO dates;
and Parquet. Every file is written to a temporary name first, and all of them are renamed into
place only once each was written whole: a reader never sees half a file, and a failed export
(the Parquet file cannot be written) leaves no CSV behind that looks like it succeeded. An
undefined number (NaN: a rate of no games, a q value of no test) is written as NULL is, an empty
CSV cell and a Parquet null, whichever table it came from."""
from __future__ import annotations

import os
import re
from pathlib import Path

import polars as pl

from reports.db import StoreError


def write_frame(frame: pl.DataFrame, csv: str | Path | None = None, parquet: str | Path | None = None) -> list[Path]:
    targets = [(Path(path), kind) for path, kind in ((csv, "csv"), (parquet, "parquet")) if path is not None]
    for path, _ in targets:
        if not path.resolve().parent.is_dir():
            raise StoreError(f"{path}: folder {path.resolve().parent} does not exist")
    frame = undefined_as_null(frame)
    parts: list[Path] = []
    try:
        for path, kind in targets:
            parts.append(_part(path))
            _write(frame, parts[-1], kind, path)
        for part, (path, _) in zip(parts, targets):
            _move(part, path)
    finally:
        for part in parts:  # left only by a failure
            part.unlink(missing_ok=True)
    return [path for path, _ in targets]


def undefined_as_null(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with float NaN as null: polars writes NaN into a CSV as the text NaN, which a
    spreadsheet takes for a word (and some tables already hold NULL where others hold NaN, so
    the same empty figure would read two ways)."""
    return frame.with_columns([pl.col(c).fill_nan(None) for c, t in frame.schema.items() if t.is_float()])


def _part(path: Path) -> Path:
    return path.with_name(f".{path.name}.part")


def _write(frame: pl.DataFrame, part: Path, kind: str, path: Path) -> None:
    """``frame`` as ``kind`` into ``part`` (the temporary name of ``path``, which errors name)."""
    try:
        if kind == "csv":
            flat = frame.with_columns([pl.col(c).list.join("; ") for c, t in frame.schema.items()
                                       if isinstance(t, pl.List)])
            flat.write_csv(part, include_header=True, datetime_format="%Y-%m-%dT%H:%M:%S", date_format="%Y-%m-%d")
        else:
            frame.write_parquet(part)
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise StoreError(f"{path}: cannot write: {_reason(exc)}") from None


def _move(part: Path, path: Path) -> None:
    try:
        os.replace(part, path)
    except OSError as exc:
        raise StoreError(f"{path}: cannot write: {_reason(exc)}") from None


def _reason(exc: Exception) -> str:
    """Why a write failed, in words: an OSError's strerror, which polars leaves None (its text is
    "No such file or directory (os error 2): <the temporary name>"), so then the text without the
    error number and the temporary name nobody asked for."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    lines = str(exc).strip().splitlines()
    text = re.sub(r"\s*\(os error \d+\).*$", "", lines[0] if lines else "")
    return text or type(exc).__name__
