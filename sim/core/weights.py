"""Each game's pilot heuristic reads its weights from ``weights.yaml`` beside its evaluate.py
(the list of every keyword and status, weighted or neutral with its reason)."""
from __future__ import annotations

from pathlib import Path

import yaml


def load_weights(module_file: str) -> dict:
    """The ``weights.yaml`` beside ``module_file`` (an evaluate module's ``__file__``), parsed
    safely; read once at import."""
    return yaml.safe_load(Path(module_file).with_name("weights.yaml").read_text(encoding="utf-8"))
