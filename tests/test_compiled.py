"""The compiled hot path (sim/core/compiled.py, sim/core/compiled_build.py) against its Python source.

A module with a ``.pxd`` beside it may run as its C build (``WORKBENCH_COMPILE=1 pip install
-e .``) or as its source; both must value every position to the same bits, or a pilot would
choose otherwise and the same seed would give other matches on another install. The first test
holds whatever this install loads to the source; the slow one builds the module in a scratch copy
of the tree (where Cython and a C compiler are found) and holds the build to the source there,
with the matches' digests and the loader's rules (a stale build is not used, and says so once).
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from sim.core.compiled import PURE_ENV, builds, is_extension, source_module
from tests.cli_server import user_env
from tests.conftest import run_cli

REPO = Path(__file__).resolve().parents[1]

# the positions compared: every position one legal action away from each decision of seeded
# random, greedy (the tuned weight set: a second copy of evaluate.py on the same valuation) and
# greedy@hand matches (the positions lookahead values), and of a greedy match on each of two wide
# boards (64 and 96 cells), both seats, by the hand weight set
COMPARE = """
import hashlib
import sys
from sim.core.compiled import is_compiled, source_module
from workbench.bench.driver import Game, match_digest
import sim.allegiance.evaluate as loaded

source = source_module("sim.allegiance.valuation", "valuation_reference")
reference = source.Valuer(loaded.WEIGHTS["weights"])
game = Game("allegiance")
engine = game.engine
counts = {"positions": 0, "differ": 0}

def compare(state, action):
    for a in engine.legal_actions(state):
        trial = engine.clone(state)
        engine.apply(trial, a)
        for seat in (0, 1):
            kept, fresh = loaded.evaluate(trial, seat), reference.evaluate_fresh(trial, seat)
            counts["positions"] += 1
            if kept.hex() != fresh.hex():
                counts["differ"] += 1
                if counts["differ"] <= 3:
                    print(f"turn {trial.turn} seat {seat}: loaded {kept!r}, source {fresh!r}", file=sys.stderr)

digest = hashlib.sha256()
for i in range(int(sys.argv[1])):
    result = game.play(i, [("random", "greedy", "greedy@hand")[i % 3]] * 2, on_decision=compare)
    assert result.error is None, result.error
    digest.update(match_digest(result).encode())

# the widest board the build's 64-bit cell masks hold (2 x 4 x 8 = 64 cells: bit 63 is in every
# mask of the second half) and a wider one (2 x 6 x 8 = 96, the rules' widest): the build leaves
# the second to the source, which must value it alike rather than overflow
from cardsdb.loader import Ruleset
from sim.core.match import play_match
from workbench import games
data, base = games.load("allegiance", "base")
for rows, columns in ((4, 8), (6, 8)):
    board = base.constants.model_copy(update={"rows_per_side": rows, "columns": columns})
    pool = engine.compile_pool(Ruleset(base.game, f"board-{rows}x{columns}", base.chain, board, base.cards,
                                       base.hash, base.schema))
    assert pool.board.n == 2 * rows * columns
    decks = [engine.compile_deck(pool, d) for d in games.decks_for(data, base, None)][:2]
    before = counts["positions"]
    result = play_match(engine, pool, decks, 1, ["greedy"] * 2, on_decision=compare)
    assert result.error is None, result.error
    assert counts["positions"] - before > 1_000, counts
    digest.update(match_digest(result).encode())
print(is_compiled(loaded.valuation), counts["positions"], counts["differ"], digest.hexdigest()[:16])
"""


def _compare(root: Path, matches: int, pure: bool = False) -> tuple[bool, int, str]:
    """(loaded compiled?, positions compared, digest of the matches); fails on any position
    valued otherwise."""
    env = user_env()
    env["PYTHONPATH"] = str(root)
    if pure:
        env[PURE_ENV] = "1"
    done = subprocess.run([sys.executable, "-c", COMPARE, str(matches)], cwd=root, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    compiled, positions, differ, digests = done.stdout.split()
    assert int(differ) == 0, f"{differ} of {positions} positions valued otherwise:\n{done.stderr[-2000:]}"
    return compiled == "True", int(positions), digests


def test_the_loaded_valuation_values_positions_as_its_source_does():
    """Whatever this install loads (the build if it made one, else the source) against the
    source executed afresh, and its kept terms against a fresh evaluation."""
    compiled, positions, _digests = _compare(REPO, 4)
    assert positions > 5_000
    status = builds()["sim.allegiance.valuation"]
    assert (status == "compiled") == compiled, status


def test_source_module_is_a_separate_copy_of_the_source():
    import sim.allegiance.evaluate as loaded
    copy = source_module("sim.allegiance.valuation", "valuation_copy_for_test")
    try:
        assert copy is not loaded.valuation
        assert copy.__file__.endswith("valuation.py")
        assert copy.Valuer(loaded.WEIGHTS["weights"]).win == loaded.VALUER.win
    finally:
        sys.modules.pop("valuation_copy_for_test", None)


def _compiler() -> str | None:
    if importlib.util.find_spec("Cython") is None:
        return "Cython is not installed"
    if not (shutil.which("cc") or shutil.which("gcc")):
        return "no C compiler"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python headers (Python.h)"
    return None


def _scratch_tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    for part in ("sim", "workbench", "cardsdb", "reports"):
        shutil.copytree(REPO / part, tree / part,
                        ignore=shutil.ignore_patterns("*.so", "*.c", "*.build-failed", "__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tree)
    shutil.copy(REPO / "README.md", tree)
    return tree


def _build(tree: Path, isolated: bool = True, **settings: str) -> subprocess.CompletedProcess:
    """The install's build, asked to compile: pip builds a wheel of the scratch tree in an
    isolated environment (setuptools loads pyproject.toml's ext-modules and its build_ext class
    by path there, as ``pip install`` does), and the built extensions are put beside their
    sources, where an editable install leaves them. ``isolated=False`` builds with this
    environment's setuptools and Cython (the test extras) instead of fetching them into a new
    one: the same backend and build class, without the half minute that costs."""
    env = {**user_env(), "WORKBENCH_COMPILE": "1", **settings}
    out = tree / "dist"
    isolation = [] if isolated else ["--no-build-isolation"]
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-cache-dir", *isolation, "-q", "-w",
                           str(out), str(tree)], cwd=tree, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0 and "No matching distribution found" in done.stderr:
        # pip could not fetch the build's own requirements (setuptools, Cython): no package index
        why = next(line for line in done.stderr.splitlines() if "No matching distribution found" in line)
        pytest.skip(f"pip could not fetch the build's requirements ({why.strip()})")
    done.markers = []  # the failure markers the wheel would install
    for wheel in out.glob("*.whl") if done.returncode == 0 else ():
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.namelist():
                if member.startswith("sim/") and is_extension(Path(member)):
                    archive.extract(member, tree)
                if member.endswith(".build-failed"):
                    done.markers.append(member)
        wheel.unlink()
    return done


def _probe(tree: Path, **settings: str) -> subprocess.CompletedProcess:
    """A process of the scratch tree: is valuation compiled, and how builds() says it loads."""
    env = {**user_env(), "PYTHONPATH": str(tree), **settings}
    probe = ("import sim.core.compiled as c; m = c.load_compiled('sim.allegiance.valuation'); "
             "c.load_compiled('sim.allegiance.evaluate'); print(c.is_compiled(m), c.builds()['sim.allegiance.valuation'])")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tree, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def _backend(path: Path):
    """The build backend module at ``path``, loaded as pip loads it: by path, not as a package."""
    spec = importlib.util.spec_from_file_location("_workbench_backend_for_test", path)
    backend = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(backend)
    return backend


def test_the_build_asks_for_cython_only_when_the_compiled_path_is_requested(monkeypatch):
    """The default install (the README's commands) fetches no Cython into its build environment:
    the build backend pyproject.toml names adds it to setuptools' requirements only with
    ``WORKBENCH_COMPILE=1`` set."""
    import tomllib

    system = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]
    assert not [r for r in system["requires"] if r.lower().startswith("cython")], system
    backend = _backend(REPO / system["backend-path"][0] / f"{system['build-backend']}.py")
    monkeypatch.chdir(REPO)  # setuptools reads the project's configuration from here
    for ask in (backend.get_requires_for_build_wheel, backend.get_requires_for_build_editable):
        monkeypatch.delenv("WORKBENCH_COMPILE", raising=False)
        plain = ask()
        assert not [r for r in plain if r.lower().startswith("cython")], plain
        monkeypatch.setenv("WORKBENCH_COMPILE", "1")
        requested = ask()
        assert [r for r in requested if r.startswith("Cython")] == ["Cython>=3.0,<4"], requested
        assert requested[:len(plain)] == plain


def test_a_source_distribution_carries_the_build_backend_and_the_types(tmp_path, monkeypatch):
    """An install from a source distribution runs the build backend pyproject.toml names, and a
    compiled build from it needs the ``.pxd`` types: both must be in it."""
    import tarfile

    tree = _scratch_tree(tmp_path)
    backend = _backend(tree / "sim" / "core" / "install" / "workbench_build_backend.py")
    monkeypatch.chdir(tree)
    name = backend.build_sdist(str(tmp_path / "dist"))
    with tarfile.open(tmp_path / "dist" / name) as archive:
        members = {m.split("/", 1)[1] for m in archive.getnames() if "/" in m}
    assert "sim/core/install/workbench_build_backend.py" in members
    assert "sim/core/compiled_build.py" in members and "sim/core/compiled.py" in members
    assert "sim/allegiance/valuation.pxd" in members


def test_bench_compiled_without_a_build_says_how_to_make_one_in_one_line():
    """``bench --compiled`` measures this tree's build against its source; with no build in use
    (here forced by the pure-Python switch, as on a default install) it says so in one line."""
    res = run_cli("bench", "--compiled", "--games", "allegiance", "--skip-farm", env={PURE_ENV: "1"})
    assert res.returncode == 2, res.stdout + res.stderr  # a user error
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "nothing" in lines[0] and "WORKBENCH_COMPILE=1 pip install -e ." in lines[0], res.stderr
    assert "Traceback" not in res.stderr


def test_bench_takes_against_or_compiled_not_both():
    res = run_cli("bench", "--compiled", "--against", "HEAD", "--games", "allegiance", "--skip-farm")
    assert res.returncode == 2 and "give one" in res.stderr and "Traceback" not in res.stderr, res.stderr


@pytest.mark.slow
def test_a_failed_build_says_why_once_and_a_good_build_then_plays_the_same_matches(tmp_path):
    """No C compiler (a compiler that does not exist): the install goes on, the module runs as
    its source, and each workbench run says once that its build failed and why (pip hides the
    install's output); the pure-Python switch, asked for, says nothing. Then the build with the
    machine's compiler (one test, two builds: each build costs the suite a minute): the marker
    goes, the build values every position to the bit and plays the same matches as the source,
    ``bench --compiled`` measures it, and a source edited after it is not used."""
    missing = _compiler()
    if missing:
        pytest.skip(f"the compiled build cannot be tried here: {missing}")
    tree = _scratch_tree(tmp_path)
    built = _build(tree, isolated=False, CC="/nonexistent/cc")  # the good build below is the isolated one
    assert built.returncode == 0, built.stderr[-3000:]
    # pip shows nothing of a build that went on; the marker beside the source keeps why
    marker = tree / "sim" / "allegiance" / "valuation.build-failed"
    assert marker.exists() and "/nonexistent/cc" in marker.read_text(), built.stderr
    # and a non-editable install gets it beside the installed module
    assert built.markers == ["sim/allegiance/valuation.build-failed"], built.markers
    assert not list((tree / "sim" / "allegiance").glob("valuation.*.so"))
    ran = _probe(tree)
    compiled, status = ran.stdout.split(maxsplit=1)
    assert compiled == "False" and status.startswith("source (its build failed"), ran.stdout
    notes = [line for line in ran.stderr.splitlines() if line.strip()]
    assert len(notes) == 1 and "its build failed at install" in notes[0] and "/nonexistent/cc" in notes[0], ran.stderr
    assert _probe(tree, **{PURE_ENV: "1"}).stderr.strip() == ""
    # a build that then succeeds takes the marker away, from the source and from what it installs
    rebuilt = _build(tree)
    assert rebuilt.returncode == 0 and not rebuilt.markers, rebuilt.markers
    assert _probe(tree).stdout.split()[0] == "True"
    assert not list(tree.rglob("*.build-failed")), "the good build leaves no marker"
    assert list((tree / "sim" / "allegiance").glob("valuation.*.so")), "the build made no valuation extension"

    compiled, positions, digests = _compare(tree, 3)  # one match of each pilot, and the two wide boards
    assert compiled and positions > 5_000
    pure, _, pure_digests = _compare(tree, 3, pure=True)
    assert not pure
    assert digests == pure_digests

    # bench --compiled measures the build against the source: the same work on both sides, a
    # game with nothing compiled skipped
    env = {**user_env(), "PYTHONPATH": str(tree)}
    bench = subprocess.run([sys.executable, "-m", "workbench.cli", "bench", "--compiled", "--games",
                            "frontier,allegiance", "--pilots", "random", "--matches", "4", "--blocks", "2",
                            "--skip-farm"], cwd=tree, env=env, capture_output=True, text=True, timeout=600)
    assert bench.returncode == 0, bench.stderr[-3000:]
    assert "frontier: none of its modules is compiled" in bench.stdout, bench.stdout
    table = [[c.strip() for c in line.split("│")[1:-1]] for line in bench.stdout.splitlines() if line.startswith("│")]
    assert table and {row[0] for row in table} == {"allegiance"}, bench.stdout
    assert all(row[-1].startswith("same") for row in table), bench.stdout

    # a source edited after the build: the build is not used, and one note says so
    source = tree / "sim" / "allegiance" / "valuation.py"
    later = max(p.stat().st_mtime for p in source.parent.glob("valuation.*.so")) + 10
    os.utime(source, (later, later))
    stale = _probe(tree)
    assert stale.stdout.split()[0] == "False" and "its build is older than valuation.py" in stale.stdout
    notes = [line for line in stale.stderr.splitlines() if line.strip()]
    assert len(notes) == 1 and "its build is older than valuation.py" in notes[0], stale.stderr

