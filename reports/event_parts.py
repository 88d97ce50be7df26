"""The names of a store's event-log parts: ``run-<id>/chunk-<n>.parquet`` under its ``.events``
folder. The workers write them (workbench/chunk.py ``part_location``) and the events view reads
them (reports/events_view.py); both take the names from here. Only the standard library: a worker
process loads this alone."""
import os
from pathlib import Path


def run_folder(run_id: int) -> str:
    """A run's folder of parts."""
    return f"run-{run_id}"


def part_name(chunk: int) -> str:
    """A stored chunk's part in its run's folder."""
    return f"chunk-{chunk:06d}.parquet"


def parts_absent(events_dir: Path, run_id: int, chunks: list[int]) -> tuple[list[int], bool]:
    """(the ``chunks`` of the run whose part is not in its folder, whether the folder itself is
    gone): a listing of the folder against the chunk numbers, no part read. The events view names
    them (reports/events_view.py); a resume plays their chunks again (workbench/store.py)."""
    try:
        names = set(os.listdir(Path(events_dir) / run_folder(run_id)))
    except OSError:  # the run's folder is gone
        return list(chunks), True
    return [c for c in chunks if part_name(c) not in names], False
