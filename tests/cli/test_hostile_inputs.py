"""What a hostile or careless user still broke through the command line (found by hand, one test
each): every one is now exit 1 with a message naming the file and the key, or accepted as meant."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from horizon_tui.cli import main

IRIEL = Path(__file__).resolve().parents[2] / "examples" / "party" / "iriel.toml"

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


def caves(tmp_path, seed: int):
    folder = tmp_path / "encounters"
    folder.mkdir(exist_ok=True)
    path = folder / "caves.toml"
    path.write_text(f'name = "Caves"\n[map]\ngenerator = "caves"\nwidth = 16\nheight = 16\nseed = {seed}\n'
                    '[[enemies]]\nenemy = "wolf"\n', encoding="utf-8")
    return path


@pytest.mark.parametrize("seed", [-1, -(2**64), 2**40, 2**64])
def test_a_generated_map_takes_every_seed_its_range_allows(seed, tmp_path, capsys):
    """By hand: `seed = -1` under a caves [map] crashed validate and battle (exit 70, numpy takes no
    negative seed), and `seed = 2**40` was refused as out of ±10^9 (ranges.whole), though a map's
    seed is held to ranges.seed (±2^64)."""
    path = caves(tmp_path, seed)
    code, out, err = run(capsys, "validate", str(path))
    assert (code, err) == (0, ""), out


def test_negative_and_positive_seeds_give_other_caves(tmp_path):
    from horizon_tui.engine import mapgen

    one, minus_one = mapgen.generate("caves", 16, 16, 1), mapgen.generate("caves", 16, 16, -1)
    assert one.terrain.tobytes() != minus_one.terrain.tobytes()
    assert minus_one.terrain.tobytes() == mapgen.generate("caves", 16, 16, -1).terrain.tobytes()


@pytest.mark.parametrize("name", ["iriel.toml", "iriel.json"])
def test_a_byte_order_mark_is_read_past(name, write_character, example_data, tmp_path, capsys):
    """By hand: a character saved by Windows Notepad (UTF-8 with a BOM) was refused as
    'broken TOML: Invalid statement (column 1)' / 'Unexpected UTF-8 BOM (decode using utf-8-sig)'."""
    path = write_character(example_data(), name)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    code, out, err = run(capsys, "sheet", str(path), "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["name"] == "Iriel"


def test_a_key_written_twice_in_json_is_refused_not_half_read(write_character, example_data, capsys):
    """By hand: TOML refuses a key written twice, but a JSON character with "xp" twice was read
    with the last one, silently; the first was lost."""
    text = json.dumps(example_data()).replace('"xp": 0', '"xp": 5000, "xp": 0')
    path = write_character(text, "iriel.json")
    code, out, err = run(capsys, "sheet", str(path))
    assert code == 1 and out == ""
    assert f"{path}:1: xp: " in err and "twice" in err
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 1 and "xp" in out and "twice" in out


def test_sweep_report_path_is_checked_before_the_sweep_runs(tmp_path, capsys, monkeypatch):
    """By hand: `sweep --report DIR` or `--report missing/x.html` crashed (exit 70) after the whole
    sweep had run, its results lost; `--report pipe` never ended; `--report iriel.toml` would
    have written HTML over a character. Now each is refused at once, before a battle is played."""
    from horizon_tui.tools.sweep import sweep_command

    monkeypatch.setattr(sweep_command, "_run", lambda *a: pytest.fail("the sweep ran"))
    party = str(IRIEL)
    fifo = tmp_path / "pipe.html"
    os.mkfifo(fifo)
    character = tmp_path / "iriel.toml"
    character.write_text("name = 'Iriel'\n")
    folder = tmp_path / "folder.html"
    folder.mkdir()
    for report, words in ((folder, "is a folder"), (tmp_path / "missing" / "x.html", "no such folder"),
                          (fifo, "not a plain file"), (character, "FILE.html")):
        code, out, err = run(capsys, "sweep", "wolves", "--party", party, "--levels", "2", "--runs", "1",
                             "--report", str(report))
        assert code == 2 and out == "" and words in err, err
    assert character.read_text() == "name = 'Iriel'\n"


def test_sweep_report_that_cant_be_written_still_prints_the_results(tmp_path, capsys, monkeypatch):
    """A report that fails at the end (a full disk) is said in a line, the rows still printed."""
    from horizon_tui.storage import atomic

    def full(path, data):
        raise atomic.SaveError(28, f"{path} can't be saved: the disk is full; nothing was written")

    monkeypatch.setattr(atomic, "atomic_write", full)
    code, out, err = run(capsys, "sweep", "goblin_ambush", "--party", str(IRIEL), "--levels", "2",
                         "--runs", "1", "--seed", "1", "--json", "--report", str(tmp_path / "r.html"))
    assert code == 1 and "the disk is full" in err
    assert json.loads(out)["rows"]


def test_sweep_policy_file_that_is_not_there_is_refused_not_replaced_by_the_defaults(tmp_path, capsys, monkeypatch):
    """By hand: `sweep --policy my-policy.tomll` (a typo) ran the sweep with the default policy,
    saying nothing; only the data folder's own sweep.toml may be absent."""
    from horizon_tui.tools.sweep import sweep_command

    monkeypatch.setattr(sweep_command, "_run", lambda *a: pytest.fail("the sweep ran"))
    missing = tmp_path / "my-policy.tomll"
    code, out, err = run(capsys, "sweep", "wolves", "--party", str(IRIEL), "--levels", "2", "--runs", "1",
                         "--policy", str(missing))
    assert code == 1 and out == "" and f"{missing}" in err and "no such file" in err


@pytest.mark.parametrize("command", [["battle", "wolves", "--seed", "1"], ["simulate", "wolves", "--runs", "2"]])
def test_two_party_members_of_one_name_are_refused(command, tmp_path, capsys):
    """By hand: `battle wolves --party iriel.toml iriel.toml` ended '"xp": {"Iriel": 20}', one
    entry for two characters (the result, survivors and XP are by name, INTERFACES.md)."""
    other = tmp_path / "other.toml"
    other.write_text(IRIEL.read_text(encoding="utf-8"), encoding="utf-8")
    code, out, err = run(capsys, *command[:2], "--party", str(IRIEL), str(other), *command[2:])
    assert code == 1 and out == ""
    assert f"{other}: name: " in err and "'Iriel'" in err and str(IRIEL) in err


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_terminal_that_is_not_utf8_gets_escapes_not_a_crash(encoding, tmp_path):
    """By hand: with PYTHONIOENCODING=ascii (or latin-1: a terminal that isn't UTF-8) every
    command crashed (exit 70) on its first '—' or '–'; `--json` stays valid JSON, losing nothing."""
    import subprocess
    import sys

    character = tmp_path / "moth.toml"
    character.write_text(IRIEL.read_text(encoding="utf-8").replace('"Iriel"', '"Mötħ 🦋"'), encoding="utf-8")
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    for argv in (["roll", "2d6", "--seed", "1"], ["rules"], ["sheet", str(character)]):
        done = subprocess.run([sys.executable, "-m", "horizon_tui", *argv], capture_output=True, env=env, timeout=60)
        assert done.returncode == 0, done.stderr.decode(errors="replace")[-500:]
    done = subprocess.run([sys.executable, "-m", "horizon_tui", "sheet", str(character), "--json"],
                          capture_output=True, env=env, timeout=60)
    assert done.returncode == 0 and json.loads(done.stdout.decode(encoding))["name"] == "Mötħ 🦋"


def test_a_file_name_that_is_not_utf8_is_shown_not_a_crash(tmp_path):
    """By hand: on a UTF-8 terminal whose stdout is strict (en_US.UTF-8), `horizon validate` of a
    file named with a byte that isn't UTF-8 crashed (exit 70), and the crash report could not be
    written either (the command line holds the same byte)."""
    import subprocess
    import sys

    bad = os.fsdecode(bytes(tmp_path) + b"/bad\xfe.toml")
    Path(bad).write_text('name = ""\n', encoding="utf-8")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    done = subprocess.run([sys.executable, "-m", "horizon_tui", "validate", bad], capture_output=True, env=env,
                          timeout=60)
    assert done.returncode == 1, done.stderr
    assert b"bad\\udcfe.toml" in done.stdout


def test_a_crash_report_is_written_whatever_the_command_line_holds(monkeypatch):
    from horizon_tui import crash

    monkeypatch.setattr(sys, "argv", ["horizon", "sheet", "bad\udcfe.toml"])
    report = crash.write_report(RuntimeError("boom"), "horizon sheet")
    assert report is not None and "bad\\udcfe.toml" in report.read_text(encoding="utf-8")


MARKUP = "Iri[/]el [bold]"  # Rich markup: a closing tag with nothing open raises; [bold] restyles


def markup_party(tmp_path) -> Path:
    path = tmp_path / "markup.toml"
    text = IRIEL.read_text(encoding="utf-8").replace('"Iriel"', f'"{MARKUP}"').replace('"Opening Cut"', '"Cut [/i]"')
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("command", [
    ["sheet"], ["simulate", "wolves", "--runs", "2", "--seed", "1", "--party"],
])
def test_names_are_printed_as_written_never_read_as_markup(command, tmp_path, capsys):
    """By hand: a character called 'Iri[/]el' crashed `horizon sheet` and `horizon simulate`
    (exit 70, Rich's MarkupError), and '[blink red]Iriel' was shown as 'Iriel', blinking."""
    code, out, err = run(capsys, *command, str(markup_party(tmp_path)))
    assert (code, err) == (0, "")
    assert MARKUP in out.replace("\n", " ") or MARKUP.strip() in out
    assert "Cut [/i]" in out


def test_sweep_prints_an_encounter_id_with_brackets_as_it_is(tmp_path, capsys):
    folder = tmp_path / "encounters"
    folder.mkdir()
    source = Path(__file__).resolve().parents[2] / "data" / "encounters" / "goblin_ambush.toml"
    path = folder / "ambush[bold].toml"
    path.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    code, out, err = run(capsys, "sweep", str(path), "--party", str(IRIEL), "--levels", "2", "--runs", "1",
                         "--seed", "1")
    assert code == 0, err
    assert "│ ambush[bold] " in out  # its row of the table


@pytest.mark.parametrize("argv", [
    ["sheet", ""], ["validate", ""], ["validate", "data", " "], ["rules", "--rules-file", ""],
    ["battle", "wolves", "--party", ""], ["simulate", "wolves", "--runs", "1", "--party", ""],
    ["sweep", "wolves", "--levels", "2", "--runs", "1", "--party", ""], ["replay", ""],
    ["users", "list", "--data-dir", ""], ["--saves", "", "sheet", "x.toml"],
])
def test_an_empty_path_is_bad_usage_not_the_current_folder(argv, capsys):
    """By hand: `horizon validate "$UNSET"` checked every file under the current folder (an empty
    path is '.'), `horizon sheet ""` said '.: is not a plain file'; `--saves ""` would have kept
    saves in the current folder."""
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2
    assert "an empty path" in capsys.readouterr().err


@pytest.mark.parametrize("file, old, new, key", [
    ("rules.toml", 'initiative_die = "1d6"', 'initiative_die = "x"', "turns.initiative_die"),
    ("rules.toml", "diagonal_cost = 1 ", "diagonal_cost = -1 ", "turns.diagonal_cost"),
    ("rules.toml", 'formula = "weapon + strength*1.2', 'formula = "x + strength*1.2', "attack.formula"),
    ("weapons.toml", 'damage = "1d6"', 'damage = "x"', ".damage"),       # the knife, a goblin's
    ("armor.toml", "class = 10", "class = -1", "padded.class"),
])
@pytest.mark.parametrize("command", [["battle", "wolves", "--seed", "1"], ["simulate", "wolves", "--runs", "2"],
                                     ["sheet"]])
def test_a_game_masters_broken_rules_file_is_reported_by_battle_and_simulate(
        command, file, old, new, key, tmp_path, data_dir, capsys, monkeypatch):
    """By hand: with `initiative_die = "x"` or `diagonal_cost = -1` in the data folder's
    rules.toml, `horizon battle` crashed (exit 70: DiceError, tcod's ValueError), and with
    `formula = "x + …"` so did `horizon sheet` (FormulaError), though validate and sweep name the key;
    so did a weapon's `damage = "x"` or an armor's `class = -1` in the catalogue (KeyError)."""
    import shutil

    from horizon_tui.content import catalogue

    root = tmp_path / "data"
    shutil.copytree(data_dir, root)
    rules = root / file
    text = rules.read_text(encoding="utf-8")
    assert old in text
    rules.write_text(text.replace(old, new), encoding="utf-8")
    monkeypatch.setenv("HORIZON_DATA", str(root))
    monkeypatch.setattr(catalogue, "_cache", {})
    argv = [*command, str(IRIEL)] if command == ["sheet"] else [*command[:2], "--party", str(IRIEL), *command[2:]]
    code, out, err = run(capsys, *argv)
    assert code == 1 and out == ""
    assert f"{rules}:" in err and key in err


def test_sweep_rate_writes_through_a_link_into_the_file_it_names(tmp_path, capsys):
    """By hand: `sweep encounters/amb.toml --rate`, amb.toml a symbolic link to the GM's own file,
    replaced the link with a rated copy and left the GM's file as it was."""
    source = Path(__file__).resolve().parents[2] / "data" / "encounters" / "goblin_ambush.toml"
    real = tmp_path / "mine" / "amb.toml"
    real.parent.mkdir()
    real.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    link = tmp_path / "encounters" / "amb.toml"
    link.parent.mkdir()
    link.symlink_to(real)
    code, _, err = run(capsys, "sweep", str(link), "--party", str(IRIEL), "--levels", "2", "--runs", "2",
                       "--seed", "1", "--rate", "--json")
    assert code == 0, err
    assert link.is_symlink() and link.resolve() == real
    assert "runs = 2" in real.read_text(encoding="utf-8")


@pytest.mark.parametrize("old, new, key", [
    ('armor = "padded"', 'armor = { name = "X", class = 0 }', "armor.class"),
    ('weapon = "knife"', 'weapon = { name = "K", kind = "bow", damage = "x" }', "weapon.damage"),
    ('loadout = ["Dirty Stab", "Ankle Cut"]', 'loadout = ["Nope"]', "loadout"),
])
@pytest.mark.parametrize("command", [["battle", "goblin_ambush", "--seed", "1"],
                                     ["simulate", "goblin_ambush", "--runs", "2"],
                                     ["sweep", "goblin_ambush", "--levels", "2", "--runs", "1"]])
def test_a_game_masters_broken_enemy_file_is_reported_by_battle_simulate_and_sweep(
        command, old, new, key, tmp_path, data_dir, capsys, monkeypatch):
    """By hand: a goblin.toml with armor class 0 or a weapon's damage = "x" crashed `horizon battle
    goblin_ambush` (exit 70), and one slotting an ability it hasn't ('Nope') fought on, though
    `horizon validate` names each."""
    import shutil

    from horizon_tui.content import catalogue

    root = tmp_path / "data"
    shutil.copytree(data_dir, root)
    goblin = root / "enemies" / "goblin.toml"
    text = goblin.read_text(encoding="utf-8")
    assert old in text
    goblin.write_text(text.replace(old, new), encoding="utf-8")
    monkeypatch.setenv("HORIZON_DATA", str(root))
    monkeypatch.setattr(catalogue, "_cache", {})
    code, out, err = run(capsys, *command[:2], "--party", str(IRIEL), *command[2:])
    assert code == 1 and out == ""
    assert f"{goblin}:" in err and key in err


def test_a_file_name_or_key_with_control_characters_is_one_line_of_plain_text(tmp_path, capsys):
    """By hand: `horizon validate $'bad\\nname.toml'` split its problem over two lines (one line per
    problem, the contract), and a file named with an escape sequence ('\\x1b[31m', or a terminal
    title or clipboard one) was written raw to the terminal."""
    names = ["bad\nname.toml", "bad\x1b[31mred.toml", "bad\x1b]52;c;aGk=\x07.toml"]
    for name in names:
        (tmp_path / name).write_text('name = ""\nspecies = "human"\nweapon = "dagger"\n[attributes]\n"\\u001b[2J" = 1\n')
    code, out, _ = run(capsys, "validate", *(str(tmp_path / n) for n in names))
    assert code == 1
    assert "\x1b" not in out and "\x07" not in out
    lines = out.splitlines()
    assert all(line.startswith(str(tmp_path)) for line in lines)
    assert any("bad\\nname.toml:" in line for line in lines) and any("\\x1b[2J" in line for line in lines)


@pytest.mark.parametrize("answer", [b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", None])
def test_sweep_scheduler_that_is_not_dask_is_refused_in_a_line(answer, capsys, monkeypatch):
    """By hand: `sweep --scheduler tcp://HOST:PORT` naming a web server crashed (exit 70: Dask read
    its answer as a 3 EiB message, MemoryError); naming a service that answers nothing waited for
    ever. Now exit 1 'can't reach the Dask scheduler at …' after at most the probe's wait."""
    import socket
    import threading

    from horizon_tui.tools.sweep import work

    monkeypatch.setattr(work, "PROBE_SECONDS", 1.0)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    held = []

    def serve():
        while True:
            try:
                peer, _ = server.accept()
            except OSError:
                return
            held.append(peer)
            if answer:
                peer.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    try:
        code, out, err = run(capsys, "sweep", "goblin_ambush", "--party", str(IRIEL), "--levels", "2", "--runs", "1",
                             "--scheduler", f"tcp://127.0.0.1:{server.getsockname()[1]}")
    finally:
        server.close()
    assert code == 1 and out == ""
    assert "can't reach the Dask scheduler" in err and "not a Dask scheduler" in err


@pytest.mark.parametrize("command", [["sheet", str(IRIEL)], ["validate", str(IRIEL)],
                                     ["battle", "wolves", "--party", str(IRIEL)]])
def test_a_broken_limits_file_is_reported_not_a_crash(command, tmp_path, data_dir, capsys, monkeypatch):
    """Found mutating limits.toml: `nesting = 0` (or any problem in it) made every command crash
    (exit 70, RecursionError): reporting its problems asked for the limits in force, which read
    the same broken file again."""
    import shutil

    from horizon_tui.content import catalogue, guard

    root = tmp_path / "data"
    shutil.copytree(data_dir, root)
    limits = root / "limits.toml"
    limits.write_text(limits.read_text(encoding="utf-8").replace("nesting = 32 ", "nesting = 0 "), encoding="utf-8")
    monkeypatch.setenv("HORIZON_DATA", str(root))
    monkeypatch.setattr(catalogue, "_cache", {})
    monkeypatch.setattr(guard, "_cache", {})
    code, out, err = run(capsys, *command)
    assert code == 1
    assert f"{limits}:10: files.nesting: a whole number from 1 to 10^9, not 0" in out + err
