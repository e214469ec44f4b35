"""`horizon simulate` (issue 4, INTERFACES.md): the same summary whatever the number of worker
processes, the keys INTERFACES.md promises, and no progress bar when the output isn't a terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from horizon_tui.cli import main

PARTY = sorted(str(p) for p in (Path(__file__).resolve().parents[2] / "examples" / "party").glob("*.toml"))
SMALL = "goblin_ambush"  # 12×12, a handful of goblins: a dozen battles take well under a second


def simulate(capsys, *extra: str) -> tuple[int, str, str]:
    code = main(["simulate", SMALL, "--party", *PARTY, "--runs", "12", "--seed", "7", *extra])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def summaries() -> dict[int, dict]:
    """The JSON summary with 1 and with 2 workers (run once for the module's tests)."""
    found = {}
    capture = pytest.MonkeyPatch()
    for workers in (1, 2):
        import io
        import sys

        buffer = io.StringIO()
        capture.setattr(sys, "stdout", buffer)
        try:
            assert main(["simulate", SMALL, "--party", *PARTY, "--runs", "12", "--seed", "7",
                         "--workers", str(workers), "--json"]) == 0
        finally:
            capture.undo()
        lines = buffer.getvalue().splitlines()
        assert len(lines) == 1  # one JSON object, nothing else on stdout
        found[workers] = json.loads(lines[0])
    return found


def test_simulate_gives_the_same_json_with_one_or_two_workers(summaries):
    one, two = (dict(summaries[k]) for k in (1, 2))
    assert one.pop("battles_per_second") > 0 and two.pop("battles_per_second") > 0
    assert one == two


def test_simulate_json_has_the_interfaces_keys(summaries):
    summary = summaries[1]
    assert {"runs", "seed", "win_rate", "draws", "rounds", "survivors", "damage_by_ability",
            "battles_per_second"} <= set(summary)
    assert (summary["runs"], summary["seed"]) == (12, 7)
    assert 0 <= summary["win_rate"] <= 1 and 0 <= summary["draws"] <= 12
    assert set(summary["rounds"]) == {"mean", "p50", "p90"}
    assert summary["rounds"]["p50"] <= summary["rounds"]["p90"]
    assert set(summary["survivors"]) == {"Brakka", "Iriel", "Morwen", "Sefa"}
    assert all(0 <= share <= 1 for share in summary["survivors"].values())
    assert summary["damage_by_ability"] and all(v >= 0 for v in summary["damage_by_ability"].values())


def test_simulate_shows_no_progress_bar_when_not_a_terminal(capsys):
    code, out, err = simulate(capsys, "--workers", "1")
    assert code == 0
    assert "Party wins" in out and "Rounds: mean" in out
    for mark in ("12/12", "\r", "\x1b"):  # the bar's count, carriage returns, terminal control codes
        assert mark not in out and mark not in err


def test_simulate_refuses_bad_input(capsys):
    assert main(["simulate", SMALL, "--party", *PARTY, "--runs", "0"]) == 2
    assert "--runs must be at least 1" in capsys.readouterr().err
    assert main(["simulate", "goblin_ambsh", "--party", *PARTY, "--runs", "1"]) == 1
    assert "goblin_ambush" in capsys.readouterr().err  # did you mean
