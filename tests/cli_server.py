"""A warm process that forks one child per ``workbench`` command a test runs (tests/conftest.py
``run_cli``): the child runs the command's ``main`` with the test's arguments, environment and
folder, its output in files, in a session of its own.

Why: the suite starts a few hundred commands, and a new interpreter spends about a CPU-second
importing before the command does anything (typer, polars, duckdb, pyarrow with pandas, the
engines); on a two-core CI machine that was a tenth of the suite. The server imports all of it
once, never opens a store or starts a thread, and forks. What the child runs is what
``python -m workbench.cli`` runs: ``workbench.cli.main`` with ``workbench.cli`` as ``__main__``
(so processes it spawns import what a real command's would), the environment replaced by the
test's, the exit handlers run at the end. ``WORKBENCH_FRESH_CLI=1`` makes ``run_cli`` start a new
interpreter per command instead.

Protocol, one JSON line each way per command: the request names the arguments, the
environment, the folder and three files (stdout, stderr, and the exit code, written last); the
answer is the child's pid. Children are reaped by the kernel (SIGCHLD ignored here), so the
caller tells an ended child by its exit-code file, or by the pid being gone without one (killed).
"""
from __future__ import annotations

import importlib
import json
import os
import pkgutil
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# imported before forking: everything a command may import, except the dashboard's pages
# (Streamlit is started as its own process by the commands that need it)
PACKAGES = ("workbench", "reports", "sim", "cardsdb")
SKIPPED = ("reports.pages", "workbench.__main__")


def preload() -> None:
    import workbench.cli  # noqa: F401  (first: the command line and what it imports at once)

    for package in PACKAGES:
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, package + "."):
            if not info.name.startswith(SKIPPED):
                importlib.import_module(info.name)
    import scipy.stats  # noqa: F401  (reports import these inside functions)
    import statsmodels.api  # noqa: F401


def exit_code(exc: SystemExit) -> int:
    """The process exit code Python gives a ``SystemExit``: its int, 0 for None, else 1."""
    return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)


def user_env() -> dict[str, str]:
    """This process's environment without the ``WORKBENCH_`` settings: a user's shell, to which
    a test adds only the settings it means."""
    return {k: v for k, v in os.environ.items() if not k.startswith("WORKBENCH_")}


def run_child(request: dict) -> None:
    """In the forked child: become the command, then exit with its code. Never returns."""
    import atexit
    import traceback

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the command waits for its own children
    os.setsid()  # its own session: a timeout kills the command and its workers together
    code = 1
    try:
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        for fd, name, flags in ((0, os.devnull, os.O_RDONLY), (1, request["stdout"], os.O_WRONLY | os.O_CREAT),
                                (2, request["stderr"], os.O_WRONLY | os.O_CREAT)):
            target = os.open(name, flags, 0o644)
            os.dup2(target, fd)
            os.close(target)
        import workbench.cli as cli

        sys.modules["__main__"] = cli
        sys.argv = [cli.__file__, *request["args"]]
        try:
            cli.main(list(request["args"]))
            code = 0
        except SystemExit as exc:
            code = exit_code(exc)
            if not isinstance(exc.code, int) and exc.code is not None:  # sys.exit("message")
                print(exc.code, file=sys.stderr)
        except BaseException:  # what Python prints for an uncaught exception
            traceback.print_exc()
        atexit._run_exitfuncs()
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        rc = request["rc"]
        with open(rc + ".tmp", "w") as f:
            f.write(str(code))
        os.rename(rc + ".tmp", rc)
        os._exit(code)


def serve() -> None:
    preload()
    import gc

    gc.freeze()  # what is loaded now stays shared with the children instead of being copied
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            run_child(request)
        sys.stdout.write(json.dumps({"pid": pid}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    serve()
