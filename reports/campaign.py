"""Campaign (roguelike) metrics over the store's campaign tables: clear rate by crew, and the
win-rate lift of each reward card when taken.

Rules version: every figure is per rules version (``rules_version``, and ``rules_hash``, the
card set's content hash, where a version's cards were edited under the same name), and per stage
content (``stage_hash``: the stage file, its crews and their decks; an edited stage, such as
Ashfall Trail's enemies at their normal HP since 2026-12-07, is another stage): two card sets' or
two stage versions' runs are never pooled.

Each run is counted once: a run is the same run in two batches when its rules hash, stage
content, crew, seed, policy, fight pilot, enemy pilot and pilot weights are the same (it plays
the same way: sim/core/campaign.py, "Determinism"), and is counted from the newest chosen batch
that holds it. ``repeats`` counts the chosen batches' runs left out as such repeats and
``repeat_batches`` names the batches they came from.

Clear rate: share of campaign runs that cleared the stage, per stage, crew, policy, fight pilot,
enemy pilot and rules version, with its 95% Wilson interval, over the runs that ended in a clear
or a defeat; average trail HP left when cleared; average floor reached, fights fought and end
deck size over those runs. A run that ended in an engine error is in none of these (it neither
cleared nor was defeated): ``errors`` counts it.

Enemy pilot: the AI pilot that played the enemies' seats (the stage's ``enemy_pilot``), as the
batch's fights record it; a clear rate depends on it as much as on the fight pilot.

Reward lift, per campaign policy, fight pilot, enemy pilot and rules version (a policy that takes
the card and one that skips it, or two pilots' fights, are never pooled): for every offer of a
card (``name``: as the rules version names it) (after a battle or an elite, or on a shop shelf),
whether the card was taken there or skipped. An offer is skipped when the card was not taken
there and the run had not taken it before (an offer of a card already in the run's deck, as the
crew's lore or an earlier take, is on neither side; it still counts in ``offers``).
  fights_taken / wr_taken      fights after offers where it was taken, and the share won
  fights_skipped / wr_skipped  fights after offers where it was skipped, up to the run's first
                               take of it (its fight included: the take follows it), so every
                               fight here was played without the card in the deck
  lift = wr_taken - wr_skipped, with each rate's Wilson interval and the difference's 95%
  Newcombe interval (lift_lo, lift_hi); the same split of the runs' clear rate
  (clear_rate_taken over clear_taken_n offers taken, clear_rate_skipped over clear_skipped_n
  offers skipped, each counted with its run's result; a run that ended in an error is left out
  of this split, its fights are not; clear_lift with clear_lift_lo, clear_lift_hi). Differences
  are shares (the page shows points). Cards are ranked by clear_lift_lo, the lower bound: a card
  taken once in a run that cleared has a lift of up to +100 points and an interval to match, and
  ranks below a smaller lift seen over many runs. A card offered twice in a run counts twice (a
  run that skipped it and took it later is on both sides), and the fights of one run are not
  independent, so the intervals are somewhat narrow. This is an observational comparison (the
  policy chose what to take), not an experiment.
"""
from __future__ import annotations

from pathlib import Path

import polars as pl

from reports import db
from reports.stats import diff_interval, rate, wilson


def _where(run_ids: list[int] | None, alias: str = "") -> tuple[str, list | None]:
    if not run_ids:
        return "", None
    col = f"{alias}.run_id" if alias else "run_id"
    return f"WHERE {col} IN ({', '.join('?' for _ in run_ids)})", list(run_ids)


def campaign_runs(path: str | Path) -> pl.DataFrame:
    """The store's runs that are campaign batches, newest first."""
    return db.query(path, """SELECT run_id, game, rules_version, rules_hash, decks AS crews, pilots AS policy,
                             matches_done AS runs_done, matches_target AS runs_target, errors, status, created_at
                             FROM runs WHERE kind = 'campaign' ORDER BY run_id DESC""")


def fights(path: str | Path, run_id: int) -> pl.DataFrame:
    """The fights of a campaign batch, in play order: which campaign run, node and enemy each
    stored match is (the replay page lists them)."""
    return db.query(path, """SELECT n.match_no, n.run_no, r.crew, n.step, n.floor, n.kind, n.detail AS enemy,
                             n.result, n.hp_before, n.hp_after
                             FROM campaign_nodes n JOIN campaign_runs r USING (run_id, run_no)
                             WHERE n.run_id = ? AND n.match_no IS NOT NULL ORDER BY n.match_no""", [run_id])


# The enemies' pilot of each batch (run_id). The run spec does not name it (the campaign data's
# stage does, `enemy_pilot`, and that file may change after the batch), but every fight the batch
# played records it: the pilot of the seat that is not the crew's (the crew plays as deck
# ``crew:<crew>``, sim/frontier/campaign/run.py). Read from there, it is the pilot that played.
# Every fight of a batch meets the same stage's pilot: one name, or several comma separated if a
# store ever held otherwise; NULL for a batch without a stored fight.
_ENEMIES = """
        enemies AS (
            SELECT s.run_id, string_agg(DISTINCT s.pilot, ',' ORDER BY s.pilot) AS enemy_pilot
            FROM match_seats s
            WHERE s.run_id IN (SELECT DISTINCT run_id FROM campaign_runs {where}) AND NOT starts_with(s.deck, 'crew:')
            GROUP BY s.run_id)"""

# Every campaign run of the chosen batches with its rules version and enemy pilot, and whether it
# is ``counted``: the newest batch's copy of each distinct run. Two batches of the same spec (or of
# overlapping seeds) hold the same runs, which would otherwise count twice and narrow the
# intervals. A run's identity is what decides its play; a batch without its ``runs`` row (which
# names the rules hash, stage content and weights) is never taken for another's.
_RANKED = """
        ranked AS (
            SELECT c.*, r.rules_version, r.rules_hash, json_extract_string(r.spec, '$.content_hash') AS stage_hash,
                   e.enemy_pilot,
                   row_number() OVER (
                       PARTITION BY r.rules_version, r.rules_hash, json_extract_string(r.spec, '$.content_hash'),
                                    json_extract_string(r.spec, '$.weights_hash'), c.game, c.stage, c.crew, c.seed,
                                    c.policy, c.fight_pilot, e.enemy_pilot, CASE WHEN r.run_id IS NULL THEN c.run_id END
                       ORDER BY c.run_id DESC) = 1 AS counted
            FROM campaign_runs c LEFT JOIN runs r USING (run_id) LEFT JOIN enemies e USING (run_id) {where})"""


def _with_runs(run_ids: list[int] | None) -> tuple[str, list | None]:
    """The queries' common CTEs (``enemies``, ``ranked``) for the chosen batches, and their parameters."""
    where, params = _where(run_ids)
    sql = f"WITH {_ENEMIES.format(where=where)}, {_RANKED.format(where=_where(run_ids, 'c')[0])}"
    return sql, params * 2 if params else None


def clear_rates(path: str | Path, run_ids: list[int] | None = None) -> pl.DataFrame:
    """Clear rate per stage, crew, policy, pilots and rules version of the chosen batches (all when
    None); the module's doc says what each column counts."""
    ctes, params = _with_runs(run_ids)
    # runs: the counted runs that cleared or were defeated; one that ended in an error is only in ``errors``
    frame = db.query(path, f"""
        {ctes}
        SELECT stage, crew, policy, fight_pilot, enemy_pilot, rules_version, rules_hash, stage_hash,
               count(*) FILTER (WHERE counted AND error IS NULL) AS runs,
               count(*) FILTER (WHERE counted AND error IS NULL AND cleared) AS cleared,
               count(*) FILTER (WHERE counted AND error IS NOT NULL) AS errors,
               avg(hp_left) FILTER (WHERE counted AND error IS NULL AND cleared) AS avg_hp_left_cleared,
               avg(floor_reached) FILTER (WHERE counted AND error IS NULL) AS avg_floor,
               avg(fights) FILTER (WHERE counted AND error IS NULL) AS avg_fights,
               avg(deck_size) FILTER (WHERE counted AND error IS NULL) AS avg_deck_size,
               count(*) FILTER (WHERE NOT counted) AS repeats,
               array_to_string(list_sort(list(DISTINCT run_id) FILTER (WHERE NOT counted)), ',') AS repeat_batches
        FROM ranked
        GROUP BY ALL ORDER BY stage, crew, policy, fight_pilot, enemy_pilot, rules_version, rules_hash, stage_hash""", params)
    return _with_rate(frame, "clear_rate", "cleared", "runs")


# The group of every reward-lift figure: never two policies', pilots' or card sets' offers pooled.
_LIFT_GROUP = ("policy", "fight_pilot", "enemy_pilot", "rules_version", "rules_hash", "stage_hash", "card")


def reward_lift(path: str | Path, run_ids: list[int] | None = None) -> pl.DataFrame:
    """Each reward card's lift when taken, per policy, pilots and rules version of the chosen batches
    (all when None); the module's doc says what is compared."""
    ctes, params = _with_runs(run_ids)
    group = ", ".join(f"o.{c}" for c in _LIFT_GROUP)
    frame = db.query(path, f"""
        {ctes},
        takes AS (  -- the step each counted run first took each card at (its lore: step 0)
            SELECT w.run_id, w.run_no, w.card, min(w.step) AS first_take
            FROM campaign_rewards w JOIN ranked r USING (run_id, run_no)
            WHERE r.counted AND w.taken GROUP BY w.run_id, w.run_no, w.card),
        offers AS (
            SELECT o.run_id, o.run_no, o.step, o.card, o.taken, r.cleared, r.error IS NULL AS ended,
                   r.policy, r.fight_pilot, r.enemy_pilot, r.rules_version, r.rules_hash, r.stage_hash,
                   CASE WHEN o.taken THEN 'taken' WHEN t.first_take IS NULL OR t.first_take > o.step THEN 'skipped'
                   END AS side, CASE WHEN NOT o.taken THEN t.first_take END AS until
            FROM campaign_rewards o JOIN ranked r USING (run_id, run_no) LEFT JOIN takes t USING (run_id, run_no, card)
            WHERE r.counted AND o.source <> 'lore'),  -- every offer but a start's unlocks (sim/core/campaign.STARTING_SOURCE)
        later AS (  -- each offer's fights on its side: after it; a skip's, up to the card's first take
            SELECT o.run_id, o.run_no, o.step, o.card, count(*) AS fights,
                   count(*) FILTER (WHERE n.result = 'win') AS wins
            FROM offers o JOIN campaign_nodes n
              ON n.run_id = o.run_id AND n.run_no = o.run_no AND n.step > o.step AND n.match_no IS NOT NULL
                 AND (o.until IS NULL OR n.step <= o.until)
            WHERE o.side IS NOT NULL GROUP BY ALL)
        SELECT {group}, any_value(d.name) AS name, count(*) AS offers,
               count(*) FILTER (WHERE side = 'taken') AS taken,
               count(*) FILTER (WHERE side = 'taken' AND ended) AS clear_taken_n,
               count(*) FILTER (WHERE side = 'taken' AND ended AND cleared) AS clear_taken,
               count(*) FILTER (WHERE side = 'skipped' AND ended) AS clear_skipped_n,
               count(*) FILTER (WHERE side = 'skipped' AND ended AND cleared) AS clear_skipped,
               coalesce(sum(l.fights) FILTER (WHERE side = 'taken'), 0)::BIGINT AS fights_taken,
               coalesce(sum(l.wins) FILTER (WHERE side = 'taken'), 0)::BIGINT AS wins_taken,
               coalesce(sum(l.fights) FILTER (WHERE side = 'skipped'), 0)::BIGINT AS fights_skipped,
               coalesce(sum(l.wins) FILTER (WHERE side = 'skipped'), 0)::BIGINT AS wins_skipped
        FROM offers o LEFT JOIN later l USING (run_id, run_no, step, card)
        LEFT JOIN cards d ON d.rules_hash = o.rules_hash AND d.card = o.card
        GROUP BY {group} ORDER BY {group}""", params)
    out = _with_rate(frame, "wr_taken", "wins_taken", "fights_taken")
    out = _with_rate(out, "wr_skipped", "wins_skipped", "fights_skipped")
    out = _with_rate(out, "clear_rate_taken", "clear_taken", "clear_taken_n")
    out = _with_rate(out, "clear_rate_skipped", "clear_skipped", "clear_skipped_n")
    out = out.with_columns((pl.col("wr_taken") - pl.col("wr_skipped")).alias("lift"),
                           (pl.col("clear_rate_taken") - pl.col("clear_rate_skipped")).alias("clear_lift"),
                           (pl.col("taken") / pl.col("offers")).alias("take_rate"))
    out = _with_difference(out, "lift", ("wins_taken", "fights_taken"), ("wins_skipped", "fights_skipped"))
    out = _with_difference(out, "clear_lift", ("clear_taken", "clear_taken_n"), ("clear_skipped", "clear_skipped_n"))
    # ranked within each policy, pilots and rules version: their choices and fights are not pooled
    return out.sort(*_LIFT_GROUP[:-1], "clear_lift_lo", "lift_lo", "card",
                    descending=[False] * (len(_LIFT_GROUP) - 1) + [True, True, False], nulls_last=True)


def _with_difference(frame: pl.DataFrame, name: str, first: tuple[str, str], second: tuple[str, str]) -> pl.DataFrame:
    """The 95% Newcombe interval (``name``_lo, ``name``_hi) of the difference of two rates, each
    given as (successes, trials) columns; empty where either rate has no trials."""
    lo, hi = diff_interval(*(frame[c].to_numpy() for c in (*first, *second)))
    return frame.with_columns(pl.Series(f"{name}_lo", lo).fill_nan(None), pl.Series(f"{name}_hi", hi).fill_nan(None))


def _with_rate(frame: pl.DataFrame, name: str, won: str, games: str) -> pl.DataFrame:
    k, n = frame[won].to_numpy(), frame[games].to_numpy()
    lo, hi = wilson(k, n)
    out = frame.with_columns(pl.Series(name, rate(k, n)), pl.Series(f"{name}_lo", lo), pl.Series(f"{name}_hi", hi))
    return out.with_columns(pl.col(c).fill_nan(None) for c in (name, f"{name}_lo", f"{name}_hi"))
