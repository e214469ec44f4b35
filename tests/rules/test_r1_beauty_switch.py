"""R-1: beauty may stay at 0 (RULES.md, the default); the source text's reading — beauty starts at
1 — is a house switch, `creation.beauty_from_one` in rules.toml, shown by `horizon rules`."""

from __future__ import annotations

import attrs

from horizon_tui.rules.creation import lower_refusal, starting_attributes
from horizon_tui.rules.validation import check_character


def _switched(catalogue):
    rules = catalogue.rules
    return catalogue.with_rules(attrs.evolve(rules, creation=attrs.evolve(rules.creation, beauty_from_one=True)))


def test_r1_beauty_may_stay_at_0_by_default(catalogue, make_character):
    rules = catalogue.rules
    assert rules.creation.beauty_from_one is False
    assert starting_attributes(rules)["beauty"] == 0
    assert lower_refusal({"beauty": 1}, "beauty", rules) is None
    plain = make_character(attributes={"physical": 10, "agility": 10, "perception": 10, "cognition": 7,
                                       "faith": 5, "beauty": 0})
    assert not [p for p in check_character(plain, catalogue) if "beauty" in p.key]


def test_r1_the_source_switch_starts_beauty_at_1(catalogue, make_character):
    switched = _switched(catalogue)
    rules = switched.rules
    assert rules.creation.attribute_minimums["beauty"] == 1 and rules.creation.minimums["beauty"] == 0
    assert starting_attributes(rules) == {"physical": 1, "agility": 1, "perception": 1, "cognition": 1,
                                          "faith": 1, "beauty": 1}
    assert lower_refusal({"beauty": 1}, "beauty", rules) == "beauty can't go below its minimum of 1 (R-1)"
    plain = make_character(attributes={"physical": 10, "agility": 10, "perception": 10, "cognition": 7,
                                       "faith": 5, "beauty": 0})
    (problem,) = [p for p in check_character(plain, switched) if "beauty" in p.key]
    assert problem.key == "attributes.beauty" and "below the minimum of 1" in problem.message


def test_r1_horizon_rules_shows_the_switch(repo_root):
    import os
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "horizon_tui.cli", "rules"], capture_output=True, text=True,
                         cwd=repo_root, env={**os.environ, "COLUMNS": "200"}, timeout=120)
    assert "creation.beauty_from_one" in out.stdout and "False" in out.stdout, out.stderr
