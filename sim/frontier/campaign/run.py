"""One Frontier Run of a stage: the crew's sheriff walks the route map with its trail HP, fights
(normal duels, with trail HP as the sheriff's HP), takes rewards, rests at outposts and buys in
shops, until it beats the boss (stage clear) or loses a fight (defeat). RULES.md, "Frontier
Run", has every reading."""
from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sim.core.campaign import STARTING_SOURCE, FightRecord, RunRecord
from sim.core.match import play_match
from sim.core.rng import derive_seed, stream
from sim.frontier.campaign.content import CrewKit, Encounter, StageContent
from sim.frontier.campaign.policies import POLICIES
from sim.frontier.campaign.trail_map import Node, build_map
from sim.frontier.engine import FrontierDeck


@dataclass
class Trail:
    """What the run carries from node to node."""
    hp: int
    max_hp: int
    gold: int
    deck: list[int] = field(default_factory=list)
    fights: int = 0


@dataclass
class FightOptions:
    """How the run's fights are played: the crew's pilot, full event logs or not, and the
    replay's hook (sim/core/campaign.py, ``watch``)."""
    pilot: str
    log: bool = False
    watch: Callable[[int], Any] | None = None


def play_run(content: StageContent, crew: str, seed: int, policy: str = "greedy",
             fight_pilot: str = "greedy", log: bool = False, watch=None) -> RunRecord:
    """Never raises for what happens inside the run: an exception is recorded on the record
    (with the seed, so it can be replayed). ``watch``: sim/core/campaign.py."""
    started = time.perf_counter()
    rec = RunRecord("frontier", content.stage.id, crew, seed, policy)
    try:
        kit = content.crews[crew]
        chooser = POLICIES[policy](stream(seed, "campaign-policy"), content)
        _walk(content, kit, seed, chooser, FightOptions(fight_pilot, log, watch), rec)
    except Exception as exc:  # a broken run must not stop the batch
        rec.error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=8)}"
    rec.wall_ms = (time.perf_counter() - started) * 1000.0
    return rec


def _walk(content: StageContent, kit: CrewKit, seed: int, chooser, fights: FightOptions,
          rec: RunRecord) -> None:
    stage = content.stage
    trail = Trail(stage.trail_hp, stage.trail_hp, stage.start_gold, list(kit.deck.cards) + list(kit.lore))
    rec.hp_max = trail.max_hp
    try:
        _route(content, kit, seed, chooser, fights, rec, trail)
    finally:  # at an error too: the trail as it was when raised, not zeros a report would average
        rec.hp_left, rec.gold_left, rec.deck_size = trail.hp, trail.gold, len(trail.deck)


def _route(content: StageContent, kit: CrewKit, seed: int, chooser, fights: FightOptions, rec: RunRecord,
           trail: Trail) -> None:
    """Walk the route map from the first floor to the boss or a defeat."""
    pool = content.pool
    for card in kit.lore:  # the crew's lore cards ride from the start
        rec.rewards.append({"step": 0, "source": STARTING_SOURCE, "card": pool.cards[card].slug, "price": 0, "taken": True})
    route = build_map(content.stage, stream(seed, "map"))
    options = list(range(len(route[0])))
    step = 0
    for floor, row in enumerate(route):
        nodes = [row[i] for i in options]
        pick = 0 if len(nodes) == 1 else chooser.route(trail, nodes)
        node = nodes[pick]
        step += 1
        line = {"step": step, "floor": floor + 1, "node": node.id, "kind": node.kind,
                "options": ",".join(f"{n.id}:{n.kind}" for n in nodes), "choice": node.id, "hp_before": trail.hp,
                "gold_before": trail.gold, "fight": None, "result": None, "detail": ""}
        rec.floor_reached = floor + 1  # before the visit: a run that raises there did reach it
        alive = _visit(content, kit, trail, node, step, seed, chooser, fights, rec, line)
        line.update(hp_after=trail.hp, gold_after=trail.gold)
        rec.nodes.append(line)
        if not alive:
            break
        if node.kind == "boss":
            rec.cleared = line["result"] == "win"
        options = list(node.links)


def _visit(content, kit, trail: Trail, node: Node, step: int, seed: int, chooser, fights,
           rec: RunRecord, line: dict) -> bool:
    """Resolve one node; False when the run ends here in defeat."""
    stage = content.stage
    rng = stream(seed, "node", step)
    if node.kind in ("battle", "elite", "boss"):
        table = {"battle": content.battles, "elite": content.elites}.get(node.kind)
        enemy = content.boss if table is None else table[rng.randrange(len(table))]
        outcome = _fight(content, kit, trail, enemy, step, seed, fights, rec)
        line.update(fight=trail.fights - 1, result=outcome, detail=enemy.name)
        if outcome == "loss":
            return False
        if outcome == "win" and node.kind != "boss":
            trail.gold += stage.elite_gold if node.kind == "elite" else stage.battle_gold
            _offer_reward(content, kit, trail, step, rng, chooser, rec, line)
        return True
    if node.kind == "outpost":
        choice = chooser.outpost(trail)
        if choice == "rest":
            trail.hp = min(trail.max_hp, trail.hp + stage.outpost.heal)
        else:
            trail.gold += stage.outpost.gold
        line["detail"] = choice
        return True
    if node.kind == "shop":
        _shop(content, kit, trail, step, rng, chooser, rec, line)
        return True
    raise ValueError(f"unknown node kind {node.kind!r}")


def _fight(content, kit: CrewKit, trail: Trail, enemy: Encounter, step: int, seed: int,
           fights: FightOptions, rec: RunRecord) -> str:
    """A normal duel: the crew's sheriff at its trail HP (capped at the trail's maximum), the
    enemy at its sheriff's normal duel HP (an encounter's ``hp``, when a data file sets one, in
    its place: a variant); who acts first is drawn for each fight."""
    me = FrontierDeck(f"crew:{kit.id}", trail.deck, kit.deck.sheriff, kit.deck.deputies, trail.hp, trail.max_hp)
    foe = FrontierDeck(enemy.deck.id, list(enemy.deck.cards), enemy.deck.sheriff, enemy.deck.deputies, enemy.hp)
    seat = 0 if stream(seed, "first", step).random() < 0.5 else 1
    decks = [me, foe] if seat == 0 else [foe, me]
    pilots = [fights.pilot, content.stage.enemy_pilot] if seat == 0 else [content.stage.enemy_pilot, fights.pilot]
    match_seed = derive_seed(seed, "fight", step) % 2**62
    result = play_match(content.engine, content.pool, decks, match_seed, pilots, log=fights.log,
                        on_decision=fights.watch(trail.fights) if fights.watch else None)
    if result.error:
        raise RuntimeError(f"fight at step {step} (match seed {match_seed}): {result.error}")
    rec.fights.append(FightRecord(step, trail.fights, [d.id for d in decks], pilots, seat, result))
    trail.fights += 1
    trail.hp = max(0, result.state.sides[seat].hp)
    if result.state.sides[seat].hp <= 0:
        # the crew's sheriff fell: the run is lost even when the enemy's fell too (the duel's
        # double knock-out, a draw with reason "hp"), as no trail HP is left to go on with
        return "loss"
    if result.winner is None:
        return "draw"
    return "win" if result.winner == seat else "loss"


def _offer_reward(content, kit: CrewKit, trail: Trail, step: int, rng, chooser, rec: RunRecord,
                  line: dict) -> None:
    pool = content.pool
    cards = _draw_cards(content, kit, rng, content.stage.reward_choices)
    pick = chooser.reward(trail, cards) if cards else None
    for i, card in enumerate(cards):
        rec.rewards.append({"step": step, "source": line["kind"], "card": pool.cards[card].slug, "price": 0,
                            "taken": i == pick})
    if pick is not None:
        trail.deck.append(cards[pick])
        line["detail"] += f"; took {pool.cards[cards[pick]].slug}"


def _shop(content, kit: CrewKit, trail: Trail, step: int, rng, chooser, rec: RunRecord, line: dict) -> None:
    shop = content.stage.shop
    pool = content.pool
    offers = _draw_cards(content, kit, rng, shop.cards)
    bought = set()
    done = []
    for kind, i in chooser.shop(trail, offers):
        price = {"card": shop.card_price, "heal": shop.heal_price, "remove": shop.remove_price}[kind]
        if price > trail.gold:
            continue  # a policy may not spend Gold it does not have
        if kind == "card" and i not in bought:
            trail.deck.append(offers[i])
            bought.add(i)
        elif kind == "heal":
            trail.hp = min(trail.max_hp, trail.hp + shop.heal)
        elif kind == "remove" and i in trail.deck and len(trail.deck) > 1:
            trail.deck.remove(i)
        else:
            continue
        trail.gold -= price
        done.append(kind if kind != "remove" else f"remove {pool.cards[i].slug}")
    for i, card in enumerate(offers):
        rec.rewards.append({"step": step, "source": "shop", "card": pool.cards[card].slug,
                            "price": shop.card_price, "taken": i in bought})
    line["detail"] = ", ".join(done)


def _draw_cards(content, kit: CrewKit, rng, n: int) -> list[int]:
    """n different cards from the stage's rewards and the crew's unlocks."""
    choices = sorted(set(content.rewards) | set(kit.unlocks))
    return rng.sample(choices, min(n, len(choices)))
