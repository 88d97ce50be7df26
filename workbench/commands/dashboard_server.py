"""The dashboard's server process: ``workbench dashboard`` becomes it (``exec``), and it runs
Streamlit's own command line (``streamlit run ...``) in this process, with a stop taken as every
workbench command takes one (workbench/entry.py).

Exec'ing ``python -m streamlit`` directly, a Ctrl-C while Streamlit imported (a second or two)
printed a traceback from inside an import, and a Ctrl-C or SIGTERM that stopped the running
server ended the command with exit 0, as if it had finished. Here a stop while loading is one
line and exit 130; once the server runs, Streamlit's own handlers stop it (its "Stopping..."),
and a server so stopped exits 130 as a stopped command does. Streamlit's own failures (a port
in use) keep their exit code and message.
"""
from __future__ import annotations

import signal
import sys

from workbench.entry import ignore_stops, stop_while_loading_is_one_line
from workbench.stops import STOPS

STOPPED = 130  # as a shell expects of an interrupted command


def main(args: list[str]) -> None:
    stop_while_loading_is_one_line()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)  # held since before the exec (dashboard.launch)
    from streamlit.web import cli as streamlit_cli

    try:
        # the server runs until a stop: Streamlit's handlers, set as it starts, end it
        streamlit_cli.main(args, prog_name="streamlit", standalone_mode=False)
    finally:
        ignore_stops()
    sys.exit(STOPPED)


if __name__ == "__main__":
    main(sys.argv[1:])
