"""The `horizon` command (INTERFACES.md): sheet, rules, roll, validate; exit codes 0/1/2."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys

import pytest

from horizon_tui.cli import main
from horizon_tui.rules.dice import parse_dice

# INTERFACES.md `horizon sheet --json`, verbatim.
INTERFACES_SHEET = json.loads("""
{"name": "Iriel", "level": 2, "points_bought": 0, "xp": 0, "next_point_cost": 10,
 "attributes": {"physical": 10, "agility": 10, "perception": 10, "cognition": 6, "faith": 5, "beauty": 1},
 "stats": {"health": 690, "strength": 20.5, "evasion": 19.1, "accuracy": 20.0, "speed": 5.5,
           "initiative": 11.7, "stealth": 11.2, "willpower": 36.2, "spellpower": 24.5, "charisma": 3.8},
 "slots": 3, "charges": {"II": 3, "III": 2, "IV": 1, "V": 1, "VI": 1}, "free_action_points": 2,
 "normal_attack": {"min": 90.6, "max": 97.6}, "armor": null, "crit_chance": 10.0}
""")


def assert_matches_example(got: dict, expected: dict, where: str = "") -> None:
    """Every key of the example is there with the same value and the same JSON type (20.0, not 20)."""
    for key, value in expected.items():
        assert key in got, f"missing {where}{key}"
        if isinstance(value, dict):
            assert isinstance(got[key], dict), f"{where}{key}"
            assert_matches_example(got[key], value, f"{where}{key}.")
            assert set(got[key]) == set(value), f"{where}{key} has other keys"
        else:
            assert (type(got[key]), got[key]) == (type(value), value), f"{where}{key}"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- sheet ---------------------------------------------------------------------------------------


def test_sheet_json_equals_the_interfaces_example(write_character, example_data, capsys):
    """INTERFACES: the example file (human, dagger, 10/10/10/6/5/1, no armor) gives the example sheet."""
    path = write_character(example_data())
    code, out, err = run(capsys, "sheet", str(path), "--json")
    assert (code, err) == (0, "")
    assert out.count("\n") == 1  # one JSON document, nothing else
    assert_matches_example(json.loads(out), INTERFACES_SHEET)


def test_sheet_json_from_a_json_character_file(write_character, example_data, capsys):
    path = write_character(example_data(), "iriel.json")
    code, out, _ = run(capsys, "sheet", str(path), "--json")
    assert code == 0
    assert_matches_example(json.loads(out), INTERFACES_SHEET)


def test_sheet_json_in_a_real_subprocess(write_character, example_data, repo_root):
    """`python -m horizon_tui.cli sheet FILE --json` end to end, as a user runs it."""
    path = write_character(example_data())
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    done = subprocess.run(
        [sys.executable, "-m", "horizon_tui.cli", "sheet", str(path), "--json"],
        capture_output=True, text=True, cwd=repo_root, env=env, timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert_matches_example(json.loads(done.stdout), INTERFACES_SHEET)


def test_sheet_bad_input_exits_1_in_a_real_subprocess_without_traceback(write_character, example_data, repo_root):
    data = example_data()
    data["attributes"]["physical"] = 0
    path = write_character(data)
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    done = subprocess.run(
        [sys.executable, "-m", "horizon_tui.cli", "sheet", str(path)],
        capture_output=True, text=True, cwd=repo_root, env=env, timeout=60,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert f"{path}:7: attributes.physical: 0 is below the minimum of 1" in done.stderr  # with its line
    assert done.stdout == ""


def test_sheet_text_output(write_character, example_data, capsys):
    code, out, _ = run(capsys, "sheet", str(write_character(example_data())))
    assert code == 0
    assert "Iriel" in out and "690" in out and "90.6" in out and "97.6" in out


@pytest.mark.parametrize(
    ("change", "key", "words"),
    [
        ({"xpp": 3}, "xpp", "did you mean 'xp'"),
        ({"armor": "full_plate"}, "armor", "needs strength 30"),
        ({"weapon": {"name": "Club", "kind": "one_handed", "damage": "d"}}, "weapon.damage", "bad dice"),
        ({"species": "humna"}, "species", "did you mean 'human'"),
    ],
)
def test_sheet_bad_input_exits_1_naming_the_file_and_key(change, key, words, write_character, example_data, capsys):
    path = write_character(example_data(**change))
    code, out, err = run(capsys, "sheet", str(path), "--json")
    assert code == 1
    assert out == ""
    assert "Traceback" not in err
    [line] = err.splitlines()
    assert line.startswith(str(path)) and f": {key}: " in line and words in line


def test_sheet_broken_toml_exits_1_with_the_line(write_character, capsys):
    path = write_character('name = "Iriel"\nspecies = = "human"\n')
    code, _, err = run(capsys, "sheet", str(path))
    assert code == 1
    assert err.startswith(f"{path}:2: ") and "broken TOML" in err


def test_sheet_missing_file_exits_1(tmp_path, capsys):
    code, _, err = run(capsys, "sheet", str(tmp_path / "nobody.toml"))
    assert code == 1 and "no such file" in err


@pytest.mark.parametrize(
    "argv",
    [["sheet"], ["roll"], ["frobnicate"], ["roll", "1d6", "--seed", "abc"], ["sheet", "x.toml", "--jsn"], ["validate"]],
)
def test_bad_usage_exits_2(argv, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "usage:" in err and "Traceback" not in err


# --- rules ---------------------------------------------------------------------------------------


def test_rules_json_marks_house_keys(capsys):
    """RULES.md: every [H] number is marked as a house default; [S] numbers are not."""
    code, out, _ = run(capsys, "rules", "--json")
    assert code == 0
    document = json.loads(out)
    house = set(document["house"])
    for key in ("levels", "difficulties", "attack.hit_base", "attack.crit_multiplier", "attack.min_damage_on_hit",
                "species.bonus_budget", "creation.minimums", "dialogue.die", "turns.round_cap"):
        assert key in house, key
    for key in ("armor_classes", "attack.formula", "attack.crit_cap", "experience.first_point_cost",
                "creation.starting_points", "checks.failure_fizzle", "ranges.mage_non_damaging"):
        assert key not in house, key
    for key in house:  # each mark names something in the document
        node = document
        for part in key.split("."):
            node = node[part]
    assert len(document["levels"]) == 8
    assert document["difficulties"]["III"]["threshold"] == 150


def test_rules_text_shows_house_marks(capsys):
    code, out, _ = run(capsys, "rules")
    assert code == 0
    assert "[H] R-5" in out and "[S] R-9" in out and "house default" in out


def test_rules_with_a_broken_rules_file_exits_1(tmp_path, capsys):
    path = tmp_path / "rules.toml"
    path.write_text("[levels\n")
    code, _, err = run(capsys, "rules", "--rules-file", str(path))
    assert code == 1 and str(path) in err and "Traceback" not in err


# --- roll ----------------------------------------------------------------------------------------


def test_roll_with_a_seed_is_deterministic(capsys):
    first = run(capsys, "roll", "2d6+3", "--seed", "5", "--json")
    second = run(capsys, "roll", "2d6+3", "--seed", "5", "--json")
    assert first == second
    code, out, _ = first
    assert code == 0
    result = json.loads(out)
    assert (result["seed"], result["min"], result["max"], len(result["rolls"])) == (5, 5, 15, 2)
    assert result["total"] == sum(result["rolls"]) + 3
    assert all(1 <= face <= 6 for face in result["rolls"])
    assert result["total"] == parse_dice("2d6+3").roll(random.Random(5))


def test_roll_bad_dice_exits_1(capsys):
    code, out, err = run(capsys, "roll", "2d", "--json")
    assert (code, out) == (1, "")
    assert "bad dice expression" in err and "Traceback" not in err


# --- validate ------------------------------------------------------------------------------------


def test_validate_shipped_data_passes(data_dir, capsys):
    code, out, err = run(capsys, "validate", str(data_dir))
    assert code == 0, out + err
    assert out.startswith("ok:")


def test_validate_walks_a_folder_without_failing_or_going_on_for_ever(tmp_path, monkeypatch, capsys):
    """By hand: `horizon validate /` crashed (exit 70) on a folder it may not read. A folder's
    unreadable parts, links to nowhere and pipes are problems listed; at most MAX_FILES are read."""
    from horizon_tui.tools import validate

    folder = tmp_path / "tree"
    (folder / "deep" / ".hidden").mkdir(parents=True)
    for n in range(5):
        (folder / "deep" / f"c{n}.toml").write_text("x = 1\n")
    (folder / "deep" / ".hidden" / "skipped.toml").write_text("x = 1\n")
    (folder / "nowhere.toml").symlink_to(tmp_path / "gone.toml")
    os.mkfifo(folder / "pipe.toml")
    (folder / "loop").symlink_to(folder)  # a link to a folder is not followed

    real_walk = os.walk

    def walk(top, onerror=None, **kwargs):  # a folder it may not read (root reads everything)
        onerror(PermissionError(13, "Permission denied", str(folder / "locked")))
        yield from real_walk(top, onerror=onerror, **kwargs)

    monkeypatch.setattr(validate.os, "walk", walk)
    code, out, err = run(capsys, "validate", str(folder))
    assert code == 1
    assert f"{folder / 'locked'}: (file): can't be read: Permission denied" in out
    assert "nowhere.toml: (file): no such file" in out and "pipe.toml: (file): is not a plain file" in out
    assert "skipped" not in out and out.count("not a file Horizon knows") == 5
    monkeypatch.setattr(validate, "MAX_FILES", 3)
    code, out, err = run(capsys, "validate", str(folder))
    assert "more than 3 data files: checked the first 3" in out


def test_validate_prints_one_line_per_problem_and_exits_1(write_character, example_data, capsys):
    data = example_data()
    data["attributes"]["physical"] = 0  # below the minimum, and 32 points instead of 42
    bad = write_character(data, "bad.toml")
    broken = write_character('name = "x"\nxp = = 1\n', "broken.toml")
    good = write_character(example_data(), "good.json")
    code, out, err = run(capsys, "validate", str(bad), str(broken), str(good))
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 3
    assert sorted(line.split(":")[0] for line in lines) == sorted([str(bad), str(bad), str(broken)])
    assert any("attributes.physical" in line for line in lines)
    assert "3 problems" in err


def validate_changed_rules(tmp_path, data_dir, capsys, old: str, new: str):
    """`horizon validate` on a copy of data/ with one line of rules.toml changed: (code, out, rules file)."""
    root = tmp_path / "data"
    shutil.copytree(data_dir, root)
    rules = root / "rules.toml"
    assert old in rules.read_text()
    rules.write_text(rules.read_text().replace(old, new))
    code, out, _ = run(capsys, "validate", str(root))
    return code, out, rules


def test_validate_reports_a_catalogue_rules_problem_once(tmp_path, data_dir, capsys):
    """A catalogue folder's rules.toml is checked with the catalogue, not a second time on its own."""
    code, out, rules = validate_changed_rules(tmp_path, data_dir, capsys, "failure_self = 0.2", "failure_self = 0.3")
    assert code == 1
    assert out.splitlines() == [f"{rules}: checks: the failure outcomes must add up to 1 (they add up to 1.1)"]


def test_validate_missing_path_exits_1(tmp_path, capsys):
    code, out, _ = run(capsys, "validate", str(tmp_path / "nothing"))
    assert code == 1 and "no such file or folder" in out


def test_validate_refuses_movement_costs_below_one(tmp_path, data_dir, capsys):
    """R-8's costs are data: a diagonal or difficult-ground cost under 1 would make steps free or
    walls of the ground, so `validate` names the key."""
    code, out, rules = validate_changed_rules(tmp_path, data_dir, capsys, "diagonal_cost = 1", "diagonal_cost = 0")
    assert code == 1
    assert out.splitlines() == [f"{rules}: turns.diagonal_cost: must be at least 1 (got 0)"]


@pytest.mark.parametrize(("command", "env", "fps"), [("gm", {}, 240), ("gm", {"TEXTUAL_FPS": "30"}, 30), ("play", {}, 60)])
def test_the_gm_tool_paints_up_to_240_frames_a_second_unless_told(command, env, fps):
    """A new NPC's key → screen waited 30-40 ms on Textual's 60 frames a second (subcommands
    _ENVIRONMENT); the player app, played over a host's network too, keeps Textual's default."""
    code = ("import sys; from horizon_tui import subcommands; subcommands.handler(sys.argv[1]); "
            "import textual.constants as c; print(c.MAX_FPS)")
    clean = {k: v for k, v in os.environ.items() if k != "TEXTUAL_FPS"}
    done = subprocess.run([sys.executable, "-c", code, command], capture_output=True, text=True,
                          env={**clean, **env}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(fps)
