"""Nothing in a file can crash, hang or fill the memory. One test per example of the
issue (its numbers), each through the reader the apps use and through `horizon validate`."""

from __future__ import annotations

import json
import time
from fractions import Fraction
from pathlib import Path

import pytest
import tomli_w

from horizon_tui.content.characters import load_character
from horizon_tui.content.guard import limits, parse_decimal, parse_number
from horizon_tui.errors import DataError, Problem
from horizon_tui.tools.validate import validate_paths

REPO = Path(__file__).resolve().parent.parent.parent


def refused(path: Path, catalogue) -> list[Problem]:
    """The problems the apps' reader and `validate` give, which must be the same and fast."""
    start = time.process_time()
    with pytest.raises(DataError) as info:
        load_character(path, catalogue)
    assert time.process_time() - start < 1
    start = time.process_time()
    problems, _ = validate_paths([path])
    assert time.process_time() - start < 1
    assert [str(p) for p in problems] == [str(p) for p in info.value.problems]
    return problems


def test_nesting_1000_deep_is_one_problem(write_character, catalogue):
    """Example 1: `xp = [[[[…]]]]` 1,000 deep (TOML) and 100,000 deep (JSON): one problem, no RecursionError."""
    toml = write_character('name = "Iriel"\nxp = ' + "[" * 1000 + "]" * 1000 + "\n")
    [problem] = refused(toml, catalogue)
    assert "nested too deeply: at most 32 levels" in problem.message
    deep = write_character('{"name": "Iriel", "xp": ' + "[" * 100_000 + "]" * 100_000 + "}", "c.json")
    [problem] = refused(deep, catalogue)
    assert "nested too deeply" in problem.message


def test_nesting_within_the_parser_limit_but_over_ours(write_character, catalogue, example_data):
    """40 levels parse (tomllib copes) but are over `files.nesting` = 32: refused with the key."""
    value: object = 1
    for _ in range(40):
        value = [value]
    [problem] = refused(write_character(example_data(notes=value)), catalogue)
    assert problem.key.startswith("notes.0.0") and "at most 32" in problem.message


def test_an_integer_of_5000_digits(write_character, catalogue, example_data):
    """Example 2: more than 4,300 digits was a ValueError traceback; now one problem."""
    text = tomli_w.dumps(example_data()).replace("xp = 0", "xp = " + "9" * 5000)
    [problem] = refused(write_character(text), catalogue)
    assert "more than 40 digits" in problem.message
    as_json = json.dumps(example_data()).replace('"xp": 0', '"xp": ' + "9" * 5000)
    [problem] = refused(write_character(as_json, "c.json"), catalogue)
    assert "5000 digits; at most 40" in problem.message


def test_beauty_1e308_is_out_of_its_range(write_character, catalogue, example_data):
    """Example 3: `beauty = 1e308` passed validate and then crashed sheet (OverflowError)."""
    data = example_data()
    data["attributes"]["beauty"] = 1e308
    [problem] = refused(write_character(data), catalogue)
    assert problem.key == "attributes.beauty"
    assert "allowed: 0 to 10^15 (ranges.attribute in limits.toml)" in problem.message


@pytest.mark.parametrize("field", ["multiplier", "magnitude"])
def test_1e999999999_as_text_is_refused_at_once(field, write_character, catalogue, example_data):
    """Example 4: the string "1e999999999" in a number field hung at 100 % CPU (Fraction(Decimal))."""
    ability = {"name": "Cut", "difficulty": "II", "kind": "damage"}
    if field == "multiplier":
        ability["multiplier"] = "1e999999999"
    else:
        ability["effects"] = [{"effect": "bleeding", "magnitude": "1e999999999"}]
    [problem] = refused(write_character(example_data(abilities=[ability])), catalogue)
    assert "exponent 999999999 is too large; at most 40" in problem.message
    assert problem.key.endswith(field)


def test_parse_decimal_is_exact_and_bounded():
    assert parse_decimal("0.1") == Fraction(1, 10)
    assert parse_decimal("-2.5e2") == -250
    assert parse_decimal("27/2") == Fraction(27, 2)
    for text in ("1e999999999", "9" * 41, "1/0", "abc", "", "1e", "." * 3):
        with pytest.raises(ValueError):
            parse_decimal(text)


def test_parse_number_for_forms_says_what_is_allowed():
    """The forms' number parser: the value, or a Problem naming the range (R-4: XP up to 10^30)."""
    assert parse_number("1e30", "xp", "xp", whole=True) == 10**30
    problem = parse_number("1e31", "xp", "xp", whole=True)
    assert isinstance(problem, Problem) and "allowed: 0 to 10^30 (ranges.xp in limits.toml)" in problem.message
    problem = parse_number("1e999999999", "multiplier", "multiplier")
    assert isinstance(problem, Problem) and "0 to 1000" in problem.message
    assert isinstance(parse_number("2.5", "count", "count", whole=True), Problem)


def _encounter(tmp_path: Path, **changes) -> Path:
    folder = tmp_path / "encounters"
    folder.mkdir(exist_ok=True)
    text = (REPO / "data" / "encounters" / "wolves.toml").read_text(encoding="utf-8")
    path = folder / "wolves.toml"
    path.write_text(text + "".join(f"\n{k} = {v}" for k, v in changes.items()), encoding="utf-8")
    return path


def test_an_encounter_count_of_10_to_the_11(tmp_path):
    """Example 5: `count = 100000000000` hung validate while memory grew to 1.7 GB; at most a
    50×50 field's worth (2,500) is allowed."""
    path = tmp_path / "encounters" / "many.toml"
    path.parent.mkdir()
    path.write_text('name = "Many"\nmap = { generator = "open", width = 20, height = 20 }\n'
                    '[[enemies]]\nenemy = "wolf"\ncount = 100000000000\n', encoding="utf-8")
    validate_paths([REPO / "data" / "encounters" / "wolves.toml"])  # the engine imported, enemies read
    start = time.process_time()
    problems, _ = validate_paths([path])
    assert time.process_time() - start < 1
    assert [(p.key, p.line) for p in problems] == [("enemies.0.count", 5)]
    assert "allowed: 1 to 2500 (ranges.count" in problems[0].message


def test_a_string_where_a_list_belongs_is_one_problem(write_character, catalogue, example_data):
    """Example 6: `loadout = "xxxx…"` gave one problem per character (8,000 lines)."""
    [problem] = refused(write_character(example_data(loadout="x" * 8000)), catalogue)
    assert problem.key == "loadout" and "expected a list, got str" in problem.message
    assert len(str(problem)) < 300


def test_many_wrong_items_are_capped(write_character, catalogue, example_data):
    """2,000 wrong items in a list: at most `files.problems` (50) lines and one counting the rest."""
    problems = refused(write_character(example_data(loadout=[1] * 2000)), catalogue)
    assert len(problems) == limits().problems + 1
    assert problems[-1].message == "and 1950 more problems"


def test_ai_rules_as_strings(tmp_path, catalogue):
    """Example 7: `rules = ["attack"]` in ai.toml was an AttributeError traceback."""
    from horizon_tui.content.ai_profiles import load_ai_profiles

    path = tmp_path / "ai.toml"
    path.write_text('[brute]\nrules = ["attack"]\n', encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_ai_profiles(path)
    [problem] = info.value.problems
    assert (problem.key, problem.line) == ("brute.rules.0", 2)
    assert validate_paths([path])[0] == info.value.problems


def test_negative_radius_and_length_are_refused(write_character, catalogue, example_data):
    """Example 11: a negative area radius or line length passed validate and wasted a charge."""
    abilities = [
        {"name": "Burst", "difficulty": "II", "kind": "damage", "target": "area", "radius": -2},
        {"name": "Lance", "difficulty": "II", "kind": "damage", "target": "line", "length": -1},
    ]
    problems = refused(write_character(example_data(abilities=abilities)), catalogue)
    assert {p.key for p in problems} == {"abilities.0.radius", "abilities.1.length"}
    assert all("allowed: 0 to 50" in p.message for p in problems)


def test_a_file_over_the_size_limit_is_not_read(write_character, catalogue):
    path = write_character("notes = '" + "x" * 1_100_000 + "'\n")
    [problem] = refused(path, catalogue)
    assert "is too big: more than 1,000,000 bytes" in problem.message


def test_a_pipe_or_a_folder_is_not_read(tmp_path, catalogue):
    import os

    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    with pytest.raises(DataError, match="not a plain file"):
        load_character(fifo, catalogue)  # would block for ever on open()


def test_names_hold_no_control_characters(write_character, catalogue, example_data):
    [problem] = refused(write_character(example_data(name="Iriel\x1b[2J")), catalogue)
    assert problem.key == "name" and "control character" in problem.message


def test_the_shipped_limits_document_every_range():
    """Every range the code names is in data/limits.toml with a comment beside it."""
    from horizon_tui.content.guard import REQUIRED_RANGES

    text = (REPO / "data" / "limits.toml").read_text(encoding="utf-8")
    for name in REQUIRED_RANGES:
        [line] = [line for line in text.splitlines() if line.startswith(f"{name} = ")]
        assert "#" in line, name


def test_a_broken_limits_file_is_reported(tmp_path):
    path = tmp_path / "limits.toml"
    text = (REPO / "data" / "limits.toml").read_text(encoding="utf-8")
    path.write_text(text.replace("count = [1, 2_500]", "count = [3, 1]").replace("nesting = 32", "nestin = 32"),
                    encoding="utf-8")
    problems, _ = validate_paths([path])
    keys = {p.key for p in problems}
    assert {"ranges.count", "files.nestin", "files.nesting"} <= keys


def test_forms_use_the_same_limits_as_files():
    """Forms: "1e999999999" typed as a multiplier is refused at once, saying what is allowed."""
    from horizon_tui.play import forms

    start = time.process_time()
    with pytest.raises(ValueError, match=r"multiplier: .*allowed: a number from 0 to 1000"):
        forms.parse_optional_number("1e999999999", "multiplier")
    with pytest.raises(ValueError, match=r"radius: -2 is out of range; allowed: 0 to 50"):
        forms.parse_optional_int("-2", "radius")
    with pytest.raises(ValueError, match=r"XP: 10\^31 is out of range; allowed: 0 to 10\^30"):
        forms.parse_optional_int("1e31", "XP")
    with pytest.raises(ValueError):
        forms.parse_bonuses("evasion " + "9" * 5000)
    assert time.process_time() - start < 0.1
    assert forms.parse_optional_number("2.75", "multiplier") == Fraction(11, 4)


def test_a_round_cap_of_a_billion_is_refused_with_its_line(tmp_path, data_dir):
    """R-14 [H] round_cap, held to ranges.rounds: `round_cap = 1_000_000_000` passed validate and a
    stalemate battle then ran for about two months (found by the CLI helper, by hand); the house
    default of 100 rounds and anything up to 10,000 stay allowed."""
    import shutil

    from horizon_tui.content.catalogue import load_ruleset

    root = tmp_path / "data"
    shutil.copytree(data_dir, root)
    rules = root / "rules.toml"
    text = rules.read_text(encoding="utf-8")
    assert "\nround_cap = 100\n" in text
    assert load_ruleset(rules).turns.round_cap == 100
    rules.write_text(text.replace("\nround_cap = 100\n", "\nround_cap = 10_000\n"), encoding="utf-8")
    assert load_ruleset(rules).turns.round_cap == 10_000
    rules.write_text(text.replace("\nround_cap = 100\n", "\nround_cap = 1_000_000_000\n"), encoding="utf-8")
    problems, _ = validate_paths([rules])
    line = text[: text.index("\nround_cap = 100\n")].count("\n") + 2
    assert [(p.key, p.line) for p in problems] == [("turns.round_cap", line)]
    assert "allowed: 1 to 10000 (ranges.rounds" in problems[0].message
