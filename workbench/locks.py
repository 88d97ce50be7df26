"""Locks beside a store, so one process at a time does a thing: runs a batch, writes a run, or
plays the matches of one spec.

A lock is an ``flock`` on a small file holding the holder's pid. The kernel frees it when its
process ends however it ends (killed, crashed, a zombie), so a lock is never left stale and a
recorded pid that was reused by another program never blocks anyone. A lock is taken once per
process: taking it again inside itself is a no-op, so a caller may hold a run's lock across its
checks and the play that follows. Forked worker processes close their copies of the parent's
lock files, so a worker that outlives a killed parent does not keep its locks.
"""
from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

_HELD: dict[Path, object] = {}  # lock file -> its open file, for the locks this process holds


def _close_in_child() -> None:
    # closing the child's copy leaves the parent's lock in place: an flock belongs to the open
    # file, which stays open while the parent holds it
    for fh in _HELD.values():
        fh.close()
    _HELD.clear()


os.register_at_fork(after_in_child=_close_in_child)


def locks_dir(db: str | Path) -> Path:
    """``<db>.locks``: the folder beside a store that holds its lock files."""
    return Path(str(Path(db).resolve()) + ".locks")


def lock_file(db: str | Path, name: str) -> Path:
    """``<db>.locks/<name>.lock``: the lock files of a store sit in one folder beside it."""
    return locks_dir(db) / f"{name}.lock"


@contextmanager
def exclusive(path: Path, busy: Callable[[str], Exception] | None = None,
              waiting: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the lock at ``path``. When another process holds it: raise ``busy(holder)`` if given
    (``holder`` reads "process N"), else call ``waiting(holder)`` once and wait for it."""
    path = Path(path)
    if path in _HELD:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fh = open(path, "a+", encoding="utf-8")
    try:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            who = _holder(fh)
            if busy is not None:
                raise busy(who) from None
            if waiting is not None:
                waiting(who)
            fcntl.flock(fh, fcntl.LOCK_EX)
        fh.seek(0)
        fh.truncate()
        fh.write(f"process {os.getpid()}")
        fh.flush()
        _HELD[path] = fh
        try:
            yield
        finally:
            if _HELD.pop(path, None) is fh:  # not when a forked child already closed it
                fcntl.flock(fh, fcntl.LOCK_UN)
    finally:
        fh.close()


def _holder(fh) -> str:
    fh.seek(0)
    return fh.read().strip() or "another process"


def remove_unheld(db: str | Path) -> None:
    """A store's lock folder, once the store itself is gone (a command that created it and
    stored nothing): every lock file no process holds is removed, then the folder if that
    emptied it. A lock someone holds (or waits on: they hold it next) stays, and so does the
    folder, so removing never breaks another process's exclusion."""
    folder = locks_dir(db)
    if not folder.is_dir():
        return
    for path in folder.glob("*.lock"):
        if path in _HELD:
            continue
        with open(path, "a+", encoding="utf-8") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue
            path.unlink(missing_ok=True)  # while locked: nobody took it in between
    try:
        folder.rmdir()
    except OSError:  # a held lock, or something that is not ours
        pass
