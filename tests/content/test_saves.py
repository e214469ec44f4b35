"""Saves (horizon_tui/storage/atomic.py): atomic writes, three backups, unreadable files kept as they
are, characters round-tripping through TOML and JSON."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from horizon_tui.content.characters import character_from_dict, character_to_dict, load_character
from horizon_tui.content.models import ATTRIBUTES
from horizon_tui.errors import DataError
from horizon_tui.rules.character import build, sheet
from horizon_tui.storage import atomic as store
from horizon_tui.storage.atomic import save_character

attribute_values = st.fixed_dictionaries({name: st.integers(0, 10_000) for name in ATTRIBUTES})


def _siblings(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir())


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_save_keeps_the_last_three_backups(suffix, tmp_path, make_character, catalogue):
    """Each save moves NAME -> NAME.1 -> NAME.2 -> NAME.3; the oldest falls off."""
    path = tmp_path / f"iriel{suffix}"
    written = {}
    for xp in range(1, 6):
        save_character(path, make_character(xp=xp), catalogue)
        written[xp] = path.read_bytes()
    assert load_character(path, catalogue).xp == 5
    for n, xp in ((1, 4), (2, 3), (3, 2)):
        assert store.backup_path(path, n).read_bytes() == written[xp]
    assert _siblings(path) == [f"iriel{suffix}", f"iriel{suffix}.1", f"iriel{suffix}.2", f"iriel{suffix}.3"]


def test_saving_the_same_character_twice_keeps_the_backups(tmp_path, make_character, catalogue):
    path = tmp_path / "iriel.toml"
    save_character(path, make_character(xp=1), catalogue)
    save_character(path, make_character(xp=2), catalogue)
    save_character(path, make_character(xp=2), catalogue)
    assert _siblings(path) == ["iriel.toml", "iriel.toml.1"]
    assert b"xp = 1" in store.backup_path(path, 1).read_bytes()


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("broken.toml", b'name = "Iriel"\nxp = = 3\n'),
        ("binary.json", b"\xff\xfe\x00garbage\x80"),
        ("other.toml", b'title = "not a character"\n'),
    ],
)
def test_a_file_that_cant_be_read_is_never_overwritten(name, content, tmp_path, make_character, catalogue):
    """INTERFACES: a save that can't be read is reported and kept as it was."""
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(DataError) as info:
        save_character(path, make_character(), catalogue)
    assert info.value.problems[0].file == str(path)
    assert path.read_bytes() == content
    assert _siblings(path) == [name]  # no backup, no temp file


def test_a_failed_write_leaves_the_old_file_whole(tmp_path, make_character, catalogue, monkeypatch):
    """Atomic: if the write dies before the rename, the old save is intact and no temp file is left."""
    path = tmp_path / "iriel.toml"
    save_character(path, make_character(xp=1), catalogue)
    before = path.read_bytes()

    def crash(fd):
        raise OSError("disk full")

    monkeypatch.setattr(store.os, "fsync", crash)
    with pytest.raises(OSError, match="disk full"):
        store.atomic_write(path, b"half a save")
    assert path.read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_saved_file_uses_catalogue_ids(tmp_path, make_character, catalogue):
    """A saved character writes ids for catalogue entries, like a player would."""
    path = tmp_path / "iriel.toml"
    save_character(path, make_character(armor="leather"), catalogue)
    text = path.read_text()
    assert 'species = "human"' in text and 'weapon = "dagger"' in text and 'armor = "leather"' in text
    assert "schema = 1" in text


abilities = st.lists(
    st.fixed_dictionaries(
        {
            "name": st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=12),
            "difficulty": st.sampled_from(["I", "II", "III", "IV", "V", "VI"]),
            "kind": st.sampled_from(["damage", "effect", "passive"]),
        },
        optional={
            "multiplier": st.sampled_from([1.5, 2.0, 2.75, 3]),
            "effects": st.just([{"effect": "bleeding", "chance": 0.5, "duration": 3, "magnitude": 20}]),
            "modifiers": st.just({"evasion": 1.5}),
        },
    ),
    max_size=3,
    unique_by=lambda a: a["name"],
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    invested=attribute_values,
    bonus=st.dictionaries(st.sampled_from(ATTRIBUTES), st.integers(0, 50), max_size=3),
    xp=st.integers(0, 10**6),
    name=st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=20),
    armor=st.sampled_from([None, "leather", "plate", {"name": "Bark plates", "class": 7}]),
    species=st.sampled_from(["human", "elf", {"name": "Moth-kin", "bonuses": {"stats": {"evasion": 1.5}}}]),
    weapon=st.sampled_from(["dagger", "longbow", {"name": "Bone knife", "kind": "one_handed", "short_blade": True, "damage": "1d4"}]),
    abilities=abilities,
)
def test_characters_round_trip_through_toml_and_json(
    invested, bonus, xp, name, armor, species, weapon, abilities, example_data, catalogue,
):
    """Saving then loading gives the same character and the same sheet JSON, in both formats, for
    any attribute values."""
    data = example_data(name=name, attributes=invested, bonus=bonus, xp=xp, species=species, weapon=weapon,
                        abilities=abilities)
    if armor is not None:
        data["armor"] = armor
    character = character_from_dict(data, catalogue)
    with tempfile.TemporaryDirectory() as folder:
        for suffix in (".toml", ".json"):
            path = Path(folder) / f"c{suffix}"
            save_character(path, character, catalogue)
            loaded = load_character(path, catalogue)
            assert loaded == character
            sheet_json = json.dumps(sheet(build(character, catalogue.rules)))
            assert json.dumps(sheet(build(loaded, catalogue.rules))) == sheet_json
            assert json.loads(sheet_json)["attributes"] == {
                name: invested[name] + bonus.get(name, 0) + character.species.bonuses.attributes.get(name, 0)
                for name in ATTRIBUTES
            }
            assert character_to_dict(loaded, catalogue) == character_to_dict(character, catalogue)
            # a second save of the loaded character changes nothing on disk
            before = path.read_bytes()
            save_character(path, loaded, catalogue)
            assert path.read_bytes() == before
            assert not os.path.exists(f"{path}.1")


def test_custom_entries_round_trip_as_inline_tables(tmp_path, make_character, catalogue):
    """A changed catalogue entry is saved inline (not as the id it no longer matches)."""
    character = make_character()
    custom = attrs.evolve(character, weapon=attrs.evolve(character.weapon, damage="1d8+1"))
    path = tmp_path / "c.json"
    save_character(path, custom, catalogue)
    loaded = load_character(path, catalogue)
    assert loaded.weapon.damage == "1d8+1"
    assert '"weapon": "dagger"' not in path.read_text()


def test_a_read_only_save_is_never_replaced(tmp_path, make_character, catalogue):
    """A rename would replace a read-only file silently; the save refuses instead."""
    import os

    path = tmp_path / "iriel.toml"
    save_character(path, make_character(xp=1), catalogue)
    before = path.read_bytes()
    os.chmod(path, 0o444)
    if os.access(path, os.W_OK):  # root can write anything: nothing to check here
        pytest.skip("running as root")
    with pytest.raises(store.SaveError, match="read-only; it was not replaced"):
        save_character(path, make_character(xp=2), catalogue)
    assert path.read_bytes() == before and _siblings(path) == ["iriel.toml"]


def test_a_read_only_save_is_refused_even_for_root(tmp_path, make_character, catalogue, monkeypatch):
    path = tmp_path / "iriel.toml"
    save_character(path, make_character(xp=1), catalogue)
    before = path.read_bytes()
    monkeypatch.setattr(store.os, "access", lambda p, mode: False)
    with pytest.raises(store.SaveError) as info:
        save_character(path, make_character(xp=2), catalogue)
    assert "read-only" in str(info.value) and isinstance(info.value, OSError)
    assert path.read_bytes() == before and _siblings(path) == ["iriel.toml"]  # no backup moved either


def test_a_full_disk_is_a_save_error_and_the_old_file_stays(tmp_path, make_character, catalogue, monkeypatch):
    import errno

    path = tmp_path / "iriel.toml"
    save_character(path, make_character(xp=1), catalogue)
    before = path.read_bytes()

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store.os, "fsync", full)
    with pytest.raises(store.SaveError, match="the disk is full; the old file is as it was"):
        store.atomic_write(path, b"new")
    assert path.read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_save_into_a_folder_that_cant_be_made_says_nothing_was_written(tmp_path, make_character, catalogue):
    # by hand: saves pointed at a file (--saves /etc/passwd) said "the old file is as it was" of a
    # file that never was
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(store.SaveError, match="nothing was written"):
        save_character(blocker / "characters" / "pw.toml", make_character(xp=1), catalogue)
    assert blocker.read_text() == "not a folder"


def test_stale_temp_files_of_interrupted_saves_are_removed_at_the_next_start(tmp_path):
    """395 temp files were left after 1,700 kill -9; a dead writer's go, a live one's stay."""
    import os
    import subprocess
    import time

    from horizon_tui.storage.temps import remove_stale_temps

    folder = tmp_path / "characters"
    folder.mkdir()
    done = subprocess.run(["true"])
    dead = subprocess.Popen(["true"])
    dead.wait()
    gone = folder / f".iriel.toml.{dead.pid}.x1y2.tmp"
    gone.write_bytes(b"half")
    mine = folder / f".iriel.toml.{os.getpid()}.a1b2.tmp"  # a save being written right now
    mine.write_bytes(b"half")
    old = folder / ".iriel.toml.zzzz.tmp"  # no writer to ask: its age decides
    old.write_bytes(b"half")
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    keep = folder / "iriel.toml"
    keep.write_bytes(b"name = 'Iriel'")
    assert done.returncode == 0
    assert sorted(p.name for p in remove_stale_temps(tmp_path)) == sorted([gone.name, old.name])
    assert mine.exists() and keep.exists()


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_a_character_the_reader_would_refuse_is_not_written(suffix, tmp_path, make_character, catalogue):
    """By hand: the ability form took a 300-character name and saved it; the file then failed to
    open (files.name_length is 64). A save is read back as a load reads it first: DataError
    naming the key, and the good file there left as it was."""
    from horizon_tui.content.models import Ability, AbilityKind, Difficulty

    path = tmp_path / f"iriel{suffix}"
    good = make_character(xp=3)
    save_character(path, good, catalogue)
    before = path.read_bytes()
    bad = attrs.evolve(good, abilities=[Ability(name="Z" * 300, difficulty=Difficulty("II"),
                                                kind=AbilityKind.damage)])
    with pytest.raises(DataError) as caught:
        save_character(path, bad, catalogue)
    [problem] = caught.value.problems
    assert problem.key == "abilities.0.name" and "a name of 300 characters; at most 64" in problem.message
    assert path.read_bytes() == before and not store.backup_path(path, 1).exists()
    assert load_character(path, catalogue) == good
