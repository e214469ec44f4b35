"""The user's keymap file, damaged: reported as a problem, never a crash or a wait at start."""

from __future__ import annotations

import os

import pytest

from horizon_tui.play.keymap import load_keymap


@pytest.mark.parametrize("kind", ["deep", "deep_table", "pipe", "zero", "folder", "binary"])
def test_a_damaged_keymap_file_is_a_problem_not_a_crash(kind, tmp_path):
    """By hand: a keymap.toml of 10,000 nested brackets crashed the player app at every start
    (RecursionError in tomllib); one that was a pipe kept it waiting, a link to /dev/zero would
    have been read whole."""
    path = tmp_path / "keymap.toml"
    if kind == "deep":
        path.write_text("x = " + "[" * 10_000 + "]" * 10_000)
    elif kind == "deep_table":
        path.write_text("a = " + "{b = " * 3000 + "1" + "}" * 3000)
    elif kind == "pipe":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()
    else:
        path.write_bytes(b"\xff\xfe\x00")
    keymap, problems, _ = load_keymap(path)
    assert keymap == {} and len(problems) == 1 and problems[0].file == str(path)
