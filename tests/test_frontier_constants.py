"""cardsdb/frontier/rules/base.yaml promises every constant of the rules schema with its default,
so a designer reading it sees everything a rules version can change."""
from __future__ import annotations

from pathlib import Path

import yaml

from cardsdb.frontier.schema import Constants

BASE = Path(__file__).resolve().parents[1] / "cardsdb" / "frontier" / "rules" / "base.yaml"


def test_base_lists_every_constant_with_its_default():
    listed = yaml.safe_load(BASE.read_text())["constants"]
    fields = Constants.model_fields
    assert sorted(set(fields) - set(listed)) == [], "constants missing from base.yaml"
    assert sorted(set(listed) - set(fields)) == [], "base.yaml lists names the schema does not know"
    differ = {name: (listed[name], fields[name].default) for name in fields if listed[name] != fields[name].default}
    assert differ == {}, "base.yaml value differs from the schema default"
