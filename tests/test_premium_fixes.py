"""The skill premium (reports/pilot_sensitivity.py) on synthetic twins, no match played: a few
twins that agree claim no certainty, a field with no premium calls about one card in twenty,
paired or not (a pilot's mulligan changed the opening hands), the interval and the p-value agree
on zero; and the Cards page's hint (``premium_hint``) gives a command that works pasted as it is
(the store's ``--db``, the run's ``--data``, shell quoting)."""
from __future__ import annotations

import json
import shlex
from types import SimpleNamespace

import numpy as np
import polars as pl
import pytest

import reports.pilot_sensitivity as ps
from reports.stats import Z95, stratified_differences

BASE, STRONG = 1, 2  # the runs' ids: the weaker pilot's and the stronger's

# canyon-phoenix in `workbench pilot-sensitivity frontier --pilots greedy,random --decks
# lawmen-posse,goblin-gold-gang,scrapworks-crew --matches 20`: per seat (on the play or not) and
# arm (in the opening hand or not), its twins by (won under random, won under greedy). Each
# opening-hand arm holds two twins that agree ([+1, +1] and [0, 0]): it claimed +41.7 points
# [+21.7, +61.6], p = 4e-5, between components each about 70 points wide.
PHOENIX = {
    (False, False): {(0, 0): 4, (0, 1): 4, (1, 0): 3, (1, 1): 7},
    (False, True): {(0, 1): 2},
    (True, False): {(0, 0): 1, (0, 1): 4, (1, 0): 2, (1, 1): 11},
    (True, True): {(0, 0): 1, (1, 1): 1},
}


def _premium(monkeypatch, cards: dict[str, dict[tuple, dict[tuple[int, int], int]]]) -> pl.DataFrame:
    """``skill_premium`` over synthetic twins: per card, per (on_play, in opening hand) arm of one
    deck, the twins counted by (won under the base pilot, won under the strong). The store's
    readings are replaced: the runs' specs, each run's ``card_metrics`` (``oh_excess`` as the
    Cards page computes it, from the same twins) and the twins' sums (``_PAIRED_SQL``)."""
    strata, games = [], {}
    counts = {run: {key: [] for key in ("groups", "k1", "n1", "k0", "n0")} for run in (BASE, STRONG)}
    for i, (card, arms) in enumerate(cards.items()):
        games[card] = sum(sum(cells.values()) for cells in arms.values())
        for (on_play, oh), cells in arms.items():
            c = {cell: cells.get(cell, 0) for cell in ((0, 0), (0, 1), (1, 0), (1, 1))}
            n = sum(c.values())
            strata.append({"card": card, "deck": "deck", "on_play": on_play, "oh": oh, "n": n,
                           "s": c[(0, 1)] - c[(1, 0)], "ss": c[(0, 1)] + c[(1, 0)],
                           "won_strong": c[(0, 1)] + c[(1, 1)], "won_base": c[(1, 0)] + c[(1, 1)],
                           "won_both": c[(1, 1)], "mismatched": 0})
        for on_play in (False, True):
            for run, who in ((BASE, 0), (STRONG, 1)):
                won = [sum(v for cell, v in arms.get((on_play, oh), {}).items() if cell[who]) for oh in (True, False)]
                size = [sum(arms.get((on_play, oh), {}).values()) for oh in (True, False)]
                for key, value in zip(("groups", "k1", "n1", "k0", "n0"), (i, won[0], size[0], won[1], size[1])):
                    counts[run][key].append(value)
    metrics = {}
    for run in (BASE, STRONG):
        est = stratified_differences(*(counts[run][key] for key in ("groups", "k1", "n1", "k0", "n0")))
        metrics[run] = pl.DataFrame({
            "card": list(cards), "name": list(cards), "type": "unit", "faction": "f", "faction_name": "F", "cost": 1,
            "games": [games[c] for c in cards], "oh_excess": est.diff, "oh_excess_lo": est.lo, "oh_excess_hi": est.hi,
            "oh_excess_significant": False}).with_columns(pl.col(c).fill_nan(None) for c in ("oh_excess", "oh_excess_lo",
                                                                                             "oh_excess_hi"))
    frame = pl.DataFrame(strata)
    spec = {"game": "frontier", "rules_hash": "h", "deck_hash": "d", "decks": ["deck"], "matches": 20, "seed": 1,
            "swap": True, "pairings": []}
    monkeypatch.setattr(ps, "_spec", lambda _path, run: {**spec, "pilots": ["random" if run == BASE else "greedy"]})
    monkeypatch.setattr(ps, "card_metrics", lambda _path, filters: metrics[filters.runs[0]])
    monkeypatch.setattr(ps, "db", SimpleNamespace(query=lambda _path, _sql, _params=None: frame))
    return ps.skill_premium("synthetic.duckdb", BASE, STRONG)


def _unpaired_half(r: dict) -> float:
    """The half-width the two components' intervals imply when independent."""
    se_b = (r["base_excess_hi"] - r["base_excess_lo"]) / (2 * Z95)
    se_s = (r["strong_excess_hi"] - r["strong_excess_lo"]) / (2 * Z95)
    return Z95 * float(np.hypot(se_b, se_s))


def _agree(prem: pl.DataFrame) -> None:
    """The interval excludes 0 exactly when p < 0.05 (the same standard error)."""
    tested = prem.filter(pl.col("premium_p").is_not_null())
    excluded = ((tested["premium_lo"] > 0) | (tested["premium_hi"] < 0)).to_numpy()
    assert (excluded == (tested["premium_p"] < 0.05).to_numpy()).all()


def test_two_agreeing_twins_in_the_opening_hand_claim_no_certainty(monkeypatch):
    prem = _premium(monkeypatch, {"canyon-phoenix": PHOENIX})
    r = prem.row(0, named=True)
    assert r["paired"] and r["twins"] == 40
    assert r["base_excess"] == pytest.approx(-0.388889, abs=1e-5) and r["strong_excess"] == pytest.approx(0.027778,
                                                                                                         abs=1e-5)
    assert r["premium"] == pytest.approx(r["strong_excess"] - r["base_excess"], abs=1e-12)
    # was +41.7 [+21.7, +61.6], p = 4e-5: narrower than either pilot's own interval
    assert r["premium_lo"] < 0 < r["premium_hi"] and r["premium_p"] > 0.05 and not r["premium_significant"]
    half = (r["premium_hi"] - r["premium_lo"]) / 2
    assert half >= min(r["base_excess_hi"] - r["base_excess_lo"], r["strong_excess_hi"] - r["strong_excess_lo"]) / 2
    assert half >= _unpaired_half(r) - 1e-12, "these twins show too little shared luck to narrow it"
    _agree(prem)


def test_twins_that_all_agree_narrow_it_but_never_to_nothing(monkeypatch):
    """Between close pilots every twin agrees: the pairing narrows the interval (the luck they
    share cancels), yet neither a tiny arm nor a whole card of agreeing twins gives zero width."""
    same = {(False, False): {(0, 0): 9, (1, 1): 9}, (False, True): {(1, 1): 2},
            (True, False): {(0, 0): 8, (1, 1): 10}, (True, True): {(0, 0): 1, (1, 1): 1}}
    r = _premium(monkeypatch, {"twin": same}).row(0, named=True)
    assert r["premium"] == pytest.approx(0.0, abs=1e-12) and r["premium_p"] == pytest.approx(1.0)
    half = (r["premium_hi"] - r["premium_lo"]) / 2
    assert 0.05 < half < _unpaired_half(r)
    lone = {(False, False): {(1, 1): 1}, (False, True): {(0, 1): 1}}  # one twin per arm: no variance seen at all
    r = _premium(monkeypatch, {"lone": lone}).row(0, named=True)
    assert r["premium_lo"] < 0 < r["premium_hi"] and r["premium_p"] > 0.05


def _null_cards(rng: np.random.Generator, count: int) -> dict:
    """Cards with no skill premium: in every stratum the strong pilot moves the card's win rate
    with and without it in the opening hand by the same amount. 1 to 3 strata of 15 to 40 twins,
    5-35% of them with the card in the opening hand (a few twins), win rates 10-90%, and the
    twins' results independent, half or 90% shared (a pilot's twin sees the same shuffle)."""
    cards = {}
    for i in range(count):
        arms = {}
        shared = (0.0, 0.5, 0.9)[i % 3]
        for on_play in (False, True)[: int(rng.integers(1, 3))]:
            n = int(rng.integers(15, 41))
            n_oh = int(rng.binomial(n, rng.uniform(0.05, 0.35)))
            p = rng.uniform(0.1, 0.9)
            room = min(p, 1 - p) / 2
            pilot, card = rng.uniform(-room, room), rng.uniform(-room, room)
            for oh, size in ((True, n_oh), (False, n - n_oh)):
                base = p + card * oh
                u_base = rng.uniform(size=size)
                u_strong = np.where(rng.uniform(size=size) < shared, u_base, rng.uniform(size=size))
                won_base, won_strong = u_base < base, u_strong < base + pilot
                cells = {(b, s): int(((won_base == b) & (won_strong == s)).sum()) for b in (0, 1) for s in (0, 1)}
                if size:
                    arms[(on_play, oh)] = cells
        cards[f"card-{i}"] = arms
    return cards


def test_a_field_with_no_premium_calls_about_one_card_in_twenty(monkeypatch):
    cards = _null_cards(np.random.default_rng(20260501), 1500)
    prem = _premium(monkeypatch, cards)
    tested = prem.filter(pl.col("premium_p").is_not_null())
    assert tested.height > 1200
    share = float((tested["premium_p"] < 0.05).mean())
    assert share <= 0.06, f"{share:.1%} of cards with no premium called significant at 5% (was 8-14%)"
    _agree(prem)
    # the pairing still narrows the interval where the twins share most of their luck
    rows = {r["card"]: r for r in tested.iter_rows(named=True)}
    ratio = [(r["premium_hi"] - r["premium_lo"]) / 2 / _unpaired_half(r) for c, r in rows.items()
             if int(c.split("-")[1]) % 3 == 2]
    assert np.median(ratio) < 0.85


# --- the unpaired premium (AlleyWay: a pilot's mulligan changes the opening hand) ------------------

def _unpaired_premium(monkeypatch, cards: dict[str, dict[int, dict[tuple, tuple[int, int]]]]) -> pl.DataFrame:
    """``skill_premium`` when the twins do not pair: per card, per run (BASE, STRONG), per
    (deck, on_play, in opening hand) arm, its (wins, games). Each run's ``card_metrics`` computes
    ``oh_excess`` from those counts; the twins' sums (``_PAIRED_SQL``) say every card's twins held
    it in different opening hands; ``_ARMS_SQL`` returns the counts."""
    arms, twins = [], []
    counts = {run: {key: [] for key in ("groups", "k1", "n1", "k0", "n0")} for run in (BASE, STRONG)}
    for i, (card, runs) in enumerate(cards.items()):
        twins.append({"card": card, "deck": "deck", "on_play": False, "oh": True, "n": 1, "s": 0, "ss": 0,
                      "won_strong": 0, "won_base": 0, "won_both": 0, "mismatched": 1})
        strata = sorted({key[:2] for cells in runs.values() for key in cells})
        for run, cells in runs.items():
            for deck, on_play in strata:
                (k1, n1), (k0, n0) = (cells.get((deck, on_play, oh), (0, 0)) for oh in (True, False))
                arms.append({"run_id": run, "card": card, "deck": deck, "on_play": on_play, "n1": n1, "k1": k1,
                             "n0": n0, "k0": k0})
                for key, value in zip(("groups", "k1", "n1", "k0", "n0"), (i, k1, n1, k0, n0)):
                    counts[run][key].append(value)
    metrics = {}
    for run in (BASE, STRONG):
        est = stratified_differences(*(counts[run][key] for key in ("groups", "k1", "n1", "k0", "n0")))
        games = [sum(n for _, n in cards[c][run].values()) for c in cards]
        metrics[run] = pl.DataFrame({
            "card": list(cards), "name": list(cards), "type": "unit", "faction": "f", "faction_name": "F", "cost": 1,
            "games": games, "oh_excess": est.diff, "oh_excess_lo": est.lo, "oh_excess_hi": est.hi,
            "oh_excess_significant": False}).with_columns(
                pl.col(c).fill_nan(None) for c in ("oh_excess", "oh_excess_lo", "oh_excess_hi"))
    arms_frame, twins_frame = pl.DataFrame(arms), pl.DataFrame(twins)
    spec = {"game": "alleyway", "rules_hash": "h", "deck_hash": "d", "decks": ["deck"], "matches": 20, "seed": 1,
            "swap": True, "pairings": []}
    monkeypatch.setattr(ps, "_spec", lambda _path, run: {**spec, "pilots": ["random" if run == BASE else "greedy"]})
    monkeypatch.setattr(ps, "card_metrics", lambda _path, filters: metrics[filters.runs[0]])
    monkeypatch.setattr(ps, "db", SimpleNamespace(
        query=lambda _path, sql, _params=None: arms_frame if sql == ps._ARMS_SQL.format(decks="") else twins_frame))
    return ps.skill_premium("synthetic.duckdb", BASE, STRONG)


def _unpaired_null_cards(rng: np.random.Generator, count: int) -> dict:
    """Cards with no skill premium, their two runs independent (the opening hands differ, so the
    twins share no luck worth counting): 1 to 6 strata (3 decks x 2 seats) of 10 to 40 games, each
    run dealing the card into its own 5-35% of them (a few games), win rates 5-95%; the card adds
    the same to its deck under both pilots, the pilot moves the stratum's win rate by up to 25
    points."""
    cards = {}
    strata_all = [(deck, on_play) for deck in ("d0", "d1", "d2") for on_play in (False, True)]
    for i in range(count):
        effect = None
        runs: dict[int, dict] = {BASE: {}, STRONG: {}}
        for j in rng.choice(len(strata_all), size=int(rng.integers(1, 7)), replace=False):
            deck, on_play = strata_all[j]
            n, share, p = int(rng.integers(10, 41)), rng.uniform(0.05, 0.35), rng.uniform(0.05, 0.95)
            if effect is None:
                effect = rng.uniform(-1, 1) * min(p - 0.05, 0.95 - p) / 2
            floor, ceiling = max(0.05, 0.05 - effect), min(0.95, 0.95 - effect)
            for run in (BASE, STRONG):
                rate = p if run == BASE else rng.uniform(max(floor, p - 0.25), min(ceiling, p + 0.25))
                n1 = int(rng.binomial(n, share))
                runs[run][(deck, on_play, True)] = (int(rng.binomial(n1, min(max(rate + effect, 0.0), 1.0))), n1)
                runs[run][(deck, on_play, False)] = (int(rng.binomial(n - n1, rate)), n - n1)
        cards[f"card-{i}"] = runs
    return cards


def test_an_unpaired_field_with_no_premium_calls_about_one_card_in_twenty(monkeypatch):
    """The standard error read off the two Agresti-Caffo intervals (the adjusted estimates',
    narrower at a few games) around the raw difference called 8.4% of these cards significant."""
    prem = _unpaired_premium(monkeypatch, _unpaired_null_cards(np.random.default_rng(20260502), 1500))
    tested = prem.filter(pl.col("premium_p").is_not_null())
    assert tested.height > 1300 and not tested["paired"].any()
    share = float((tested["premium_p"] < 0.05).mean())
    assert 0.025 <= share <= 0.06, f"{share:.1%} of cards with no premium called significant at 5% (was 8.4%)"
    _agree(prem)
    assert (tested["premium"] - (tested["strong_excess"] - tested["base_excess"])).abs().max() < 1e-12
    assert ((tested["premium_lo"] <= tested["premium"]) & (tested["premium"] <= tested["premium_hi"])).all()


def test_one_opening_hand_game_per_run_makes_no_unpaired_premium(monkeypatch):
    """One game with the card in the opening hand in each run, lost under the weaker pilot and
    won under the stronger: a premium of +100 points that one game each way cannot show. Read off
    the Agresti-Caffo intervals (their n + 2 = 3 games for the one) it was p = 0.015."""
    runs = {BASE: {("deck", False, True): (0, 1), ("deck", False, False): (10, 20)},
            STRONG: {("deck", False, True): (1, 1), ("deck", False, False): (10, 20)}}
    prem = _unpaired_premium(monkeypatch, {"lone": runs})
    r = prem.row(0, named=True)
    assert not r["paired"] and r["premium"] == pytest.approx(1.0)
    assert r["premium_lo"] < 0 < r["premium_hi"] and r["premium_p"] > 0.1 and not r["premium_significant"]
    _agree(prem)


def test_an_unpaired_premium_the_counts_back_is_found(monkeypatch):
    """Not conservative to uselessness: a card adding nothing to its deck under the weaker pilot
    and 30 points under the stronger, over 6 strata of 40 games with a third in the opening hand."""
    strata = [(deck, on_play) for deck in ("d0", "d1", "d2") for on_play in (False, True)]
    runs = {BASE: {}, STRONG: {}}
    for deck, on_play in strata:
        runs[BASE][(deck, on_play, True)], runs[BASE][(deck, on_play, False)] = (6, 13), (13, 27)
        runs[STRONG][(deck, on_play, True)], runs[STRONG][(deck, on_play, False)] = (10, 13), (12, 27)
    r = _unpaired_premium(monkeypatch, {"skilful": runs}).row(0, named=True)
    assert not r["paired"] and r["premium"] > 0.25 and r["premium_p"] < 0.01 and r["premium_lo"] > 0


def test_the_unpaired_counts_are_card_metrics_strata():
    """``_ARMS_SQL`` counts what ``card_metrics`` splits ``oh_excess`` by: games of a deck that
    holds the card (``copies > 0``), in the opening hand or not, per run, card, deck and seat, and
    the deck filter; its variances are those of the raw estimates."""
    import duckdb

    con = duckdb.connect()
    con.execute("CREATE TABLE card_games (run_id INTEGER, card VARCHAR, deck VARCHAR, on_play BOOLEAN, "
                "in_opening_hand INTEGER, won BOOLEAN, copies INTEGER)")
    rows = [(BASE, "a", "d0", True, 1, True, 1), (BASE, "a", "d0", True, 0, False, 1),
            (BASE, "a", "d0", True, 0, True, 2),
            (BASE, "a", "d0", True, 0, True, 0),  # the deck does not hold it: not counted
            (BASE, "a", "d1", True, 1, True, 1),  # another deck, filtered out
            (STRONG, "a", "d0", True, 2, False, 2), (STRONG, "a", "d0", True, 0, True, 1),
            (3, "a", "d0", True, 1, True, 1)]  # another run
    con.executemany("INSERT INTO card_games VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    got = con.sql(ps._ARMS_SQL.format(decks="AND cg.deck IN (?)"), params=[BASE, STRONG, "d0"]).pl()
    con.close()
    got = {(r["run_id"], r["deck"]): (r["k1"], r["n1"], r["k0"], r["n0"]) for r in got.iter_rows(named=True)}
    assert got == {(BASE, "d0"): (1, 1, 1, 2), (STRONG, "d0"): (0, 1, 1, 1)}
    var = ps._excess_variances(pl.DataFrame({"run_id": [BASE], "card": ["a"], "deck": ["d0"], "on_play": [True],
                                             "n1": [1], "k1": [1], "n0": [2], "k0": [1]}))
    t1, t0 = 2 / 3, 2 / 4
    assert var == {(BASE, "a"): pytest.approx(t1 * (1 - t1) / 1 + t0 * (1 - t0) / 2)}


# --- the Cards page's hint ------------------------------------------------------------------------

def _store(path, data_dir: str | None, with_column: bool = True):
    import duckdb

    spec = {"game": "frontier", "kind": "duel", "pilots": ["greedy"], "matches": 20, "seed": 7, "rules": "my-change",
            "decks": ["lawmen-posse", "goblin-gold-gang"], "pairings": [[0, 1]]}
    path.parent.mkdir(parents=True, exist_ok=True)
    with duckdb.connect(str(path)) as con:
        if with_column:
            con.execute("CREATE TABLE runs (run_id INTEGER, spec VARCHAR, data_dir VARCHAR)")
            con.execute("INSERT INTO runs VALUES (1, ?, ?)", [json.dumps(spec), data_dir])
        else:  # a store from before runs recorded their data folder
            con.execute("CREATE TABLE runs (run_id INTEGER, spec VARCHAR)")
            con.execute("INSERT INTO runs VALUES (1, ?)", [json.dumps(spec)])
    return path


def _command(hint: str) -> list[str]:
    assert hint.count("`") == 2, hint
    return shlex.split(hint.split("`")[1])


def _option(words: list[str], name: str) -> str | None:
    return words[words.index(name) + 1] if name in words else None


def test_the_hint_names_the_store_and_the_run_s_data_folder(tmp_path):
    folder = tmp_path / "my cards; rm -rf ~"  # a space and a shell's specials: quoted, read back whole
    folder.mkdir()
    store = _store(tmp_path / "the store" / "p.duckdb", str(folder.resolve()))
    words = _command(ps.premium_hint(store, 1))
    assert words[:5] == ["workbench", "pilot-sensitivity", "frontier", "--pilots", "greedy,mcts:200"]
    assert _option(words, "--rules") == "my-change" and _option(words, "--decks") == "lawmen-posse,goblin-gold-gang"
    assert _option(words, "--matches") == "20" and _option(words, "--seed") == "7"
    assert _option(words, "--db") == str(store.resolve())
    assert _option(words, "--data") == str(folder.resolve())


def test_the_hint_leaves_the_shipped_data_out_and_resolves_a_relative_store(tmp_path, monkeypatch):
    from cardsdb.registry import DATA_ROOT

    _store(tmp_path / "p.duckdb", str(DATA_ROOT.resolve()))
    monkeypatch.chdir(tmp_path)
    words = _command(ps.premium_hint("p.duckdb", 1))
    assert _option(words, "--db") == str((tmp_path / "p.duckdb").resolve())
    assert "--data" not in words


def test_the_hint_on_a_store_that_does_not_record_the_data_folder(tmp_path):
    store = _store(tmp_path / "old.duckdb", None, with_column=False)
    words = _command(ps.premium_hint(store, 1))
    assert _option(words, "--db") == str(store.resolve()) and "--data" not in words
