"""`horizon sweep` (INTERFACES.md "Sweeps"): the same rows whatever runs them — this
process, two local processes, a Dask cluster — and the grid's party built by R-4's point costs."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from horizon_tui.cli import main

REPO = Path(__file__).resolve().parents[2]
PARTY = sorted(str(p) for p in (REPO / "examples" / "party").glob("*.toml"))
SMALL = "goblin_ambush"  # 12×12, two goblins: a battle takes a few milliseconds
ROW_KEYS = {"encounter", "level", "size", "runs", "wins", "win_rate", "ci_low", "ci_high", "rounds_p50", "deaths"}


def sweep_json(*extra: str) -> dict:
    capture = pytest.MonkeyPatch()
    buffer = io.StringIO()
    capture.setattr(sys, "stdout", buffer)
    try:
        assert main(["sweep", SMALL, "--party", *PARTY, "--levels", "2,3", "--sizes", "1-2", "--runs", "5",
                     "--seed", "13", "--json", *extra]) == 0
    finally:
        capture.undo()
    lines = buffer.getvalue().splitlines()
    assert len(lines) == 1  # one JSON object, nothing else on stdout
    return json.loads(lines[0])


@pytest.fixture(scope="module")
def on_one_worker() -> dict:
    return sweep_json("--workers", "1")


def test_sweep_rows_have_the_interfaces_keys_one_per_cell(on_one_worker):
    rows = on_one_worker["rows"]
    assert [(r["level"], r["size"]) for r in rows] == [(2, 1), (2, 2), (3, 1), (3, 2)]
    for row in rows:
        assert ROW_KEYS <= set(row) and row["encounter"] == SMALL and row["runs"] == 5
        assert row["ci_low"] <= row["win_rate"] <= row["ci_high"] and row["wins"] == round(row["win_rate"] * 5)
        assert 0 <= row["deaths"] <= row["size"]
    assert on_one_worker["battles"] == 20 and on_one_worker["seed"] == 13


def test_sweep_rows_are_the_same_on_two_local_processes(on_one_worker):
    assert sweep_json("--workers", "2")["rows"] == on_one_worker["rows"]


def test_sweep_rows_are_the_same_through_a_dask_cluster(on_one_worker):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        through_dask = sweep_json("--scheduler", cluster.scheduler_address)
    assert through_dask["engine"] == {"scheduler": cluster.scheduler_address}
    assert through_dask["rows"] == on_one_worker["rows"]


def test_battle_seeds_depend_on_the_cell_and_index_only():
    from horizon_tui.tools.simulate import derive_seed
    from horizon_tui.tools.sweep.work import batch_size, batches, battle_seed

    assert battle_seed(7, 3) == derive_seed(7, 3)  # no cell: `horizon simulate`'s battle 3
    assert len({battle_seed(7, 3, "standard/L2/S4"), battle_seed(7, 3, "standard/L4/S4"), battle_seed(7, 4, "standard/L2/S4")}) == 3
    # Batches cover each fight's indices once, whatever the batch size.
    for size in (1, 7, batch_size(103, 2)):
        cut = batches([103, 5], 7, size)
        assert sorted((b.fight, i) for b in cut for i in range(b.start, b.stop)) == \
            [(0, i) for i in range(103)] + [(1, i) for i in range(5)]


def test_raising_a_character_buys_r4_points_by_its_own_spread():
    """R-4: level 4 is 20 points bought; points 1–20 cost 10 + 15 + … + 105 = 1150 XP, spent one at a
    time on the attribute furthest below Iriel's own spread (10/10/10/6/5/1)."""
    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.content.characters import load_character
    from horizon_tui.tools.sweep.policy import SweepPolicy, raise_to_level
    from horizon_tui.rules import progression
    from horizon_tui.rules.character import build

    catalogue = default_catalogue()
    iriel = load_character(REPO / "examples" / "party" / "iriel.toml", catalogue)
    assert progression.total_cost(20, catalogue.rules.experience) == 1150
    raised = raise_to_level(iriel, 4, catalogue.rules, SweepPolicy())
    assert raised.attributes == {"physical": 15, "agility": 15, "perception": 14, "cognition": 9, "faith": 7, "beauty": 2}
    b = build(raised, catalogue.rules)
    assert (b.level, b.points_bought, raised.xp) == (4, 20, iriel.xp)
    assert raise_to_level(iriel, 2, catalogue.rules, SweepPolicy()) is iriel


def test_policy_weights_choose_where_points_go(tmp_path):
    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.content.characters import load_character
    from horizon_tui.tools.sweep.policy import load_policy, raise_to_level

    file = tmp_path / "sweep.toml"
    file.write_text("target_win_rate = 0.6\n[raise.weights.Iriel]\nagility = 1\n", encoding="utf-8")
    policy = load_policy(file)
    catalogue = default_catalogue()
    iriel = load_character(REPO / "examples" / "party" / "iriel.toml", catalogue)
    raised = raise_to_level(iriel, 3, catalogue.rules, policy)
    assert raised.attributes["agility"] == iriel.attributes["agility"] + 10  # every point to agility
    assert policy.target_win_rate == 0.6


def test_a_bad_policy_names_the_key(tmp_path, capsys):
    file = tmp_path / "sweep.toml"
    file.write_text("target_win_rate = 1.5\n[raise]\npolicy = \"proportionl\"\n[raise.weights.Iriel]\nagilty = 1\n",
                    encoding="utf-8")
    assert main(["sweep", SMALL, "--party", *PARTY, "--levels", "2", "--runs", "1", "--policy", str(file)]) == 1
    err = capsys.readouterr().err
    assert "target_win_rate" in err and "1.5" in err
    assert "raise.policy" in err and "proportional" in err
    assert "raise.weights.Iriel.agilty" in err and "agility" in err


def test_sizes_take_the_first_members_then_repeat_them():
    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.content.characters import load_character
    from horizon_tui.tools.sweep.policy import sized_party

    catalogue = default_catalogue()
    party = [load_character(Path(p), catalogue) for p in PARTY]
    assert [c.name for c in sized_party(party, 2)] == ["Brakka", "Iriel"]
    assert [c.name for c in sized_party(party, 6)] == ["Brakka", "Iriel", "Morwen", "Sefa", "Brakka 2", "Iriel 2"]


def test_a_party_larger_than_the_start_cells_gets_the_nearest_free_cells():
    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.content.encounters import load_enemies
    from horizon_tui.engine.encounter import load_encounter
    from horizon_tui.engine.encounter import with_start_cells

    catalogue = default_catalogue()
    setup = load_encounter(SMALL, catalogue, load_enemies(catalogue))
    assert len(setup.party_start) == 4
    bigger = with_start_cells(setup, 6)
    assert bigger.party_start[:4] == setup.party_start and len(set(bigger.party_start)) == 6
    enemy_cells = {xy for _, xy, _ in setup.enemies}
    assert all(setup.battlefield.is_walkable(xy) and xy not in enemy_cells for xy in bigger.party_start)
    assert with_start_cells(setup, 6) == bigger  # the same cells every time


@pytest.mark.parametrize("argv, message", [
    (["--levels", "1", "--runs", "2"], "start at level 2"),
    (["--levels", "2", "--runs", "0"], "--runs must be at least 1"),
    (["--levels", "2", "--runs", "2", "--sizes", "0-2"], "a party of 1 to 12"),
    # by hand, each of these ran for ever: a party raised to level 10^9, 10^8 levels spelt out
    (["--levels", "1000000000", "--runs", "1"], "at most level 100"),
    (["--levels", "2", "--runs", "2", "--sizes", "13"], "a party of 1 to 12"),
    (["--levels", "2", "--runs", "2", "--scheduler", "127.0.0.1:8786"], "tcp://HOST:8786"),
])
def test_sweep_refuses_bad_usage(capsys, argv, message):
    assert main(["sweep", SMALL, "--party", *PARTY, *argv]) == 2
    assert message in capsys.readouterr().err


def test_sweep_refuses_a_party_of_more_than_twelve_files(capsys):
    assert main(["sweep", SMALL, "--party", *(PARTY * 20), "--levels", "2", "--runs", "1"]) == 2
    assert "a party of 1 to 12 (or --sizes)" in capsys.readouterr().err


@pytest.mark.parametrize("flag, value", [("--levels", "2-100000000"), ("--sizes", "1-1000000"),
                                         ("--levels", ",".join(str(n) for n in range(2, 300)))])
def test_a_list_too_long_is_refused_before_it_is_spelt_out(capsys, flag, value):
    with pytest.raises(SystemExit) as stop:
        main(["sweep", SMALL, "--party", *PARTY, "--levels", "2", "--runs", "1", flag, value])
    assert stop.value.code == 2 and "at most 100 values" in capsys.readouterr().err


def test_sweep_csv_and_table(capsys):
    assert main(["sweep", SMALL, "--party", *PARTY, "--levels", "2", "--runs", "3", "--seed", "1", "--csv",
                 "--workers", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("encounter,level,size,runs,wins,win_rate,ci_low,ci_high,rounds_p50,deaths")
    assert len(lines) == 2 and lines[1].startswith(f"{SMALL},2,4,3,")
    assert main(["sweep", SMALL, "--party", *PARTY, "--levels", "2", "--runs", "3", "--seed", "1",
                 "--workers", "1"]) == 0
    out, err = capsys.readouterr()
    assert "goblin_ambush: party win rate (%) by level" in out and "seed 1" in out
    assert "\r" not in err and "\x1b" not in out  # no progress bar or colour codes off a terminal


def test_a_stopped_run_on_processes_keeps_a_prefix_of_the_battles():
    """Stopping keeps the finished batches from battle 0 on: the same battles, with the same
    results, as the first ones of a whole run."""
    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.tools.sweep.fights import make_fight
    from horizon_tui.tools.sweep.work import execute

    fight = make_fight(SMALL, PARTY, catalogue=default_catalogue())
    [whole] = execute([fight], [60], 4)
    [stopped] = execute([fight], [60], 4, workers=2, should_stop=lambda: True)
    assert len(stopped) < 60 and stopped == whole[:len(stopped)]


def test_validate_knows_the_sweep_policy(tmp_path, capsys):
    assert main(["validate", str(REPO / "data" / "sweep.toml")]) == 0
    bad = tmp_path / "sweep.toml"
    bad.write_text("target_win_rate = 2\n", encoding="utf-8")
    assert main(["validate", str(bad)]) == 1
    assert "target_win_rate: a win rate between 0 and 1" in capsys.readouterr().out
