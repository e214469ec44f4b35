"""recording.py on its own: the asciicast v2 lines written, the size limit, pruning by age and by a
user's total, bad files named with their line, and replay's pacing and safety."""

from __future__ import annotations

import io
import json
import os
import time

import pytest

from horizon_tui.host.recording import (SIZE_LIMIT_MARK, CastError, Recorder, RecordingLimits, prune,
                                       read_cast, recording_path, replay)


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_events_are_asciicast_v2_lines_with_times_since_the_start(tmp_path):
    clock = Clock()
    path = recording_path(tmp_path, "alice", "s1")
    recorder = Recorder(path, 80, 24, term="xterm-256color", title="t", max_bytes=10_000, clock=clock)
    clock.now = 100.25
    recorder.output("é".encode()[:1])  # a character cut in two by a read is written whole
    recorder.output("é".encode()[1:] + b"\x1b[1mhi")
    clock.now = 101.5
    recorder.resize(100, 30)
    recorder.close()
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert header["version"] == 2 and (header["width"], header["height"]) == (80, 24)
    assert header["env"]["TERM"] == "xterm-256color"
    assert [json.loads(line) for line in lines[1:]] == [[0.25, "o", "é\x1b[1mhi"], [1.5, "r", "100x30"]]
    assert path.parent.parent.name == "alice" and path.suffix == ".cast"
    assert os.stat(path).st_mode & 0o777 == 0o600 and os.stat(path.parent).st_mode & 0o777 == 0o700


def test_a_recording_stops_at_its_size_limit_with_a_marker(tmp_path):
    path = tmp_path / "r.cast"
    recorder = Recorder(path, 80, 24, term="xterm", title="t", max_bytes=400, clock=Clock())
    for _ in range(20):
        recorder.output(b"x" * 40)
    recorder.close()
    assert recorder.stopped == SIZE_LIMIT_MARK
    _, events = read_cast(path)
    events = list(events)
    assert events[-1][1:] == ("m", SIZE_LIMIT_MARK)
    assert path.stat().st_size <= 400 + 100  # the limit, plus the marker line


def test_prune_removes_the_old_then_the_oldest_past_a_users_total(tmp_path):
    now = time.time()
    folder = tmp_path / "recordings" / "alice" / "2026-01-01"
    folder.mkdir(parents=True)
    ages = {"ancient": 40, "old": 3, "newer": 2, "newest": 1}  # days
    for name, days in ages.items():
        path = folder / f"{name}.cast"
        path.write_bytes(b"x" * 1000)
        os.utime(path, (now - days * 86400, now - days * 86400))
    other = tmp_path / "recordings" / "alice" / "notes.txt"
    other.write_text("mine")
    removed = prune(tmp_path, RecordingLimits(max_bytes=1, max_user_bytes=2000, keep_days=30), now=now)
    assert sorted(p.stem for p in removed) == ["ancient", "old"]  # 40 days; then 3000 > 2000 bytes
    assert sorted(p.stem for p in folder.glob("*.cast")) == ["newer", "newest"]
    assert other.exists()  # only recordings are touched


@pytest.mark.parametrize("text, message", [
    ("not json\n", ":1: the first line is not a JSON header"),
    ('{"version": 1, "width": 80, "height": 24}\n', ":1: version is 1"),
    ('{"version": 2, "width": 0, "height": 24}\n', ":1: width must be a whole number of cells, 1 to 10000"),
    ('{"version": 2, "width": 80, "height": 24}\n[0.1, "o", "a"]\n{"x": 1}\n', ":3: an event is [time, code, data]"),
    ('{"version": 2, "width": 80, "height": 24}\n[0.1, "o", "a"\n', ":2: not a JSON event"),
    ('{"version": 2, "width": 80, "height": 24}\n[-1, "o", "a"]\n', ":2: time -1 must be a number, 0 or more"),
    ('{"version": 2, "width": 80, "height": 24}\n[Infinity, "o", "a"]\n', ":2: time inf must be a number"),
])
def test_a_bad_file_is_refused_naming_its_line(tmp_path, text, message):
    path = tmp_path / "bad.cast"
    path.write_text(text)
    with pytest.raises(CastError, match=".*" + message.replace("[", r"\[").replace("]", r"\]")):
        header, events = read_cast(path)
        list(events)


def test_replay_keeps_the_pace_at_its_speed_cuts_long_pauses_and_drops_terminal_queries(tmp_path):
    path = tmp_path / "r.cast"
    path.write_text("\n".join([
        json.dumps({"version": 2, "width": 80, "height": 24}),
        json.dumps([1.0, "o", "one\x1b[?2026$p\x1b[?1003h"]),
        json.dumps([3.0, "o", "two\x1b["]),     # a sequence cut across two events
        json.dumps([3.5, "o", "c!"]),            # ... is a device-attributes query: dropped
        json.dumps([13.5, "r", "100x30"]),
        json.dumps([14.0, "o", "three"]),
    ]) + "\n")
    slept, out = [], io.StringIO()
    assert replay(path, speed=2.0, idle_limit=3.0, out=out, sleep=slept.append) == 4
    assert out.getvalue() == "onetwo!three"
    assert slept == [0.5, 1.0, 0.25, 1.5, 0.25]  # gaps 1, 2, 0.5, 10→3, 0.5, halved


def test_no_pause_of_a_replay_is_longer_than_a_day_and_hostile_arguments_are_refused(tmp_path, capsys):
    """By hand: `--speed 1e-308` crashed replay (a sleep past the clock's range): a pause is at
    most a day whatever the file says, and --speed and --idle-limit are held to sane ranges."""
    from horizon_tui.cli import main

    path = tmp_path / "r.cast"
    path.write_text(json.dumps({"version": 2, "width": 80, "height": 24}) + "\n" + json.dumps([1e300, "o", "x"]) + "\n")
    slept = []
    assert replay(path, speed=0.001, idle_limit=None, out=io.StringIO(), sleep=slept.append) == 1
    assert slept == [86_400.0]
    for args, message in ((["--speed", "1e-308"], "--speed must be a number from 0.001 to 1,000,000"),
                          (["--speed", "nan"], "--speed must be"), (["--idle-limit", "1e300"], "--idle-limit must be"),
                          (["--idle-limit", "-1"], "--idle-limit must be")):
        assert main(["replay", str(path), *args]) == 2
        assert message in capsys.readouterr().err


HEADER = json.dumps({"version": 2, "width": 80, "height": 24})


@pytest.mark.parametrize("text, message", [
    (HEADER + "\n[" + "9" * 400 + ', "o", "x"]\n', ":2: time 9999"),            # past a float's range
    (HEADER + "\n" + "[" * 100_000 + "]" * 100_000 + "\n", ":2: not a JSON event"),  # nested too deep
    ("[" * 100_000 + "]" * 100_000 + "\n", ":1: the first line is not a JSON header"),
    ('{"version": 2, "width": true, "height": 24}\n', ":1: width must be a whole number of cells"),
])
def test_a_damaged_recording_is_refused_naming_its_line_not_a_crash(tmp_path, text, message, capsys):
    """By hand: `horizon replay` of a damaged recording crashed (exit 70) on a time of 400 digits
    (OverflowError) and on a line of 100,000 brackets (RecursionError)."""
    from horizon_tui.cli import main

    path = tmp_path / "bad.cast"
    path.write_text(text)
    assert main(["replay", str(path), "--speed", "1000000"]) == 1
    assert message in capsys.readouterr().err


def test_replay_reads_only_a_plain_file_and_no_endless_line(tmp_path, capsys, monkeypatch):
    """By hand: `horizon replay /dev/zero` (or a pipe, or a link to /dev/zero) never ended, filling
    the memory with one endless line."""
    from horizon_tui.cli import main
    from horizon_tui.host import recording

    fifo = tmp_path / "pipe.cast"
    os.mkfifo(fifo)
    link = tmp_path / "zero.cast"
    link.symlink_to("/dev/zero")
    for path in (fifo, link, "/dev/zero"):
        assert main(["replay", str(path)]) == 1
        assert "not a plain file" in capsys.readouterr().err
    monkeypatch.setattr(recording, "LONGEST_LINE", 1000)
    long = tmp_path / "long.cast"
    long.write_text(HEADER + "\n" + json.dumps([0.1, "o", "x" * 2000]) + "\n")
    assert main(["replay", str(long), "--speed", "1000000"]) == 1
    assert ":2: a line longer than 1,000 characters" in capsys.readouterr().err


def test_replay_never_writes_the_replaying_terminals_clipboard(tmp_path):
    """By hand: a recording holding OSC 52 ('\\x1b]52;c;…\\x07') set the clipboard of whoever
    replayed it (what they paste next is the file's choice). The app never writes one."""
    path = tmp_path / "r.cast"
    path.write_text(HEADER + "\n" + json.dumps([0.1, "o", "a\x1b]52;c;cm0gLXJmIH4=\x07b\x1b]52;p;eA==\x1b\\c"]) + "\n")
    out = io.StringIO()
    replay(path, speed=1000.0, out=out, sleep=lambda s: None)
    assert out.getvalue() == "abc"
