"""SIGTERM read as Ctrl-C: ``kill``, ``timeout``, systemd and a closed session's manager stop a
command the way Ctrl-C does (its ``finally`` blocks run, its run is marked stopped, its temporary
files removed, one line says how to go on). Left at its default, SIGTERM ended the process on the
spot, with no word and its temporary files left behind."""
from __future__ import annotations

import contextlib
import signal
from typing import Iterator


@contextlib.contextmanager
def sigterm_as_ctrl_c() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt while the block runs; the handler before it is put back
    after (tests call commands in their own process). Only the main thread can set a handler:
    elsewhere signals are left alone."""
    try:
        previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
