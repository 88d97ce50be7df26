"""Luck: coin flips and dice come from the match's chance stream (the same seed, the same luck);
"if tails" follows the same flip; LOADED DICE tries a failed flip again, once per turn."""
from tests.alleyway_common import act, scenario_state

ROBERTO = {"seats": [{"lanes": {"l1": "roberto"}, "authority": 1, "deck": ["static"]}, {"deck": ["static"]}]}


def roberto(seed):
    eng, state = scenario_state(ROBERTO, seed)
    act(eng, state, "activate l1")
    return state.sides[0].morale, state.sides[1].morale


def test_a_coin_flip_takes_one_side_and_follows_the_seed():
    outcomes = [roberto(seed) for seed in range(300)]
    heads = sum(1 for mine, theirs in outcomes if (mine, theirs) == (6000, 5600))
    tails = sum(1 for mine, theirs in outcomes if (mine, theirs) == (5800, 6000))
    assert heads + tails == 300            # "if tails" follows the same flip: never both, never neither
    assert 120 < heads < 180               # a fair coin
    assert [roberto(seed) for seed in range(20)] == outcomes[:20]


def catherine(seed, with_roberto=False):
    lanes = {"l1": "catherine"}
    if with_roberto:
        lanes["l2"] = "roberto"
    eng, state = scenario_state({"seats": [{"lanes": lanes, "authority": 2, "deck": ["static"]}, {"deck": ["static"]}]}, seed)
    act(eng, state, "activate l1")
    if with_roberto:
        act(eng, state, "activate l2")
    return eng, state


def test_loaded_dice_flips_a_failed_coin_again_once_per_turn():
    # Catherine's +500 ATK on heads: with LOADED DICE, heads three times in four
    boosted = sum(catherine(seed)[1].sides[0].lanes[0].atk == 2200 for seed in range(400))
    assert 260 < boosted < 340, boosted
    for seed in range(60):
        eng, state = catherine(seed, with_roberto=True)
        kinds = eng.kinds
        retries = [d for k, d in zip(state.events.kind, state.events.detail)
                   if k == kinds.COIN and d.startswith("loaded dice")]
        assert len(retries) <= 1                 # once per turn
        assert state.sides[0].flips == 2 + len(retries)


def test_a_die_roll_decides_between_its_two_outcomes():
    outcomes = {"ko": 0, "down": 0}
    for seed in range(120):
        eng, state = scenario_state({"seats": [
            {"hand": ["garrison-the-pit-boss"], "lanes": {"l1": "static", "l2": "street-rat"}, "authority": 6,
             "deck": ["static"]},
            {"lanes": {"l1": "dirty-cop"}, "deck": ["static"]}]}, seed)
        act(eng, state, "heavy garrison-the-pit-boss atk l1+l2")
        target = state.sides[1].lanes[0]
        outcomes["ko" if target is None else "down" if target.downed else "none"] = \
            outcomes.get("ko" if target is None else "down" if target.downed else "none", 0) + 1
    assert set(outcomes) == {"ko", "down"} and 40 < outcomes["ko"] < 80   # 4+ on a d6: half
