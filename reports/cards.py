"""Per-card metrics over ``card_games`` (one row per match x seat x card), as 17lands defines
them, with honest uncertainty.

Every rate comes with its sample size and a 95% Wilson interval. IWD (GIH WR - GNS WR) comes
with Newcombe's interval. A draw counts as a game not won.

Which cards carry their deck: ``oh_excess`` is the card's opening-hand win rate minus the same
deck's win rate when it was not in the opening hand, deck and seat held fixed (Mantel-Haenszel
strata); the shuffle deals the opening hand, so its test (``oh_excess_q``, Benjamini-Hochberg
within the group) is calibrated against the card's own deck. Played WR pooled over decks, with
its empirical-Bayes shrunken value and its binomial test against the group's pooled played WR
(``played_wr_q``), measures deck strength and when cards get played as much as the card.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from reports import db
from reports.examples import KEY_SQL, unpack
from reports.filters import Filters
from reports.stats import (
    benjamini_hochberg,
    beta_prior,
    binomial_pvalues,
    diff_interval,
    one_blas_thread,
    rate,
    shrink,
    stratified_differences,
    wilson,
    zscores,
)

# column -> what it means (the glossary the dashboard and the exports share)
METRICS = {
    "games": "games with the card in the deck (GP: games played)",
    "gp_wr": "GP WR: win rate of games with the card in the deck",
    "oh_games": "games where the card was in the opening hand",
    "oh_wr": "OH WR: win rate of games with the card in the opening hand",
    "gd_games": "games where the card was drawn after the opening hand",
    "gd_wr": "GD WR: win rate of games where the card was drawn after the opening hand",
    "gih_games": "games where the card was in hand at all (opening hand or drawn)",
    "gih_wr": "GIH WR: win rate of games where the card was in hand",
    "gns_games": "games where the card was in the deck but never seen",
    "gns_wr": "GNS WR: win rate of games where the card was in the deck, never seen",
    "iwd": "IWD (improvement when drawn): GIH WR minus GNS WR",
    "played_games": "games where the card was played at least once",
    "played_wr": "Played WR: win rate of games where the card was played",
    "available_games": "games where the card was in hand or played (some cards, such as AlleyWay's leaders, are "
                       "played without having been dealt or drawn)",
    "play_rate": "share of the games with the card in hand or played where it was played",
    "dead_pct": "Dead %: share of games with the card in hand where it was never played",
    "avg_turn_played": "average of the seat's own turn number when the card was first played",
    "not_oh_games": "games of the card's decks where it was not in the opening hand",
    "not_oh_wr": "win rate of the card's decks when it was not in the opening hand",
    "oh_excess": "OH excess: OH WR minus the same deck's win rate when the card was not in the opening hand, "
                 "deck and seat held fixed; what the card adds to its deck (the default ranking)",
    "oh_excess_p": "p-value of the OH excess (deck x seat strata): the larger of the Cochran-Mantel-Haenszel "
                   "test's and its interval's own, so below 0.05 only when the interval leaves out 0; the null is "
                   "that the card does nothing beyond its deck",
    "oh_excess_q": "Benjamini-Hochberg q-value of oh_excess_p across the cards of the group",
    "oh_excess_significant": "oh_excess_q below 0.05: the card moves its own deck's win rate (FDR 5%)",
    "played_wr_shrunk": "Played WR shrunk toward the group mean (empirical Bayes, beta-binomial fit); ranks the "
                        "pooled view",
    "gih_wr_shrunk": "GIH WR shrunk toward the group mean (empirical Bayes, beta-binomial fit)",
    "played_wr_z": "how many standard deviations the card's shrunk Played WR sits from the mean card",
    "played_wr_p": "two-sided binomial p-value of Played WR against the group's pooled Played WR",
    "played_wr_q": "Benjamini-Hochberg q-value of played_wr_p across the cards of the group",
    "significant": "played_wr_q below 0.05: Played WR off the group's pooled Played WR (FDR 5%); carries deck "
                   "strength and when the card is played",
    "_lo / _hi": "bounds of the 95% interval of the column before them (Wilson; Newcombe for IWD; "
                 "stratified for OH excess)",
    "example_win / example_loss": "a match that shows the card played in a win / a loss: r<run>-m<match>-s<seat>",
}

GROUPS = ("rules_version", "run_id", "deck", "pilots")

# The match's pilots (a run's): the sorted distinct pilots of its deck slots joined with "+"
# ("greedy+random"): the exports' blocks of the tables that name each row's pilot and its
# opponent's themselves (matchups, deck_field, meta_mix: reports/exports.py ``pilot_groups``). A
# campaign run's ``pilots`` ("policy/fight pilot", "greedy/greedy") names no deck slots: it is its
# own label.
PILOTS_SQL = "array_to_string(list_sort(list_distinct(string_split({alias}.pilots, ','))), '+')"

# The ``pilots`` group of a seat table (card_games, match_seats): the seat's own pilot and its
# opponents'. "greedy" for a seat greedy played against greedy; "greedy vs random" for a seat
# greedy played against random, "random vs greedy" for its opponent (in a free-for-all, the other
# seats' distinct pilots joined with "+": "greedy vs greedy+random"; opponents are the seats of
# other teams: a Turf Defense partner's is the boss, not its partner). The match's label
# ("greedy+random") pooled a deck greedy played with the same deck random played (a card winning
# 100% under greedy and 2.5% under random read as a 51% card); the seat's own pilot alone pooled
# greedy's games against random with those against greedy. Read from the seats
# (match_seats.pilot), so a Turf Defense boss's pilot, which runs.pilots does not list, counts.
# Only the seats of matches of mixed pilots have a row in SEAT_PILOTS_TABLE; every other seat's
# label is its own pilot (SEAT_PILOTS_SQL). Joined LEFT: an inner join let DuckDB's join order
# pre-aggregate ten million card_games rows before joining (4 s instead of 0.5 s), and a store of
# one-pilot runs builds an empty table.
SEAT_PILOTS_TABLE = """(SELECT s.run_id, s.match_no, s.seat,
        s.pilot || ' vs ' || array_to_string(list_sort(list_distinct(list(o.pilot))), '+') AS pilots
    FROM match_seats s JOIN match_seats o ON o.run_id = s.run_id AND o.match_no = s.match_no AND o.team <> s.team
    GROUP BY s.run_id, s.match_no, s.seat, s.pilot HAVING NOT bool_and(o.pilot = s.pilot))"""
SEAT_PILOTS_JOIN = ("LEFT JOIN " + SEAT_PILOTS_TABLE + " {sp} ON {sp}.run_id = {seat}.run_id "
                    "AND {sp}.match_no = {seat}.match_no AND {sp}.seat = {seat}.seat")
# a campaign run's fights read as the run's "policy/fight pilot" (the policy made the crew's deck)
# ({mixed}: the seat's row of SEAT_PILOTS_TABLE's pilots, NULL when it has none)
SEAT_PILOTS_SQL = "CASE WHEN strpos({run}.pilots, '/') > 0 THEN {run}.pilots ELSE coalesce({mixed}, {seat}.pilot) END"
PILOTS_HELP = ("the seat's pilot and its opponent's: greedy = greedy against greedy; greedy vs random = the seats "
               "greedy played against random (random vs greedy: their opponents)")


def seat_pilots_join(seat: str, run: str = "r", sp: str = "sp") -> tuple[str, str]:
    """(the LEFT JOIN that labels the seats of ``seat``, an alias of card_games or match_seats of
    a query joining ``runs`` as ``run``, the label's expression): each seat's ``pilots`` group
    (SEAT_PILOTS_SQL)."""
    return SEAT_PILOTS_JOIN.format(sp=sp, seat=seat), SEAT_PILOTS_SQL.format(mixed=f"{sp}.pilots", seat=seat, run=run)


@dataclass
class SeatFilters(Filters):
    """``Filters`` that also keep only the seats whose ``pilots`` group (SEAT_PILOTS_SQL) is one
    of ``seat_pilots``: an export's block of one seat label (reports/exports.py ``by_pilot``).
    Every seat table reads it through ``where`` and the seat alias it names there."""
    seat_pilots: list[str] = field(default_factory=list)

    def where(self, run_alias: str = "r", seat_alias: str | None = None) -> tuple[str, list]:
        where, params = super().where(run_alias, seat_alias)
        if not (self.seat_pilots and seat_alias and run_alias):
            return where, params
        mixed = (f"(SELECT m.pilots FROM {SEAT_PILOTS_TABLE} m WHERE m.run_id = {seat_alias}.run_id "
                 f"AND m.match_no = {seat_alias}.match_no AND m.seat = {seat_alias}.seat)")
        label = SEAT_PILOTS_SQL.format(run=run_alias, mixed=mixed, seat=seat_alias)
        clause = f"{label} IN ({', '.join('?' for _ in self.seat_pilots)})"
        return (f"{where} AND {clause}" if where else f"WHERE {clause}"), [*params, *self.seat_pilots]

    def key(self) -> tuple:
        return (*super().key(), tuple(self.seat_pilots))


# A card's faction (or clan) by name, beside its id: the store's cards.faction_name, else the id (a
# store written before the names has NULL there, or, read before a workbench command migrated it,
# no such column). faction_name_sql for a query naming its columns, with_faction_name for a frame
# read with cards.*.
def faction_name_sql(path: str | Path, alias: str = "c") -> str:
    """The SQL of the card's faction name in a query over ``cards`` as ``alias``."""
    if db.has_columns(path, "cards", "faction_name"):
        return f"coalesce({alias}.faction_name, {alias}.faction)"
    return f"{alias}.faction"


def with_faction_name(frame: pl.DataFrame) -> pl.DataFrame:
    """A frame of ``cards`` rows with ``faction_name`` filled (the id where the store has none)."""
    named = pl.coalesce("faction_name", "faction") if "faction_name" in frame.columns else pl.col("faction")
    return frame.with_columns(named.alias("faction_name"))


# A card set: a rules version's name and the content hash of the card data it was run with. One
# name can hold two card sets (a `workbench init` workspace with one card edited, simulated as
# "base"): grouped by the name alone, each card was listed twice and its figures pooled the two
# sets. Figures group by the hash; a reader sees ``card_set``, the name, with the hash's first
# HASH_CHARS characters when the name holds more than one card set in what is shown
# (``base@d942801d``), as the Card value page names a card set (reports/value.py context_title).
HASH_CHARS = 8


def with_card_set(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` (with ``rules_version`` and ``rules_hash``) with its ``card_set`` label: the
    version's name, ``name@hash`` where the frame holds that name (of one game) with several
    hashes."""
    within = [c for c in ("game", "rules_version") if c in frame.columns]
    several = pl.col("rules_hash").n_unique().over(within) > 1
    label = pl.format("{}@{}", "rules_version", pl.col("rules_hash").str.slice(0, HASH_CHARS))
    return frame.with_columns(pl.when(several).then(label).otherwise(pl.col("rules_version"))
                              .cast(pl.Utf8).alias("card_set"))


def counted_card_sets(path: str | Path, filters: Filters | None = None) -> pl.DataFrame:
    """The card sets of the runs a page counts (those with a seat the filters keep): game,
    rules_version, rules_hash and ``card_set``, one row each."""
    where, params = (filters or Filters()).where("r", "s")
    return with_card_set(db.query(path, f"""
        SELECT DISTINCT r.game, r.rules_version, r.rules_hash
        FROM runs r JOIN match_seats s ON s.run_id = r.run_id {where} ORDER BY ALL""", params or None))

# One pass over card_games: the counts per run, card, deck and seat (and the seat's pilots,
# SEAT_PILOTS_SQL, when the cards are split by them), kept in a temporary table; the per-card table and the
# opening-hand strata are both sums of it. count_if and min(CASE ...) are DuckDB's cheap forms of the FILTER clauses
# (the same counts, in about a third of the time over ten million rows). held_*: the strata's
# counts, which take only rows of a deck that holds the card.
_COUNTS_SQL = """
CREATE OR REPLACE TEMP TABLE card_counts AS
SELECT cg.run_id, {pilots} cg.card, cg.deck, cg.on_play,
       count_if(cg.copies > 0) AS games,
       count_if(cg.copies > 0 AND cg.won) AS games_won,
       count_if(cg.in_opening_hand > 0) AS oh_games,
       count_if(cg.in_opening_hand > 0 AND cg.won) AS oh_won,
       count_if(cg.copies > 0 AND cg.in_opening_hand > 0) AS held_oh_games,
       count_if(cg.copies > 0 AND cg.in_opening_hand > 0 AND cg.won) AS held_oh_won,
       count_if(cg.copies > 0 AND cg.in_opening_hand = 0) AS not_oh_games,
       count_if(cg.copies > 0 AND cg.in_opening_hand = 0 AND cg.won) AS not_oh_won,
       count_if(cg.drawn > 0) AS gd_games,
       count_if(cg.drawn > 0 AND cg.won) AS gd_won,
       count_if(cg.in_opening_hand > 0 OR cg.drawn > 0) AS gih_games,
       count_if((cg.in_opening_hand > 0 OR cg.drawn > 0) AND cg.won) AS gih_won,
       count_if(cg.copies > 0 AND cg.in_opening_hand = 0 AND cg.drawn = 0) AS gns_games,
       count_if(cg.copies > 0 AND cg.in_opening_hand = 0 AND cg.drawn = 0 AND cg.won) AS gns_won,
       count_if(cg.played > 0) AS played_games,
       count_if(cg.played > 0 AND cg.won) AS played_won,
       count_if((cg.in_opening_hand > 0 OR cg.drawn > 0) AND cg.played = 0) AS dead_games,
       sum(cg.first_turn_played) AS turns_played, count(cg.first_turn_played) AS turns_counted,
       min(CASE WHEN cg.played > 0 AND cg.won THEN {key} END) AS example_win_key,
       min(CASE WHEN cg.played > 0 AND NOT cg.won THEN {key} END) AS example_loss_key
FROM card_games cg
JOIN runs r ON r.run_id = cg.run_id
{labels}
{where}
GROUP BY ALL
"""
COUNTS = ("games", "games_won", "oh_games", "oh_won", "not_oh_games", "not_oh_won", "gd_games", "gd_won", "gih_games",
          "gih_won", "gns_games", "gns_won", "played_games", "played_won", "dead_games")

_SQL = """
SELECT r.game, {group_cols} k.card,
       any_value(c.name) AS name, any_value(c.type) AS type, any_value(c.faction) AS faction,
       any_value({faction_name}) AS faction_name, any_value(c.budget_cost) AS cost,
       {counts},
       sum(k.turns_played) / nullif(sum(k.turns_counted), 0) AS avg_turn_played,
       min(k.example_win_key) AS example_win_key,
       min(k.example_loss_key) AS example_loss_key
FROM card_counts k
JOIN runs r ON r.run_id = k.run_id
LEFT JOIN cards c ON c.rules_hash = r.rules_hash AND c.card = k.card
GROUP BY ALL
ORDER BY ALL
"""

# The opening hand per stratum (card set x deck x seat): dealt by the shuffle before anything
# happens, so within a stratum it is independent of how the game goes. Seat matters because a
# rules version may deal the later seat more cards, and the first seat wins more. Sorted by card
# (and group), so each card's strata are adjacent.
_STRATA_SQL = """
SELECT r.game, {group_cols} k.card, r.rules_version AS _version, r.rules_hash AS _hash, k.deck AS _deck, k.on_play AS _seat,
       sum(k.held_oh_won)::BIGINT AS k1, sum(k.held_oh_games)::BIGINT AS n1,
       sum(k.not_oh_won)::BIGINT AS k0, sum(k.not_oh_games)::BIGINT AS n0
FROM card_counts k
JOIN runs r ON r.run_id = k.run_id
GROUP BY ALL
HAVING sum(k.games) > 0
ORDER BY ALL
"""
EXCESS = ("oh_excess", "oh_excess_lo", "oh_excess_hi", "oh_excess_p")

RATES = (("gp_wr", "games_won", "games"), ("oh_wr", "oh_won", "oh_games"), ("gd_wr", "gd_won", "gd_games"),
         ("gih_wr", "gih_won", "gih_games"), ("gns_wr", "gns_won", "gns_games"),
         ("not_oh_wr", "not_oh_won", "not_oh_games"),
         ("played_wr", "played_won", "played_games"), ("play_rate", "played_games", "available_games"),
         ("dead_pct", "dead_games", "gih_games"))


def card_metrics(path: str | Path, filters: Filters | None = None, group_by: tuple[str, ...] = ("rules_version",)) -> pl.DataFrame:
    """One row per card (and per group: GROUPS; ``pilots`` is the seat's and its opponent's,
    SEAT_PILOTS_SQL), every metric of METRICS."""
    filters = filters or Filters()
    unknown = set(group_by) - set(GROUPS)
    if unknown:
        raise ValueError(f"cannot group cards by {sorted(unknown)} (use {', '.join(GROUPS)})")
    keys = group_keys(group_by)
    group_cols = "".join(f"{'r' if g in ('rules_version', 'rules_hash', 'run_id') else 'k'}.{g}, " for g in keys)
    where, params = filters.where("r", "cg")
    labels, label = seat_pilots_join("cg") if "pilots" in group_by else ("", "")
    pilots = f"{label} AS pilots," if label else ""
    counts = _COUNTS_SQL.format(pilots=pilots, labels=labels, where=where, key=KEY_SQL)
    faction_name = faction_name_sql(path)
    with db.connect(path) as con:
        con.execute(counts, params or None)
        frame = con.sql(_SQL.format(group_cols=group_cols, faction_name=faction_name, counts=", ".join(
            f"sum(k.{c})::BIGINT AS {c}" for c in COUNTS))).pl()
        strata = con.sql(_STRATA_SQL.format(group_cols=group_cols)).pl()
        con.execute("DROP TABLE card_counts")  # a shared reading connection (db.reading) stays clean
    keys = ["game", *keys, "card"]
    out = with_metrics(frame.join(opening_hand_excess(strata, keys), on=keys, how="left"), ("game",) + group_keys(group_by))
    return with_card_set(out) if "rules_hash" in out.columns else out


def group_keys(group_by: tuple[str, ...]) -> tuple[str, ...]:
    """The columns a split groups by: a rules version is its card set (its name and hash)."""
    return tuple(k for g in group_by for k in ((g, "rules_hash") if g == "rules_version" else (g,)))


def opening_hand_excess(strata: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """Per ``keys`` (a card of a group): the stratified difference of the opening-hand win rate
    and the win rate without the card in the opening hand (``stratified_difference``) over the
    rows of ``_STRATA_SQL``, with its interval and p-value; every card at once.

    The p-value is that of the interval's own statistic (``StratifiedDifferences.interval_p``), so p < 0.05
    exactly when the interval leaves out 0. CMH's (``stratified_differences``' p) is no longer
    used: its chi-square fails in the small, lopsided strata of campaign fights (a Frontier Run
    store flagged three cards at p = 0.00031, q 0.011, beside intervals of -57.2 to +4.1 points,
    the whole signal one stratum of 1 opening-hand game, lost, against 13 of 13 won without the
    card; Fisher's exact p of that table: 1/14 = 0.07; now p = 0.11). For an hour the p was the
    larger of CMH's and the interval's, because the interval then added a win and a loss to each
    arm of every stratum, which biased it over many small lopsided strata (on null cards of 15
    strata of 1-3 against 8-19 games won 80% / 95% of the time it left out 0 for 30% / 94%). The
    interval is now Sato's after one card-wide adjustment (``stratified_difference``), and its
    test holds its level alone. Null cards (fixed seed, 4000 per regime), share at p < 0.05,
    CMH / larger of CMH and the old interval's / now: those 15 strata at 80%, 4.7% / 3.0% / 4.7%;
    at 95%, 3.7% / 3.7% / 0.8%; 1-4 small strata (2-24 games) at rates 0.2-0.8, 4.6% / 2.5% / 4.0%;
    1-4 large strata (60-600 games), 5.4% / 5.3% / 5.5%; tests/test_oh_excess_agreement.py's 1-4
    strata of 1-3 against 8-19 at 90-98%, 6.8% / 1.2% / 0.6%. Power on a true 5-15 point
    difference over the 15 strata at 80%: 24.0% / 14.4% / 23.0%; 1-4 large strata: 59.5% / 58.9%
    / 59.4%."""
    strata = strata.sort(keys, maintain_order=True)
    card = strata.select(pl.struct(keys).rle_id()).to_series().to_numpy()
    counts = [strata[c].to_numpy() for c in ("k1", "n1", "k0", "n0")]
    est = stratified_differences(card, *counts)
    figures = (est.diff, est.lo, est.hi, est.interval_p)  # the interval's own test, not CMH's (above)
    firsts = np.flatnonzero(np.diff(card, prepend=-1))
    return strata[firsts].select(keys).with_columns(pl.Series(name, values) for name, values in zip(EXCESS, figures))


def with_metrics(frame: pl.DataFrame, group: tuple[str, ...] = ("game",)) -> pl.DataFrame:
    """Rates, intervals, IWD, shrunk values, z-scores and q-values from the counts (and the OH
    excess p-values). Shrinkage, z and q are computed within each group (a rules version, a
    deck...), never across; everything else over all rows at once. An empty frame (no stored
    matches yet) gets the same columns, so its export has the usual header."""
    frame, groups = _grouped(with_available(frame), [g for g in group if g in frame.columns])
    cols = _row_metrics(frame)
    cols.update(_group_metrics(frame, groups))
    out = frame.with_columns(pl.Series(name, values) for name, values in cols.items())
    out = out.with_columns(unpack("example_win_key").alias("example_win"),
                           unpack("example_loss_key").alias("example_loss")).drop("example_win_key", "example_loss_key")
    floats = [c for c, t in out.schema.items() if t == pl.Float64]
    return out.with_columns(pl.col(c).fill_nan(None) for c in floats)


def with_available(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with ``available_games``, the play rate's denominator: the games the card was in
    hand or played. Some cards are played without having been dealt or drawn (AlleyWay's leaders,
    and cards that reach play or the hand another way), so over the games in hand alone their play
    rate passed 100%. The games it was played plus those it sat in hand unplayed (dead) are exactly
    those: a sum of the stored counts, so a frame of counts from before the column gets it too."""
    return frame.with_columns((pl.col("played_games") + pl.col("dead_games")).alias("available_games"))


def _grouped(frame: pl.DataFrame, keys: list[str]) -> tuple[pl.DataFrame, list[slice]]:
    """The frame with each group's rows adjacent (groups in order of first appearance, rows in
    their order) and each group's rows as a slice."""
    if not keys:
        return frame, [slice(0, frame.height)]
    rows = frame.with_row_index("_row").group_by(keys, maintain_order=True).agg("_row")["_row"]
    ends = np.cumsum(rows.list.len().to_numpy())
    starts = np.concatenate([[0], ends[:-1]])
    return frame[rows.explode().to_numpy()], [slice(int(a), int(b)) for a, b in zip(starts, ends)]


def _row_metrics(frame: pl.DataFrame) -> dict[str, np.ndarray]:
    """What each row's own counts give: rates with their Wilson intervals, IWD with Newcombe's."""
    cols: dict[str, np.ndarray] = {}
    for name, won, games in RATES:
        k, n = frame[won].to_numpy(), frame[games].to_numpy()
        lo, hi = wilson(k, n)
        cols[name], cols[f"{name}_lo"], cols[f"{name}_hi"] = rate(k, n), lo, hi
    cols["iwd"] = cols["gih_wr"] - cols["gns_wr"]
    cols["iwd_lo"], cols["iwd_hi"] = diff_interval(frame["gih_won"], frame["gih_games"], frame["gns_won"],
                                                   frame["gns_games"])
    return cols


def _group_metrics(frame: pl.DataFrame, groups: list[slice]) -> dict[str, np.ndarray]:
    """What a row's group gives it: shrinkage toward the group, z within it, the binomial test
    against the group's pooled played WR, and q-values across the group's cards."""
    column = {c: frame[c].to_numpy() for c in ("played_won", "played_games", "gih_won", "gih_games", "oh_excess_p")}
    cols = {name: np.full(frame.height, np.nan) for name in ("played_wr_shrunk", "gih_wr_shrunk", "played_wr_z")}
    pooled = np.full(frame.height, np.nan)
    with one_blas_thread():
        for rows in groups:
            for name in ("played", "gih"):
                k, n = column[f"{name}_won"][rows], column[f"{name}_games"][rows]
                # a card of no games has no rate to shrink: its posterior is the prior mean, which
                # ranked a never-played card mid-table as if it had been seen to play at the mean
                cols[f"{name}_wr_shrunk"][rows] = np.where(n > 0, shrink(k, n, beta_prior(k, n)), np.nan)
            k, n = column["played_won"][rows], column["played_games"][rows]
            cols["played_wr_z"][rows] = zscores(cols["played_wr_shrunk"][rows])
            pooled[rows] = k.sum() / n.sum() if n.sum() else np.nan
    cols["played_wr_p"] = binomial_pvalues(column["played_won"], column["played_games"], pooled)
    cols["played_wr_q"], cols["significant"] = _within(groups, benjamini_hochberg, cols["played_wr_p"])
    cols["oh_excess_q"], cols["oh_excess_significant"] = _within(groups, benjamini_hochberg, column["oh_excess_p"])
    return cols


def _within(groups: list[slice], test, pvalues: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(q-values, rejected) of a multiple-testing correction applied within each group."""
    q, rejected = np.full(pvalues.shape, np.nan), np.zeros(pvalues.shape, dtype=bool)
    for rows in groups:
        q[rows], rejected[rows] = test(pvalues[rows])
    return q, rejected


def card_stats(path: str | Path, run_ids: list[int] | None = None, deck: str | None = None) -> pl.DataFrame:
    """Card metrics of some runs pooled by rules version (the Cards page's default view)."""
    return card_metrics(path, Filters(runs=list(run_ids or []), decks=[deck] if deck else []))


def win_rate_by_turn_played(path: str | Path, filters: Filters | None = None,
                            group_by: tuple[str, ...] = ("rules_version",)) -> pl.DataFrame:
    """Per card, group (``card_metrics``' GROUPS; the card set always, ``card_set`` its label) and
    the seat's own turn it was first played: games, wins, win rate, Wilson, and an example win and
    loss of that group. Grouped as the Cards page's row is, a row's turns add up to its played n."""
    filters = filters or Filters()
    keys = group_keys(tuple(dict.fromkeys(("rules_version", *group_by))))
    labels_join, label = seat_pilots_join("cg")
    source = {"rules_version": "r.rules_version", "rules_hash": "r.rules_hash", "run_id": "r.run_id",
              "deck": "cg.deck", "pilots": label}
    labels = labels_join if "pilots" in keys else ""
    where, params = filters.where("r", "cg")
    where = (where + " AND " if where else "WHERE ") + "cg.played > 0"
    frame = db.query(path, f"""
        SELECT r.game, {''.join(f'{source[k]} AS {k}, ' for k in keys)} cg.card, cg.first_turn_played AS turn,
               count(*) AS games, count(*) FILTER (WHERE cg.won) AS won,
               min({KEY_SQL}) FILTER (WHERE cg.won) AS example_win_key,
               min({KEY_SQL}) FILTER (WHERE NOT cg.won) AS example_loss_key
        FROM card_games cg JOIN runs r ON r.run_id = cg.run_id {labels} {where}
        GROUP BY ALL ORDER BY ALL""", params or None)
    lo, hi = wilson(frame["won"], frame["games"])
    return with_card_set(frame.with_columns(
        pl.Series("win_rate", rate(frame["won"], frame["games"])), pl.Series("win_rate_lo", lo),
        pl.Series("win_rate_hi", hi), unpack("example_win_key").alias("example_win"),
        unpack("example_loss_key").alias("example_loss")).drop("example_win_key", "example_loss_key"))
