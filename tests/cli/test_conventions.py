"""What a Python CLI/TUI user expects: --version, python -m, examples in every --help, NO_COLOR,
and `textual run --dev` targets for both apps."""

from __future__ import annotations

import importlib
import io
import subprocess
import sys

import pytest

from horizon_tui import __version__
from horizon_tui.cli import build_parser
from horizon_tui.cli_help import EXAMPLES
from horizon_tui.terminal import wants_color


def test_version_is_the_installed_one(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as done:
        build_parser().parse_args(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"horizon {version('horizon-tui')}" == f"horizon {__version__}"


def test_python_dash_m_runs_the_cli():
    done = subprocess.run([sys.executable, "-m", "horizon_tui", "--version"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"horizon {__version__}"


def test_every_subcommand_shows_examples():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    missing = [name for name in sub.choices if name not in EXAMPLES]
    assert missing == [], f"add examples for {missing} to horizon_tui/cli_help.py"
    for name, child in sub.choices.items():
        text = child.format_help()
        assert "examples:" in text and f"horizon {name}" in text, name
    assert "exit codes" in parser.format_help()


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_color_is_honoured(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert wants_color(_Tty()) and not wants_color(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not wants_color(_Tty())


@pytest.mark.parametrize("module", ["horizon_tui.ui.player.dev", "horizon_tui.ui.gm.dev"])
def test_textual_run_dev_targets_give_an_app(module):
    from textual.app import App

    assert isinstance(importlib.import_module(module).app, App)


def test_every_nested_subcommand_shows_examples():
    """By hand: `horizon users add --help` (and list, role, remove) showed no example."""
    parser = build_parser()

    def subparsers(p):
        return [a for a in p._actions if a.__class__.__name__ == "_SubParsersAction"]

    [top] = subparsers(parser)
    for name, child in top.choices.items():
        for nested in subparsers(child):
            for inner, grandchild in nested.choices.items():
                text = grandchild.format_help()
                assert "examples:" in text and f"horizon {name} {inner}" in text, f"{name} {inner}"


def test_no_help_shows_a_doubled_percent_sign():
    """By hand: `horizon sweep --help` said 'its 95%% interval' (a description is not %-formatted)."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, child in sub.choices.items():
        assert "%%" not in child.format_help(), name


def test_roll_help_says_each_argument_and_how_to_roll_a_negative_expression(capsys):
    """By hand: `horizon roll -1d6` said only 'the following arguments are required: expr', and
    `horizon roll --help` said nothing of expr, --seed or --json."""
    with pytest.raises(SystemExit):
        build_parser().parse_args(["roll", "--help"])
    text = capsys.readouterr().out
    assert "horizon roll -- -1d4" in text and "the same seed, the same roll" in text and "one JSON object" in text
