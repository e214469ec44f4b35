"""Every link of the README works, and docs/rules.md gives each rule with its id and a
worked example (for players)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_every_relative_link_of_the_readme_and_the_rules_page_exists():
    for page in (REPO / "README.md", REPO / "docs" / "rules.md"):
        links = re.findall(r"\]\(([^)#\s]+)", page.read_text(encoding="utf-8"))
        local = [link for link in links if "://" not in link]
        for link in local:
            assert (page.parent / link).exists(), f"{page.name}: {link}"
    assert "docs/rules.md" in (REPO / "README.md").read_text(encoding="utf-8")


def test_the_rules_page_has_every_rule_with_a_worked_example():
    text = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    sections = re.split(r"^## ", text, flags=re.M)[1:]
    ids = [s.split()[0] for s in sections]
    assert ids == [f"R-{n}" for n in range(1, 15)]
    for section in sections:
        assert "*Example*" in section, section.splitlines()[0]
    assert "**690**" in text and "**325 XP**" in text  # R-2 and R-4's numbers, as RULES.md has them
