"""``workbench dashboard``: run the Streamlit app on localhost against a store."""
from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from workbench.stops import STOPS

APP = Path(__file__).resolve().parents[2] / "streamlit_app.py"


def launch(db: Path, port: int) -> int:
    """Become the Streamlit server (``exec`` of dashboard_server.py, which says how it stops): a
    signal meant for ``workbench dashboard`` (Ctrl-C, a service manager's SIGTERM) reaches the
    server itself. Run as a child, a SIGTERM ended the parent and left the server holding the
    port and reading the store."""
    env = {**os.environ, "WORKBENCH_DB": str(Path(db).resolve())}
    cmd = [sys.executable, "-m", "workbench.commands.dashboard_server", "run", str(APP), "--server.address", "127.0.0.1",
           "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    print(f"dashboard on http://127.0.0.1:{port} for {db} (Ctrl-C to stop)", file=sys.stderr, flush=True)
    sys.stdout.flush()
    os.chdir(APP.parent)
    # held across the exec until the server process has its handlers (a signal mask survives
    # exec, a handler does not): a stop in the interpreter's first milliseconds killed it unsaid
    signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
    try:
        os.execve(sys.executable, cmd, env)
    finally:  # reached only if the exec failed
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)
    return 0  # not reached: execve replaces this process or raises
