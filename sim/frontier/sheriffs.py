"""The sheriffs compiled for play: each sheriff's passives (cardsdb/frontier/sheriffs.yaml) read
into one slotted record of numbers for a rules version, so the engine asks a seat's sheriff for a
number (0 or the rules' own value when the sheriff has no such passive) instead of asking which
sheriff it is. ``Pool.sheriffs`` holds them by sheriff id; ``NO_SHERIFF`` is the last one, a
sheriff without passives (a scenario seat that names none)."""
from __future__ import annotations

from typing import Any

from cardsdb.frontier.schema import SHERIFFS

SHERIFF_NAMES = tuple(SHERIFFS)  # a sheriff's id in the engine is its index here
NO_SHERIFF = len(SHERIFF_NAMES)


class SheriffDef:
    """What a sheriff changes, as numbers the engine reads at fixed points of play.

    start_hp, opening_hand  starting HP (its cap too) and opening hand: the rules' own by default
    discard_uses/draws      the discard-to-draw action: uses a match, cards drawn (turns.py, play.py)
    gold_every, gold        extra Gold at the Resource Phase of own turns divisible by gold_every
    first_turn_gold         extra Gold at the first Resource Phase
    first_attack_bonus      Attack added to the first attack of each own turn (combat.py)
    start_cover             Cover Tokens at the start, centre lanes first (engine.set_sheriff)
    mana_per_cover_broken   Mana banked for each own Cover Token an attack breaks (effects.py)
    trim, trims_per_turn    on even own turns the first ``trims_per_turn`` cards cost ``trim`` less
    damage_reduction        taken off every instance of damage to the sheriff (effects.py)
    kinds                   the kinds of passive it has (a number may be 0 under a rules version)
    """
    __slots__ = ("id", "name", "kinds", "start_hp", "opening_hand", "discard_uses", "discard_draws", "gold_every",
                 "gold", "first_turn_gold", "first_attack_bonus", "start_cover", "mana_per_cover_broken",
                 "trim", "trims_per_turn", "damage_reduction")

    def __init__(self, sheriff_id: str, name: str, consts: Any):
        self.id, self.name, self.kinds = sheriff_id, name, frozenset()
        self.start_hp, self.opening_hand = consts.starting_hp, consts.opening_hand
        self.discard_uses = self.discard_draws = self.gold_every = self.gold = self.first_turn_gold = 0
        self.first_attack_bonus = self.start_cover = self.mana_per_cover_broken = 0
        self.trim = self.trims_per_turn = self.damage_reduction = 0

    def __repr__(self) -> str:
        return f"SheriffDef({self.id})"


# passive kind -> (its field in the data, the SheriffDef slot it sets), for each number
SLOTS = {
    "gold_every": (("turns", "gold_every"), ("gold", "gold")),
    "first_turn_gold": (("gold", "first_turn_gold"),),
    "opening_hand": (("cards", "opening_hand"),),
    "discard_draw": (("uses", "discard_uses"), ("draws", "discard_draws")),
    "first_attack_bonus": (("atk", "first_attack_bonus"),),
    "starting_cover": (("tokens", "start_cover"),),
    "mana_per_cover_broken": (("mana", "mana_per_cover_broken"),),
    "even_turn_trim": (("mana", "trim"), ("cards", "trims_per_turn")),
    "starting_hp": (("hp", "start_hp"),),
    "damage_reduction": (("amount", "damage_reduction"),),
}


def compile_sheriffs(consts: Any, sheriffs: dict | None = None) -> tuple[SheriffDef, ...]:
    """Every sheriff of the data (``sheriffs``, by default sheriffs.yaml's) with the rules
    version's numbers, then the passive-less one."""
    out = []
    for sheriff in (SHERIFFS if sheriffs is None else sheriffs).values():
        d = SheriffDef(sheriff.id, sheriff.name, consts)
        d.kinds = frozenset(passive.passive for passive in sheriff.passives)
        for passive in sheriff.passives:
            for field, slot in SLOTS[passive.passive]:
                value = getattr(passive, field)
                setattr(d, slot, value if isinstance(value, int) else getattr(consts, value))
        out.append(d)
    out.append(SheriffDef("", "no sheriff", consts))
    return tuple(out)
