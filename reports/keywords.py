"""What keywords do to winning, and what they are worth in cost.

Impact: per match x seat, the exposure to a keyword is the number of cards played that carry
it. A logistic model of winning on every keyword's exposure, with the cost of all cards played,
the seat order and a fixed effect per deck (and rules version) as covariates (statsmodels),
gives each keyword's effect on the odds of winning with its 95% interval. Beside it, the plain
difference: win rate of seats that played the keyword at least once minus the win rate of those
that did not (Newcombe interval). The plain difference carries every confounder (a keyword of a
strong deck looks strong; expensive keywords are played by seats that survived longer); the
model removes deck, cost and seat order, which is all it claims to remove, and "cards played" is
itself an outcome of the game (a seat that is winning plays more).

Because we own the simulator we can also show a cause: the same model on the keyword cards
dealt in the opening hand (``oh_`` columns), with the dealt hand's cost, seat order and deck as
covariates. The hand read is the one the shuffle dealt, before any redraw
(``card_games.in_dealt_hand``): AlleyWay lets a seat redraw, and the hand it kept carries the
pilot's judgement of it (runs stored before the dealt hand was recorded fall back to the kept
hand). The shuffle deals it at random within a deck, so that effect is what being dealt one more
such card does to winning (in AlleyWay, redraw allowed), not a correlation with how the game
went. Without the deck effect it is not: a keyword most cards of a strong deck carry is dealt
more often to that deck, and would take the deck's strength as its own.

Each model's p-values come with Benjamini-Hochberg q-values across its keywords (``q_value``,
``oh_q_value``): with twenty keywords tested, one p below 0.05 is expected by chance alone.

Prices: over the cards of a card set (a rules version's name and the hash of its card data; one
type at a time), an ordinary least squares fit of
cost on attack, defense and keyword flags; a keyword's coefficient is what the designers have
been charging for it, in cost units, with its 95% interval.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import polars as pl

from reports import db
from reports.cards import with_card_set, with_faction_name
from reports.examples import by_key
from reports.filters import Filters
from reports.stats import benjamini_hochberg, diff_interval, one_blas_thread, quiet_fit, rate

MIN_EXPOSED = 10  # seats that played a keyword before the model gives it a coefficient
SEAT_COLUMNS = ("run_id", "match_no", "seat", "won", "on_play", "cost", "rules_version", "rules_hash", "deck")
# one intercept per deck of a card set (a rules version's name and its card data's hash), where the data has them
FIXED_EFFECTS = ("rules_version", "rules_hash", "deck")
MAX_LOG_ODDS_WIDTH = 20.0  # a 95% interval wider than this (odds ratios spanning e^20) is separation


def keyword_name(keyword: str) -> str:
    """A keyword as a reader names it: its data id in words, each capitalised (``double_barrel``
    -> "Double Barrel"); ``attack`` and ``defense`` (the price list's stat terms) likewise."""
    return " ".join(w.capitalize() for w in keyword.replace("-", "_").split("_") if w)


def with_keyword_names(frame: pl.DataFrame, column: str) -> pl.DataFrame:
    """A ``<column>_name`` column beside a column of keyword ids: each as a reader names it."""
    return frame.with_columns(pl.col(column).map_elements(keyword_name, return_dtype=pl.Utf8).alias(f"{column}_name"))


def exposures(path: str | Path, filters: Filters | None = None, basis: str = "played") -> pl.DataFrame:
    """One row per match x seat: won, on_play, ``cost``, rules_version, rules_hash, deck and one
    column per keyword.

    basis "played": a keyword's exposure is the number of cards played that carry it, ``cost``
    the budget cost of every card played. basis "dealt": the number of such cards in the hand as
    the shuffle dealt it, before any redraw (``dealt_hand_sql``), ``cost`` that hand's cost. The
    dealt hand is the shuffle's, so its exposure is randomised; what is played is not (it depends
    on how the game goes), nor is the hand a seat kept after a redraw (it depends on the pilot)."""
    filters = filters or Filters()
    count = {"played": "cg.played", "dealt": dealt_hand_sql(path)}[basis]
    where, params = filters.where("r", "cg")
    seats = db.query(path, f"""
        SELECT cg.run_id, cg.match_no, cg.seat, any_value(cg.won) AS won, any_value(cg.on_play) AS on_play,
               sum({count} * coalesce(c.budget_cost, 0)) AS cost, any_value(r.rules_version) AS rules_version,
               any_value(r.rules_hash) AS rules_hash, any_value(cg.deck) AS deck
        FROM card_games cg JOIN runs r ON r.run_id = cg.run_id
        LEFT JOIN cards c ON c.rules_hash = r.rules_hash AND c.card = cg.card
        {where} GROUP BY ALL""", params or None)
    kw = db.query(path, f"""
        SELECT cg.run_id, cg.match_no, cg.seat, k.keyword, sum({count}) AS n
        FROM card_games cg JOIN runs r ON r.run_id = cg.run_id
        JOIN (SELECT rules_hash, card, unnest(keywords) AS keyword FROM cards) k
             ON k.rules_hash = r.rules_hash AND k.card = cg.card
        {where + (' AND ' if where else 'WHERE ')} {count} > 0 GROUP BY ALL""", params or None)
    if kw.is_empty():
        return seats
    wide = kw.pivot(on="keyword", index=["run_id", "match_no", "seat"], values="n", aggregate_function="sum")
    out = seats.join(wide, on=["run_id", "match_no", "seat"], how="left")
    names = [c for c in wide.columns if c not in ("run_id", "match_no", "seat")]
    return out.with_columns(pl.col(c).fill_null(0) for c in names)


def dealt_hand_sql(path: str | Path) -> str:
    """The SQL of a card row's copies in the hand as first dealt, before any redraw: the stored
    ``in_dealt_hand``; the kept opening hand where a run stored none (before it was recorded; a
    store not yet migrated has no such column). Without a redraw the two are the same hand."""
    if db.has_columns(path, "card_games", "in_dealt_hand"):
        return "coalesce(cg.in_dealt_hand, cg.in_opening_hand)"
    return "cg.in_opening_hand"


def keyword_impact(path: str | Path, filters: Filters | None = None) -> pl.DataFrame:
    """Per keyword: seats exposed, plain with/without win rates and difference, the model's
    log-odds effect per card played and per card dealt in the opening hand (``oh_``; with odds
    ratio, interval, p-value, Benjamini-Hochberg q-value across the model's keywords,
    ``seats_dealt``), and ``signs_disagree`` where the two models' estimates point in opposite
    directions."""
    data = exposures(path, filters)
    keywords = sorted(c for c in data.columns if c not in SEAT_COLUMNS)
    if data.is_empty() or not keywords:
        return pl.DataFrame()
    out = plain_differences(data, keywords)
    exposed = dict(zip(out["keyword"], out["seats_exposed"]))
    model = _fit_logit(data, [kw for kw in keywords if exposed[kw] >= MIN_EXPOSED])
    opening = exposures(path, filters, basis="dealt")
    dealt = pl.DataFrame({"keyword": keywords, "seats_dealt": [
        int((opening[kw] > 0).sum()) if kw in opening.columns else 0 for kw in keywords]})
    randomised = _fit_logit(opening, dealt.filter(pl.col("seats_dealt") >= MIN_EXPOSED)["keyword"].to_list())
    examples = by_key(path, filters or Filters(), "keyword")
    return (out.join(model, on="keyword", how="left").join(dealt, on="keyword", how="left")
            .join(randomised.rename(lambda c: c if c == "keyword" else f"oh_{c}"), on="keyword", how="left")
            .with_columns(((pl.col("log_odds") * pl.col("oh_log_odds")) < 0).fill_null(False).alias("signs_disagree"))
            .join(examples, on="keyword", how="left").sort("keyword"))


def plain_differences(data: pl.DataFrame, keywords: list[str]) -> pl.DataFrame:
    """Per keyword: win rate of the seats exposed to it (exposure > 0) and of the others, and
    their difference with Newcombe's interval; every confounder included."""
    won = data["won"].cast(pl.Int8).to_numpy()
    rows = []
    for kw in keywords:
        exposed = data[kw].to_numpy() > 0
        k1, n1 = int(won[exposed].sum()), int(exposed.sum())
        k0, n0 = int(won[~exposed].sum()), int((~exposed).sum())
        lo, hi = diff_interval([k1], [n1], [k0], [n0])
        rows.append({"keyword": kw, "seats_exposed": n1, "seats_unexposed": n0,
                     "wr_with": float(rate(k1, n1)), "wr_without": float(rate(k0, n0)),
                     "plain_diff": float(rate(k1, n1) - rate(k0, n0)), "plain_diff_lo": float(lo[0]),
                     "plain_diff_hi": float(hi[0])})
    return pl.DataFrame(rows)


def _design(data: pl.DataFrame, keywords: list[str]) -> np.ndarray:
    """Constant, keyword exposures, cost per 10, seat order, then one dummy per deck (of a rules
    version) but the first: the keyword coefficients are then within-deck contrasts, so a keyword
    is not credited with the strength of the decks that carry it."""
    import statsmodels.api as sm  # here, not at the top: see reports/stats.py
    columns = ([data[k].to_numpy().astype(float) for k in keywords]
               + [data["cost"].to_numpy().astype(float) / 10.0, data["on_play"].cast(pl.Int8).to_numpy().astype(float)])
    fixed = [c for c in FIXED_EFFECTS if c in data.columns]
    if fixed:
        groups = data.select(pl.concat_str(fixed, separator=" / ").alias("fe"))
        if groups["fe"].n_unique() > 1:  # one deck (a deck filter): no contrast to take, no dummy
            columns.append(groups.to_dummies(drop_first=True).to_numpy().astype(float))
    return sm.add_constant(np.column_stack(columns), has_constant="add")


def _fit_logit(data: pl.DataFrame, keywords: list[str]) -> pl.DataFrame:
    import statsmodels.api as sm  # here, not at the top: see reports/stats.py
    empty = pl.DataFrame(schema={"keyword": pl.Utf8, "log_odds": pl.Float64, "log_odds_lo": pl.Float64,
                                 "log_odds_hi": pl.Float64, "odds_ratio": pl.Float64, "p_value": pl.Float64,
                                 "q_value": pl.Float64})
    if not keywords or data.height < 20:
        return empty
    X = _design(data, keywords)
    y = data["won"].cast(pl.Int8).to_numpy().astype(float)
    try:
        # on one BLAS thread: OpenBLAS hands the fit's small products to its threads, and on two busy
        # cores that made keyword_impact four times dearer in CPU than one thread (docs/SPEED.md)
        with one_blas_thread(), quiet_fit():
            fit = sm.GLM(y, X, family=sm.families.Binomial()).fit()
    except Exception:  # perfect separation or a singular design: no model, the plain numbers stand
        return empty
    ci = np.asarray(fit.conf_int())[1:1 + len(keywords)].copy()
    params = np.asarray(fit.params)[1:1 + len(keywords)].copy()
    pvalues = np.asarray(fit.pvalues)[1:1 + len(keywords)].copy()
    # (quasi-)separation, e.g. every exposed seat won: the estimate runs off to infinity with an
    # interval to match; report no estimate rather than an absurd odds ratio
    unstable = ~np.isfinite(ci).all(axis=1) | (ci[:, 1] - ci[:, 0] > MAX_LOG_ODDS_WIDTH)
    params[unstable], ci[unstable], pvalues[unstable] = np.nan, np.nan, np.nan
    # one test per keyword of the model: corrected across them (an unestimated keyword is no test)
    qvalues, _ = benjamini_hochberg(pvalues)
    return pl.DataFrame({"keyword": keywords, "log_odds": params, "log_odds_lo": ci[:, 0], "log_odds_hi": ci[:, 1],
                         "odds_ratio": np.exp(params), "p_value": pvalues, "q_value": qvalues}).fill_nan(None)


def keyword_prices(path: str | Path, filters: Filters | None = None) -> pl.DataFrame:
    """Per game, card set (rules version and hash, ``card_set`` its label) and card type: the
    fitted cost of attack, defense and each keyword (OLS of budget cost on stats and keyword
    flags), with 95% intervals."""
    import statsmodels.api as sm  # here, not at the top: see reports/stats.py
    cards = _cards(path, filters)
    rows = []
    for (game, version, rules_hash, ctype), part in cards.group_by(["game", "rules_version", "rules_hash", "type"],
                                                                   maintain_order=True):
        part = part.filter(pl.col("attack").is_not_null() & pl.col("defense").is_not_null())
        kws = sorted({k for ks in part["keywords"].to_list() for k in (ks or [])})
        kws = [k for k in kws if sum(k in (ks or []) for ks in part["keywords"].to_list()) >= 2]
        names = ["attack", "defense"] + kws
        if part.height < len(names) + 3:
            continue
        X = np.column_stack([part["attack"].to_numpy(), part["defense"].to_numpy()]
                            + [np.array([k in (ks or []) for ks in part["keywords"].to_list()], dtype=float) for k in kws])
        with quiet_fit():  # a type whose cards all cost alike has no R² (0/0): the page says so
            fit = sm.OLS(part["budget_cost"].to_numpy().astype(float), sm.add_constant(X.astype(float))).fit()
            ci = np.asarray(fit.conf_int())
            r_squared = float(fit.rsquared)
        for i, name in enumerate(names, start=1):
            rows.append({"game": game, "rules_version": version, "rules_hash": rules_hash, "type": ctype, "term": name,
                         "cost": float(fit.params[i]), "cost_lo": float(ci[i, 0]), "cost_hi": float(ci[i, 1]),
                         "cards_with": int(part.height if i <= 2 else sum(name in (ks or []) for ks in part["keywords"].to_list())),
                         "r_squared": r_squared, "cards": part.height})
    return with_card_set(pl.DataFrame(rows)) if rows else pl.DataFrame()


def _cards(path: str | Path, filters: Filters | None) -> pl.DataFrame:
    """The card definitions of the card sets of the chosen runs, one row per card set (rules
    hash) and card (their faction names filled): group them by ``rules_hash``, not the version's
    name alone, which two card sets can share.
    A card's definition is no pilot's play: a pilot filter does not narrow it (``Filters.where``
    keeps only the runs every seat of which a chosen pilot played, and a price list or stat budget
    that vanished under it would read as cards that are not there)."""
    filters = replace(filters or Filters(), pilots=[])
    where, params = filters.where("r")
    return with_faction_name(db.query(path, f"""
        SELECT DISTINCT c.* FROM cards c JOIN runs r ON r.rules_hash = c.rules_hash {where}
        ORDER BY c.game, c.rules_version, c.rules_hash, c.card""", params or None))
