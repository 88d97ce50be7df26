"""Exports a spreadsheet opens cleanly: UTF-8 CSV with a header row, no index column, ISO dates;
and Parquet. Files are written to a temporary name and renamed, so a reader never sees half."""
from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from reports.db import StoreError


def write_frame(frame: pl.DataFrame, csv: str | Path | None = None, parquet: str | Path | None = None) -> list[Path]:
    written = []
    for path, kind in ((csv, "csv"), (parquet, "parquet")):
        if path is None:
            continue
        path = Path(path)
        if not path.resolve().parent.is_dir():
            raise StoreError(f"{path}: folder {path.resolve().parent} does not exist")
        tmp = path.with_name(f".{path.name}.part")
        try:
            if kind == "csv":
                flat = frame.with_columns([pl.col(c).list.join("; ") for c, t in frame.schema.items()
                                           if isinstance(t, pl.List)])
                flat.write_csv(tmp, include_header=True, datetime_format="%Y-%m-%dT%H:%M:%S",
                               date_format="%Y-%m-%d")
            else:
                frame.write_parquet(tmp)
            os.replace(tmp, path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise StoreError(f"{path}: cannot write: {exc.strerror}") from None
        written.append(path)
    return written
