"""AlleyWay's Turf Defense: bosses as data, partners who are not opponents, the boss's phases,
extra draws and Authority, shared victory, team standings, invariants over many random matches
with every boss, greedy matches, determinism across processes, a bad boss file's one clear line."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
import yaml

from cardsdb.errors import DataErrors
from cardsdb.loader import Ruleset, load_ruleset
from sim.alleyway.frames import Ctx
from sim.alleyway.state import TurfState, code
from sim.alleyway.targets import characters
from sim.core.match import play_match
from sim.core.seating import Seating
from sim.core.standings import Out, standings_from_teams
from tests.alleyway_common import alleyway, scenario_state
from tests.conftest import DATA, ROOT, cli_here

TURF = (0, 0, 1)


def seating(boss: str) -> Seating:
    return Seating(mode="turf", teams=TURF, boss=boss)


def pair(seed: int) -> list:
    _eng, _pool, _data, _rules, decks = alleyway()
    ids = sorted(decks)
    return [decks[ids[seed % len(ids)]], decks[ids[(seed * 5 + 1) % len(ids)]]]


def checked_turf(boss: str, seed: int, pilots: list[str]):
    eng, pool, *_ = alleyway()
    problems = []

    def check(state, _action):
        found = eng.check_invariants(state)
        if found:
            problems.append((state.turn, found))

    result = play_match(eng, pool, pair(seed), seed, pilots, on_decision=check, seating=seating(boss))
    if result.state is not None:
        problems.extend((result.turns, p) for p in [eng.check_invariants(result.state)] if p)
    return result, problems


# --- bosses as data --------------------------------------------------------------------------------

def test_every_clan_has_a_boss_that_reaches_the_pool_and_the_workers():
    eng, pool, _data, ruleset, _decks = alleyway()
    clans = {b.clan for b in ruleset.bosses.values()}
    assert clans == {"arsonists", "militia", "underworld", "wildcard", "nebula", "pirates"}
    for boss in ruleset.bosses.values():
        assert boss.morale > 6000 and boss.phases and boss.prize in ruleset.cards
    again = Ruleset.from_payload(ruleset.to_payload())  # what a worker process receives
    assert again.bosses == ruleset.bosses and again.hash == ruleset.hash
    assert set(eng.compile_pool(again).bosses) == set(pool.bosses)


def test_the_rules_hash_covers_the_bosses(tmp_path):
    root = tmp_path / "data"
    shutil.copytree(DATA / "alleyway", root / "alleyway", ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    _data, before = load_ruleset("alleyway", "base", root)
    path = root / "alleyway" / "bosses" / "the-house.yaml"
    boss = yaml.safe_load(path.read_text())
    boss["morale"] += 1000
    path.write_text(yaml.safe_dump(boss, sort_keys=False))
    _data, after = load_ruleset("alleyway", "base", root)
    assert after.hash != before.hash and after.cards == before.cards


def broken_boss(tmp_path, **changes):
    root = tmp_path / "data"
    shutil.copytree(DATA / "alleyway", root / "alleyway", ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    path = root / "alleyway" / "bosses" / "the-furnace-king.yaml"
    boss = yaml.safe_load(path.read_text())
    boss.update(changes)
    path.write_text(yaml.safe_dump(boss, sort_keys=False))
    return root


def error_lines(root) -> list[str]:
    with pytest.raises(DataErrors) as caught:
        load_ruleset("alleyway", "base", root)
    return [e.line() for e in caught.value.errors]


def test_a_bad_boss_file_gives_one_clear_line_naming_the_file_the_boss_and_the_field(tmp_path):
    lines = error_lines(broken_boss(tmp_path, extra_draws=-1))
    assert len(lines) == 1, lines
    assert lines[0].startswith("the-furnace-king.yaml") or "bosses/the-furnace-king.yaml" in lines[0]
    assert "boss 'the-furnace-king'" in lines[0] and "field 'extra_draws'" in lines[0]
    # the command line says the same, in one error line, with no traceback
    res = cli_here("cards", "validate", "alleyway", "--data-dir", str(tmp_path / "data"))
    assert res.returncode == 2 and "Traceback" not in res.stderr + res.stdout, res.stderr
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "boss 'the-furnace-king'" in errors[0] and "extra_draws" in errors[0], errors


@pytest.mark.parametrize("changes, field, words", [
    ({"prize": "no-such-card"}, "prize", "unknown card"),
    ({"leader": "general-graves"}, "leader", "militia leader"),
    ({"morale": 5000}, "morale", "more Morale"),
    ({"phases": [{"at": 0.3}, {"at": 0.6}]}, "phases", "strictly down"),
    ({"phases": [{"at": 0.5, "rage": 3}]}, "phases.0.rage", "unknown field"),
])
def test_each_kind_of_boss_mistake_names_its_field(tmp_path, changes, field, words):
    lines = error_lines(broken_boss(tmp_path, **changes))
    assert len(lines) == 1, lines
    assert "boss 'the-furnace-king'" in lines[0] and f"field '{field}" in lines[0] and words in lines[0], lines


# --- partners --------------------------------------------------------------------------------------

def turf_position(**seat2):
    return scenario_state({
        "mode": "turf", "boss": "the-furnace-king", "phase": "brawl",
        "seats": [{"lanes": {"l1": "dirty-cop"}, "hand": ["mirror-shift"], "authority": 3},
                  {"lanes": {"l1": "static"}},
                  {"lanes": {"l1": "street-rat", "l2": "sparky"}, **seat2}]})


def test_a_partner_is_not_an_opponent_and_its_cards_are_out_of_reach():
    eng, state = turf_position()
    assert isinstance(state, TurfState) and state.teams == TURF and state.boss == 2
    assert state.opponents(0) == [2] and state.opponents(1) == [2] and state.opponents(2) == [0, 1]
    assert state.reachable(0) == [0, 2]
    # an effect on "any" side, of p0: its own and the boss's characters, never p1's
    pool = state.pool
    swap = next(a for a in pool.cards[pool.ids["mirror-shift"]].triggers["played"])
    codes = characters(state, swap.effects[0], Ctx(0, pool.ids["mirror-shift"]))
    assert code(1, 0) not in codes and code(0, 0) in codes and code(2, 0) in codes
    words = [eng.describe(state, a) for a in eng.legal_actions(state)]
    assert "attack l1 p2.l1" in words and not any("p1." in w for w in words), words


def test_a_duel_state_has_no_teams_and_pays_nothing_for_them():
    eng, pool, _data, _rules, decks = alleyway()
    state = eng.new_match(pool, [decks["cinder-wildfire"], decks["graves-garrison"]], 3, log=False)
    assert type(state).__name__ == "AlleyState" and state.teams is None and state.boss == -1 and state.prize is None
    assert not hasattr(state, "caps")


# --- the match: phases, extra draws and Authority, standings --------------------------------------

def test_a_turf_match_seats_the_boss_from_its_data():
    eng, pool, *_ = alleyway()
    state = eng.new_match(pool, pair(1), 5, seating=seating("the-mothership"))
    boss = pool.bosses["the-mothership"]
    side = state.sides[2]
    assert side.morale == boss.morale and state.caps == (6000, 6000, boss.morale)
    assert side.leader == boss.leader and sorted(side.hideout) == sorted(boss.hideout)
    assert len(side.deck) + len(side.hand) == len(boss.cards)
    assert state.prize == "orbital-strike" and state.boss_phase == 0
    with pytest.raises(ValueError, match="no boss"):
        eng.new_match(pool, pair(1), 5, seating=seating("nobody"))
    with pytest.raises(ValueError, match="two partners"):
        eng.new_match(pool, pair(1)[:1], 5, seating=seating("the-mothership"))


def test_the_team_standings_give_both_partners_the_win_even_the_one_that_went_out():
    outs = (Out(0, 11, 2, "morale"), Out(2, 19, 1, "morale"))
    rows = standings_from_teams(TURF, outs, winner=1)
    assert [(r.placement, r.result) for r in rows] == [(1, "win"), (1, "win"), (2, "loss")]
    assert [(r.out_turn, r.out_by) for r in rows] == [(11, 2), (None, None), (19, 1)]
    rows = standings_from_teams(TURF, (Out(1, 8, 2, "morale"), Out(0, 12, 2, "deck_out")), winner=2)
    assert [(r.placement, r.result) for r in rows] == [(2, "loss"), (2, "loss"), (1, "win")]
    rows = standings_from_teams(TURF, (Out(1, 8, 2, "morale"),), winner=None)  # the turn limit
    assert [r.result for r in rows] == ["draw", "draw", "draw"] and {r.placement for r in rows} == {1}
    # general: a team is placed by when its last seat went out
    rows = standings_from_teams((0, 1, 1, 2), (Out(1, 3, 0, "morale"), Out(3, 5, 0, "morale"),
                                               Out(2, 9, 0, "morale")), winner=0)
    assert [r.placement for r in rows] == [1, 2, 2, 3]


def test_the_boss_changes_phase_at_its_marks_with_an_event():
    eng, state = turf_position(morale=11000)
    boss = state.boss_def
    assert state.boss_phase == 0 and boss.marks == (10800, 5400)
    from sim.alleyway import field
    field.lose_morale(state, 2, 6000, by=0)  # past both marks at once: one event per phase
    assert state.boss_phase == 2
    ev = state.events
    phases = [(ev.seat[i], ev.amount[i], ev.detail[i]) for i in range(len(ev)) if ev.kind[i] == eng.kinds.PHASE]
    assert phases == [(2, 2, boss.names[1]), (2, 3, boss.names[2])]
    assert eng.kinds.names[-2:] == ["phase", "aimed"]  # appended: the stored codes of the older kinds are unchanged
    assert field.atk_of(state, state.sides[2].lanes[0]) == 1000 + boss.atk[2]
    field.gain_morale(state, 2, 20000)  # healed: up to its own Morale, and the phase stays
    assert state.sides[2].morale == boss.morale and state.boss_phase == 2
    assert not eng.check_invariants(state)


# --- many matches ----------------------------------------------------------------------------------

@pytest.mark.slow
def test_random_turf_matches_with_every_boss_keep_every_invariant():
    eng, pool, *_ = alleyway()
    results: dict[str, int] = {"partners": 0, "boss": 0, "draw": 0}
    for boss in sorted(pool.bosses):
        for seed in range(50):  # 300 matches in all
            result, problems = checked_turf(boss, seed, ["random"] * 3)
            assert result.error is None, f"{boss} seed {seed}: {result.error}"
            assert not problems, f"{boss} seed {seed}: {problems[0]}"
            rows = result.standings
            if result.winner is None:
                results["draw"] += 1
            elif result.winner == 2:
                results["boss"] += 1
                assert [r.result for r in rows] == ["loss", "loss", "win"]
                assert result.state.sides[0].out and result.state.sides[1].out
            else:
                results["partners"] += 1
                assert [r.result for r in rows] == ["win", "win", "loss"], rows
                assert [r.placement for r in rows] == [1, 1, 2]
                assert result.state.sides[2].out and not result.state.sides[result.winner].out
                assert result.winner == min(s for s in (0, 1) if not result.state.sides[s].out)
    assert results["partners"] and results["boss"], results


def test_greedy_partners_against_a_greedy_boss_play_to_an_end():
    eng, pool, *_ = alleyway()
    for seed, boss in enumerate(sorted(pool.bosses)[:3]):
        result, problems = checked_turf(boss, seed, ["greedy"] * 3)
        assert result.error is None and not problems, (boss, result.error, problems[:1])
        assert result.reason in ("morale", "deck_out"), result.reason
        assert sum(r.result == "win" for r in result.standings) in (1, 2)


def test_a_pilot_never_values_hurting_its_partner():
    eng, state = turf_position()
    before = eng.evaluate(state, 0)
    hurt = state.clone()
    hurt.sides[1].morale -= 2000  # the partner loses Morale: worse for p0 too
    assert eng.evaluate(hurt, 0) < before
    boss_hurt = state.clone()
    boss_hurt.sides[2].morale -= 2000
    assert eng.evaluate(boss_hurt, 0) > before and eng.evaluate(boss_hurt, 2) < eng.evaluate(state, 2)
    # the boss values every point of its Morale, far above the players' cap too
    high, low = state.clone(), state.clone()
    high.sides[2].morale, low.sides[2].morale = 17000, 16000
    assert eng.evaluate(high, 2) > eng.evaluate(low, 2)


DIGEST = """
import json
from cardsdb.loader import load_ruleset
from sim.registry import engine
from sim.core.match import play_match
from sim.core.seating import Seating
data, ruleset = load_ruleset('alleyway', 'base')
eng = engine('alleyway'); pool = eng.compile_pool(ruleset)
decks = [eng.compile_deck(pool, data.decks[d]) for d in ('cinder-wildfire', 'veyr-bone-court')]
out = {}
for pilots in (['random'] * 3, ['greedy', 'random', 'greedy']):
    r = play_match(eng, pool, decks, 11, pilots, seating=Seating('turf', (0, 0, 1), 'the-bone-throne'))
    assert r.error is None, r.error
    out[pilots[0]] = [r.events.digest(), r.winner, r.turns, [list(s) for s in r.standings]]
print(json.dumps(out))
"""


def test_the_same_seed_replays_the_same_turf_match_in_any_process():
    runs = []
    for salt in ("0", "4242"):
        res = subprocess.run([sys.executable, "-c", DIGEST], capture_output=True, text=True, cwd=ROOT,
                             env={"PYTHONHASHSEED": salt, "PATH": "/usr/bin:/bin"})
        assert res.returncode == 0, res.stderr
        runs.append(json.loads(res.stdout))
    assert runs[0] == runs[1]


def test_the_outcome_names_the_boss_its_phase_its_morale_and_the_prize_won():
    eng, pool, *_ = alleyway()
    for seed in range(12):
        r = play_match(eng, pool, pair(seed), seed, ["random"] * 3, seating=seating("the-furnace-king"))
        out = eng.outcome(r.state)
        won = r.standings[0].result == "win"
        assert out["boss"] == "the-furnace-king" and out["boss_life_max"] == pool.bosses["the-furnace-king"].morale
        assert out["prize"] == ("pyra-the-undying-flame" if won else None)
        assert out["phase"] == r.state.boss_phase + 1 and out["boss_life"] == r.state.sides[2].morale
    duel = play_match(eng, pool, pair(1), 1, ["random"] * 2)
    assert eng.outcome(duel.state) is None
