"""Modules with a compiled build: a Python source that the install also builds as typed C.

A module ``m.py`` with an augmenting ``m.pxd`` beside it, listed under ``ext-modules`` in
pyproject.toml, is built into a C extension beside the source by ``WORKBENCH_COMPILE=1 pip
install -e .`` (compiled_build.py; not by default, see there). The source is the reference; the
build is the same source with the types the ``.pxd`` gives, held to the same bits by
tests/test_compiled.py. ``load_compiled`` is how such a module is imported:

- the build, when there is one and it is not older than its source or its ``.pxd``;
- the source, when there is no build (the default install), or when ``WORKBENCH_PURE_PYTHON=1``
  is set (the reference, on purpose);
- the source, with one note on stderr, when the build is older than the source or its ``.pxd``
  (an edit since the last build, which a stale build would silently ignore), or when the build
  was asked for and failed (no C compiler: a ``.build-failed`` marker beside the source says
  why, since pip hides the install's own note). The note is written
  once per run: the command's own process sets ``WORKBENCH_COMPILED_NOTED`` so its farm workers
  do not repeat it.

Either way the matches are the same, event for event; only the speed differs.
"""
from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

PURE_ENV = "WORKBENCH_PURE_PYTHON"
NOTED_ENV = "WORKBENCH_COMPILED_NOTED"


def switched_on(name: str) -> bool:
    """An environment switch of the compiled path (``WORKBENCH_PURE_PYTHON``, and
    ``WORKBENCH_COMPILE`` at install): on unless unset, empty or 0."""
    return os.environ.get(name, "") not in ("", "0")


def pure_python() -> bool:
    return switched_on(PURE_ENV)


def load_compiled(name: str) -> ModuleType:
    """The module ``name``: its compiled build if it is current, else its Python source."""
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"no module named {name!r}", name=name)
    origin = Path(spec.origin)
    built = origin if is_extension(origin) else None
    source = _source_of(origin)
    why = _why_source(source, built)
    if why is not None and why.startswith((STALE, FAILED_AT_INSTALL)):
        _note(f"{why}: WORKBENCH_COMPILE=1 pip install -e . builds it again")
    if built is not None and why is not None:
        return _from_source(name, source)
    return importlib.import_module(name)  # the build, or the source found where there is none


def builds() -> dict[str, str]:
    """Every module under sim/ that has a ``.pxd``, and how ``load_compiled`` would load it now:
    ``compiled``, or ``source (why)``."""
    root = Path(__file__).resolve().parents[1]
    found = {}
    for pxd in sorted(root.rglob("*.pxd")):
        source = pxd.with_suffix(".py")
        if not source.exists():
            continue
        name = ".".join(source.relative_to(root.parent).with_suffix("").parts)
        built = next((p for p in source.parent.glob(source.stem + ".*") if is_extension(p)), None)
        why = _why_source(source, built)
        found[name] = "compiled" if why is None else f"source ({why})"
    return found


STALE = "its build is older than"
FAILED_AT_INSTALL = "its build failed at install"
FAILED = ".build-failed"  # beside a module's source: why its last requested build failed


def failure_marker(source: Path) -> Path:
    return Path(source).with_suffix(FAILED)


def build_failure(source: Path) -> str | None:
    """Why the last build asked of this module failed, if it did (compiled_build.py)."""
    marker = failure_marker(source)
    return marker.read_text(encoding="utf-8").strip() if marker.exists() else None


def _why_source(source: Path, build: Path | None) -> str | None:
    """Why the source of a module runs instead of its ``build`` (None: the build runs). The one
    place the loading rules are decided, for ``load_compiled`` and ``builds`` alike."""
    if pure_python():
        return f"{PURE_ENV}=1"
    if build is None:
        failed = build_failure(source)
        return f"{FAILED_AT_INSTALL}: {failed}" if failed else "not built"
    for part in (source, source.with_suffix(".pxd")):
        if part.exists() and part.stat().st_mtime > build.stat().st_mtime:
            return f"{STALE} {part.name}"
    return None


def is_extension(path: Path) -> bool:
    return any(path.name.endswith(suffix) for suffix in importlib.machinery.EXTENSION_SUFFIXES)


def is_compiled(module: ModuleType) -> bool:
    return is_extension(Path(getattr(module, "__file__", "") or ""))


def source_module(name: str, as_name: str) -> ModuleType:
    """The Python source of module ``name`` executed as a separate module ``as_name`` (the
    reference the compiled build is compared with)."""
    spec = importlib.util.find_spec(name)
    return _from_source(as_name, _source_of(Path(spec.origin)))


def _source_of(origin: Path) -> Path:
    """The Python source of a module found at ``origin`` (a build: ``m.cpython-311-....so``)."""
    return origin.with_name(origin.name.split(".")[0] + ".py") if is_extension(origin) else origin


def _from_source(name: str, source: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, source)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # classes and pickling look their module up by name
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _note(why: str) -> None:
    if os.environ.get(NOTED_ENV):
        return
    os.environ[NOTED_ENV] = "1"
    print(f"note: the engines' compiled hot path is not in use ({why}); running pure Python: "
          "the same matches, slower", file=sys.stderr)
