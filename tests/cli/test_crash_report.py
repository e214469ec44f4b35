"""An internal error exits 70 with one line naming a crash report, never a traceback;
a problem with the input stays exit 1."""

from __future__ import annotations


from horizon_tui import cli, paths


def test_an_unexpected_exception_writes_a_crash_report_and_exits_70(monkeypatch, capsys):
    def boom(args):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(cli, "cmd_roll", boom)
    assert cli.main(["roll", "1d6"]) == 70
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "internal error" in err
    [report] = list(paths.crash_reports_dir().glob("crash-*.txt"))
    assert str(report) in err
    text = report.read_text(encoding="utf-8")
    from horizon_tui import __version__

    assert f"Horizon {__version__} crash report" in text and "ZeroDivisionError: a bug" in text
    assert "Traceback (most recent call last)" in text


def test_bad_input_stays_exit_1(tmp_path, capsys):
    path = tmp_path / "c.toml"
    path.write_text("xp = " + "[" * 1000 + "]" * 1000 + "\n", encoding="utf-8")
    assert cli.main(["sheet", str(path)]) == 1
    assert "nested too deeply" in capsys.readouterr().err
    assert not paths.crash_reports_dir().exists()


def _crashing_once(factory, crashes: list):
    """`factory`'s app, run headless by a pilot: a bug in a handler, the crash screen, quit."""

    def make(*args, **kwargs):
        app = factory(*args, **kwargs)

        def bug():
            crashes.append(type(app.screen).__name__)
            raise ZeroDivisionError("a bug in a handler")

        async def drive(pilot):
            await pilot.pause()
            app.screen.call_later(bug)  # a bug in a screen's handler
            for _ in range(200):  # the crash screen is pushed from Textual's error hook
                await pilot.pause(0.02)
                if type(app.screen).__name__ == "CrashScreen":
                    break
            crashes.append(type(app.screen).__name__)
            await pilot.press("q")  # the crash screen's q quits (the app still takes keys)

        run = app.run
        app.run = lambda: run(headless=True, size=(80, 24), auto_pilot=drive)
        return app

    return make


def test_the_player_app_exits_70_after_a_crash_inside_it(monkeypatch, tmp_path, capsys):
    from horizon_tui.ui.player import app as player_app

    crashes: list = []
    monkeypatch.setattr(player_app, "create_app", _crashing_once(player_app.create_app, crashes))
    assert cli.main(["--saves", str(tmp_path / "saves"), "play"]) == 70
    assert crashes == ["MainMenuScreen", "CrashScreen"]  # the app showed the crash, then quit
    err = capsys.readouterr().err
    [report] = list(paths.crash_reports_dir().glob("crash-*.txt"))
    assert err == f"horizon: internal error (a bug, not your input); crash report: {report}\n"
    assert "ZeroDivisionError: a bug in a handler" in report.read_text(encoding="utf-8")


def test_the_gm_tool_exits_70_after_a_crash_inside_it(monkeypatch, tmp_path, capsys):
    from horizon_tui.ui.gm import app as gm_app

    crashes: list = []
    monkeypatch.setattr(gm_app, "create_gm_app", _crashing_once(gm_app.create_gm_app, crashes))
    assert cli.main(["--saves", str(tmp_path / "saves"), "gm"]) == 70
    assert crashes[-1] == "CrashScreen"
    [report] = list(paths.crash_reports_dir().glob("crash-*.txt"))
    assert str(report) in capsys.readouterr().err


def test_an_app_that_quits_without_a_crash_exits_0(monkeypatch, tmp_path):
    from horizon_tui.ui.player import app as player_app

    factory = player_app.create_app

    def make(*args, **kwargs):
        app = factory(*args, **kwargs)

        async def drive(pilot):
            await pilot.pause()
            await pilot.press("q")

        run = app.run
        app.run = lambda: run(headless=True, size=(80, 24), auto_pilot=drive)
        return app

    monkeypatch.setattr(player_app, "create_app", make)
    assert cli.main(["--saves", str(tmp_path / "saves"), "play"]) == 0
    assert not paths.crash_reports_dir().exists()


class _HungUp:
    """stderr once the terminal has gone (the SSH connection or the window closed)."""

    def __init__(self, errno_: int):
        self.errno_ = errno_

    def write(self, text):
        raise OSError(self.errno_, "Input/output error")

    def flush(self):
        raise OSError(self.errno_, "Input/output error")


def test_a_crash_whose_terminal_has_gone_still_exits_70_with_one_report(monkeypatch, tmp_path):
    # by hand: a GM closed the terminal on the crash screen, and printing the report's line on
    # the way out failed with EIO, which wrote a second crash report about the first
    import errno
    import sys

    from horizon_tui.ui.gm import app as gm_app

    crashes: list = []
    monkeypatch.setattr(gm_app, "create_gm_app", _crashing_once(gm_app.create_gm_app, crashes))
    monkeypatch.setattr(sys, "stderr", _HungUp(errno.EIO))
    assert cli.main(["--saves", str(tmp_path / "saves"), "gm"]) == 70
    assert len(list(paths.crash_reports_dir().glob("crash-*.txt"))) == 1


def test_telling_a_terminal_that_has_gone_drops_the_lines_but_other_errors_are_raised():
    import errno

    import pytest

    from horizon_tui.terminal import tell

    for gone in (errno.EIO, errno.ENXIO, errno.EPIPE):
        tell("a line", stream=_HungUp(gone))
    with pytest.raises(OSError):
        tell("a line", stream=_HungUp(errno.ENOSPC))
