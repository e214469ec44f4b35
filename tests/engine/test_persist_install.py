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
from horizon_tui.storage.battles import CHECK_KEYS, BattleRepository, MemoryBattles
from horizon_tui.storage.battles_sql import SqlBattles
from horizon_tui.storage.database import open_database
from tests.engine.test_persist import log_text, play

REPO = Path(__file__).resolve().parents[2]
SLOT = "battles/iriel.json"


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


def saved(data: Path, battles: BattleRepository):
    """A battle begun on `data`'s wolves.toml and four inputs in, saved in `battles`."""
    session, catalogue = started(data)
    save_session(battles, SLOT, session, catalogue)
    return session, catalogue


def rewritten(battles: BattleRepository, change) -> None:
    """The stored battle changed by `change` (on the save's JSON, as an older version's file was
    edited by hand) and stored again whole."""
    data = battles.load(SLOT)
    change(data)
    header = {k: v for k, v in data.items() if k not in ("inputs", *CHECK_KEYS)}
    battles.save(SLOT, json.dumps(header), 0, [json.dumps(i) for i in data["inputs"]],
                 {k: data[k] for k in CHECK_KEYS})


def test_a_battle_saved_under_one_venv_resumes_under_another(tmp_path: Path):
    database = open_database(data_dir=tmp_path / "saves")
    battles = SqlBattles(database)
    session, _ = saved(install(tmp_path / "old-venv"), battles)
    text = json.dumps(battles.load(SLOT))
    assert str(tmp_path) not in text and "site-packages" not in text  # no install path in the save
    assert battles.load(SLOT)["encounter"] == "wolves"
    shutil.rmtree(tmp_path / "old-venv")  # the venv rebuilt elsewhere
    new = load_catalogue(install(tmp_path / "new-venv"))
    resumed = load_session(battles, SLOT, new, load_enemies(new))
    assert resumed.encounter == "wolves" and log_text(resumed.battle) == log_text(session.battle)
    play(session.battle, session.inputs)
    play(resumed.battle, resumed.inputs)
    assert log_text(resumed.battle) == log_text(session.battle)
    database.close()


def test_an_older_save_naming_a_vanished_install_resumes_by_the_encounters_id(tmp_path: Path):
    """Saves of older versions held `…/site-packages/horizon_tui/data/encounters/wolves.toml`."""
    old = install(tmp_path / "old-venv")
    battles = MemoryBattles()
    session, _ = saved(old, battles)

    def older(data):
        del data["setup"]
        data["encounter"] = str(old / "encounters" / "wolves.toml")

    rewritten(battles, older)
    shutil.rmtree(tmp_path / "old-venv")
    new = load_catalogue(install(tmp_path / "new-venv"))
    resumed = load_session(battles, SLOT, new, load_enemies(new))
    assert resumed.encounter == "wolves" and log_text(resumed.battle) == log_text(session.battle)


def test_an_encounter_changed_since_the_battle_began_resumes_from_the_copy_kept(tmp_path: Path):
    data = install(tmp_path / "venv")
    battles = MemoryBattles()
    session, catalogue = saved(data, battles)
    wolves = data / "encounters" / "wolves.toml"
    wolves.write_text(wolves.read_text().replace("[map]", "xp = 999\n\n[map]", 1) + "\n# edited\n")
    resumed = load_session(battles, SLOT, catalogue, load_enemies(catalogue))
    assert log_text(resumed.battle) == log_text(session.battle)
    wolves.unlink()  # and gone altogether
    assert log_text(load_session(battles, SLOT, catalogue, load_enemies(catalogue)).battle) == log_text(session.battle)


def test_a_copy_that_does_not_match_its_hash_is_reported(tmp_path: Path):
    battles = MemoryBattles()
    _, catalogue = saved(install(tmp_path / "venv"), battles)
    rewritten(battles, lambda kept: kept["setup"].update(text=kept["setup"]["text"] + "\n# changed by hand\n"))
    with pytest.raises(DataError, match="setup.sha256"):
        load_session(battles, SLOT, catalogue, load_enemies(catalogue))
