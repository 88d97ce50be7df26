"""``workbench dashboard`` is the Streamlit server itself: a SIGTERM (a service manager stopping
it, ``kill``) ends the server, not only the command that started it. Run as a child, the server
outlived the command, holding the port and reading the store."""
from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli_server import user_env
from tests.conftest import ROOT
from tests.test_browser import free_port, wait_healthy


def answers(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(1.0)
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.slow
def test_a_sigterm_to_the_dashboard_command_stops_the_server(small_store):
    port = free_port()
    command = subprocess.Popen([sys.executable, "-m", "workbench.cli", "dashboard", "--port", str(port),
                                "--db", str(small_store)], cwd=ROOT, env=user_env(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", command, timeout=90)
        assert "streamlit" in Path(f"/proc/{command.pid}/cmdline").read_text(), "the command became the server"
        command.send_signal(signal.SIGTERM)
        command.wait(timeout=30)
        deadline = time.monotonic() + 10
        while answers(port) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not answers(port), "a server still answers on the dashboard's port after its SIGTERM"
    finally:
        if command.poll() is None:
            command.kill()
        command.wait()
    assert "Traceback" not in command.stderr.read()
