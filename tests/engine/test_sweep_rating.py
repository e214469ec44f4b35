"""`horizon sweep --rate`: the `[rating]` it writes is what it measured, and the rest of
the encounter file's text — comments included — is left as it was."""

from __future__ import annotations

import io
import json
import shutil
import sys
import tomllib
from pathlib import Path

import pytest

from horizon_tui.cli import main
from horizon_tui.content.encounters import Rating
from horizon_tui.errors import DataError

REPO = Path(__file__).resolve().parents[2]
PARTY = sorted(str(p) for p in (REPO / "examples" / "party").glob("*.toml"))
RATING = Rating(party_level=4, party_size=3, target_win_rate=0.75, measured_win_rate=0.8125, runs=64, seed=9)


def outside_rating(text: str) -> list[str]:
    """The file's lines but the `[rating]` table's own (its header to the next table)."""
    kept, inside = [], False
    for line in text.splitlines():
        if line.startswith("["):
            inside = line.startswith("[rating]")
        if not inside:
            kept.append(line)
    return kept


def test_rate_writes_what_the_sweep_measured(tmp_path):
    file = tmp_path / "goblin_ambush.toml"
    shutil.copy(REPO / "data" / "encounters" / "goblin_ambush.toml", file)
    before = file.read_text(encoding="utf-8")
    buffer, capture = io.StringIO(), pytest.MonkeyPatch()
    capture.setattr(sys, "stdout", buffer)
    try:
        assert main(["sweep", str(file), "--party", *PARTY, "--levels", "2,3", "--sizes", "1-2", "--runs", "6",
                     "--seed", "21", "--json", "--rate", "--workers", "1"]) == 0
    finally:
        capture.undo()
    doc = json.loads(buffer.getvalue())
    after = file.read_text(encoding="utf-8")
    assert outside_rating(after) == outside_rating(before)  # the file's own text, comments and all, untouched
    assert after.count("[rating]") == 1
    written = tomllib.loads(after)["rating"]
    reported = doc["ratings"]["goblin_ambush"]
    assert written == {k: v for k, v in reported.items() if k != "reached"}
    cell = next(r for r in doc["rows"] if (r["level"], r["size"]) == (written["party_level"], written["party_size"]))
    assert written["measured_win_rate"] == cell["win_rate"] and written["runs"] == cell["runs"] == 6
    assert (written["seed"], written["target_win_rate"]) == (21, doc["target_win_rate"])
    # The lowest level, then the smallest party, that reaches the target: nothing before it does.
    earlier = [r for r in doc["rows"] if (r["level"], r["size"]) < (written["party_level"], written["party_size"])]
    assert reported["reached"] is True and all(r["win_rate"] < doc["target_win_rate"] for r in earlier)
    # And the readers see it: the encounter set-up and the apps' helper.
    from horizon_tui.tools.simulate import encounter_rating

    assert encounter_rating(file) == Rating(**written)


def test_an_existing_rating_is_replaced_in_place_keeping_comments_around_it():
    from horizon_tui.tools.sweep.rating import with_rating

    text = ('name = "Ford"  # the name\n\n[rating]  # measured\nparty_level = 2  # old\nparty_size = 4\n'
            'runs = 10\n\n# the map follows\n[map]\nrows = """\n[rating]\n..\n"""\n')
    new = with_rating(text, RATING)
    assert new.splitlines()[:5] == ['name = "Ford"  # the name', "", "[rating]  # measured", "party_level = 4  # old",
                                    "party_size = 3"]
    assert "# the map follows\n[map]\nrows = \"\"\"\n[rating]\n..\n\"\"\"\n" in new
    assert tomllib.loads(new)["rating"] == {"party_level": 4, "party_size": 3, "runs": 64, "target_win_rate": 0.75,
                                            "measured_win_rate": 0.8125, "seed": 9}


def test_a_rating_written_another_way_is_refused_and_the_file_left_alone(tmp_path):
    from horizon_tui.tools.sweep.rating import write_rating

    file = tmp_path / "odd.toml"
    text = 'name = "Odd"\nrating = { party_level = 1 }\n[map]\ngenerator = "open"\nwidth = 12\nheight = 12\n'
    file.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as caught:
        write_rating(file, RATING)
    assert "[rating]" in str(caught.value.problems[0])
    assert file.read_text(encoding="utf-8") == text


def test_a_json_encounter_gets_a_rating_key(tmp_path):
    from horizon_tui.tools.sweep.rating import read_rating, write_rating

    file = tmp_path / "open.json"
    file.write_text(json.dumps({"name": "Open", "map": {"generator": "open", "width": 12, "height": 12, "seed": 1},
                                "enemies": [{"enemy": "goblin"}]}), encoding="utf-8")
    write_rating(file, RATING)
    assert read_rating(file) == RATING



def test_shipped_encounters_carry_ratings():
    """`horizon sweep data/encounters/*.toml --rate` was run for the example party (README)."""
    from horizon_tui.content.encounters import list_encounters, read_encounter_file

    for path in list_encounters(REPO / "data"):
        rating = read_encounter_file(path)[0].rating
        assert rating is not None, path.name
        assert rating.party_level >= 2 and 1 <= rating.party_size and rating.runs >= 100


def test_a_file_without_a_rating_gets_one_added_at_the_end():
    from horizon_tui.tools.sweep.rating import with_rating

    text = 'name = "Ford"\n# the map\n[map]\ngenerator = "open"  # flat\nwidth = 12\nheight = 12'  # no final newline
    new = with_rating(text, RATING)
    assert new.startswith(text + "\n\n")
    assert tomllib.loads(new)["map"] == {"generator": "open", "width": 12, "height": 12}
    assert tomllib.loads(new)["rating"]["party_level"] == 4



def test_a_file_that_cant_be_written_is_a_clear_error_and_stays(tmp_path, monkeypatch):
    from horizon_tui.tools.sweep import rating
    from horizon_tui.tools.sweep.rating import write_rating

    file = tmp_path / "wolves.toml"
    shutil.copy(REPO / "data" / "encounters" / "wolves.toml", file)
    before = file.read_text(encoding="utf-8")

    def refuse(path, data):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(rating, "atomic_write", refuse)  # as an installed, read-only data folder does
    with pytest.raises(DataError) as caught:
        write_rating(file, RATING)
    assert "can't write the rating into the file: Permission denied" in str(caught.value.problems[0])
    assert file.read_text(encoding="utf-8") == before
