"""The compiled hot path's build step, built on request: with ``WORKBENCH_COMPILE=1`` set,
``pip install -e .`` compiles every module listed under ``ext-modules`` in pyproject.toml (each a
``.py`` with an augmenting ``.pxd`` beside it) to C beside its source, with Cython and the
``.pxd``'s types. pyproject.toml names this class as setuptools' ``build_ext``. Without the
setting nothing is compiled and nothing needs a compiler.

Not built by default: issue 13 asks for a compiled path to ship when it buys at least 2x on
lookahead, and the one built here buys less (docs/SPEED.md, "A compiled hot path"). Where the
build is asked for and fails (no Cython, no C compiler), the install goes on with the one note
below and the module runs as its Python source: the same matches, slower. ``-ffp-contract=off``
keeps every ``a * b + c`` two roundings, as Python computes it (a fused multiply-add would change
the last bit of a value, and with it a pilot's choice), so the build and the source agree to the
bit on every machine. Imported only by setuptools at install time (and by the test that builds a
scratch copy), never by the workbench.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from setuptools.command.build_ext import build_ext


def _loader_module():
    """sim/core/compiled.py, read by path: setuptools loads this file by path at install time,
    without the project on sys.path, so ``sim`` cannot be imported here."""
    spec = importlib.util.spec_from_file_location("_workbench_compiled", Path(__file__).with_name("compiled.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_loader = _loader_module()
failure_marker = _loader.failure_marker

REQUEST = "WORKBENCH_COMPILE"
# what the build needs on request only: the build backend (install/workbench_build_backend.py)
# adds it to the build environment's requirements when REQUEST is set
CYTHON = "Cython>=3.0,<4"
# Python's own indexing (Cython's defaults, kept on purpose): with bounds checks and wraparound
# off, ``x[-1]`` would read memory before the list and ``x[len(x)]`` past it, silently, where the
# source takes the last item or raises; keeping them cost nothing measurable (with them on,
# greedy Allegiance 1.02x-1.04x, one candidate 0.97x-0.98x of the build without; docs/SPEED.md)
DIRECTIVES = {"language_level": 3, "annotation_typing": False, "boundscheck": True, "wraparound": True}
FLAGS = ["-O2", "-ffp-contract=off"]


def requested() -> bool:
    return _loader.switched_on(REQUEST)


def note(why: str) -> None:
    print(f"note: the engines' compiled hot path was not built ({why}); they run as pure Python: "
          "the same matches, slower", file=sys.stderr)


class BuildCompiled(build_ext):
    """build_ext that compiles the listed modules only when asked, from their ``.py`` through
    Cython, and notes a failure instead of failing the install. A module whose build failed gets
    a marker beside its source saying why (``compiled.FAILED``), so that every run of the
    workbench says so once, not only this install's output (which pip hides); a build that
    succeeds removes it. A build that is not in place (``pip install .``, a wheel) also puts the
    marker beside the module's copy in the build folder, which is what gets installed."""

    def run(self) -> None:
        if not requested() or not self.extensions:
            return
        self._sources = {ext.name: Path(ext.sources[0]) for ext in self.extensions}
        for source in self._sources.values():
            for marker in self._markers(source):
                marker.unlink(missing_ok=True)
        try:
            from Cython.Build import cythonize
        except ImportError:
            self._failed(list(self._sources), "Cython is not installed")
            return
        for ext in self.extensions:
            ext.extra_compile_args = [*FLAGS, *(ext.extra_compile_args or [])]
        try:
            # Cython writes each module's C beside its source; setuptools' own Extension objects
            # (which build_ext prepared) then build from that C
            # force: the C is made afresh at every requested build, since Cython would otherwise
            # keep a C file newer than its source though the directives or Cython itself changed
            translated = {ext.name: ext for ext in cythonize(self.extensions, compiler_directives=DIRECTIVES,
                                                              quiet=True, force=True)}
            for ext in self.extensions:
                ext.sources = translated[ext.name].sources
            super().run()
        except Exception as error:  # no compiler at all (DistutilsPlatformError and the like)
            self._failed(list(self._sources), f"{type(error).__name__}: {error}")

    def build_extension(self, ext) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:  # the compiler failed on this module
            self._failed([ext.name], f"{type(error).__name__}: {error}")

    def _markers(self, source: Path) -> list[Path]:
        """Where a failed build of ``source`` is marked: beside it, and beside its copy in the
        build folder unless the build is in place (an editable install runs the source itself)."""
        markers = [failure_marker(source)]
        if not self.inplace and self.build_lib:
            markers.append(failure_marker(Path(self.build_lib) / source))
        return markers

    def _failed(self, names: list[str], why: str) -> None:
        note(f"{', '.join(names)}: {why}")
        for name in names:
            for marker in self._markers(self._sources[name]):
                marker.parent.mkdir(parents=True, exist_ok=True)
                marker.write_text(f"{why}\n", encoding="utf-8")
