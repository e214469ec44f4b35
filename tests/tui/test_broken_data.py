"""A data folder that reads but breaks the rules (a GM's `diagonal_cost = -1` in rules.toml, a
goblin with armor class 0) is named with its file and line by both apps, as `horizon validate`
names it — never met as an internal error in the first turn. Found by hand: with
`diagonal_cost = -1` the player app's first battle showed the crash screen (tcod's ValueError),
and `horizon gm` opened as if nothing were wrong."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from horizon_tui.content import catalogue as catalogue_module
from horizon_tui.errors import DataError

REPO = Path(__file__).resolve().parents[2]
IRIEL = REPO / "examples" / "party" / "iriel.toml"


def _broken(tmp_path: Path, data_dir: Path, file: str, old: str, new: str, monkeypatch) -> Path:
    root = tmp_path / "data"
    shutil.copytree(data_dir, root)
    path = root / file
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    monkeypatch.setenv("HORIZON_DATA", str(root))
    monkeypatch.setattr(catalogue_module, "_cache", {})
    return path


def _diagonal(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("diagonal_cost"))


def test_the_player_apps_rules_are_checked_as_validate_checks_them(tmp_path, data_dir, monkeypatch):
    from horizon_tui.ui.player.app import create_app

    rules = data_dir / "rules.toml"
    line = _diagonal(rules.read_text(encoding="utf-8"))
    broken = _broken(tmp_path, data_dir, "rules.toml", line, "diagonal_cost = -1", monkeypatch)
    app = create_app(tmp_path / "saves")
    with pytest.raises(DataError) as refused:
        app.catalogue  # noqa: B018 - the property loads it
    problem = refused.value.problems[0]
    assert problem.file == str(broken) and problem.line and "diagonal_cost" in problem.key


def test_the_gm_tool_refuses_to_start_on_broken_rules_naming_the_line(tmp_path, data_dir, monkeypatch, capsys):
    from horizon_tui.cli import main

    line = _diagonal((data_dir / "rules.toml").read_text(encoding="utf-8"))
    broken = _broken(tmp_path, data_dir, "rules.toml", line, "diagonal_cost = -1", monkeypatch)
    code = main(["gm", "--saves", str(tmp_path / "saves")])
    err = capsys.readouterr().err
    assert code == 1 and f"{broken}:" in err and "diagonal_cost" in err


async def test_a_broken_enemy_marks_the_encounters_naming_its_file_and_line(tmp_path, data_dir, monkeypatch):
    from horizon_tui.ui.player.app import create_app
    from horizon_tui.play.encounter_details import encounter_details

    _broken(tmp_path, data_dir, "enemies/goblin.toml", 'armor = "padded"', 'armor = { name = "X", class = 0 }',
            monkeypatch)
    app = create_app(tmp_path / "saves")
    ambush = app.catalogue.root / "encounters" / "goblin_ambush.toml"
    (detail,) = encounter_details([ambush], app.catalogue).values()
    assert isinstance(detail, str) and "goblin.toml, line" in detail and "armor.class" in detail


def test_a_broken_enemy_stops_a_battle_before_it_starts(tmp_path, data_dir, monkeypatch):
    from horizon_tui.ui.player.app import create_app
    from horizon_tui.ui.battle import flow

    _broken(tmp_path, data_dir, "enemies/goblin.toml", 'armor = "padded"', 'armor = { name = "X", class = 0 }',
            monkeypatch)
    app = create_app(tmp_path / "saves")
    with pytest.raises(DataError) as refused:
        flow._enemies(app)  # noqa: SLF001 - what `flow.form` reads the enemies with
    assert refused.value.problems[0].file.endswith("goblin.toml")
