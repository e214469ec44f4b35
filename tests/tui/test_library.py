"""The saves library and the encounter list, without a terminal."""

from __future__ import annotations

from pathlib import Path

from horizon_tui.play.library import CharacterLibrary, list_encounters, slugify


def test_slugify_makes_safe_file_names():
    assert slugify("Iriel of the Reeds") == "iriel-of-the-reeds"
    assert slugify("Ælfwine Þórr!") == "lfwine-orr"
    assert slugify("???") == "character"


def test_entries_are_newest_first_and_skip_backups(saves, catalogue, write_save, iriel_text):
    write_save("old.toml", iriel_text.replace("Iriel", "Old"), mtime=1_000_000_000)
    write_save("new.toml", iriel_text.replace("Iriel", "New"), mtime=2_000_000_000)
    write_save("new.toml.1", iriel_text, mtime=2_100_000_000)
    entries = CharacterLibrary(saves, catalogue).entries()
    assert [e.title for e in entries] == ["New", "Old"]
    assert entries[0].openable and entries[0].level == 2
    assert entries[0].summary == "Elf, level 2"


def test_a_broken_save_is_an_entry_with_its_problem(saves, catalogue, broken):
    (entry,) = CharacterLibrary(saves, catalogue).entries()
    assert entry.broken and not entry.openable
    assert entry.title == "broken"
    assert "broken TOML" in entry.problem_text


def test_a_save_with_only_loadout_problems_still_opens(saves, catalogue, write_save, iriel_text):
    write_save("x.toml", iriel_text.replace('loadout = ["Ember Lash"]', 'loadout = ["Ember Lash", "Ward", "Frost Nova"]'))
    (entry,) = CharacterLibrary(saves, catalogue).entries()
    assert entry.problems and entry.openable


def test_new_path_never_overwrites(saves, catalogue, iriel):
    library = CharacterLibrary(saves, catalogue)
    assert library.new_path("Iriel") == saves / "characters" / "iriel-2.toml"
    assert library.new_path("Bran") == saves / "characters" / "bran.toml"


def test_encounters_read_name_description_and_size(tmp_path: Path):
    folder = tmp_path / "encounters"
    folder.mkdir()
    (folder / "crypt.toml").write_text(
        'name = "The Crypt"\ndescription = "Bones."\ndifficulty = "hard"\nxp = 120\nwidth = 20\nheight = 14\n')
    (folder / "drawn.toml").write_text('map = """\n#####\n#...#\n#####\n"""\n')
    (folder / "bad.toml").write_text("name = [")
    entries = {e.id: e for e in list_encounters(folder)}
    crypt = entries["crypt"]
    assert (crypt.name, crypt.description, crypt.difficulty, crypt.xp, crypt.size) == (
        "The Crypt", "Bones.", "hard", 120, "20×14")
    assert entries["drawn"].name == "drawn" and entries["drawn"].size == "5×3"
    assert entries["bad"].problem and "can't be read" in entries["bad"].problem
    assert list_encounters(tmp_path / "missing") == []
