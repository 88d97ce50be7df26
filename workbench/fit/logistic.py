"""The fit: a logistic model of each position's result on evaluate, whose coefficients are the
weights (Texel-style tuning, fitted on outcomes rather than played).

    P(the seat to act wins) = sigmoid((slopes . w + rest) / scale)

``slopes . w`` is the fitted weights' part of evaluate (positions.py), ``rest`` what the other
numbers add (keyword tables, which the fit leaves as they are), ``scale`` evaluate's points per
unit of log-odds, fitted first with the starting weights and then held: the weights keep
evaluate's scale, so the search pilots' thresholds (mcts squashes evaluate by a fixed scale)
mean what they meant. Draws count half a win (soft labels). The weights are bounded to a band
around their start (a factor ``BAND`` either way; their sign never flips) and pulled toward it
by a ridge on their relative change, its strength chosen by cross-validation over matches (every
position of a seed's two matches in the same fold: positions of one match are not independent).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.optimize import minimize, minimize_scalar
from scipy.special import expit, log_expit

from workbench.fit.positions import Sample

BAND = 8.0          # a fitted weight stays within start / BAND .. start * BAND
RIDGES = (0.0, 1e-4, 1e-3, 1e-2, 1e-1)
FOLDS = 5
TEST_SHARE = 5      # every 5th seed (both its matches) is held out of the fit, to report the fit on


class Fit(NamedTuple):
    start: np.ndarray       # the starting weights
    weights: np.ndarray     # the fitted weights
    scale: float            # evaluate points per unit of log-odds
    ridge: float            # the penalty cross-validation chose
    train_positions: int
    test_positions: int
    loss_start: float       # held-out mean log loss with the starting weights
    loss_fitted: float      # ... with the fitted ones
    loss_coin: float        # ... of a coin (every position 50%): the floor to beat


def log_loss(logit: np.ndarray, y: np.ndarray) -> float:
    return float(-np.mean(y * log_expit(logit) + (1.0 - y) * log_expit(-logit)))


def fit_scale(sample: Sample) -> float:
    """Evaluate points per unit of log-odds with the starting weights (1-D, on a log scale)."""
    v, y = sample.value, sample.result

    def loss(log_s: float) -> float:
        return log_loss(v / np.exp(log_s), y)

    spread = max(float(np.std(v)), 1e-6)
    best = minimize_scalar(loss, bounds=(np.log(spread) - 6, np.log(spread) + 6), method="bounded")
    return float(np.exp(best.x))


def fit_weights(sample: Sample, start: np.ndarray, scale: float, ridge: float) -> np.ndarray:
    """The weights that minimise the mean log loss plus ``ridge`` x the mean squared relative
    change, within the band."""
    f, y = sample.slopes / scale, sample.result
    rest = (sample.value - sample.slopes @ start) / scale
    n_params = len(start)

    def objective(m: np.ndarray) -> tuple[float, np.ndarray]:  # m: the weights relative to start
        logit = f @ (m * start) + rest
        p = expit(logit)
        loss = log_loss(logit, y) + ridge * float(np.mean((m - 1.0) ** 2))
        grad = (f.T @ (p - y)) / len(y) * start + ridge * 2.0 * (m - 1.0) / n_params
        return loss, grad

    bounds = [(1.0 / BAND, BAND)] * n_params
    best = minimize(objective, np.ones(n_params), jac=True, method="L-BFGS-B", bounds=bounds)
    return best.x * start


def subset(sample: Sample, keep: np.ndarray) -> Sample:
    return Sample(*(getattr(sample, f)[keep] for f in Sample._fields))


def choose_ridge(train: Sample, start: np.ndarray, scale: float) -> float:
    """The ridge with the lowest cross-validated log loss, folds by match."""
    seeds = np.unique(train.match // 2, return_inverse=True)[1]
    folds = seeds % FOLDS
    losses = []
    for ridge in RIDGES:
        total = 0.0
        for k in range(FOLDS):
            fitted = fit_weights(subset(train, folds != k), start, scale, ridge)
            held = subset(train, folds == k)
            total += log_loss(predict(held, start, fitted, scale), held.result) * len(held.result)
        losses.append(total)
    return RIDGES[int(np.argmin(losses))]


def predict(sample: Sample, start: np.ndarray, weights: np.ndarray, scale: float) -> np.ndarray:
    """The model's log-odds with ``weights`` (the positions' values moved by the changed part)."""
    return (sample.value + sample.slopes @ (weights - start)) / scale


def fit(sample: Sample, start: np.ndarray) -> Fit:
    """Scale, ridge and weights fitted on the training matches; the losses on the held-out ones."""
    test_mask = (sample.match // 2) % TEST_SHARE == TEST_SHARE - 1  # a seed's two matches together
    train, test = subset(sample, ~test_mask), subset(sample, test_mask)
    if len(train.result) < 50 or len(test.result) < 10:
        raise ValueError(f"too few positions to fit ({len(sample.result)}): play more matches")
    scale = fit_scale(train)
    ridge = choose_ridge(train, start, scale)
    weights = fit_weights(train, start, scale, ridge)
    return Fit(start, weights, scale, ridge, len(train.result), len(test.result),
               log_loss(predict(test, start, start, scale), test.result),
               log_loss(predict(test, start, weights, scale), test.result),
               log_loss(np.zeros(len(test.result)), test.result))
