"""The store tables of ``workbench tune`` (columns: workbench/STORE.md), written in one
transaction per proposal: a proposal is stored whole or not at all."""
from __future__ import annotations

from workbench.store import Store, connect, insert_rows, now

TUNE_SQL = """
CREATE TABLE IF NOT EXISTS tune (
    tune_id INTEGER PRIMARY KEY,
    game VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,             -- 'field': the decks into the band; 'card': one card's fair number
    base_version VARCHAR NOT NULL,     -- the starting rules version
    version VARCHAR,                   -- the proposal's rules version (NULL: nothing to change, no file)
    rules_hash VARCHAR,                -- its content hash
    file VARCHAR,                      -- where it was written
    decks VARCHAR NOT NULL,            -- the field, comma separated
    pilots VARCHAR NOT NULL,
    band_lo DOUBLE,                    -- 0..1
    band_hi DOUBLE,
    target_lo DOUBLE,                  -- the band narrowed by the search's margin
    target_hi DOUBLE,
    max_changes INTEGER,
    seed BIGINT NOT NULL,              -- the search's base seed
    search_matches INTEGER NOT NULL,   -- per pairing in the search (card: per opponent)
    verify_seed BIGINT,                -- the final verification's base seed
    verify_matches INTEGER,            -- per pairing
    matches_search INTEGER NOT NULL,   -- matches the search read (played now or reused)
    matches_verify INTEGER NOT NULL,
    changes INTEGER NOT NULL,          -- card numbers changed (rows of tune_changes)
    in_band BOOLEAN,                   -- the final verification put every deck inside the band
    verdict VARCHAR NOT NULL,          -- in words
    why VARCHAR,
    base_run INTEGER,                  -- the final verification's runs (same seeds, both seats)
    candidate_run INTEGER,
    diff_id INTEGER,
    card VARCHAR,                      -- kind 'card': the card and its number
    field VARCHAR,
    created_at TIMESTAMP NOT NULL
);
ALTER TABLE tune ADD COLUMN IF NOT EXISTS cards INTEGER;  -- cards changed: what --max-changes counts
CREATE TABLE IF NOT EXISTS tune_changes (
    tune_id INTEGER NOT NULL,
    change_no INTEGER NOT NULL,
    card VARCHAR NOT NULL,
    name VARCHAR NOT NULL,
    field VARCHAR NOT NULL,            -- the knob: atk, def, cost, ...
    before INTEGER NOT NULL,
    after INTEGER NOT NULL,
    surplus_before DOUBLE,             -- the card's stat points over its budget points
    surplus_after DOUBLE,
    decks VARCHAR NOT NULL             -- the decks of the field holding the card
);
CREATE TABLE IF NOT EXISTS tune_decks (
    tune_id INTEGER NOT NULL,
    deck VARCHAR NOT NULL,
    search_before DOUBLE,              -- the search's estimates (its own seeds)
    search_after DOUBLE,
    games_before INTEGER,              -- the final verification
    wr_before DOUBLE,
    wr_before_lo DOUBLE,
    wr_before_hi DOUBLE,
    games_after INTEGER,
    wr_after DOUBLE,
    wr_after_lo DOUBLE,
    wr_after_hi DOUBLE,
    twins INTEGER,
    change DOUBLE,                     -- paired, 0..1
    change_lo DOUBLE,
    change_hi DOUBLE,
    in_band BOOLEAN
);
CREATE TABLE IF NOT EXISTS tune_steps (
    tune_id INTEGER NOT NULL,
    round INTEGER NOT NULL,
    step INTEGER NOT NULL,
    candidate_no INTEGER NOT NULL,
    deck VARCHAR NOT NULL,             -- the deck the step was for
    direction VARCHAR NOT NULL,        -- nerf or buff
    card VARCHAR NOT NULL,
    field VARCHAR NOT NULL,
    before INTEGER NOT NULL,
    after INTEGER NOT NULL,
    objective DOUBLE,                  -- squared points outside the target, summed over decks
    accepted BOOLEAN NOT NULL,
    run_id INTEGER,
    matches INTEGER,
    deck_wr DOUBLE                     -- the deck's estimate with the candidate
);
CREATE TABLE IF NOT EXISTS tune_values (
    tune_id INTEGER NOT NULL,
    card VARCHAR NOT NULL,
    field VARCHAR NOT NULL,
    number INTEGER NOT NULL,
    deck VARCHAR NOT NULL,
    reference VARCHAR NOT NULL,
    twins INTEGER,
    value_points DOUBLE,
    value_lo DOUBLE,
    value_hi DOUBLE,
    p_value DOUBLE,
    surplus DOUBLE,
    chosen BOOLEAN NOT NULL,
    run_id INTEGER,
    reference_run INTEGER
);"""


def record(store: Store, proposal: dict, tables: dict[str, list[dict]]) -> int:
    """Store a proposal (a ``tune`` row) and its rows of the other tables under a new tune_id."""
    store.init()
    with connect(store.path) as con:
        con.execute(TUNE_SQL)
        con.execute("BEGIN")
        tune_id = con.execute("SELECT coalesce(max(tune_id), 0) + 1 FROM tune").fetchall()[0][0]
        insert_rows(con, {"tune": [{**proposal, "created_at": now()}], **tables}, tune_id=tune_id)
        con.execute("COMMIT")
    return tune_id
