"""No import cycle inside a game's engine package (issue 15): every module of sim/<game>/ is read
for its imports of sibling modules, at the top and inside functions alike (an import statement
inside a function is how a cycle hides), and the graph must have no strongly connected part
larger than one module. Every registered engine is checked."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sim.registry import ENGINES

ROOT = Path(__file__).resolve().parent.parent

def sibling_imports(package: str, root: Path = ROOT) -> dict[str, set[str]]:
    """For each module of ``package`` (by its short name), the sibling modules it imports."""
    folder = root / package.replace(".", "/")
    names = {f.stem for f in folder.glob("*.py") if f.stem != "__init__"}
    graph: dict[str, set[str]] = {}
    for name in names:
        found: set[str] = set()
        for node in ast.walk(ast.parse((folder / f"{name}.py").read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == package:
                found.update(a.name for a in node.names if a.name in names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(package + "."):
                found.add(node.module[len(package) + 1:].split(".")[0])
            elif isinstance(node, ast.Import):
                found.update(a.name[len(package) + 1:].split(".")[0] for a in node.names
                             if a.name.startswith(package + "."))
        graph[name] = found & names
    return graph


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected parts of more than one module (or a module importing itself)."""
    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    reached = {m: reach(m) for m in graph}
    out: list[set[str]] = []
    for m in sorted(graph):
        if m in reached[m] and not any(m in part for part in out):
            out.append({m} | {n for n in reached[m] if m in reached[n]})
    return out


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_no_import_cycle_in_the_engine_package(game):
    found = [sorted(part) for part in cycles(sibling_imports(ENGINES[game]))]
    assert not found, f"{ENGINES[game]}: import cycles {found}"


def test_a_cycle_is_found_even_through_an_import_inside_a_function():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert sorted(map(sorted, cycles(graph))) == [["a", "b", "c"], ["e"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_an_import_inside_a_function_is_read(tmp_path):
    """The cycle of engine <-> scenario as it was: the import back sits inside a function."""
    folder = tmp_path / "toy" / "game"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("from toy.game.engine import ENGINE\n")
    (folder / "engine.py").write_text("from toy.game import scenario\nENGINE = 1\n")
    (folder / "scenario.py").write_text("def state():\n    from toy.game.engine import ENGINE\n    return ENGINE\n")
    (folder / "state.py").write_text("import toy.game.engine\n")
    graph = sibling_imports("toy.game", tmp_path)
    assert graph == {"engine": {"scenario"}, "scenario": {"engine"}, "state": {"engine"}}
    assert cycles(graph) == [{"engine", "scenario"}]
