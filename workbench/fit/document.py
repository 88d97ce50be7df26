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


def measure_command(game: str, pilot: str, name: str, default_set: str) -> str:
    """The ladder that measures the fitted set: against the hand weights it started from and, when
    the game's plain pilot thinks with a third set (``default_set``: greedy thinks with ``tuned``),
    against that pilot too. (It read "``greedy,greedy@NAME``": the plain pilot is not the start,
    and after ``--name tuned --replace`` that is one pilot twice.)"""
    pilots = [f"{pilot}@hand", f"{pilot}@{name}"] + ([pilot] if default_set not in ("hand", name) else [])
    return f"workbench ladder {game} --pilots {','.join(pilots)} --matches 400 --seed 2"


def write_weight_set(path: Path, game: str, document: dict, params: list[Param], weights, lines: list[str],
                     how: dict, replace: bool = False) -> None:
    """Write the file whole (a temporary file of its own, then renamed: never half a file). Without
    ``replace`` the file is linked into place, which fails if it exists by then: a second fit of
    the same name that finished first is not overwritten (FileExistsError)."""
    import os
    import tempfile

    doc = with_values(document, params, [round(float(w), 4) for w in weights])
    lines = lines + [
        "Measure it against the weights it started from:",
        f"  {measure_command(game, how['pilot'], how['name'], how.get('default_set', 'hand'))}",
        "Only the `weights` section's prices were fitted; the rest is the starting document's.",
    ]
    text = "".join(f"# {line}\n" for line in lines) + yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        if replace:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
