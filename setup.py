"""The compiled hot path, built on request: with ``WORKBENCH_COMPILE=1`` set, every module under
sim/ with an augmenting ``.pxd`` beside its ``.py`` is built as a C extension beside its source
(Cython, the ``.pxd``'s types), ``WORKBENCH_COMPILE=1 pip install -e .``. Without it, nothing is
compiled and nothing needs a compiler. Everything else about the package is in pyproject.toml.

Not built by default: issue 13 asks for a compiled path to ship when it buys at least 2x on
lookahead, and the one built here buys less (docs/SPEED.md, "A compiled hot path"). Where the
build is asked for and fails (no C compiler), the install goes on with the one note below and the
module runs as its Python source: the same matches, slower. ``-ffp-contract=off`` keeps every ``a * b + c`` two roundings, as Python
computes it (a fused multiply-add would change the last bit of a value, and with it a pilot's
choice), so the build and the source agree to the bit on every machine.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).parent
DIRECTIVES = {"language_level": 3, "annotation_typing": False, "boundscheck": False, "wraparound": False}


def note(why: str) -> None:
    print(f"note: the engines' compiled hot path was not built ({why}); they run as pure Python: "
          "the same matches, slower", file=sys.stderr)


def compiled_modules() -> list[Extension]:
    if os.environ.get("WORKBENCH_COMPILE", "") in ("", "0"):
        return []
    sources = sorted(p.with_suffix(".py") for p in (ROOT / "sim").rglob("*.pxd") if p.with_suffix(".py").exists())
    if not sources:
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        note("Cython is not installed")
        return []
    extensions = [Extension(".".join(p.relative_to(ROOT).with_suffix("").parts), [str(p.relative_to(ROOT))],
                            extra_compile_args=["-O2", "-ffp-contract=off"]) for p in sources]
    return cythonize(extensions, compiler_directives=DIRECTIVES, quiet=True)


class OptionalBuildExt(build_ext):
    """build_ext that notes a failed build instead of failing the install."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # no compiler at all (DistutilsPlatformError and the like)
            note(f"{type(error).__name__}: {error}")

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:  # the compiler failed on this module
            note(f"{ext.name}: {type(error).__name__}: {error}")


setup(ext_modules=compiled_modules(), cmdclass={"build_ext": OptionalBuildExt})
