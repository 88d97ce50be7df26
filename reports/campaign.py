"""Campaign (roguelike) metrics over the store's campaign tables: clear rate by crew, and the
win-rate lift of each reward card when taken.

Clear rate: share of campaign runs that cleared the stage, per stage, crew, policy, fight pilot
and enemy pilot, with its 95% Wilson interval; average trail HP left when cleared; average floor
reached.

Enemy pilot: the AI pilot that played the enemies' seats (the stage's ``enemy_pilot``), as the
batch's fights record it; a clear rate depends on it as much as on the fight pilot.

Reward lift, per campaign policy, fight pilot and enemy pilot (a policy that takes the card and
one that skips it, or two pilots' fights, are never pooled): for every offer of a card (``name``: as the batch's rules version names it) (after a battle or an elite, or on a shop shelf), the
fights fought after that offer in the same run, split by whether the card was taken there.
  fights_taken / wr_taken      fights after offers where it was taken, and the share won
  fights_skipped / wr_skipped  fights after offers where it was not taken
  lift = wr_taken - wr_skipped, with each rate's Wilson interval and the difference's 95%
  Newcombe interval (lift_lo, lift_hi); the same split of the runs' clear rate
  (clear_rate_taken over clear_taken_n offers, clear_rate_skipped over clear_skipped_n;
  clear_lift with clear_lift_lo, clear_lift_hi). Differences are shares (the page shows
  points). Cards are ranked by clear_lift_lo, the lower bound: a card taken once in a run that
  cleared has a lift of up to +100 points and an interval to match, and ranks below a smaller
  lift seen over many runs. A card offered twice in a run counts twice, and the fights of one
  run are not independent, so the intervals are somewhat narrow. This is an observational
  comparison (the policy chose what to take), not an experiment.
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
    return db.query(path, """SELECT run_id, game, rules_version, decks AS crews, pilots AS policy,
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


def clear_rates(path: str | Path, run_ids: list[int] | None = None) -> pl.DataFrame:
    where, params = _where(run_ids)
    frame = db.query(path, f"""
        WITH {_ENEMIES.format(where=where)}
        SELECT stage, crew, policy, fight_pilot, enemy_pilot, count(*) AS runs,
               count(*) FILTER (WHERE cleared) AS cleared,
               count(*) FILTER (WHERE error IS NOT NULL) AS errors,
               avg(hp_left) FILTER (WHERE cleared) AS avg_hp_left_cleared,
               avg(floor_reached) AS avg_floor, avg(fights) AS avg_fights,
               avg(deck_size) AS avg_deck_size
        FROM campaign_runs LEFT JOIN enemies USING (run_id) {where}
        GROUP BY ALL ORDER BY stage, crew, policy, fight_pilot, enemy_pilot""", params * 2 if params else None)
    return _with_rate(frame, "clear_rate", "cleared", "runs")


def reward_lift(path: str | Path, run_ids: list[int] | None = None) -> pl.DataFrame:
    where, params = _where(run_ids, "o")
    frame = db.query(path, f"""
        WITH {_ENEMIES.format(where=_where(run_ids)[0])},
        offers AS (
            SELECT o.run_id, o.run_no, o.step, o.card, o.taken, r.cleared, r.policy, r.fight_pilot, e.enemy_pilot
            FROM campaign_rewards o JOIN campaign_runs r USING (run_id, run_no) LEFT JOIN enemies e USING (run_id)
            {where + ' AND' if where else 'WHERE'} o.source IN ('battle', 'elite', 'shop')),
        later AS (
            SELECT o.policy, o.fight_pilot, o.enemy_pilot, o.card, o.taken, n.result
            FROM offers o JOIN campaign_nodes n
              ON n.run_id = o.run_id AND n.run_no = o.run_no AND n.step > o.step AND n.match_no IS NOT NULL)
        SELECT c.policy, c.fight_pilot, c.enemy_pilot, c.card, n.name, c.offers, c.taken, c.clear_taken_n,
               c.clear_taken, c.clear_skipped_n, c.clear_skipped,
               coalesce(f.fights_taken, 0) AS fights_taken, coalesce(f.wins_taken, 0) AS wins_taken,
               coalesce(f.fights_skipped, 0) AS fights_skipped, coalesce(f.wins_skipped, 0) AS wins_skipped
        FROM (SELECT policy, fight_pilot, enemy_pilot, card, count(*) AS offers,
                     count(*) FILTER (WHERE taken) AS taken,
                     count(*) FILTER (WHERE taken) AS clear_taken_n,
                     count(*) FILTER (WHERE taken AND cleared) AS clear_taken,
                     count(*) FILTER (WHERE NOT taken) AS clear_skipped_n,
                     count(*) FILTER (WHERE NOT taken AND cleared) AS clear_skipped
              FROM offers GROUP BY policy, fight_pilot, enemy_pilot, card) c
        LEFT JOIN (SELECT policy, fight_pilot, enemy_pilot, card, count(*) FILTER (WHERE taken) AS fights_taken,
                          count(*) FILTER (WHERE taken AND result = 'win') AS wins_taken,
                          count(*) FILTER (WHERE NOT taken) AS fights_skipped,
                          count(*) FILTER (WHERE NOT taken AND result = 'win') AS wins_skipped
                   FROM later GROUP BY policy, fight_pilot, enemy_pilot, card) f
          ON f.policy = c.policy AND f.fight_pilot = c.fight_pilot AND f.card = c.card
             AND f.enemy_pilot IS NOT DISTINCT FROM c.enemy_pilot
        LEFT JOIN (SELECT o.card, any_value(d.name) AS name FROM offers o JOIN runs r USING (run_id)
                   JOIN cards d ON d.rules_hash = r.rules_hash AND d.card = o.card GROUP BY o.card) n
          ON n.card = c.card
        ORDER BY c.policy, c.fight_pilot, c.enemy_pilot, c.card""", params * 2 if params else None)
    out = _with_rate(frame, "wr_taken", "wins_taken", "fights_taken")
    out = _with_rate(out, "wr_skipped", "wins_skipped", "fights_skipped")
    out = _with_rate(out, "clear_rate_taken", "clear_taken", "clear_taken_n")
    out = _with_rate(out, "clear_rate_skipped", "clear_skipped", "clear_skipped_n")
    out = out.with_columns((pl.col("wr_taken") - pl.col("wr_skipped")).alias("lift"),
                           (pl.col("clear_rate_taken") - pl.col("clear_rate_skipped")).alias("clear_lift"),
                           (pl.col("taken") / pl.col("offers")).alias("take_rate"))
    out = _with_difference(out, "lift", ("wins_taken", "fights_taken"), ("wins_skipped", "fights_skipped"))
    out = _with_difference(out, "clear_lift", ("clear_taken", "clear_taken_n"), ("clear_skipped", "clear_skipped_n"))
    # ranked within each policy, fight pilot and enemy pilot: their choices and fights are not pooled
    return out.sort("policy", "fight_pilot", "enemy_pilot", "clear_lift_lo", "lift_lo", "card",
                    descending=[False, False, False, True, True, False], nulls_last=True)


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
