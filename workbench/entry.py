"""The ``workbench`` command's entry point, kept free of heavy imports: a stop outside the command.

``workbench.cli.main`` turns a stop (Ctrl-C, SIGTERM) into one line and exit 130 while a command
runs (workbench/stops.py). Before it runs, the command line spends a few tenths of a second
importing (typer, polars, DuckDB, the engines), and a Ctrl-C there printed a 20-line traceback
from inside an import (exit -2), a SIGTERM killed it without a word (-15); after it, while the
interpreter shuts down, either killed a command whose output was complete. Here a stop before
the command is one line and exit 130 (nothing has been made yet), and one after it is ignored
(the command has ended and said what it did).
"""
from __future__ import annotations

import os
import signal

from workbench.stops import STOPS  # signal and contextlib only: nothing slow to load


def stopped_while_loading(_signum, _frame) -> None:
    """A stop before the command has made anything: one line, exit 130."""
    os.write(2, b"error: interrupted\n")
    os._exit(130)


def stop_while_loading_is_one_line() -> None:
    """From now on until the command's own handlers take over, a stop is ``stopped_while_loading``."""
    for sig in STOPS:
        if signal.getsignal(sig) is not signal.SIG_IGN:  # a background job's ignored Ctrl-C stays ignored
            signal.signal(sig, stopped_while_loading)


def ignore_stops() -> None:
    """The command has ended and said what it did: a stop now would only kill it on its way out."""
    for sig in STOPS:
        signal.signal(sig, signal.SIG_IGN)


def main() -> None:
    """Run the command line, a stop outside it handled as the module's doc says."""
    stop_while_loading_is_one_line()
    try:
        from workbench.cli import main as run

        run()
    finally:
        ignore_stops()
