"""The fitted weight set as a file: ``weights-<name>.yaml`` beside the game's evaluate, the
starting document with the fitted numbers, headed by how it was made."""
from __future__ import annotations

from pathlib import Path

import yaml

from workbench.fit.params import Param, with_values


def outcomes_header(game: str, how: dict, result) -> list[str]:
    return [
        f"{game}: evaluate weights fitted by `workbench fit-weights --by outcomes`: a logistic model of who wins",
        f"({how['matches']} matches of {how['pilot']} against itself over the field, seed {how['seed']}, "
        f"rules {how['rules']}; {result.train_positions} positions fitted, {result.test_positions} held out).",
        f"Held-out log loss: {result.loss_fitted:.4f} fitted, {result.loss_start:.4f} with the weights it "
        f"started from, {result.loss_coin:.4f} a coin. A better predictor is not yet a stronger pilot.",
    ]


def play_header(game: str, how: dict, history) -> list[str]:
    tail = history[-10:]
    return [
        f"{game}: evaluate weights tuned by `workbench fit-weights --by play` (SPSA self-play)",
        f"({how['steps']} steps of {how['pairs']} seeds x both seats, {sum(s.matches for s in history)} matches of "
        f"{how['pilot']}, seed {how['seed']}, rules {how['rules']}; last 10 steps' mean score difference "
        f"{sum(s.score for s in tail) / max(1, len(tail)):+.3f}).",
    ]


def write_weight_set(path: Path, game: str, document: dict, params: list[Param], weights, lines: list[str],
                     how: dict) -> None:
    """Write the file whole (a temporary name, then renamed: never half a file)."""
    doc = with_values(document, params, [round(float(w), 4) for w in weights])
    lines = lines + [
        "Measure it against the game's own weights:",
        f"  workbench ladder {game} --pilots {how['pilot']},{how['pilot']}@{how['name']} --matches 400 --seed 2",
        "Only the `weights` section's prices were fitted; the rest is the starting document's.",
    ]
    text = "".join(f"# {line}\n" for line in lines) + yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
