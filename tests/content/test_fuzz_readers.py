"""Property: over mutated copies of data/ and examples/ (and a battle save, a campaign
and an account made from them), every reader raises nothing but the project's own DataError,
`horizon validate`'s check never raises at all, and every run takes under a second of CPU (process time: the machine is shared)."""

from __future__ import annotations

import itertools
import random
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from horizon_tui.errors import DataError

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from mutate import samples, mutate  # noqa: E402

KINDS = ("character", "character_json", "rules", "limits", "weapons", "armor", "species", "ai", "enemy",
         "encounter", "battle", "campaign", "account")
_counter = itertools.count()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz")
    found = samples(root / "good")
    from horizon_tui.tools.validate import check_file

    for path in found.values():  # the good ones pass, and the engine and catalogue are loaded
        assert check_file(path) == [], path
    return root, found


def _readers(kind: str, path: Path, catalogue) -> None:
    """The apps' own readers of that kind; each may raise DataError only."""
    from horizon_tui.content.ai_profiles import load_ai_profiles
    from horizon_tui.content.catalogue import load_keyed_file, load_ruleset, load_species_file
    from horizon_tui.content.encounters import load_enemies, load_enemy
    from horizon_tui.content.guard import load_limits
    from horizon_tui.content.models import Armor, Weapon
    from horizon_tui.engine.encounter import load_encounter
    from horizon_tui.engine.persist import load_session
    from horizon_tui.campaign.campaign_files import CampaignStore
    from horizon_tui.storage.accounts import Accounts
    from horizon_tui.play.encounter_details import encounter_details
    from horizon_tui.play.library import CharacterLibrary, list_encounters

    if kind.startswith("character"):
        entry = CharacterLibrary(path.parent.parent, catalogue).entry(path)  # the Load screen: never raises
        assert entry.character is not None or entry.problems
        return
    if kind == "campaign":
        [entry] = CampaignStore(path.parent.parent, catalogue).entries()  # the GM's list: never raises
        assert entry.problem or entry.name
        return
    if kind == "account":
        Accounts(path.parent.parent.parent).allowed_keys("ann")  # a login: never raises
        return
    if kind == "encounter":
        list_encounters(path.parent)  # the player's picker: never raises
        encounter_details([path], catalogue)
    loader = {
        "rules": lambda: load_ruleset(path), "limits": lambda: load_limits(path),
        "weapons": lambda: load_keyed_file(path, Weapon), "armor": lambda: load_keyed_file(path, Armor),
        "species": lambda: load_species_file(path), "ai": lambda: load_ai_profiles(path),
        "enemy": lambda: load_enemy(path, catalogue),
        "encounter": lambda: load_encounter(path, catalogue, load_enemies(catalogue)),
        "battle": lambda: load_session(path, catalogue, load_enemies(catalogue)),
    }[kind]
    try:
        loader()
    except DataError:
        pass


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                    HealthCheck.too_slow])
@given(kind=st.sampled_from(KINDS), seed=st.integers(0, 2**32 - 1))
def test_no_mutated_file_crashes_or_hangs_a_reader(world, catalogue, kind, seed):
    from horizon_tui.tools.validate import check_file

    root, found = world
    good = found[kind]
    target = root / f"m{next(_counter)}" / good.relative_to(root / "good")
    target.parent.mkdir(parents=True)
    target.write_bytes(mutate(good, random.Random(seed)))
    start = time.process_time()
    problems = check_file(target)  # `horizon validate`: a list, never an exception
    assert all(p.file.startswith(str(target.parent)) or p.file.startswith(str(root)) or p.file
               for p in problems)
    _readers(kind, target, catalogue)
    elapsed = time.process_time() - start
    assert elapsed < 1, f"{kind} seed {seed}: {elapsed:.2f} s"
