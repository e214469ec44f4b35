"""One writer per save: the holder record, take-over and a second process."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from horizon_tui.storage.lock import LockLost, SaveInUse, SaveLock, read_holder


def test_second_holder_is_refused_and_told_who(tmp_path):
    save = tmp_path / "iriel.toml"
    first = SaveLock.acquire(save, "alice")
    with pytest.raises(SaveInUse) as caught:
        SaveLock.acquire(save, "bob")
    assert caught.value.holder.who == "alice"
    assert "already open" in str(caught.value)
    first.release()
    SaveLock.acquire(save, "bob").release()


def test_take_over_stops_the_old_holder_writing(tmp_path):
    save = tmp_path / "iriel.toml"
    old = SaveLock.acquire(save, "window 1")
    new = SaveLock.acquire(save, "window 2", take_over=True)
    with new.guard():
        save.write_text("new")
    with pytest.raises(LockLost), old.guard():
        save.write_text("old")  # never reached
    assert save.read_text() == "new"
    new.release()
    # Even after the taker closed, the old window's state is older than the file: still refused.
    with pytest.raises(LockLost), old.guard():
        pass


def test_a_dead_holder_is_stale(tmp_path):
    save = tmp_path / "c.json"
    code = textwrap.dedent(f"""
        from pathlib import Path
        from horizon_tui.storage.lock import SaveLock
        SaveLock.acquire(Path({str(save)!r}), "gone")  # exits without releasing
    """)
    subprocess.run([sys.executable, "-c", code], check=True)
    assert read_holder(save) is None
    SaveLock.acquire(save, "me").release()


def test_a_live_process_holds_it(tmp_path):
    save = tmp_path / "c.json"
    code = textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from horizon_tui.storage.lock import SaveLock
        SaveLock.acquire(Path({str(save)!r}), "other process")
        print("held", flush=True)
        sys.stdin.readline()
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        with pytest.raises(SaveInUse) as caught:
            SaveLock.acquire(save, "me")
        assert caught.value.holder.who == "other process"
    finally:
        proc.communicate("\n", timeout=10)


@pytest.mark.parametrize("record", ["[" * 2000 + "]" * 2000, "pipe", "zero"])
def test_a_damaged_owner_record_is_no_holder(tmp_path, record):
    """By hand: an owner record of 2,000 nested brackets (under its 4 KiB limit) raised
    RecursionError out of read_holder; a pipe in its place would block the app opening the save."""
    import os

    from horizon_tui.storage.lock import owner_path

    save = tmp_path / "c.json"
    save.write_text("{}")
    owner = owner_path(save)
    if record == "pipe":
        os.mkfifo(owner)
    elif record == "zero":
        owner.symlink_to("/dev/zero")
    else:
        owner.write_text(record)
    assert read_holder(save) is None
