"""The install's build backend: setuptools' own, asking for Cython only when the compiled hot path
is requested.

pyproject.toml names this module (``build-backend``, found through ``backend-path``), so pip asks
it what a build needs. With ``WORKBENCH_COMPILE=1`` set that is setuptools' list plus Cython
(``compiled_build.CYTHON``); without it, setuptools' list alone. So the default install, the
README's commands, fetches no Cython into its build environment and needs none on the package
index. Everything else is setuptools' ``build_meta`` as it is. Only the build uses it; it is
packaged with the rest so that a source distribution carries it (an install from one runs it).
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 (the whole PEP 517 interface, unchanged)


def _compiled_build():
    """sim/core/compiled_build.py, read by path: the build environment has this folder on its
    path (backend-path), not the project."""
    spec = importlib.util.spec_from_file_location(
        "_workbench_compiled_build", Path(__file__).resolve().parents[1] / "compiled_build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _with_cython(requires: list[str]) -> list[str]:
    build = _compiled_build()
    return [*requires, build.CYTHON] if build.requested() else list(requires)


def get_requires_for_build_wheel(config_settings=None) -> list[str]:
    return _with_cython(_setuptools.get_requires_for_build_wheel(config_settings))


def get_requires_for_build_editable(config_settings=None) -> list[str]:
    return _with_cython(_setuptools.get_requires_for_build_editable(config_settings))
