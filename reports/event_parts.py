"""The names of a store's event-log parts: ``run-<id>/chunk-<n>.parquet`` under its ``.events``
folder. The workers write them (workbench/chunk.py ``part_location``) and the events view reads
them (reports/events_view.py); both take the names from here. No imports: a worker process loads
this alone."""


def run_folder(run_id: int) -> str:
    """A run's folder of parts."""
    return f"run-{run_id}"


def part_name(chunk: int) -> str:
    """A stored chunk's part in its run's folder."""
    return f"chunk-{chunk:06d}.parquet"
