"""Cost curves: stats against cost with the fitted stat budget, cards far off it; decks' cost
curves; win rate when played, by cost.

The budget line is an ordinary least squares fit of a card's stat points (what it gives, as its
game counts them) on its budget cost (what it costs), per game, card set (a rules version's name
and the hash of its card data: reports/cards.py ``with_card_set``) and card type: what the
designs actually charge. A card is flagged off budget by the game's own budget, the rule
``workbench cards validate`` uses (cardsdb/budget.py): its stat points minus its budget points
beyond +-1 stat point. Its studentized residual from the fitted line is shown beside it, for
reading, not as a flag: with a close fit (R^2 near 1) a card one point off is a "large" residual."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np
import polars as pl

from cardsdb.budget import TOLERANCE, is_off_budget
from reports import db
from reports.cards import with_card_set
from reports.examples import KEY_SQL, unpack
from reports.filters import Filters
from reports.keywords import _cards
from reports.stats import quiet_fit, rate, wilson


class StatBudget(NamedTuple):
    cards: pl.DataFrame  # each card's surplus over the budget, off-budget flag, fitted value, residual
    lines: pl.DataFrame  # each type's fitted line (or why it has none)


FIT_MIN_CARDS = 5  # fewer cards of a type, or all at one cost: "too few cards for a fit"
TOO_FEW = "too few cards for a fit"
ALL_ALIKE = "every card has the same stat points: no line to fit"
OFF_BUDGET = (f"stat points minus budget points (the game's own budget, its RULES.md) beyond ±{TOLERANCE:g} stat "
              "point, the rule `workbench cards validate` uses")


def stat_budget(path: str | Path, filters: Filters | None = None) -> StatBudget:
    """(cards with their surplus over the game's budget, the off-budget flag, the fitted line's
    value and the residual; one row per type with the line's slope, intercept and R^2, or
    instead a ``note`` and no line: "too few cards for a fit" (fewer than ``FIT_MIN_CARDS``, or
    all at one cost), or every card with the same stat points)."""
    import statsmodels.api as sm  # here, not at the top: see reports/stats.py

    cards = _cards(path, filters).filter(pl.col("stat_points").is_not_null() & pl.col("budget_cost").is_not_null())
    parts, lines = [], []
    for (game, version, rules_hash, ctype), part in cards.group_by(["game", "rules_version", "rules_hash", "type"],
                                                                   maintain_order=True):
        x = part["budget_cost"].to_numpy().astype(float)
        y = part["stat_points"].to_numpy().astype(float)
        fitted, resid = np.full(part.height, np.nan), np.full(part.height, np.nan)
        line = {"game": game, "rules_version": version, "rules_hash": rules_hash, "type": ctype, "intercept": None,
                "slope": None,
                "r_squared": None, "cards": part.height,
                "note": TOO_FEW if part.height < FIT_MIN_CARDS or np.ptp(x) == 0 else ALL_ALIKE if np.ptp(y) == 0 else None}
        if line["note"] is None:
            with np.errstate(invalid="ignore", divide="ignore"), quiet_fit():  # a perfect fit: no residual scale
                fit = sm.OLS(y, sm.add_constant(x)).fit()
                fitted = np.asarray(fit.fittedvalues)
                resid = np.asarray(fit.get_influence().resid_studentized_internal)
            line.update(intercept=float(fit.params[0]), slope=float(fit.params[1]), r_squared=float(fit.rsquared))
        lines.append(line)
        surplus = (part["stat_points"] - part["budget_points"]).cast(pl.Float64)
        parts.append(part.select("game", "rules_version", "rules_hash", "card", "name", "type", "faction", "faction_name",
                                 "budget_cost",
                                 "stat_points", "budget_points", "attack", "defense")
                     .with_columns(pl.Series("surplus", surplus),
                                   pl.Series("off_budget", [is_off_budget(v) for v in surplus.to_list()], pl.Boolean),
                                   pl.Series("fitted_stats", fitted).fill_nan(None),
                                   pl.Series("residual_z", resid).fill_nan(None)))
    if not parts:
        return StatBudget(pl.DataFrame(), pl.DataFrame())
    return StatBudget(with_card_set(pl.concat(parts, how="vertical_relaxed")), with_card_set(pl.DataFrame(
        lines, schema_overrides={"intercept": pl.Float64, "slope": pl.Float64, "r_squared": pl.Float64, "note": pl.Utf8})))


def deck_curves(path: str | Path, filters: Filters | None = None) -> pl.DataFrame:
    """Per card set (``card_set``: the rules version, with its hash where one name holds two) and
    deck: how many cards at each budget cost (the list as it was played).
    A deck list is no pilot's play, so a pilot filter does not narrow it: under "greedy" a deck
    played only against another pilot lost its curve (as the stat budget and price list,
    ``keywords._cards``)."""
    filters = replace(filters or Filters(), pilots=[])
    where, params = filters.where("r", "cg")
    return with_card_set(db.query(path, f"""
        WITH lists AS (
            SELECT r.game, r.rules_version, r.rules_hash, cg.deck, cg.card, max(cg.copies) AS copies
            FROM card_games cg JOIN runs r ON r.run_id = cg.run_id {where} GROUP BY ALL)
        SELECT l.game, l.rules_version, l.rules_hash, l.deck, c.budget_cost AS cost, sum(l.copies)::INTEGER AS cards
        FROM lists l JOIN cards c ON c.rules_hash = l.rules_hash AND c.card = l.card
        GROUP BY ALL ORDER BY ALL""", params or None))


def win_rate_by_cost(path: str | Path, filters: Filters | None = None) -> pl.DataFrame:
    """Per card set and cost: the win rate of the games (match seats) where a card of that cost
    was played; a seat counts once however many such cards it played (counted per card played, a
    seat that played three cost-1 cards weighed three times, and the interval was too narrow).
    Split by card set: the cards of one cost differ from one rules version (or hash) to another."""
    filters = filters or Filters()
    where, params = filters.where("r", "cg")
    where = (where + " AND " if where else "WHERE ") + "cg.played > 0"
    frame = db.query(path, f"""
        WITH seats AS (
            SELECT DISTINCT r.game, r.rules_version, r.rules_hash, c.budget_cost AS cost, {KEY_SQL} AS seat_key, cg.won
            FROM card_games cg JOIN runs r ON r.run_id = cg.run_id
            JOIN cards c ON c.rules_hash = r.rules_hash AND c.card = cg.card
            {where})
        SELECT game, rules_version, rules_hash, cost, count(*) AS games, count(*) FILTER (WHERE won) AS won,
               min(seat_key) FILTER (WHERE won) AS example_win_key, min(seat_key) FILTER (WHERE NOT won) AS example_loss_key
        FROM seats GROUP BY ALL ORDER BY ALL""", params or None)
    lo, hi = wilson(frame["won"], frame["games"])
    return with_card_set(frame.with_columns(
        pl.Series("win_rate", rate(frame["won"], frame["games"])), pl.Series("win_rate_lo", lo),
        pl.Series("win_rate_hi", hi), unpack("example_win_key").alias("example_win"),
        unpack("example_loss_key").alias("example_loss")).drop("example_win_key", "example_loss_key"))
