"""The route map of a stage: floors of nodes, each linked to one or two nodes of the next floor,
drawn from the run's own stream. The first floor is battles; the last is the boss alone."""
from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Node:
    floor: int
    index: int
    kind: str            # battle, elite, outpost, shop, boss
    links: tuple         # indices of the nodes it leads to on the next floor

    @property
    def id(self) -> str:
        return f"{self.floor + 1}.{self.index + 1}"


def build_map(stage, rng: random.Random) -> list[list[Node]]:
    kinds = sorted(k for k, w in stage.node_weights.items() if w > 0)
    weights = [stage.node_weights[k] for k in kinds]
    layout: list[list[str]] = []
    for floor in range(stage.floors):
        width = rng.randint(stage.min_width, stage.max_width)
        if floor == 0:
            layout.append(["battle"] * width)  # the trail opens with a fight
        else:
            layout.append(rng.choices(kinds, weights, k=width))
    layout.append(["boss"])
    links = [_links(len(a), len(b), stage.links, rng) for a, b in zip(layout, layout[1:])] + [[()]]
    return [[Node(f, i, kind, links[f][i]) for i, kind in enumerate(row)] for f, row in enumerate(layout)]


def _links(n_from: int, n_to: int, extra: float, rng: random.Random) -> list[tuple]:
    """Each node leads to the node of the next floor in its position, sometimes also to a
    neighbour; every node of the next floor is reachable."""
    out: list[set[int]] = []
    for i in range(n_from):
        j = round(i * (n_to - 1) / (n_from - 1)) if n_from > 1 else n_to // 2
        targets = {j}
        if rng.random() < extra:
            k = j + rng.choice((-1, 1))
            if 0 <= k < n_to:
                targets.add(k)
        out.append(targets)
    for j in range(n_to):
        if not any(j in t for t in out):  # nearest node above takes it
            i = min(range(n_from), key=lambda i: abs(i * (n_to - 1) / max(1, n_from - 1) - j))
            out[i].add(j)
    return [tuple(sorted(t)) for t in out]
