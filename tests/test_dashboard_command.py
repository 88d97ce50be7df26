"""``workbench dashboard`` is the Streamlit server itself: a SIGTERM (a service manager stopping
it, ``kill``) ends the server, not only the command that started it. Run as a child, the server
outlived the command, holding the port and reading the store. Stopped, it exits 130 as every
stopped command does (it exited 0, as if it had finished), and a stop while Streamlit loads is
one line, not a traceback from inside an import (workbench/commands/dashboard_server.py)."""
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
        assert "dashboard_server" in Path(f"/proc/{command.pid}/cmdline").read_text(), "the command became the server"
        command.send_signal(signal.SIGTERM)
        assert command.wait(timeout=30) == 130
        deadline = time.monotonic() + 10
        while answers(port) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not answers(port), "a server still answers on the dashboard's port after its SIGTERM"
    finally:
        if command.poll() is None:
            command.kill()
        command.wait()
    assert "Traceback" not in command.stderr.read()


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_while_the_server_loads_is_one_line_and_exit_130(small_store, stop):
    """The stop audit: a Ctrl-C in the second or two Streamlit takes to import printed its
    traceback. The stop is sent as soon as the command has become the server process."""
    port = free_port()
    command = subprocess.Popen([sys.executable, "-m", "workbench.cli", "dashboard", "--port", str(port),
                                "--db", str(small_store)], cwd=ROOT, env=user_env(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 30
        while "dashboard_server" not in Path(f"/proc/{command.pid}/cmdline").read_text():
            assert time.monotonic() < deadline and command.poll() is None, "the command never became the server"
            time.sleep(0.005)
        command.send_signal(stop)
        out, err = command.communicate(timeout=60)
    finally:
        if command.poll() is None:
            command.kill()
            command.wait()
    assert command.returncode == 130, (command.returncode, err)
    assert "Traceback" not in err + out and "KeyboardInterrupt" not in err + out, err
    assert not answers(port)
