"""What must hold in every Wild Frontier state between decisions (checked over thousands of
random matches by the tests, and available to anyone debugging a card)."""
from __future__ import annotations

from collections import Counter

from sim.frontier.pool import DEPUTY
from sim.frontier.state import ON_FIELD, FrontierState


def check_invariants(state: FrontierState) -> list[str]:
    problems: list[str] = []
    pool = state.pool
    consts = pool.consts
    uids: set[int] = set()
    for seat, side in enumerate(state.sides):
        p = f"p{seat}"
        if side.hp > side.max_hp:
            problems.append(f"{p} sheriff HP {side.hp} above its cap {side.max_hp}")
        if side.mana < 0 or side.gold < 0:
            problems.append(f"{p} negative resources: mana {side.mana}, gold {side.gold}")
        if len(side.hand) > consts.hand_limit:
            problems.append(f"{p} hand of {len(side.hand)} above the limit {consts.hand_limit}")
        if len(side.lanes) != pool.n_lanes or len(side.cover) != pool.n_middle:
            problems.append(f"{p} board has the wrong number of lanes")
        for lane, n in enumerate(side.cover):
            if not 0 <= n <= consts.max_cover_per_lane:
                problems.append(f"{p} lane {pool.lane_names[lane]} holds {n} Cover")
        if side.mana_bonus < 0 or side.discard_uses_left < 0:
            problems.append(f"{p} negative Mana bonus {side.mana_bonus} or discard-to-draw uses {side.discard_uses_left}")
        on_board = []
        deputies_out = []
        for lane, u in enumerate(side.lanes):
            if u is None:
                continue
            if pool.cards[u.card].type == DEPUTY:
                deputies_out.append(u.card)
            else:
                on_board.append(u.card)
            where = f"{p} {pool.lane_names[lane]}"
            if u.lane != lane or u.owner != seat:
                problems.append(f"{where}: unit thinks it is p{u.owner} lane {u.lane}")
            if u.hp <= 0 and not state.over and state.pending is None:
                problems.append(f"{where}: dead unit ({u.hp} DEF) still on the field")
            if u.hp > u.max_hp:
                problems.append(f"{where}: DEF {u.hp} above its max {u.max_hp}")
            if u.atk < 0 or not 0 <= u.attacks_left <= 2 or u.skip < 0:
                problems.append(f"{where}: atk {u.atk}, attacks left {u.attacks_left}, skip {u.skip}")
            if u.uid in uids:
                problems.append(f"{where}: unit id {u.uid} twice on the field")
            uids.add(u.uid)
            if u.fresh and lane < pool.n_middle:
                problems.append(f"{where}: a middle-lane unit marked fresh High-Rise")
        # Deputies live outside the deck: on the field (at most the limit) or in the Deputy Zone
        if len(deputies_out) > consts.max_deputies_on_field:
            problems.append(f"{p} {len(deputies_out)} Deputies on the field")
        marked = sorted(d for d, z in zip(side.deputies, side.dzone) if z == ON_FIELD)
        if sorted(deputies_out) != marked:
            problems.append(f"{p} Deputies on the field {deputies_out} but the zone says {marked}")
        zones = side.hand + side.deck + side.discard + on_board
        zones.sort()
        if tuple(zones) != side.decklist:  # a sorted comparison first: Counters only to explain
            extra = Counter(zones) - Counter(side.decklist)
            missing = Counter(side.decklist) - Counter(zones)
            problems.append(f"{p} cards not conserved: extra {dict(extra)}, missing {dict(missing)}")
    if not state.over and state.to_act not in range(len(state.sides)):
        problems.append(f"seat to act {state.to_act} does not exist")
    return problems
