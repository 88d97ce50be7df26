"""What must hold in every Allegiance state between decisions (checked over thousands of random
matches by the tests). A move through a blocker cannot be seen in a state; the invariant test
checks each move's destination against its own path search."""
from __future__ import annotations

from collections import Counter

from sim.allegiance.pool import STRONGHOLD, WARRIOR
from sim.allegiance.state import NO_CARD, TAPPED, AllegianceState


def check_invariants(state: AllegianceState) -> list[str]:
    problems: list[str] = []
    pool = state.pool
    consts, cards, names = pool.consts, pool.cards, pool.board.names
    if len(state.cells) != pool.board.n:
        problems.append(f"the battlefield has {len(state.cells)} cells, not {pool.board.n}")
    uids: set[int] = set()
    strongholds = [0, 0]
    on_board: list[list[int]] = [[], []]
    in_fortress: list[list[int]] = [[], []]
    for cell, u in enumerate(state.cells):
        if u is None:
            continue
        where = f"{names[cell]} ({cards[u.card].slug})"
        if (state.blight >> cell) & 1:
            problems.append(f"{where}: a unit and a Blight token share the cell")
        if u.uid in uids:
            problems.append(f"{where}: unit id {u.uid} twice on the battlefield")
        uids.add(u.uid)
        if u.hp <= 0 and not state.over:
            problems.append(f"{where}: dead unit ({u.hp} HP) still on the battlefield")
        if u.hp > u.max_hp:
            problems.append(f"{where}: HP {u.hp} above its max {u.max_hp}")
        if not 0 <= u.absorb <= consts.absorb_cap or not 0 <= u.reflect <= consts.reflect_cap:
            problems.append(f"{where}: shields out of their caps: {u.absorb} Absorb, {u.reflect} Reflect")
        if u.attacks > consts.attacks_per_turn or u.moves > consts.moves_per_turn:
            problems.append(f"{where}: {u.attacks} attacks and {u.moves} moves this turn")
        if u.tap == TAPPED and u.owner != state.active:
            problems.append(f"{where}: tapped outside its owner's turn")
        kind = cards[u.card].type
        if kind == STRONGHOLD:
            strongholds[u.owner] += 1
            in_fortress[u.owner].append(u.card)
        elif kind == WARRIOR:
            on_board[u.owner].append(u.card)
            for carried, slot in ((u.weapon, "weapon"), (u.armor, "armor")):
                if carried != NO_CARD:
                    if cards[carried].supply != slot:
                        problems.append(f"{where}: carries {cards[carried].slug} as its {slot}")
                    on_board[u.owner].append(carried)
        else:
            problems.append(f"{where}: a {kind} card standing on the battlefield")
    problems.extend(mask_problems(state))
    blight = state.blight.bit_count()
    if blight + state.blight_supply != consts.blight_tokens:
        problems.append(f"Blight tokens not conserved: {blight} on the battlefield, {state.blight_supply} in the supply")
    for seat, side in enumerate(state.sides):
        p = f"p{seat}"
        if side.ap < 0:
            problems.append(f"{p} has negative AP: {side.ap}")
        if len(side.muster) > consts.muster_size:
            problems.append(f"{p} Muster Zone holds {len(side.muster)}, room for {consts.muster_size}")
        if not state.over and strongholds[seat] != 1:
            problems.append(f"{p} has {strongholds[seat]} Strongholds on the battlefield")
        main = sorted(side.hand + side.deck + side.discard + [c for c, _ in side.muster] + on_board[seat])
        if main != list(side.decklist):
            have, want = Counter(main), Counter(side.decklist)
            problems.append(f"{p} main-deck cards not conserved: extra {dict(have - want)}, "
                            f"missing {dict(want - have)}")
        if sorted(side.strongholds + side.fallen + in_fortress[seat]) != list(side.fortress):
            problems.append(f"{p} Stronghold deck not conserved")
    if not state.over and state.to_act not in (0, 1):
        problems.append(f"seat to act {state.to_act} does not exist")
    return problems


def masks_from_cells(state: AllegianceState) -> tuple[list[int], list[int]]:
    """The occupancy masks (``units``, ``warriors``) recomputed from the cells."""
    cards = state.pool.cards
    units, warriors = [0, 0], [0, 0]
    for cell, u in enumerate(state.cells):
        if u is not None:
            units[u.owner] |= 1 << cell
            if cards[u.card].type == WARRIOR:
                warriors[u.owner] |= 1 << cell
    return units, warriors


def mask_problems(state: AllegianceState) -> list[str]:
    """The masks ``place`` and ``remove`` keep must say what the cells say."""
    units, warriors = masks_from_cells(state)
    problems = []
    if list(state.units) != units:
        problems.append(f"unit masks {state.units} disagree with the cells {units}")
    if list(state.warriors) != warriors:
        problems.append(f"warrior masks {state.warriors} disagree with the cells {warriors}")
    return problems
