"""sim/core/portable_math.py: the pilots' transcendental functions, built from IEEE-exact
operations so that a search pilot chooses alike on every machine, and close to the true values.
The reference is Python's ``decimal`` (software arithmetic, correctly rounded at 40 digits), not
the C library the module replaces."""
from __future__ import annotations

import ast
import math
import random
from decimal import Decimal, localcontext
from pathlib import Path

import pytest

from sim.core import portable_math as pm

SIM = Path(__file__).resolve().parents[1] / "sim"
# the math module's functions whose results the C library rounds as it likes (sqrt, floor,
# frexp, ldexp, fabs... are exact by IEEE 754 and stay allowed)
PLATFORM_ROUNDED = {"exp", "expm1", "log", "log1p", "log2", "log10", "pow", "tanh", "sinh", "cosh", "sin",
                    "cos", "tan", "asin", "acos", "atan", "atan2", "erf", "erfc", "gamma", "lgamma", "hypot", "cbrt",
                    "exp2"}


def _ulps(got: float, true: Decimal) -> float:
    nearest = float(true)
    return abs(got - nearest) / math.ulp(nearest) if nearest else abs(got)


def _samples() -> list[float]:
    rng = random.Random(7)
    return ([rng.uniform(-25.0, 25.0) for _ in range(3000)] + [rng.uniform(-1.0, 1.0) for _ in range(3000)]
            + [rng.uniform(-1e-6, 1e-6) for _ in range(300)] + [0.0, 0.5, -0.5, 20.0, -20.0, 40.0])


def test_tanh_is_within_a_few_units_in_the_last_place_of_the_true_value():
    with localcontext() as ctx:
        ctx.prec = 40
        worst = 0.0
        for x in _samples():
            e2x = (Decimal(x) * 2).exp()
            worst = max(worst, _ulps(pm.tanh(x), (e2x - 1) / (e2x + 1)))
    assert worst <= 4, worst


def test_exp_and_log_are_within_a_few_units_in_the_last_place():
    rng = random.Random(11)
    with localcontext() as ctx:
        ctx.prec = 40
        assert max(_ulps(pm.exp(x), Decimal(x).exp()) for x in [rng.uniform(-40.0, 40.0) for _ in range(3000)]) <= 3
        xs = [float(n) for n in range(1, 3000)] + [rng.uniform(1e-6, 1e7) for _ in range(3000)]
        assert max(_ulps(pm.log(x), Decimal(x).ln()) for x in xs) <= 2
    assert pm.log(1.0) == 0.0 and pm.log_count(1) == 0.0
    with pytest.raises(ValueError):
        pm.log(0.0)


def test_tanh_keeps_its_sign_and_stays_within_minus_one_and_one():
    for x in _samples():
        t = pm.tanh(x)
        assert -1.0 <= t <= 1.0
        assert t == -pm.tanh(-x)
        assert (t > 0) == (x > 0) or x == 0.0 or abs(x) < 1e-300


def test_floor_root_is_exact_at_and_around_every_power():
    for degree in (2, 3, 4):
        for r in range(0, 60):
            power = r ** degree
            assert pm.floor_root(power, degree) == r
            if power:
                assert pm.floor_root(power - 1, degree) == r - 1
            assert pm.floor_root(power + 1, degree) == (r if power + 1 < (r + 1) ** degree else r + 1)
    big = (10 ** 40 + 7) ** 4
    assert pm.floor_root(big, 4) == 10 ** 40 + 7 and pm.floor_root(big - 1, 4) == 10 ** 40 + 6


def test_no_engine_or_pilot_calls_a_platform_rounded_math_function():
    """Every module under sim/ (what plays a match): a choice made on a C library's last bit
    would differ between machines. Analysis code (workbench/) may use them freely."""
    found = []
    for path in sorted(SIM.rglob("*.py")):
        if path.name == "portable_math.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "math"
                    and node.attr in PLATFORM_ROUNDED):
                found.append(f"{path.relative_to(SIM)}:{node.lineno} math.{node.attr}")
            if isinstance(node, ast.ImportFrom) and node.module == "math":
                found += [f"{path.relative_to(SIM)}:{node.lineno} from math import {a.name}"
                          for a in node.names if a.name in PLATFORM_ROUNDED]
            if (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant)
                    and isinstance(node.right.value, float)):
                found.append(f"{path.relative_to(SIM)}:{node.lineno} ** {node.right.value}")
    assert not found, found
