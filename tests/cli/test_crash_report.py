"""Issue 13: an internal error exits 70 with one line naming a crash report, never a traceback;
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
