"""Event kinds of Allegiance (the index is the stored code; append, never reorder).

The event buffer's ``lane`` column carries a cell index (board.py) for Allegiance.

turn_start   the seat's turn begins after its draw: amount = AP
draw         a card drawn; no_draw: the deck is empty (play goes on from hand)
muster       a Warrior put from hand into the Muster Zone
deploy       a Warrior onto the battlefield: lane = cell, amount = AP paid, detail = hand or muster
move         lane = the cell reached, amount = AP paid, detail = "from>to"
attack       card = attacker, target = defender, amount = damage before the Tactic, lane = the
             defender's cell, detail = the ability
battle_cry / tactic / supply   a card of that kind played (tactic: lane = the defended cell)
armor, absorb, reflect   damage taken off by that step: amount = damage blocked, lane = cell;
             absorb's detail = shields used
damage       card = source, target = the unit hit, amount, lane = cell
destroy      a unit removed: card, lane = its cell
blight       a Blight token placed on lane; purge: a Blight destroyed on lane (by an effect)
soul_combat  card = the Warrior, lane = the Blight's cell, amount = 1 if the Warrior won,
             detail = the rolls, "warrior-blight" for each roll
stronghold   a Stronghold revealed and placed: card, lane = cell, amount = the D6 roll
formation    damage a formation takes off (Shield Wall) any damage but an attack's in a rules version
             that reads it as armor: target = the Warrior, amount = damage blocked, lane = cell
"""
from sim.core.events import EventKinds

KINDS = EventKinds([
    "turn_start", "draw", "no_draw", "muster", "deploy", "move", "attack", "battle_cry", "tactic",
    "armor", "absorb", "reflect", "damage", "heal", "shield", "strip", "empower", "destroy", "blight",
    "purge", "soul_combat", "equip", "supply", "support", "stronghold", "discard", "game_over",
    "gain_ap", "negate", "formation",
])
