"""What a hostile or careless user still broke through the command line (found by hand, one test
each): every one is now exit 1 with a message naming the file and the key, or accepted as meant."""

from __future__ import annotations

import pytest

from horizon_tui.cli import main

A_COMPANION = {
    "name": "Dragon Friend", "description": "Calls a friend.", "difficulty": "II", "kind": "companion",
    "replaceable": True, "companion": "dragon",
}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", [
    ["battle", "wolves", "--seed", "1"],
    ["simulate", "wolves", "--runs", "2", "--seed", "1"],
    ["sweep", "wolves", "--levels", "2", "--runs", "2", "--seed", "1"],
])
def test_a_companion_not_in_the_enemy_catalogue_is_named_in_the_party_file(
        command, write_character, example_data, capsys):
    """By hand: `horizon battle wolves --party c.toml` with `companion = "dragon"` said only
    'Iriel: companion 'dragon' is not in the enemy catalogue' (sweep blamed the encounter file)."""
    path = write_character(example_data(abilities=[A_COMPANION], loadout=["Dragon Friend"]))
    code, out, err = run(capsys, *command[:2], "--party", str(path), *command[2:])
    assert code == 1 and out == ""
    assert f"{path}:" in err and "abilities.0.companion" in err and "'dragon'" in err
    assert "wolf" in err  # what is allowed


def test_validate_reports_a_companion_not_in_the_enemy_catalogue(write_character, example_data, capsys):
    """By hand: `horizon validate` passed that character, which `horizon battle` then refused."""
    path = write_character(example_data(abilities=[A_COMPANION], loadout=["Dragon Friend"]))
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 1
    assert f"{path}:" in out and "abilities.0.companion" in out and "unknown enemy 'dragon'" in out
