"""Example matches behind aggregate rows: for each row (a card, keyword, cost, turn, deck, a card
in a version diff), the first match (``r<run>-m<match>-s<seat>``) that shows it in a win and the
first that shows it in a loss, so every aggregate row of the reports and exports links to a replay.
The key is written so that no spreadsheet reads it as something else (``1:9:0`` became a clock
time, ``1-9-0`` a date)."""
from __future__ import annotations

from pathlib import Path

import polars as pl

from reports import db
from reports.filters import Filters

# run, match and seat packed in one integer, so min() picks the first match in one pass
KEY_SQL = "cg.run_id::BIGINT * 1000000000 + cg.match_no::BIGINT * 16 + cg.seat"

# what a row is, per kind: the key columns, the joins they need and the seats that show it
_KINDS = {
    "keyword": (("k.keyword AS keyword",),
                "JOIN (SELECT rules_hash, card, unnest(keywords) AS keyword FROM cards) k "
                "ON k.rules_hash = r.rules_hash AND k.card = cg.card", "cg.played > 0"),
    # a deck as one pilot played it against the field one pilot played (reports/matchups.deck_field's
    # rows: keyed by the deck alone, a greedy row's example could replay a match random played);
    # mirror matches left out, as the field leaves them
    "deck": (("cg.deck AS deck", "cg.pilot AS pilot", "o.pilot AS opponent_pilot"),
             "JOIN match_seats o ON o.run_id = cg.run_id AND o.match_no = cg.match_no AND o.seat <> cg.seat",
             "o.deck <> cg.deck"),
}


def unpack(column: str) -> pl.Expr:
    """``r<run>-m<match>-s<seat>`` from a packed key column (None stays None)."""
    key = pl.col(column)
    return pl.when(key.is_null()).then(None).otherwise(
        "r" + (key // 1_000_000_000).cast(pl.Utf8) + "-m" + ((key % 1_000_000_000) // 16).cast(pl.Utf8) + "-s"
        + (key % 16).cast(pl.Utf8))


def key_text(run_id: int, match_no: int, seat: int) -> str:
    """One example's key as ``unpack`` writes it: ``r<run>-m<match>-s<seat>``."""
    return f"r{run_id}-m{match_no}-s{seat}"


def by_key(path: str | Path, filters: Filters, kind: str) -> pl.DataFrame:
    """Per row of ``kind`` (keyword; deck, pilot and the field's pilot): its key columns,
    example_win, example_loss. (The win rates by cost and by turn take their examples in their own
    query, per card set and split.)"""
    keys, join, condition = _KINDS[kind]
    where, params = filters.where("r", "cg")
    where = (where + " AND " if where else "WHERE ") + condition
    frame = db.query(path, f"""
        SELECT {', '.join(keys)}, min({KEY_SQL}) FILTER (WHERE cg.won) AS win_key,
               min({KEY_SQL}) FILTER (WHERE NOT cg.won) AS loss_key
        FROM card_games cg JOIN runs r ON r.run_id = cg.run_id {join}
        {where} GROUP BY ALL""", params or None)
    return frame.select(pl.exclude("win_key", "loss_key"), unpack("win_key").alias("example_win"),
                        unpack("loss_key").alias("example_loss"))


def diff_cards(path: str | Path, base_run: int, candidate_run: int) -> pl.DataFrame:
    """Per card of a version diff: the first twin (match and seat, the same in both runs) where the
    card was in hand in both and the result flipped: won only under the candidate (``flip_up``,
    pointing at the candidate's match) or only under the base (``flip_down``, the base's match)."""
    frame = db.query(path, f"""
        SELECT cg.card,
               min({KEY_SQL}) FILTER (WHERE c.won AND NOT cg.won) AS up_key,
               min({KEY_SQL}) FILTER (WHERE cg.won AND NOT c.won) AS down_key
        FROM card_games cg
        JOIN card_games c ON c.run_id = ? AND c.match_no = cg.match_no AND c.seat = cg.seat AND c.card = cg.card
        WHERE cg.run_id = ? AND (cg.in_opening_hand > 0 OR cg.drawn > 0) AND (c.in_opening_hand > 0 OR c.drawn > 0)
        GROUP BY 1""", [candidate_run, base_run])
    shift = (candidate_run - base_run) * 1_000_000_000  # the same twin, in the candidate run
    return frame.with_columns(pl.col("up_key") + shift).select(
        "card", unpack("up_key").alias("flip_up"), unpack("down_key").alias("flip_down"))
