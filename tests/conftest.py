"""Shared fixtures: the real Frontier and Allegiance data, and a small store filled by a real
simulation."""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli_server import exit_code, user_env

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "cardsdb"
SCENARIOS = DATA / "frontier" / "scenarios"


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: two test workers per core. Many tests spend their time waiting on a
    subprocess (a run to start, a lock, a held file), so one per core leaves cores idle."""
    from workbench.farm import default_workers  # this machine's usable cores, as the farm counts them

    return 2 * default_workers()


def pytest_collection_modifyitems(config, items):
    """Heavy tests first, then slow ones, each in their files' order: the test workers take files
    (and test classes) in the order they come (``--no-loadscope-reorder`` in pyproject.toml:
    xdist would otherwise put the files with the most tests first, and the planted truths, two
    tests a class, last), so the long ones start at once instead of leaving one worker busy at
    the end while the others wait."""
    items.sort(key=lambda item: (item.get_closest_marker("heavy") is None, item.get_closest_marker("slow") is None))


def cli_here(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """The ``workbench`` command run in this process, with what ``run_cli`` would give (exit
    code, stdout, stderr), for commands that play nothing (exports, reports, listings): a new
    interpreter costs a second or more of imports per call. Commands that start worker processes
    go through ``run_cli``."""
    import contextlib
    import io

    from workbench.cli import main

    saved = dict(os.environ)
    out, err = io.StringIO(), io.StringIO()
    try:
        for key in [k for k in os.environ if k.startswith("WORKBENCH_")]:
            del os.environ[key]
        os.environ.update(env or {})
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(list(args))
                code = 0
            except SystemExit as exc:
                code = exit_code(exc)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return subprocess.CompletedProcess(["workbench", *args], code, out.getvalue(), err.getvalue())


def run_cli(*args: str, env: dict | None = None, cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run the ``workbench`` command as a user would, in a process of its own: forked from this
    test worker's warm server (tests/cli_server.py says what that keeps and why), or a fresh
    interpreter with ``WORKBENCH_FRESH_CLI=1``."""
    full_env = {**user_env(), **(env or {})}
    if os.environ.get("WORKBENCH_FRESH_CLI") == "1":
        return subprocess.run([sys.executable, "-m", "workbench.cli", *args], capture_output=True, text=True,
                              env=full_env, cwd=cwd or ROOT, timeout=timeout)
    return _CLI_SERVER.run(list(args), full_env, Path(cwd or ROOT), timeout)


class _CliServer:
    """This test worker's tests/cli_server.py, started at the first command; requests go one at a
    time (a lock), the commands themselves run side by side."""

    def __init__(self):
        import threading

        self.lock = threading.Lock()
        self.proc: subprocess.Popen | None = None
        self.calls = 0
        self.last_pid: int | None = None  # the last command's (its process group's) id

    def _started(self) -> subprocess.Popen:
        if self.proc is None or self.proc.poll() is not None:
            import atexit
            import shutil
            import tempfile

            self.proc = subprocess.Popen([sys.executable, "-m", "tests.cli_server"], cwd=ROOT, env=user_env(), text=True,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            self.folder = Path(tempfile.mkdtemp(prefix="workbench-cli-"))
            atexit.register(self.proc.stdin.close)  # the server ends when its input does
            atexit.register(shutil.rmtree, self.folder, True)
        return self.proc

    def run(self, args: list[str], env: dict, cwd: Path, timeout: float) -> subprocess.CompletedProcess:
        import json
        import signal
        import time

        with self.lock:
            proc = self._started()
            self.calls += 1
            files = {name: str(self.folder / f"{self.calls}.{name}") for name in ("stdout", "stderr", "rc")}
            proc.stdin.write(json.dumps({"args": args, "env": env, "cwd": str(cwd), **files}) + "\n")
            proc.stdin.flush()
            answer = proc.stdout.readline()
            if not answer:  # it died: its traceback went to this worker's stderr
                raise RuntimeError(f"the command server (tests/cli_server.py) exited with {proc.wait()}")
            pid = self.last_pid = json.loads(answer)["pid"]
        deadline = time.monotonic() + timeout
        rc = Path(files["rc"])
        while not rc.exists():
            try:
                os.kill(pid, 0)
            except ProcessLookupError:  # gone: ended at this instant, or killed before its exit code
                break
            if time.monotonic() > deadline:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
                raise subprocess.TimeoutExpired(["workbench", *args], timeout)
            time.sleep(0.01)
        code = int(rc.read_text()) if rc.exists() else -signal.SIGKILL
        out, err = (Path(files[name]).read_text(encoding="utf-8", errors="replace") for name in ("stdout", "stderr"))
        for name in files.values():
            Path(name).unlink(missing_ok=True)
        return subprocess.CompletedProcess(["workbench", *args], code, out, err)


_CLI_SERVER = _CliServer()


@pytest.fixture(scope="session")
def frontier():
    """(engine, pool, data, ruleset, two compiled starter decks) of Wild Frontier's base rules:
    the foundation's pair, for tests of the engine contract (the six-deck field has its own)."""
    from cardsdb.loader import load_ruleset
    from sim.registry import engine

    data, ruleset = load_ruleset("frontier", "base", DATA)
    eng = engine("frontier")
    pool = eng.compile_pool(ruleset)
    decks = [eng.compile_deck(pool, data.decks[d]) for d in ("goblin-gold-gang", "lawmen-posse")]
    return eng, pool, data, ruleset, decks


@pytest.fixture(scope="session")
def allegiance():
    """(engine, pool, data, ruleset, compiled starter decks) of Allegiance's base rules; the
    starters in id order: citadel-wardens, forge-reapers."""
    from cardsdb.loader import load_ruleset
    from sim.registry import engine

    data, ruleset = load_ruleset("allegiance", "base", DATA)
    eng = engine("allegiance")
    pool = eng.compile_pool(ruleset)
    decks = [eng.compile_deck(pool, d) for d in sorted(data.decks.values(), key=lambda d: d.id) if d.starter]
    return eng, pool, data, ruleset, decks


def built_once(tmp_path_factory, name: str, build: Callable[[Path], None]) -> Path:
    """The store ``name``.duckdb made by ``build(path)`` once for the whole test session, whichever
    test worker asks first (the others wait for it on a lock), then copied (file and event-log
    folder) into this worker's own temporary folder, so that no worker reads a file another
    writes. Four workers used to play the same session stores four times over."""
    import fcntl
    import shutil

    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "built-once"
    shared.mkdir(exist_ok=True)
    folder = shared / name
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (shared / f"{name}.done").exists():
            shutil.rmtree(folder, ignore_errors=True)  # a build that failed half way in another worker
            folder.mkdir()
            build(folder / f"{name}.duckdb")
            (shared / f"{name}.done").touch()
    own = tmp_path_factory.mktemp(name)
    shutil.copytree(folder, own, dirs_exist_ok=True)
    return own / f"{name}.duckdb"


def _small_store(path: Path) -> None:
    for pilots, n, seed in (("random,random", "60", "1"), ("greedy,greedy", "20", "7")):
        res = run_cli("simulate", "frontier", "--decks", "goblin-gold-gang,lawmen-posse", "--matches", n,
                      "--pilots", pilots, "--seed", seed,
                      "--workers", "2", "--db", str(path), "--quiet")
        assert res.returncode == 0, res.stderr


def _diff_store(path: Path) -> None:
    res = run_cli("diff", "frontier", "--base", "base", "--candidate", "first-player-skips-draw", "--matches", "60",
                  "--decks", "goblin-gold-gang,lawmen-posse", "--workers", "2", "--db", str(path), "--quiet")
    assert res.returncode == 0, res.stderr


def _campaign_store(path: Path) -> None:
    res = run_cli("simulate-run", "frontier", "--crew", "gold-gang,ironhold-garrison", "--runs", "3",
                  "--policy", "random", "--workers", "2", "--db", str(path), "--quiet")
    assert res.returncode == 0, res.stderr


@pytest.fixture(scope="session")
def small_store(tmp_path_factory) -> Path:
    """A store holding two finished runs: 60 random matches and 20 greedy ones."""
    return built_once(tmp_path_factory, "small", _small_store)


@pytest.fixture(scope="session")
def diff_store(tmp_path_factory) -> Path:
    """A store holding a rules-version diff: two runs of 60 greedy matches on the same seeds, one
    under base and one under first-player-skips-draw, and the ``diffs`` row that pairs them."""
    return built_once(tmp_path_factory, "diff", _diff_store)


@pytest.fixture(scope="session")
def campaign_store(tmp_path_factory) -> Path:
    """A store holding one small Frontier Run batch: 2 crews x 3 runs, random choices."""
    return built_once(tmp_path_factory, "campaign", _campaign_store)


# --- the dashboard under Streamlit's AppTest ------------------------------------------------------------

@pytest.fixture
def fresh_cache():
    """Page queries are cached in-process (st.cache_data); no test may see another's results."""
    import streamlit as st

    st.cache_data.clear()
    yield
    st.cache_data.clear()


@pytest.fixture
def downloads(monkeypatch) -> dict[str, bytes]:
    """The bytes behind each st.download_button, by media file id.

    AppTest stores download data in an in-memory media store it throws away after each run, so
    record what is put in it."""
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    stored: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def recording(self, path_or_data, mimetype, kind, filename=None):
        file_id = original(self, path_or_data, mimetype, kind, filename)
        stored[file_id] = path_or_data if isinstance(path_or_data, bytes) else Path(path_or_data).read_bytes()
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", recording)
    return stored


@pytest.fixture
def named_downloads(monkeypatch) -> dict[str, tuple[str, bytes]]:
    """(file name, bytes) behind each st.download_button, by media file id (as
    ``downloads``, with the name the browser would save the file under)."""
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    stored: dict[str, tuple[str, bytes]] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def recording(self, path_or_data, mimetype, kind, filename=None):
        file_id = original(self, path_or_data, mimetype, kind, filename)
        stored[file_id] = (filename, path_or_data)
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", recording)
    return stored


def page_downloads(at, named: dict[str, tuple[str, bytes]]) -> dict[str, set[str]]:
    """Each download button of a page run by AppTest (``named``: the ``named_downloads``
    fixture): the file's name -> the values of its rows' ``filters`` column."""
    import csv
    import io

    out = {}
    for button in at.get("download_button"):
        name, data = named[Path(button.proto.url).stem]
        out[name] = {row.get("filters") for row in csv.DictReader(io.StringIO(data.decode("utf-8")))}
    return out


def opened_after_the_duel_pages(page: str, **kept):
    """An AppTest of page ``page`` in a session whose duel pages kept another game and runs
    (``kept``: name -> choice), so a download that records them instead of the page's own
    choice shows it."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_string(f"from reports.pages.{page} import render\nrender()", default_timeout=60)
    for name, chosen in {"game": ["frontier"], "runs": [99], **kept}.items():
        at.session_state[f"keep:{name}"] = chosen
    return at.run()
