"""The effect vocabulary at work (damage, heal, shield, strip, empower, blight, purge, draw,
gain_ap), who an effect lands on, deaths with their Blight, Stronghold succession, and the end
of the match. Card behaviour is data (pool.Fx); this module is the only place that knows what
each effect does to the state."""
from __future__ import annotations

from sim.allegiance.formations import guarded
from sim.allegiance.kinds import KINDS as K
from sim.allegiance.pool import STRONGHOLD, WARRIOR
from sim.allegiance.state import HP, NO_CARD, AllegianceState, Unit, replaced
from sim.core.ending import finish as end_match
from sim.core.events import NO_ID

# --- who an effect lands on ----------------------------------------------------------------------

def subjects(state: AllegianceState, seat: int, to: str, self_cell: int, target_cell: int,
             attacker_cell: int = -1) -> list[int]:
    """The cells an effect of ``seat`` lands on (schema.py explains each word)."""
    if to == "target":
        return [target_cell] if target_cell >= 0 else []
    if to == "self":
        return [self_cell] if self_cell >= 0 else []
    if to == "attacker":
        return [attacker_cell] if attacker_cell >= 0 else []
    if to == "stronghold":
        cell = state.stronghold_cell(seat)
        return [cell] if cell >= 0 else []
    board, cells, cards = state.pool.board, state.cells, state.pool.cards
    if to == "allies_near":
        return [c for c in board.king[self_cell] if (u := cells[c]) is not None and u.owner == seat
                and cards[u.card].type == WARRIOR]
    if to == "enemies_near":
        around = target_cell if target_cell >= 0 else self_cell
        return [c for c in board.king[around] if (u := cells[c]) is not None and u.owner != seat
                and cards[u.card].type == WARRIOR]
    raise ValueError(f"unknown subject {to!r}")


def apply_effect(state: AllegianceState, seat: int, fx, self_cell: int, target_cell: int,
                 source: int, attacker_cell: int = -1) -> None:
    """One effect of ``seat``'s card ``source``. Deaths are left to ``process_deaths``."""
    op = fx.op
    if op == "draw":
        for _ in range(fx.amount):
            draw_card(state, seat)
        return
    if op == "gain_ap":
        if seat == state.active:  # AP is spent on one's own turn only
            state.own_side(seat).ap += fx.amount
            _emit(state, seat, K.GAIN_AP, source, NO_ID, fx.amount, NO_ID)
        return
    for cell in subjects(state, seat, fx.to, self_cell, target_cell, attacker_cell):
        if op == "blight":
            place_blight(state, seat, cell, source)
            continue
        if op == "purge":
            destroy_blight(state, seat, cell, source, K.PURGE)
            continue
        u = state.cells[cell]
        if u is None or u.hp <= 0:
            continue  # gone, or died earlier in this same effect
        if op == "damage":
            hit(state, seat, cell, guarded(state, cell, fx.amount), source)
        elif op == "heal":
            heal(state, seat, cell, fx.amount, source)
        elif op == "shield":
            add_shields(state, seat, cell, fx.kind, fx.amount, source)
        elif op == "strip":
            absorb = 0 if fx.kind in ("absorb", "all") else u.absorb
            reflect = 0 if fx.kind in ("reflect", "all") else u.reflect
            if (absorb, reflect) != (u.absorb, u.reflect):
                state.cells[cell] = u._replace(absorb=absorb, reflect=reflect)
                _emit(state, seat, K.STRIP, source, u.card, u.absorb - absorb + u.reflect - reflect, cell, fx.kind)
        elif op == "empower":
            if fx.until == "permanent":
                state.cells[cell] = u._replace(power=u.power + fx.amount)
            else:
                state.cells[cell] = u._replace(boost=u.boost + fx.amount)
            _emit(state, seat, K.EMPOWER, source, u.card, fx.amount, cell, fx.until)
        else:
            raise ValueError(f"effect {op!r} cannot be applied here")


def _emit(state, seat, kind, card, target, amount, cell, detail=None) -> None:
    if state.events is not None:
        state.events.emit(state.turn, seat, kind, card, target, amount, cell, detail)


# --- damage, healing, shields ----------------------------------------------------------------------

def hit(state: AllegianceState, seat: int, cell: int, amount: int, source: int) -> None:
    """Damage straight to a unit's HP (what is left of an attack, effects, Reflect's damage)."""
    u = state.cells[cell]
    if amount <= 0 or u is None:
        return
    state.cells[cell] = replaced(u, HP, u.hp - amount)
    _emit(state, seat, K.DAMAGE, source, u.card, amount, cell)


def heal(state: AllegianceState, seat: int, cell: int, amount: int, source: int) -> None:
    u = state.cells[cell]
    gained = min(amount, u.max_hp - u.hp)
    if gained > 0:
        state.cells[cell] = u._replace(hp=u.hp + gained)
        _emit(state, seat, K.HEAL, source, u.card, gained, cell)


def add_shields(state: AllegianceState, seat: int, cell: int, kind: str, amount: int, source: int) -> None:
    """Absorb or Reflect shields, up to the cap (3 each by the guide)."""
    consts = state.pool.consts
    u = state.cells[cell]
    if kind == "absorb":
        added = min(amount, consts.absorb_cap - u.absorb)
        if added > 0:
            state.cells[cell] = u._replace(absorb=u.absorb + added)
    else:
        added = min(amount, consts.reflect_cap - u.reflect)
        if added > 0:
            state.cells[cell] = u._replace(reflect=u.reflect + added)
    if added > 0:
        _emit(state, seat, K.SHIELD, source, u.card, added, cell, kind)


# --- Blight --------------------------------------------------------------------------------------------

def free(state: AllegianceState, cell: int) -> bool:
    """No unit and no Blight: a cell a Warrior may be deployed or moved onto."""
    return state.cells[cell] is None and not (state.blight >> cell) & 1


def place_blight(state: AllegianceState, seat: int, cell: int, source: int) -> bool:
    """A Blight token from the supply onto a free cell (none left: nothing happens)."""
    if state.blight_supply <= 0 or not free(state, cell):
        return False
    state.blight |= 1 << cell
    state.blight_supply -= 1
    _emit(state, seat, K.BLIGHT, source, NO_ID, 0, cell)
    return True


def destroy_blight(state: AllegianceState, seat: int, cell: int, source: int, kind: int) -> None:
    """A Blight destroyed (Soul Combat won, or a purge): back to the supply, and counted for the
    Guardian of the Castle."""
    if not (state.blight >> cell) & 1:
        return
    state.blight &= ~(1 << cell)
    state.blight_supply += 1
    state.blight_destroyed += 1
    if kind == K.PURGE:
        _emit(state, seat, K.PURGE, source, NO_ID, 0, cell)


def blight_on_side(state: AllegianceState, seat: int) -> int:
    return (state.blight & state.pool.board.side_mask[seat]).bit_count()


# --- drawing -------------------------------------------------------------------------------------------

def draw_card(state: AllegianceState, seat: int) -> None:
    """The top card into the hand; an empty deck draws nothing (the guide: keep playing)."""
    side = state.sides[seat]
    if not side.deck:
        _emit(state, seat, K.NO_DRAW, NO_ID, NO_ID, 0, NO_ID)
        return
    side = state.own_side(seat)
    card = side.deck.pop()
    side.hand.append(card)
    if state.ledger is not None:
        state.ledger.draw(seat, card, side.turns)
    _emit(state, seat, K.DRAW, card, NO_ID, 0, NO_ID)


# --- deaths and Strongholds ------------------------------------------------------------------------------

def process_deaths(state: AllegianceState) -> None:
    """Remove every unit at 0 HP or less, cell by cell. A Warrior leaves Blight in its space (if
    a token is left in the supply) and goes to its owner's discard pile with what it carried; a
    Stronghold never leaves Blight: the owner's next one is revealed, or the match is lost."""
    cells, cards = state.cells, state.pool.cards
    # the units at 0 HP when the deaths begin, in cell order (most calls find none): nothing
    # below damages a unit, and a Stronghold revealed meanwhile is alive (cards have at least
    # 1 HP) on a free cell, so this is every unit the walk must remove, each still standing
    for cell in [c for c in state.unit_cells() if cells[c].hp <= 0]:
        u = cells[cell]
        state.remove(cell)
        _emit(state, u.owner, K.DESTROY, u.card, NO_ID, 0, cell)
        side = state.own_side(u.owner)
        if cards[u.card].type == STRONGHOLD:
            side.fallen.append(u.card)
            reveal_stronghold(state, u.owner)
            if state.over:
                return
            continue
        side.discard.append(u.card)
        for carried in (u.weapon, u.armor):
            if carried != NO_CARD:
                side.discard.append(carried)
        place_blight(state, u.owner, cell, u.card)


def reveal_stronghold(state: AllegianceState, seat: int) -> None:
    """The seat's next Stronghold onto its row B, the column by a D6 (the nearest free space if
    taken). With none left the Bastion has fallen: the enemy wins by Siege."""
    side = state.own_side(seat)
    if not side.strongholds:
        finish(state, state.opponent(seat), "siege")
        return
    card = side.strongholds.pop()
    roll = state.roll(state.pool.consts.column_die)
    cell = stronghold_cell_for(state, seat, roll)
    if cell < 0:  # every cell of the side holds a Warrior: nowhere to stand (RULES.md)
        side.fallen.append(card)
        finish(state, state.opponent(seat), "siege")
        return
    if (state.blight >> cell) & 1:  # a side full of Blight: the Stronghold displaces a token
        state.blight &= ~(1 << cell)
        state.blight_supply += 1
    hp = state.pool.cards[card].hp
    state.place(cell, Unit(card, seat, state.next_uid, hp, hp))
    state.next_uid += 1
    _emit(state, seat, K.STRONGHOLD, card, NO_ID, roll, cell)


def stronghold_cell_for(state: AllegianceState, seat: int, roll: int) -> int:
    """Row B at the rolled column; if taken, the nearest free cell of row B (the lower column on
    a tie); if row B is full, the nearest free cell of the seat's half (then the nearest Blight
    cell, whose token makes room); -1 if every cell of the half holds a unit."""
    board = state.pool.board
    row_b = board.row_b[seat]
    wanted = row_b[(roll - 1) % board.cols]
    in_row = sorted(row_b, key=lambda c: (abs(c - wanted), c))
    for c in in_row:
        if free(state, c):
            return c
    n = board.n
    half = sorted((c for c in range(n) if board.side[c] == seat), key=lambda c: (board.cheb[wanted * n + c], c))
    for c in half:
        if free(state, c):
            return c
    for c in half:
        if state.cells[c] is None:
            return c
    return -1


def finish(state: AllegianceState, winner: int | None, reason: str) -> None:
    """The match ends (sim.core.ending), the first ending standing: both seats' last Strongholds
    may fall in one step."""
    if not state.over:
        end_match(state, winner, reason, K.GAME_OVER)
