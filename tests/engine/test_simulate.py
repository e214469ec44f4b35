"""`horizon simulate` (INTERFACES.md): the same summary whatever the number of worker
processes, the keys INTERFACES.md promises, and no progress bar when the output isn't a terminal."""

from __future__ import annotations

import json
import re
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


def test_simulate_refuses_bad_input(capsys, tmp_path):
    assert main(["simulate", SMALL, "--party", *PARTY, "--runs", "0"]) == 2
    assert "--runs must be at least 1" in capsys.readouterr().err
    assert main(["simulate", "goblin_ambsh", "--party", *PARTY, "--runs", "1"]) == 1
    assert "goblin_ambush" in capsys.readouterr().err  # did you mean
    # by hand: a trillion runs built a trillion jobs before the first battle; 1,000 workers would
    # have started a thousand processes on two cores
    assert main(["simulate", SMALL, "--party", *PARTY, "--runs", "1000000000000"]) == 2
    assert "at most 1,000,000" in capsys.readouterr().err
    assert main(["sweep", SMALL, "--party", *PARTY, "--levels", "2", "--runs", "1000001"]) == 2
    assert "at most 1,000,000" in capsys.readouterr().err
    assert main(["simulate", SMALL, "--party", *PARTY, "--runs", "1", "--workers", "0"]) == 2
    # a party the field has no room for (160 on a 12×12 field; a party larger than its start cells
    # gets the nearest free cells): refused at once (it was an internal error, exit 70, raised in a
    # worker process)
    crowd = []
    for number, source in enumerate(PARTY * 40):  # each of its own name: two of one name are refused
        text = Path(source).read_text(encoding="utf-8")
        path = tmp_path / f"member{number}.toml"
        path.write_text(re.sub(r'(?m)^name = "(.*)"', rf'name = "\1 {number}"', text, count=1), encoding="utf-8")
        crowd.append(str(path))
    assert main(["simulate", SMALL, "--party", *crowd, "--runs", "4", "--workers", "2"]) == 1
    assert "start cells" in capsys.readouterr().err


def test_workers_are_never_more_than_the_cores(monkeypatch):
    import os

    from horizon_tui.tools.sweep.work import local_workers

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert local_workers(None) == (2, None)
    assert local_workers(1) == (1, None)
    assert local_workers(1000) == (2, "--workers 1000: this machine has 2 cores; using 2")


# --- estimate(): the apps' background simulation -----------------------------------


def test_estimate_matches_simulate_on_the_same_seed(summaries):
    from horizon_tui.tools.simulate import estimate

    seen = []
    found = estimate(SMALL, PARTY, runs=12, seed=7, on_progress=lambda done, total: seen.append((done, total)))
    summary = summaries[1]
    assert found.runs == 12 and found.win_rate == summary["win_rate"]
    assert found.wins == round(summary["win_rate"] * 12)
    # simulate's p50 is the lower middle battle of 12; the estimate's median averages the two middle ones
    assert summary["rounds"]["p50"] <= found.rounds_p50 <= summary["rounds"]["p90"]
    assert found.ci_low <= found.win_rate <= found.ci_high
    assert seen == [(k, 12) for k in range(1, 13)]  # every battle reported, in this thread


def test_estimate_stops_when_asked_and_covers_the_battles_played():
    from horizon_tui.tools.simulate import estimate

    asked = []

    def should_stop() -> bool:
        asked.append(1)
        return len(asked) > 3

    found = estimate(SMALL, PARTY, runs=50, seed=7, should_stop=should_stop)
    assert found.runs == 3 and 0 <= found.wins <= 3


def test_estimate_is_the_same_on_two_worker_processes():
    from horizon_tui.tools.simulate import estimate

    assert estimate(SMALL, PARTY, runs=8, seed=11, workers=2) == estimate(SMALL, PARTY, runs=8, seed=11)


def test_wilson_interval_worked_numbers():
    from horizon_tui.tools.sweep.summary import wilson_interval

    low, high = wilson_interval(8, 10)  # p = 0.8, n = 10, z = 1.96
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)
    low, high = wilson_interval(20, 20)  # all won: the interval still leaves room below 1
    assert (round(low, 4), high) == (0.8389, 1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)


async def test_estimate_runs_in_a_textual_thread_worker():
    """The apps' use: a thread worker runs it, progress reaches the app through call_from_thread."""
    from textual.app import App
    from textual.worker import get_current_worker

    from horizon_tui.tools.simulate import estimate

    class Probe(App):
        result = None
        seen: list[int] = []

        def on_mount(self) -> None:
            self.run_worker(self.simulate, thread=True)

        def simulate(self) -> None:
            worker = get_current_worker()
            self.result = estimate(SMALL, PARTY, runs=6, seed=3, should_stop=lambda: worker.is_cancelled,
                                   on_progress=lambda done, total: self.call_from_thread(self.seen.append, done))

    app = Probe()
    async with app.run_test():
        await app.workers.wait_for_complete()
    assert app.seen == [1, 2, 3, 4, 5, 6]
    assert app.result == estimate(SMALL, PARTY, runs=6, seed=3)


def test_estimate_refuses_a_party_that_cant_fight_with_a_data_error():
    """A loadout over the level's slots (R-6) is a DataError before any battle, as the apps catch."""
    import attrs

    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.content.characters import load_character
    from horizon_tui.tools.simulate import estimate
    from horizon_tui.errors import DataError

    catalogue = default_catalogue()
    iriel = load_character(Path(PARTY[1]), catalogue)
    extra = [attrs.evolve(iriel.abilities[0], name=f"Cut {i}") for i in range(4)]
    crowded = attrs.evolve(iriel, abilities=iriel.abilities + extra, loadout=[a.name for a in iriel.abilities + extra])
    with pytest.raises(DataError) as caught:
        estimate(SMALL, [crowded], runs=3, seed=1)
    assert "slot" in str(caught.value.problems[0])
