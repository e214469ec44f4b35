"""One test per bad-input path of a character file: each is reported with the file and the key,
never accepted and never a crash."""

from __future__ import annotations

from pathlib import Path

from horizon_tui.content.characters import load_character
from horizon_tui.errors import DataError, Problem
from horizon_tui.rules.validation import check_character


def problems_of(path: Path, catalogue) -> list[Problem]:
    """What `horizon sheet`/`validate` find in a file: load errors, else rule problems."""
    try:
        character = load_character(path, catalogue)
    except DataError as exc:
        return exc.problems
    return check_character(character, catalogue, str(path))


def test_the_example_file_has_no_problems(write_character, example_data, catalogue):
    assert problems_of(write_character(example_data()), catalogue) == []


def test_r1_attribute_below_minimum(write_character, example_data, catalogue):
    """R-1: physical 0 is below its minimum of 1 (the 10 points moved to beauty keep the total 42)."""
    data = example_data()
    data["attributes"].update(physical=0, beauty=11)
    path = write_character(data)
    problems = problems_of(path, catalogue)
    assert [(p.file, p.key) for p in problems] == [(str(path), "attributes.physical")]
    assert "0 is below the minimum of 1 (R-1)" in problems[0].message


def test_r1_beauty_may_stay_at_0(write_character, example_data, catalogue):
    """R-1 [H]: beauty's minimum is 0."""
    data = example_data()
    data["attributes"].update(beauty=0, physical=11)
    assert problems_of(write_character(data), catalogue) == []


def test_misspelt_key(write_character, example_data, catalogue):
    """A misspelt top-level key is an error with a suggestion, not silently ignored."""
    data = example_data(xpp=3)
    path = write_character(data)
    problems = problems_of(path, catalogue)
    assert len(problems) == 1
    assert (problems[0].file, problems[0].key, problems[0].suggestion) == (str(path), "xpp", "xp")
    assert "did you mean 'xp'?" in str(problems[0])


def test_misspelt_attribute_name(write_character, example_data, catalogue):
    """R-1: `agilty` is unknown (did you mean agility), and agility is then missing (below minimum)."""
    data = example_data()
    data["attributes"]["agilty"] = data["attributes"].pop("agility")
    path = write_character(data)
    problems = problems_of(path, catalogue)
    unknown = [p for p in problems if p.key == "attributes.agilty"]
    assert len(unknown) == 1 and unknown[0].suggestion == "agility"
    assert any(p.key == "attributes.agility" and "below the minimum" in p.message for p in problems)


def test_broken_toml(write_character, catalogue):
    """A broken TOML file names the file and the line."""
    text = 'name = "Iriel"\nspecies = "human"\nweapon = "dagger"\nxp = = 3\n'
    path = write_character(text)
    problems = problems_of(path, catalogue)
    assert len(problems) == 1
    assert (problems[0].file, problems[0].line) == (str(path), 4)
    assert "broken TOML" in problems[0].message


def test_r9_armor_too_heavy(write_character, example_data, catalogue):
    """R-9: full plate (class 1) needs strength 30; the example has 20.5."""
    path = write_character(example_data(armor="full_plate"))
    problems = problems_of(path, catalogue)
    assert [(p.file, p.key) for p in problems] == [(str(path), "armor")]
    assert "needs strength 30" in problems[0].message and "20.5" in problems[0].message


def test_r9_armor_class_out_of_range_is_a_problem_not_a_crash(write_character, example_data, catalogue):
    """R-9: armor classes are 1–10; an inline class 11 is reported (it used to raise KeyError)."""
    path = write_character(example_data(armor={"name": "Tin can", "class": 11}))
    problems = problems_of(path, catalogue)
    assert [(p.file, p.key) for p in problems] == [(str(path), "armor.class")]


def test_r4_too_few_points(write_character, example_data, catalogue):
    """R-4: a character starts with 42 invested points; 41 is refused."""
    data = example_data()
    data["attributes"]["physical"] = 9
    path = write_character(data)
    problems = problems_of(path, catalogue)
    assert [(p.file, p.key) for p in problems] == [(str(path), "attributes")]
    assert "41 points invested" in problems[0].message and "42" in problems[0].message


def test_r9_bad_dice(write_character, example_data, catalogue):
    """R-9: weapon damage is a dice expression; `1d` is not one."""
    path = write_character(example_data(weapon={"name": "Bone knife", "kind": "one_handed", "damage": "1d"}))
    problems = problems_of(path, catalogue)
    assert [(p.file, p.key) for p in problems] == [(str(path), "weapon.damage")]
    assert "bad dice expression '1d'" in problems[0].message


def test_r3_over_budget_species(write_character, example_data, catalogue):
    """R-3: a custom species worth 5 points (budget 3) is refused with the reason."""
    species = {"name": "Moth-kin", "bonuses": {"attributes": {"perception": 3}, "stats": {"evasion": 3}}}
    path = write_character(example_data(species=species))
    problems = problems_of(path, catalogue)
    assert [(p.file, p.key) for p in problems] == [(str(path), "species.bonuses")]
    assert "worth 5 attribute points" in problems[0].message
    approved = write_character(example_data(species=species, gm_approved=True), "approved.toml")
    assert problems_of(approved, catalogue) == []


def test_r11_weapon_range_out_of_bounds(write_character, example_data, catalogue):
    """R-11: a bow's range is 30–50; 60 is refused."""
    weapon = {"name": "Great bow", "kind": "bow", "damage": "1d8", "range": 60}
    path = write_character(example_data(weapon=weapon))
    problems = problems_of(path, catalogue)
    assert [(p.file, p.key) for p in problems] == [(str(path), "weapon.range")]
    assert "outside the bow bounds of 30–50" in problems[0].message


def test_r11_melee_weapon_with_a_range_is_out_of_bounds(write_character, example_data, catalogue):
    """R-11: one-handed weapons have range 0 only."""
    weapon = {"name": "Long knife", "kind": "one_handed", "damage": "1d6", "range": 2}
    problems = problems_of(write_character(example_data(weapon=weapon)), catalogue)
    assert [p.key for p in problems] == ["weapon.range"]
