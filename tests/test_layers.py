"""The one-way flow of docs/ARCHITECTURE.md ("Layers"), held by reading every module's imports:
an audit found reports/ffa.py importing sim, which the page said never happened."""
import ast
from pathlib import Path

import pytest

from tests.conftest import ROOT

NEVER = {  # package -> the top-level packages it never imports (ARCHITECTURE's table)
    "cardsdb": {"sim", "workbench", "reports"},
    "reports": {"sim", "workbench"},
    "sim": {"cardsdb", "workbench", "reports"},
}
# sim's one exception (ARCHITECTURE: Frontier's sheriff list is schema, read from cardsdb)
ALLOWED = {("sim/frontier/sheriffs.py", "cardsdb.frontier.schema")}


def imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("package", sorted(NEVER))
def test_a_layer_never_imports_the_layers_above_it(package):
    wrong = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for name in imported(path):
            where = path.relative_to(ROOT).as_posix()
            if name.split(".")[0] in NEVER[package] and (where, name) not in ALLOWED:
                wrong.append(f"{where}: {name}")
    assert not wrong, wrong
