"""Event kinds of AlleyWay Brawlers (the index is the stored code; append, never reorder).

turn_start   amount = Authority for the turn
draw         card drawn (card); deck_out when the deck was empty
redraw       a seat redrew its opening hand
deploy       a character deployed from hand: amount = Authority paid, lane, detail = atk/def/position
heavy        a Heavy deployed: detail = the lanes it sacrificed
set          a Hustle or Ambush set face-down (card hidden in detail? no: the log is for designers)
hustle       a Hustle played from hand; flip: a set Hustle activated or a Continuous Ambush flipped
spring       an Ambush sprung on an attack (target = attacker)
attack       target = defender card (or -2 player, -3 leader), amount = attacker ATK
brawl        detail = the outcome ("atk>atk", "blocked", "tie", "down", "ko", "direct")
morale       a seat's Morale changed: amount = change (negative for a loss), detail = cause
out          a seat went out (seat): amount = the seat that put it out (-1: nobody), detail = why
phase        Turf Defense: the boss (seat) entered a phase at a mark of its Morale: amount = the phase
             (2, 3, ...; it begins in 1), detail = the phase's name
aimed        more than two seats only: a seat aimed an attack (detail "attack", beside the attack
             event) or an effect's "an opponent" (detail "effect", beside the choose event) at the
             seat in amount (sim/core/events.AIMED, what the free-for-all reports read)
"""
from sim.core.card_ids import SEAT
from sim.core.events import AIMED, EventKinds

KINDS = EventKinds([
    "turn_start", "draw", "deck_out", "redraw", "deploy", "heavy", "set", "hustle", "flip", "spring", "attack",
    "brawl", "morale", "down", "stand", "ko", "sacrifice", "to_gutter", "bounce", "exile", "token", "promote",
    "awaken", "leader_hit", "leader_defeated", "status", "buff", "coin", "roll", "bet", "discard", "plunder",
    "search", "call", "revive", "recover", "destroy", "charm", "switch", "activate", "gutter_use", "equip",
    "rise", "negate", "choose", "fizzle", "shield", "authority", "game_over", "out", "phase", AIMED,
])

PLAYER = SEAT        # "the player" in an event's target column (a direct attack)
LEADER = SEAT - 1    # "the Dormant leader" in an event's target column
PSEUDO_CARDS = {PLAYER: "player", LEADER: "leader"}  # what the store calls them
