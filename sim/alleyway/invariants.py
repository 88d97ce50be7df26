"""What must hold in every AlleyWay state between decisions (checked over thousands of random
matches by the tests, and available to anyone debugging a card)."""
from __future__ import annotations

from collections import Counter

from sim.alleyway.field import refresh, seat_discounts, update_auras
from sim.alleyway.state import MULLIGAN, ON_FIELD, AlleyState


def check_invariants(state: AlleyState) -> list[str]:
    problems: list[str] = []
    pool = state.pool
    cards = pool.cards
    consts = pool.consts
    uids: set[int] = set()
    seen: Counter = Counter()
    brought: Counter = Counter()
    for seat, side in enumerate(state.sides):
        p = f"p{seat}"
        brought.update(side.cards)
        cap = consts.morale_cap if state.boss < 0 else state.caps[seat]  # a Turf Defense boss has its own
        if not 0 <= side.morale <= cap:
            problems.append(f"{p} Morale {side.morale} outside 0..{cap}")
        if side.authority < 0:
            problems.append(f"{p} negative Authority {side.authority}")
        if side.influence < 0 or (side.leader >= 0 and side.influence > cards[side.leader].influence):
            problems.append(f"{p} leader Influence {side.influence} outside its range")
        if len(side.lanes) != pool.n_lanes or len(side.back) != pool.n_back:
            problems.append(f"{p} board has the wrong number of lanes or back-row slots")
        seen.update(c for c in side.hand + side.deck + side.gutter + side.exile + side.hideout if not cards[c].token)
        leaders_on_field = 0
        for lane, u in enumerate(side.lanes):
            if u is None:
                continue
            where = f"{p} {pool.lane_names[lane]}"
            if u.lane != lane or u.seat != seat:
                problems.append(f"{where}: character thinks it is p{u.seat} lane {u.lane}")
            if u.uid in uids:
                problems.append(f"{where}: unit id {u.uid} twice on the field")
            uids.add(u.uid)
            atk, df = u.atk, u.df
            summed = u.copy(u.gen)  # recomputed on a copy: the unit may be shared with other states
            refresh(summed)
            if (atk, df) != (summed.atk, summed.df) or atk < 0 or df < 0:
                problems.append(f"{where}: ATK/DEF {atk}/{df} do not add up ({summed.atk}/{summed.df})")
            if u.downed and u.atk_pos:
                problems.append(f"{where}: Downed in ATK position")
            if u.attacks > 1 + consts.max_extra_attacks:
                problems.append(f"{where}: attacked {u.attacks} times this turn")
            if sum(amount for _, amount in u.burn_by) != u.burn:
                problems.append(f"{where}: BURN {u.burn} but its burners' parts are {u.burn_by}")
            if u.leader:
                leaders_on_field += u.owner == seat
            elif not u.token:
                seen.update(u.under + (u.card,))
            for low in u.under:
                if cards[low].next not in u.under + (u.card,):
                    problems.append(f"{where}: {cards[low].slug} is under a card it does not promote to")
        for slot, b in enumerate(side.back):
            if b is None:
                continue
            seen[b.card] += 1
            if b.host and (not b.face_up or state.find(b.host) is None):
                problems.append(f"{p} {pool.back_names[slot]}: Equip attached to a character not on the field")
            if not b.face_up and b.host:
                problems.append(f"{p} {pool.back_names[slot]}: a face-down card with a host")
            if b.face_up and not cards[b.card].stays:
                problems.append(f"{p} {pool.back_names[slot]}: {cards[b.card].slug} face-up but not Continuous/Equip")
        if (side.leader_state == ON_FIELD) != (leaders_on_field == 1) and not side.out:
            problems.append(f"{p} leader state {side.leader_state} but {leaders_on_field} leader(s) on the field")
    if not state.auras_stale:
        before = [(side.aura_atk, side.aura_def) for side in state.sides]
        update_auras(state)
        if before != [(side.aura_atk, side.aura_def) for side in state.sides]:
            now = [(s.aura_atk, s.aura_def) for s in state.sides]
            problems.append(f"auras out of date: {before}, recomputed {now}")
    if not state.discounts_stale:
        kept = list(state.discounts)
        if state.pool.has_discount:
            fresh = [seat_discounts(side, cards) for side in state.sides]
        else:
            fresh = kept  # no card gives one: they stay nothing
        if kept != fresh:
            problems.append(f"cost discounts out of date: {kept}, recomputed {fresh}")
    if state.boss >= 0:
        problems += _turf_problems(state)
    if seen != brought:
        extra, missing = seen - brought, brought - seen
        name = lambda counter: {cards[c].slug: n for c, n in counter.items()}  # noqa: E731
        problems.append(f"cards not conserved: extra {name(extra)}, missing {name(missing)}")
    if not state.over:
        if state.pending is None and state.stack and state.phase != MULLIGAN:
            problems.append(f"stack holds {len(state.stack)} frames with no choice pending")
        if state.pending is not None and (not state.pending.options or state.pending.seat != state.to_act):
            problems.append(f"pending choice {state.pending} is empty or not the seat to act ({state.to_act})")
        if state.to_act not in range(len(state.sides)):
            problems.append(f"seat to act {state.to_act} does not exist")
    return problems


def _turf_problems(state) -> list[str]:
    """Turf Defense: the teams, the boss's seat, its phase (never behind its Morale's marks) and
    the end (the match is over exactly when one team is left)."""
    problems = []
    teams, boss = state.teams, state.boss
    if len(teams) != len(state.sides) or not 0 <= boss < len(state.sides):
        problems.append(f"teams {teams} or boss seat {boss} do not fit {len(state.sides)} seats")
        return problems
    if sum(1 for t in teams if t == teams[boss]) != 1:
        problems.append(f"the boss (p{boss}) shares its team {teams[boss]}")
    should = state.boss_def.phase_at(state.sides[boss].morale)
    if not should <= state.boss_phase < len(state.boss_def.names):
        problems.append(f"boss phase {state.boss_phase}, its Morale {state.sides[boss].morale} means at least {should}")
    for seat in range(len(teams)):
        for s in state.opponents(seat):
            if teams[s] == teams[seat]:
                problems.append(f"p{seat}'s partner p{s} is among its opponents")
    left = {teams[s] for s in state.alive()}
    if state.reason not in ("turn_limit", "decision_limit", "error") and state.over != (len(left) <= 1):
        problems.append(f"over={state.over} with the teams {sorted(left)} still playing")
    return problems
