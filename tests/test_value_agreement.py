"""A card's value (``workbench value``) and a diff's deck change print a paired 95% interval beside
McNemar's p: the two must agree on zero for every table of twins (the interval once read "-11.6 to
-0.3" beside p = 0.07 on 1 against 7 discordant twins), the interval must still cover, and the
table of a value's change between two rules versions names its pilots like the others."""
from __future__ import annotations

import numpy as np
import pytest

from reports.stats import mcnemar_pvalue, paired_rate_interval
from tests.conftest import run_cli


def _tables(max_twins: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (won only before, won only after, twins) with 1 <= twins <= max_twins."""
    rows = []
    for n in range(1, max_twins + 1):
        b, c = (x.ravel() for x in np.meshgrid(np.arange(n + 1), np.arange(n + 1)))
        keep = b + c <= n
        rows.append(np.stack([b[keep], c[keep], np.full(keep.sum(), n)]))
    return tuple(np.concatenate(rows, axis=1))


def _twins(both: int, only_before: int, only_after: int, neither: int) -> tuple[np.ndarray, np.ndarray]:
    before = np.array([1] * both + [1] * only_before + [0] * only_after + [0] * neither)
    after = np.array([1] * both + [0] * only_before + [1] * only_after + [0] * neither)
    return before, after


def test_what_value_prints_leaves_out_zero_exactly_when_mcnemar_rejects():
    """The two functions ``card_value`` and the diff call, on every table of up to 10 twins,
    every split of the concordant twins (both won, neither won) included."""
    wrong = []
    for n in range(1, 11):
        for b in range(n + 1):
            for c in range(n + 1 - b):
                p = mcnemar_pvalue(b, c)
                for both in range(n - b - c + 1):
                    mean, lo, hi = paired_rate_interval(*_twins(both, b, c, n - b - c - both))
                    assert lo <= mean <= hi and -1 - 1e-12 <= lo and hi <= 1 + 1e-12, (both, b, c, n, lo, hi)
                    if (lo > 0 or hi < 0) != (p < 0.05):
                        wrong.append((both, b, c, n, round(lo, 4), round(hi, 4), round(p, 4)))
    assert not wrong, f"{len(wrong)} tables disagree, e.g. (both, b, c, n, lo, hi, p) {wrong[:5]}"


@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.10])
def test_every_table_up_to_sixty_twins_agrees_on_zero(alpha):
    """All 39,710 tables at once (both regimes of the test: exact below 25 discordant twins,
    chi-square from there), at the reports' level and two others."""
    from reports.stats import mcnemar_pvalues, paired_rate_intervals

    b, c, n = _tables(60)
    p = mcnemar_pvalues(b, c)
    lo, hi = paired_rate_intervals(b, c, n, alpha)
    excludes = (lo > 0) | (hi < 0)
    disagree = np.flatnonzero(excludes != (p < alpha))
    assert disagree.size == 0, list(zip(b[disagree], c[disagree], n[disagree], lo[disagree], hi[disagree],
                                        p[disagree]))[:5]
    estimate = (c - b) / n
    assert np.all((lo <= estimate) & (estimate <= hi) & (lo >= -1) & (hi <= 1))
    # the scalar form is the vectorized one, and the p is statsmodels' (tests/test_trust.py)
    for i in np.random.default_rng(0).choice(b.size, 20, replace=False):
        _m, lo1, hi1 = paired_rate_interval(*_twins(0, int(b[i]), int(c[i]), int(n[i] - b[i] - c[i])), alpha)
        assert (lo1, hi1) == pytest.approx((lo[i], hi[i]), abs=1e-12)
        assert mcnemar_pvalue(int(b[i]), int(c[i])) == pytest.approx(p[i], rel=1e-12)


def test_the_repro_and_the_published_example_now_agree():
    """1 against 7 discordant of 100 twins (exact p 0.070) and Cavo et al.'s 16 against 6 of 161
    (exact p 0.0525, Fagerland, Lydersen and Laake's worked example): Newcombe's interval left
    out 0 in both; the union of Tango's and the exact test's keeps it. On that example Tango's
    own interval is the published -0.1240 to -0.0054 (its lower bound is the union's)."""
    for both, b, c, n in ((44, 7, 1, 100), (59, 16, 6, 161)):
        mean, lo, hi = paired_rate_interval(*_twins(both, b, c, n - b - c - both))
        assert mcnemar_pvalue(b, c) > 0.05 and lo < 0 < hi, (b, c, lo, hi)
    _m, lo, _hi = paired_rate_interval(*_twins(59, 16, 6, 80))
    assert round(lo, 4) == -0.1240
    # with 25 discordant twins or more it is Tango's interval alone
    from reports.stats import paired_rate_intervals
    lo, hi = paired_rate_intervals([40], [20], [160])
    assert mcnemar_pvalue(40, 20) < 0.05 and hi[0] < 0


@pytest.mark.parametrize("twins, only_before, only_after", [
    (100, 0.07, 0.01),  # the repro's regime: few discordant twins, most one way (exact test)
    (60, 0.15, 0.05),
    (400, 0.10, 0.06),  # dozens of discordant twins (chi-square test, Tango's interval alone)
])
def test_the_interval_covers_a_known_change(twins, only_before, only_after):
    """Paired wins drawn with a known change: the interval holds it about 95% of the time (at
    least 93%: the exact test's part makes it conservative on few discordant twins). The
    conditional interval alone (Clopper-Pearson on the share, mapped) covered 73% in the first."""
    from reports.stats import paired_rate_intervals

    rng = np.random.default_rng(20240607)
    draws = 4000
    both = 0.4
    counts = rng.multinomial(twins, [both, only_before, only_after, 1 - both - only_before - only_after], size=draws)
    lo, hi = paired_rate_intervals(counts[:, 1], counts[:, 2], twins)
    truth = only_after - only_before
    coverage = float(np.mean((lo <= truth + 1e-12) & (truth - 1e-12 <= hi)))
    assert 0.93 <= coverage <= 0.99, coverage


def test_a_value_change_interval_and_its_t_test_agree_on_zero():
    """``value_change``: the t interval beside the t-test's p of the same per-twin changes."""
    from reports.intervention import _one_sample_p
    from reports.stats import t_interval

    rng = np.random.default_rng(5)
    for _ in range(1500):
        size = int(rng.integers(2, 30))
        d = rng.choice([-2, -1, 0, 1, 2], size=size, p=rng.dirichlet(np.ones(5))).astype(float)
        mean, lo, hi = t_interval(d)
        p = _one_sample_p(d)
        if d.std() == 0:
            continue  # no variance: value_change prints no interval, and p is 1 or empty
        assert (lo > 0 or hi < 0) == (p < 0.05), (d, lo, hi, p)


def test_the_change_table_names_its_pilots(tmp_path):
    """``value --base-rules``: the change table says which pilots played, in the words of the
    version's own table above it (here one pilot per deck, so each deck's)."""
    res = run_cli("value", "frontier", "--deck", "lawmen-posse", "--cards", "tin-star-recruit", "--against",
                  "goblin-gold-gang", "--rules", "first-player-skips-draw", "--base-rules", "base", "--matches", "4",
                  "--pilots", "greedy,random", "--workers", "1", "--db", str(tmp_path / "v.duckdb"), "--quiet")
    assert res.returncode == 0, res.stderr
    words = " ".join(res.stdout.split())  # a long title wraps to its table's width
    pilots = "pilots lawmen-posse: greedy; goblin-gold-gang: random"
    assert words.count(pilots) == 2, words  # the --rules version's table and the change table
    assert (f"Card value, base -> first-player-skips-draw: lawmen-posse against goblin-gold-gang, {pilots} "
            "(paired over the four runs' shared seeds)") in words, words
