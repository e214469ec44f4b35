"""A battle save names its encounter by id and keeps a copy of it: a battle saved under one install
(venv) resumes under another, an older save naming a vanished install's path resumes by the id,
and an encounter whose file changed since resumes from the copy the save kept."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from horizon_tui.content.catalogue import load_catalogue
from horizon_tui.content.encounters import load_enemies
from horizon_tui.engine.forming import PartyMember, create_battle
from horizon_tui.engine.encounter import load_encounter
from horizon_tui.engine.persist import BattleInProgress, load_session, save_session
from horizon_tui.errors import DataError
from tests.engine.test_persist import log_text, play

REPO = Path(__file__).resolve().parents[2]


def install(root: Path) -> Path:
    """A copy of the shipped data where a venv would keep it (…/horizon_tui/data)."""
    data = root / "lib" / "site-packages" / "horizon_tui" / "data"
    shutil.copytree(REPO / "data", data)
    return data


def started(data: Path, seed: int = 11):
    catalogue = load_catalogue(data)
    enemies = load_enemies(catalogue)
    from horizon_tui.content.characters import load_character

    party = [PartyMember(load_character(REPO / "examples" / "party" / "iriel.toml", catalogue), "player")]
    path = data / "encounters" / "wolves.toml"  # as the player's encounter picker passes it: a path
    battle = create_battle(load_encounter(path, catalogue, enemies), party, seed, catalogue, enemies)
    from horizon_tui.engine import runner

    runner.begin(battle)
    session = BattleInProgress(battle, str(path), party)
    play(session.battle, session.inputs, until=4)
    return session, catalogue


def saved(data: Path, save: Path):
    """A battle begun on `data`'s wolves.toml and four inputs in, saved at `save`."""
    session, catalogue = started(data)
    save.parent.mkdir(parents=True, exist_ok=True)
    save_session(save, session, catalogue)
    return session, catalogue


def test_a_battle_saved_under_one_venv_resumes_under_another(tmp_path: Path):
    save = tmp_path / "saves" / "battles" / "iriel.json"
    session, _ = saved(install(tmp_path / "old-venv"), save)
    text = save.read_text()
    assert str(tmp_path) not in text and "site-packages" not in text  # no install path in the save
    assert json.loads(text)["encounter"] == "wolves"
    shutil.rmtree(tmp_path / "old-venv")  # the venv rebuilt elsewhere
    new = load_catalogue(install(tmp_path / "new-venv"))
    resumed = load_session(save, new, load_enemies(new))
    assert resumed.encounter == "wolves" and log_text(resumed.battle) == log_text(session.battle)
    play(session.battle, session.inputs)
    play(resumed.battle, resumed.inputs)
    assert log_text(resumed.battle) == log_text(session.battle)


def test_an_older_save_naming_a_vanished_install_resumes_by_the_encounters_id(tmp_path: Path):
    """Saves of older versions held `…/site-packages/horizon_tui/data/encounters/wolves.toml`."""
    old = install(tmp_path / "old-venv")
    save = tmp_path / "iriel.json"
    session, _ = saved(old, save)
    data = json.loads(save.read_text())
    del data["setup"]
    data["encounter"] = str(old / "encounters" / "wolves.toml")
    save.write_text(json.dumps(data))
    shutil.rmtree(tmp_path / "old-venv")
    new = load_catalogue(install(tmp_path / "new-venv"))
    resumed = load_session(save, new, load_enemies(new))
    assert resumed.encounter == "wolves" and log_text(resumed.battle) == log_text(session.battle)


def test_an_encounter_changed_since_the_battle_began_resumes_from_the_copy_kept(tmp_path: Path):
    data = install(tmp_path / "venv")
    save = tmp_path / "iriel.json"
    session, catalogue = saved(data, save)
    wolves = data / "encounters" / "wolves.toml"
    wolves.write_text(wolves.read_text().replace("[map]", "xp = 999\n\n[map]", 1) + "\n# edited\n")
    resumed = load_session(save, catalogue, load_enemies(catalogue))
    assert log_text(resumed.battle) == log_text(session.battle)
    wolves.unlink()  # and gone altogether
    assert log_text(load_session(save, catalogue, load_enemies(catalogue)).battle) == log_text(session.battle)


def test_a_copy_that_does_not_match_its_hash_is_reported(tmp_path: Path):
    save = tmp_path / "iriel.json"
    _, catalogue = saved(install(tmp_path / "venv"), save)
    kept = json.loads(save.read_text())
    kept["setup"]["text"] += "\n# changed by hand\n"
    save.write_text(json.dumps(kept))
    with pytest.raises(DataError, match="setup.sha256"):
        load_session(save, catalogue, load_enemies(catalogue))
