"""Event kinds of Wild Frontier (the index is the stored code; append, never reorder)."""
from sim.core.events import EventKinds

# turn_start     seat's turn begins after its Draw and Resource phases: amount = Mana, detail = Gold
#                (no separate end-of-turn event: the next turn_start or game_over marks it)
# play           a card played from hand: amount = Mana paid, lane = its lane, detail = stats or Gold
# summon         a Deputy summoned from the Deputy Zone: amount = Mana paid, lane = its lane
# ability        an off-board Deputy ability (card = the Deputy, amount = Gold paid) or a
#                sheriff's own action (card = the card discarded, detail = the sheriff)
# deputy_return  a destroyed Deputy back in its Deputy Zone: amount = the own turn it may return
# grant          keywords granted: amount = the keyword bits newly added, detail = until
# overdrive      extra Gold paid on play: amount = Gold, detail = the boost
# shove          Stampede moved a defender: target = the defender, lane = from, amount = to lane
# charge, flip   a Flip-Charged creature charged (target); a Flip fired (amount = creatures charged)
KINDS = EventKinds([
    "turn_start", "draw", "burn", "deck_out", "play", "summon", "attack",
    "cover_hit", "damage", "heal", "buff", "destroy", "cover_up", "gold_gain", "choose",
    "fizzle", "game_over",
    "ability", "deputy_return", "grant", "overdrive", "shove", "charge", "flip",
])
