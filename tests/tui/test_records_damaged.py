"""The player app's Battles list over damaged files: each is listed with why, never a crash or a wait."""

from __future__ import annotations

import os

from horizon_tui.storage.records import encounter_name, in_progress, records


def test_a_damaged_battle_save_is_listed_with_its_problem(tmp_path):
    """By hand: a battle save of 100,000 nested brackets crashed the Battles list
    (RecursionError), and a save that was a pipe kept it waiting."""
    battles = tmp_path / "battles"
    battles.mkdir()
    (battles / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    os.mkfifo(battles / "pipe.json")
    found = {b.path.name: b for b in in_progress(tmp_path)}
    assert set(found) == {"deep.json", "pipe.json"}
    assert all(b.problem for b in found.values())


def test_a_record_or_an_encounter_that_is_a_pipe_is_not_waited_on(tmp_path):
    folder = tmp_path / "records"
    folder.mkdir()
    os.mkfifo(folder / "iriel--20260101-000000.txt")
    assert len(records(tmp_path)) == 1
    pipe = tmp_path / "wolves.toml"
    os.mkfifo(pipe)
    assert encounter_name(pipe) == "wolves"
    deep = tmp_path / "deep_hall.toml"
    deep.write_text("x = " + "[" * 10_000 + "]" * 10_000)
    assert encounter_name(deep) == "deep hall"
