"""How a command is stopped: the first Ctrl-C or SIGTERM, and only the first.

SIGTERM is read as Ctrl-C: ``kill``, ``timeout``, systemd and a closed session's manager stop a
command the way Ctrl-C does (its ``finally`` blocks run, its run is marked stopped, its temporary
files removed, one line says how to go on). Left at its default, SIGTERM ended the process on the
spot, with no word and its temporary files left behind.

Once the first has been taken, more of either are ignored until the command ends: people press
Ctrl-C two or three times, and the second landed in the middle of the stop itself (marking the
run stopped, removing an unused store), which then ended in a traceback instead of its one line.
"""
from __future__ import annotations

import contextlib
import signal
from typing import Iterator

STOPS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def sigterm_as_ctrl_c() -> Iterator[None]:
    """While the block runs, the first SIGTERM or SIGINT raises KeyboardInterrupt and any later
    one is ignored. The handlers before it are put back after (tests call commands in their own
    process, and must not be left ignoring signals); the ``workbench`` script ignores stops from
    then on itself (workbench/entry.py), so a Ctrl-C pressed again as the process ends does not
    kill it on its way out. A SIGINT ignored when the block began (a script's background job)
    stays ignored. Only the main thread can set a handler: elsewhere signals are left alone."""
    try:
        previous = {sig: signal.getsignal(sig) for sig in STOPS}
        for sig in STOPS:
            if previous[sig] is not signal.SIG_IGN or sig == signal.SIGTERM:
                signal.signal(sig, _first_stop)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        for sig, handler in previous.items():
            if handler is not None:  # None: set outside Python, not ours to put back
                signal.signal(sig, handler)


def _first_stop(_signum, _frame) -> None:
    """The stop: from now on the command is stopping, and another Ctrl-C or SIGTERM would only
    break the stop half way."""
    for sig in STOPS:
        signal.signal(sig, signal.SIG_IGN)
    raise KeyboardInterrupt
