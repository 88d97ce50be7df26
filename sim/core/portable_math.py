"""Transcendental functions that give the same bits on every machine, for the pilots.

Why: a pilot's choices must be the same on any machine (determinism: same seed, same events).
``math.log``, ``math.tanh`` and float ``**`` call the platform's C library, which is not required
to round them correctly: glibc picks an FMA or a plain variant by the CPU, and musl or macOS
compute them otherwise, so the last bit may differ, and a search pilot comparing two close
scores may then choose otherwise. These are built from the operations IEEE 754 rounds exactly
(+, -, *, /, and scaling by a power of two with ``frexp``/``ldexp``), evaluated by Python in the
written order (no fused multiply-add), so every IEEE machine gives the same bits. They are within
a few units in the last place of the true value (tests/test_portable_math.py), which is all a
pilot's score needs.
"""
from __future__ import annotations

import math
from functools import lru_cache

# ln 2 split so that k * LN2_HI is exact for the k met here (Cody and Waite's reduction)
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
INV_LN2 = 1.44269504088896338700e00
SQRT_HALF = 0.70710678118654752440

# 1 / n! for the exponential's series on |r| <= ln 2 / 2 (the 14th term is below 4e-18)
_EXP_TERMS = tuple(1.0 / math.factorial(n) for n in range(13, -1, -1))
# 1 / n! for n = 18 down to 1: e ** z - 1 for |z| <= 1 (the 19th term is below 1e-17)
_EXPM1_TERMS = tuple(1.0 / math.factorial(n) for n in range(18, 0, -1))
# 1 / (2n + 1) for log's series in s = (m - 1) / (m + 1), |s| <= 0.1716 (s ** 21 is below 1e-16)
_LOG_TERMS = tuple(1.0 / (2 * n + 1) for n in range(10, -1, -1))


def exp(x: float) -> float:
    """e ** x for |x| < 700: x = k ln 2 + r, e ** r by its Taylor series (Horner), times 2 ** k."""
    k = int(math.floor(x * INV_LN2 + 0.5))
    r = (x - k * LN2_HI) - k * LN2_LO
    total = 0.0
    for term in _EXP_TERMS:
        total = total * r + term
    return math.ldexp(total, k)


def expm1(z: float) -> float:
    """e ** z - 1 for |z| <= 1 by its series, without the cancellation of exp(z) - 1 near 0."""
    total = 0.0
    for term in _EXPM1_TERMS:
        total = total * z + term
    return total * z


def tanh(x: float) -> float:
    """The hyperbolic tangent, with the sign of x: t / (t + 2) with t = e ** 2|x| - 1 below
    |x| = 0.5 (no cancellation near 0), 1 - 2 / (e ** 2|x| + 1) above, ±1 beyond |x| = 20 (where
    the true value is within 1e-17 of it)."""
    y = -x if x < 0 else x
    if y < 0.5:
        t = expm1(2.0 * y)
        value = t / (t + 2.0)
    elif y > 20.0:
        value = 1.0
    else:
        value = 1.0 - 2.0 / (exp(2.0 * y) + 1.0)
    return -value if x < 0 else value


def log(x: float) -> float:
    """The natural logarithm of x > 0: x = m 2 ** e with m in [sqrt(1/2), sqrt(2)), then
    log m = 2 atanh((m - 1) / (m + 1)) by its series."""
    if x <= 0.0:
        raise ValueError("math domain error")
    m, e = math.frexp(x)
    if m < SQRT_HALF:
        m, e = m * 2.0, e - 1
    s = (m - 1.0) / (m + 1.0)
    s2 = s * s
    total = 0.0
    for term in _LOG_TERMS:
        total = total * s2 + term
    return (e * LN2_HI + 2.0 * s * total) + e * LN2_LO


@lru_cache(maxsize=4096)
def log_count(n: int) -> float:
    """``log`` of a visit count (UCB asks for the same small integers again and again)."""
    return log(float(n))


def floor_root(n: int, degree: int) -> int:
    """The largest integer r with r ** degree <= n (n >= 0), in integers (Newton's method from
    above): ``int(n ** (1 / d))`` goes through the C library's pow and may land one below at an
    exact power."""
    if n < 0:
        raise ValueError("floor_root of a negative number")
    if n < 2:
        return n
    x = 1 << -(-n.bit_length() // degree)  # a power of two at or above the root
    while True:
        y = ((degree - 1) * x + n // x ** (degree - 1)) // degree
        if y >= x:
            return x
        x = y
