"""Event kinds of Wild Frontier (the index is the stored code; append, never reorder)."""
from sim.core.events import EventKinds

# turn_start   seat's turn begins after its Draw and Resource phases: amount = Mana, detail = Gold
#              (no separate end-of-turn event: the next turn_start or game_over marks it)
# play         a card played from hand: amount = Mana paid, lane = its lane, detail = stats or Gold
# summon       a creature entering the field other than from hand (reserved: tokens, Deputies)
KINDS = EventKinds([
    "turn_start", "draw", "burn", "deck_out", "play", "summon", "attack",
    "cover_hit", "damage", "heal", "buff", "destroy", "cover_up", "gold_gain", "choose",
    "fizzle", "game_over",
])
