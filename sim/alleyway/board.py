"""What a person sees of an AlleyWay table (replays), and the names of the places events store.

The board is public: hidden zones are shown as counts and a face-down back-row card as
"face-down", never its name (a replay shows what both players saw)."""
from __future__ import annotations

from sim.alleyway import field, scenario
from sim.alleyway.pool import Pool
from sim.alleyway.state import BACK_BASE, DIRECT, LEADER, AlleyState

LEADER_STATE_NAMES = {code: name for name, code in scenario.LEADER_STATES.items()}


def lane_name(pool: Pool, lane: int) -> str:
    """An event's lane column: a lane (l1..), a back-row slot (b1..), a direct hit or the leader."""
    if lane == DIRECT:
        return "direct"
    if lane == LEADER:
        return "leader"
    if lane >= BACK_BASE:
        return pool.back_names[lane - BACK_BASE]
    return pool.lane_names[lane]


def board(state: AlleyState) -> dict:
    """One row per seat, one per character and per back-row card on the field."""
    pool = state.pool
    seats, rows = [], []
    for seat, side in enumerate(state.sides):
        seats.append({"seat": f"p{seat}", "morale": side.morale, "authority": side.authority,
                      "hand": len(side.hand), "deck": len(side.deck), "gutter": len(side.gutter),
                      "exile": len(side.exile), "hideout": len(side.hideout),
                      "leader": pool.cards[side.leader].name if side.leader >= 0 else "",
                      "leader_state": LEADER_STATE_NAMES[side.leader_state], "influence": side.influence,
                      "to_act": seat == state.to_act})
        for lane, u in enumerate(side.lanes):
            if u is not None:
                rows.append({"seat": f"p{seat}", "lane": pool.lane_names[lane], "card": pool.cards[u.card].name,
                             "atk": field.atk_of(state, u), "def": field.def_of(state, u),
                             "pos": "atk" if u.atk_pos else "def", "downed": bool(u.downed), "face": "up"})
        for slot, b in enumerate(side.back):
            if b is not None:
                rows.append({"seat": f"p{seat}", "lane": pool.back_names[slot],
                             "card": pool.cards[b.card].name if b.face_up else "face-down",
                             "atk": None, "def": None, "pos": "", "downed": False,
                             "face": "up" if b.face_up else "down"})
    return {"seats": seats, "field": rows}
