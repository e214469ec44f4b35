"""Loader errors: every problem names the file and the dotted key, with a line and a suggestion
where one can be found; the catalogue loader reports all files' problems at once."""

from __future__ import annotations

import shutil

import pytest

from horizon_tui.content.catalogue import load_catalogue, load_ruleset
from horizon_tui.content.characters import load_character
from horizon_tui.errors import DataError


def _load_problems(path, catalogue):
    with pytest.raises(DataError) as info:
        load_character(path, catalogue)
    return info.value.problems


def test_example_file_loads_in_toml_and_json(write_character, example_data, catalogue):
    """INTERFACES: TOML or JSON with the same keys give the same character."""
    toml = load_character(write_character(example_data(), "iriel.toml"), catalogue)
    json_ = load_character(write_character(example_data(), "iriel.json"), catalogue)
    assert toml == json_
    assert (toml.species.id, toml.weapon.id, toml.armor) == ("human", "dagger", None)


def test_misspelt_key_gives_did_you_mean_and_the_line(write_character, catalogue):
    text = 'name = "Iriel"\nspecies = "human"\nweapon = "dagger"\nxpp = 3\n[attributes]\nphysical = 42\n'
    path = write_character(text)
    [problem] = _load_problems(path, catalogue)
    assert (problem.key, problem.suggestion, problem.line) == ("xpp", "xp", 4)
    assert str(problem) == f"{path}:4: xpp: unknown key (did you mean 'xp'?)"


def test_misspelt_nested_key_names_the_dotted_path(write_character, example_data, catalogue):
    path = write_character(example_data(background={"origin": "a ship", "memroy": "all"}))
    [problem] = _load_problems(path, catalogue)
    assert (problem.file, problem.key, problem.suggestion) == (str(path), "background.memroy", "memory")
    assert problem.line is not None


def test_misspelt_catalogue_id_gives_did_you_mean(write_character, example_data, catalogue):
    path = write_character(example_data(species="humna", weapon="dager"))
    problems = _load_problems(path, catalogue)
    assert [(p.key, p.suggestion) for p in problems] == [("species", "human"), ("weapon", "dagger")]


def test_broken_toml_gives_the_line_number(write_character, catalogue):
    text = 'name = "Iriel"\nspecies = "human"\n\n[attributes\nphysical = 10\n'
    path = write_character(text)
    [problem] = _load_problems(path, catalogue)
    assert (problem.file, problem.line) == (str(path), 4)
    assert "broken TOML" in problem.message
    assert str(problem).startswith(f"{path}:4: ")


def test_broken_json_gives_the_line_number(write_character, catalogue):
    path = write_character('{\n  "name": "Iriel",\n  "xp": ,\n}\n', "broken.json")
    [problem] = _load_problems(path, catalogue)
    assert (problem.line, "broken JSON" in problem.message) == (3, True)


def test_wrong_values_name_the_dotted_key(write_character, example_data, catalogue):
    """Errors inside lists and inline tables carry their full dotted key."""
    abilities = [
        {"name": "Ember Lash", "difficulty": "III", "kind": "damage"},
        {"name": "Wrong", "difficulty": "VII", "kind": "damage"},
    ]
    weapon = {"name": "Sword", "kind": "sword", "damage": "1d8"}
    path = write_character(example_data(abilities=abilities, weapon=weapon, xp="lots"))
    problems = _load_problems(path, catalogue)
    keys = {p.key for p in problems}
    assert keys == {"abilities.1.difficulty", "weapon.kind", "xp"}
    assert all(p.file == str(path) for p in problems)
    by_key = {p.key: p for p in problems}
    assert "'VII'" in by_key["abilities.1.difficulty"].message
    assert "'one_handed'" in by_key["weapon.kind"].message


def test_missing_required_key(write_character, example_data, catalogue):
    data = example_data()
    del data["name"], data["weapon"]
    problems = _load_problems(write_character(data), catalogue)
    assert {(p.key, p.message) for p in problems} == {("weapon", "is required but missing")}
    data = example_data()
    del data["name"]
    [problem] = _load_problems(write_character(data), catalogue)
    assert (problem.key, problem.message) == ("name", "is required but missing")


def test_not_a_table_at_the_top(write_character, catalogue):
    [problem] = _load_problems(write_character("[1, 2]", "list.json"), catalogue)
    assert "expected a table" in problem.message


def test_missing_file(tmp_path, catalogue):
    [problem] = _load_problems(tmp_path / "nobody.toml", catalogue)
    assert problem.message == "no such file"


def test_newer_schema_is_refused(write_character, example_data, catalogue):
    [problem] = _load_problems(write_character(example_data(schema=99)), catalogue)
    assert problem.key == "schema" and "newer" in problem.message


def test_catalogue_collects_every_files_problems(tmp_path, data_dir):
    """A broken catalogue lists the problems of all its files, each with its file and key."""
    root = tmp_path / "data"
    shutil.copytree(data_dir, root)
    weapons = root / "weapons.toml"
    weapons.write_text(weapons.read_text().replace("short_blade = true", "short_blad = true", 1))
    elf = root / "species" / "elf.toml"
    elf.write_text(elf.read_text().replace("humanoid = true", "humanoid = yes"))
    with pytest.raises(DataError) as info:
        load_catalogue(root)
    problems = info.value.problems
    assert [(p.file, p.key, p.suggestion) for p in problems if p.file == str(weapons)] == [
        (str(weapons), "dagger.short_blad", "short_blade")
    ]
    assert [p.line for p in problems if p.file == str(elf)] == [5]


def test_rules_file_misspelt_key(tmp_path, data_dir):
    path = tmp_path / "rules.toml"
    path.write_text((data_dir / "rules.toml").read_text().replace("crit_multiplier = 2", "crit_multiplyer = 2"))
    with pytest.raises(DataError) as info:
        load_ruleset(path)
    [problem] = info.value.problems
    assert (problem.key, problem.suggestion) == ("attack.crit_multiplyer", "crit_multiplier")
    assert problem.line is not None


def test_a_problem_in_the_second_ability_points_at_its_own_lines(write_character, catalogue):
    """The line of `abilities.1.difficulty` is in the second [[abilities]] table, not the first."""
    text = (
        'name = "Iriel"\nspecies = "human"\nweapon = "dagger"\n'  # 1-3
        "[attributes]\nphysical = 42\n"  # 4-5
        '[[abilities]]\nname = "Ember Lash"\ndifficulty = "III"\nkind = "damage"\n'  # 6-9
        '[[abilities]]\nname = "Bad"\ndifficulty = "VII"\nkind = "damag"\n'  # 10-13
    )
    problems = _load_problems(write_character(text), catalogue)
    assert sorted((p.key, p.line) for p in problems) == [("abilities.1.difficulty", 12), ("abilities.1.kind", 13)]


def test_a_problem_in_the_third_level_row_of_rules_points_at_it(tmp_path, data_dir):
    path = tmp_path / "rules.toml"
    text = (data_dir / "rules.toml").read_text()
    path.write_text(text.replace("level = 3\nslots = 4", 'level = 3\nslots = "four"', 1))
    with pytest.raises(DataError) as info:
        load_ruleset(path)
    [problem] = info.value.problems
    assert problem.key == "levels.2.slots"
    assert path.read_text().splitlines()[problem.line - 1] == 'slots = "four"'
