"""Golden logs: the engine's speed work must not move a single event.

Whole AI battles — every shipped encounter (data/encounters) with the example party, and the
benchmark's 6/12/24/48-combatant battles on one 40×40 field (bench/bench_engine.py
`scaled_setups`) — each fingerprinted by `persist.log_digest` over its whole log. The recorded
fingerprints (golden_logs.json, beside this file) were taken from the engine before the speed
work; a battle that now plays differently for the same seed fails here with its name and seed.

Re-record only for a deliberate change of the rules or the AI (never for a speed-up):
`.venv/bin/python tests/engine/test_engine_golden.py --write`.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from horizon_tui.engine.forming import create_battle
from horizon_tui.tools.battle_command import prepare
from horizon_tui.engine.persist import log_digest
from horizon_tui.engine.runner import play_out

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).with_name("golden_logs.json")
PARTY = sorted((ROOT / "examples" / "party").glob("*.toml"))
ENCOUNTERS = sorted(p.stem for p in (ROOT / "data" / "encounters").glob("*.toml"))
ENCOUNTER_SEEDS = range(40)
SIZES = (6, 12, 24, 48)
SIZE_SEEDS = {6: range(12), 12: range(10), 24: range(6), 48: range(4)}
KEEP = 16  # hex digits kept of each sha256: plenty to tell two logs apart


def _bench():
    spec = importlib.util.spec_from_file_location("bench_engine", ROOT / "bench" / "bench_engine.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def encounter_digests(encounter: str) -> dict[str, str]:
    catalogue, enemies, setup, party = prepare(encounter, PARTY, 0)
    out = {}
    for seed in ENCOUNTER_SEEDS:
        battle = create_battle(setup, party, seed, catalogue, enemies)
        play_out(battle)
        out[str(seed)] = log_digest(battle)[:KEEP]
    return out


def size_digests(size: int) -> dict[str, str]:
    setup, members, catalogue, enemies = _bench().scaled_setups((size,))[size]
    out = {}
    for seed in SIZE_SEEDS[size]:
        battle = create_battle(setup, members, seed, catalogue, enemies)
        play_out(battle)
        out[str(seed)] = log_digest(battle)[:KEEP]
    return out


def _golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.mark.parametrize("encounter", ENCOUNTERS)
def test_encounter_logs_unchanged(encounter: str) -> None:
    recorded = _golden()["encounters"].get(encounter)
    assert recorded is not None, f"{encounter}: no golden logs recorded (a new encounter? re-record, see the docstring)"
    got = encounter_digests(encounter)
    moved = [seed for seed in recorded if got.get(seed) != recorded[seed]]
    assert not moved, f"{encounter}: the log changed for seeds {moved}"


@pytest.mark.parametrize("size", SIZES)
def test_scaled_battle_logs_unchanged(size: int) -> None:
    recorded = _golden()["sizes"][str(size)]
    got = size_digests(size)
    moved = [seed for seed in recorded if got.get(seed) != recorded[seed]]
    assert not moved, f"{size} combatants: the log changed for seeds {moved}"


def test_a_changed_log_is_caught() -> None:
    """The guard can fail: one event more and the fingerprint moves."""
    catalogue, enemies, setup, party = prepare("standard", PARTY, 0)
    battle = create_battle(setup, party, 0, catalogue, enemies)
    play_out(battle)
    before = log_digest(battle)[:KEEP]
    assert before == _golden()["encounters"]["standard"]["0"]
    battle.log.append(battle.log[-1])
    assert log_digest(battle)[:KEEP] != before


def write() -> None:
    data = {
        "encounters": {name: encounter_digests(name) for name in ENCOUNTERS},
        "sizes": {str(size): size_digests(size) for size in SIZES},
    }
    GOLDEN.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: test_engine_golden.py --write  (re-records the golden logs from this engine)")
    write()
