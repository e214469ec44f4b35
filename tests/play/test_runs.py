"""Runs without a terminal: the depth's offers, carried state, rests, XP and level-ups (R-4),
replays, the run simulation on 1 and 2 workers, the record and the hall of fame."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest

from horizon_tui.engine.battle import hp, ident
from horizon_tui.engine.runner import run_ai
from horizon_tui.errors import DataError
from horizon_tui.content.run_rules import RunRules, load_run_rules
from horizon_tui.play.runs.morgue import morgue_text, score_entry
from horizon_tui.play.runs.run import (
    Run, RunMember, after_fight, daily_seed, depth_offers, fight_record, form_fight, rest, run_from_dict, run_to_dict,
    start_run,
)
from horizon_tui.play.runs.simulation import load_world, simulate_runs, summarise
from horizon_tui.rules.character import build
from horizon_tui.rules.numbers import whole
from horizon_tui.storage.runs import FileRuns, FileScores, MemoryRuns, MemoryScores
from horizon_tui.tools.sweep.policy import SweepPolicy

PARTY = sorted((Path(__file__).resolve().parents[2] / "examples" / "party").glob("*.toml"))


@pytest.fixture(scope="module")
def world():
    return load_world(PARTY)


def play_depth(run: Run, world, encounter: str | None = None) -> tuple[Run, object]:
    w, _ = world
    offers = depth_offers(run, w.rated, w.catalogue.rules, w.run_rules)
    offer = next(o for o in offers if o.encounter == encounter) if encounter else offers[0]
    run = attrs.evolve(run, fight=offer.encounter)
    session = form_fight(run, offer.encounter, w.catalogue, w.enemies)
    run_ai(session.battle)
    assert session.battle.over
    run, _ = after_fight(run, session.battle, offer.encounter, offer.name, w.catalogue.rules, w.policy,
                         w.run_rules.max_depth)
    return run, session


def ai_run(world, seed: int, size: int = 4) -> Run:
    _, party = world
    return start_run([RunMember(c, "ai") for c in party[:size]], seed, run_id=f"t{seed}")


def test_each_depth_offers_two_or_three_rated_encounters_easiest_first_and_the_same_for_the_seed(world):
    w, _ = world
    run = ai_run(world, 5)
    offers = depth_offers(run, w.rated, w.catalogue.rules, w.run_rules)
    assert len(offers) == w.run_rules.offers
    assert [o.strength for o in offers] == sorted(o.strength for o in offers)
    assert offers == depth_offers(run, w.rated, w.catalogue.rules, w.run_rules)
    # depth 1 aims at 0.5 × the party's strength (4 members at level 2: 8 member-levels) = 4:
    # of the ratings, goblin_ambush (2×2 = 4), then crypt and wolves (2×1) and standard (2×4) are nearest
    assert {o.encounter for o in offers} <= {"goblin_ambush", "standard", "crypt", "wolves"}


def test_deeper_depths_offer_stronger_encounters(world):
    w, _ = world
    run = ai_run(world, 5)
    shallow = depth_offers(run, w.rated, w.catalogue.rules, w.run_rules)
    deep = depth_offers(attrs.evolve(run, depth=9), w.rated, w.catalogue.rules, w.run_rules)
    assert min(o.strength for o in deep) > max(o.strength for o in shallow)


def test_health_lost_in_one_fight_is_missing_at_the_start_of_the_next(world):
    run = ai_run(world, 3)
    run, first = play_depth(run, world)
    assert not run.over
    hurt = {m.name: m.state["hp"] for m in run.members if m.state["hp"] < m.state["max_hp"]}
    assert hurt, "the first fight left someone hurt"
    w, _ = world
    offers = depth_offers(run, w.rated, w.catalogue.rules, w.run_rules)
    session = form_fight(attrs.evolve(run, fight=offers[0].encounter), offers[0].encounter, w.catalogue, w.enemies)
    start = {ident(e).name: hp(e).hp for e in session.battle.combatants() if ident(e).kind == "character"}
    for name, left in hurt.items():
        assert start[name] == left
    assert session.inputs, "the carried health is recorded as the battle's first inputs"


def test_a_rest_gives_back_its_share_of_health_once_between_depths(world):
    run = ai_run(world, 3)
    run, _ = play_depth(run, world)
    rested, news = rest(run, RunRules(rest_health=0.3))
    for before, after in zip(run.members, rested.members):
        expected = min(before.state["max_hp"], before.state["hp"] + round(0.3 * before.state["max_hp"]))
        assert after.state["hp"] == expected
    assert news
    with pytest.raises(ValueError, match="rested"):
        rest(rested, RunRules())


def test_a_rest_counts_effects_and_cooldowns_down_r10():
    character_state = {"hp": 100, "max_hp": 690, "presence": "active", "charges": {},
                       "cooldowns": {"Rending Bite": 3, "Long": 14},
                       "effects": [{"effect": "poison", "turns": 4, "magnitude": "5", "stat": None},
                                   {"effect": "buff", "turns": 12, "magnitude": "1", "stat": "physical"}]}
    from tests.conftest import example_dict
    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.content.characters import character_from_dict

    iriel = character_from_dict(example_dict(), default_catalogue())
    run = Run("r", 1, (RunMember(iriel, state=character_state),), depth=2)
    rested, _ = rest(run, RunRules(rest_health=0.5, rest_turns=10))
    state = rested.members[0].state
    assert state["hp"] == 100 + 345  # half of 690 (R-2's worked example: 690)
    assert state["effects"] == [{"effect": "buff", "turns": 2, "magnitude": "1", "stat": "physical"}]
    assert state["cooldowns"] == {"Long": 4}


def test_xp_buys_points_between_fights_r4(world):
    """R-4: the k-th point costs 10 + 5·(k−1): the first 10 points (a level) cost 325 XP."""
    w, party = world
    iriel = next(c for c in party if c.name == "Iriel")
    rules = w.catalogue.rules
    bought = build(iriel, rules).points_bought
    from horizon_tui.rules.progression import total_cost

    need = total_cost(bought + 10 - bought % 10, rules.experience) - total_cost(bought, rules.experience)
    from horizon_tui.tools.sweep.policy import spend_xp

    before = build(iriel, rules).level
    raised = spend_xp(attrs.evolve(iriel, xp=iriel.xp + need), rules, SweepPolicy())
    assert build(raised, rules).level == before + 1 and raised.xp == iriel.xp


def test_a_won_fight_gives_its_xp_and_a_level_up_is_announced(world):
    w, party = world
    rules = w.catalogue.rules
    brakka = next(c for c in party if c.name == "Brakka")
    from horizon_tui.rules.progression import total_cost

    b = build(brakka, rules)
    to_next = total_cost(b.points_bought + 10 - b.points_bought % 10, rules.experience) - total_cost(
        b.points_bought, rules.experience)
    # just short of the next level: the first fight's share of XP takes Brakka over
    brakka = attrs.evolve(brakka, xp=to_next - 1)
    run = start_run([RunMember(c, "ai") for c in [brakka, *[p for p in party if p.name != "Brakka"]]], 3,
                    run_id="lv")
    run, session = play_depth(run, world)
    assert session.battle.result.winner == "party"
    assert session.battle.result.xp["Brakka"] > 0
    assert build(run.member("Brakka").character, rules).level == b.level + 1


def test_a_run_replays_exactly_from_its_seed(world):
    from horizon_tui.play.runs.auto import play_run

    w, party = world
    first = play_run(w, party, 11)
    second = play_run(w, party, 11)
    assert first.fights == second.fights and first.depth == second.depth
    assert first.over and first.fights[-1]["winner"] != "party"
    assert first.cause_of_death


def test_a_saved_fight_replays_with_its_carried_inputs(world):
    from horizon_tui.engine.persist import session_from_dict, session_to_dict

    w, _ = world
    run = ai_run(world, 3)
    run, _ = play_depth(run, world)
    offers = depth_offers(run, w.rated, w.catalogue.rules, w.run_rules)
    session = form_fight(run, offers[0].encounter, w.catalogue, w.enemies)
    data = session_to_dict(session, w.catalogue)
    again = session_from_dict(json.loads(json.dumps(data)), w.catalogue, w.enemies, "<test>")  # replays, then the AI plays on
    run_ai(session.battle)
    assert [e.to_json() for e in again.battle.log] == [e.to_json() for e in session.battle.log]


def test_run_simulation_gives_the_same_results_on_one_and_two_workers(world):
    w, party = world
    one = simulate_runs(w, party, 6, 4, workers=1)
    two = simulate_runs(w, party, 6, 4, workers=2)
    assert one == two
    summary = summarise(one, 6, 4, [c.name for c in party], 1.0)
    assert sum(summary["depth"]["distribution"].values()) == 6
    assert summary["runs"] == 6 and summary["seed"] == 4


def test_the_daily_seed_is_the_same_all_day_and_changes_the_next():
    import datetime

    day = datetime.date(2026, 12, 5)
    assert daily_seed(day) == daily_seed(day)
    assert daily_seed(day) != daily_seed(day + datetime.timedelta(days=1))


def test_a_run_round_trips_through_both_stores(world, tmp_path):
    w, _ = world
    run = ai_run(world, 3)
    run, _ = play_depth(run, world)
    data = run_to_dict(run, w.catalogue)
    for store in (MemoryRuns(), FileRuns(tmp_path)):
        store.save_run(data)
        back = run_from_dict(store.load_run(run.id), w.catalogue)
        assert back == run
        assert [r["id"] for r in store.runs_in_progress()] == [run.id]
    assert (tmp_path / "records" / "runs" / f"{run.id}.json").exists()


def test_a_damaged_run_file_is_listed_with_its_problem_and_never_read_as_a_run(tmp_path, world):
    store = FileRuns(tmp_path)
    store.folder.mkdir(parents=True)
    (store.folder / "bad.json").write_text("{not json")
    [listed] = store.runs_in_progress()
    assert listed["id"] == "bad" and "bad.json" in listed["damaged"]
    with pytest.raises(DataError, match="members"):
        run_from_dict({"id": "x", "seed": 1}, world[0].catalogue, "x.json")


def test_a_run_id_cannot_leave_the_runs_folder(tmp_path):
    with pytest.raises(ValueError, match="not a run id"):
        FileRuns(tmp_path).save_run({"id": "../../x"})


@pytest.mark.parametrize("make", [MemoryScores, lambda: FileScores(Path(pytest.tmp_hall))])
def test_the_hall_of_fame_ranks_by_depth_then_score_and_keeps_the_daily_apart(make, tmp_path):
    pytest.tmp_hall = tmp_path / "hall_of_fame.json"
    table = make()
    table.add({"id": "a", "depth": 3, "score": 500})
    table.add({"id": "b", "depth": 5, "score": 100})
    table.add({"id": "c", "depth": 5, "score": 300})
    table.add({"id": "d", "depth": 9, "score": 900, "daily": "2026-12-05"})
    assert [e["id"] for e in table.entries()] == ["c", "b", "a"]
    assert [e["id"] for e in table.entries(daily=True)] == ["d"]


def test_a_damaged_hall_of_fame_is_set_aside_not_lost(tmp_path):
    path = tmp_path / "hall_of_fame.json"
    path.write_text("[1, 2")
    table = FileScores(path)
    with pytest.raises(DataError):
        table.entries()
    table.add({"id": "a", "depth": 2, "score": 1})
    assert (tmp_path / "hall_of_fame.json.damaged").read_text() == "[1, 2"
    assert [e["id"] for e in table.entries()] == ["a"]


def test_the_morgue_names_the_party_depth_fights_kills_damage_cause_seed_version_and_pace(world):
    from horizon_tui.play.runs.auto import play_run

    w, party = world
    run = attrs.evolve(play_run(w, party, 11), version="9.9", pace="source")
    text = morgue_text(run, w.catalogue.rules)
    assert f"fell at depth {run.depth}" in text
    assert f"seed {run.seed}" in text and "Horizon 9.9" in text and "pace source" in text
    assert "Cause of death: " + run.cause_of_death in text
    assert "Damage by ability" in text and "Kills" in text
    for fight in run.fights:
        assert fight["name"] in text
    entry = score_entry(run, w.catalogue.rules, account="alice")
    assert entry["depth"] == run.depth and entry["score"] == run.score and entry["account"] == "alice"


def test_runs_toml_problems_name_the_key(tmp_path):
    path = tmp_path / "runs.toml"
    path.write_text("offers = 5\nratio_step = -1\n")
    with pytest.raises(DataError) as caught:
        load_run_rules(path)
    keys = {p.key for p in caught.value.problems}
    assert {"offers", "ratio_step"} <= keys
    assert all(p.line for p in caught.value.problems)


def test_the_points_xp_bought_raise_the_maximum_the_depth_shows_and_the_next_fight_has(world):
    """Sefa ended a fight at 40/310, bought points with its XP, and the depth said 40/310 while
    the next fight began at 133/347: the carried maximum is the one the points bought."""
    w, party = world
    rules = w.catalogue.rules
    brakka = attrs.evolve(next(c for c in party if c.name == "Brakka"), xp=300)
    run = start_run([RunMember(c, "ai") for c in [brakka, *[p for p in party if p.name != "Brakka"]]], 3,
                    run_id="max")
    run, _ = play_depth(run, world)
    grown = run.member("Brakka")
    assert build(grown.character, rules).stats["health"] > build(brakka, rules).stats["health"]
    assert grown.state["max_hp"] == whole(build(grown.character, rules).stats["health"])
    following = form_fight(attrs.evolve(run, fight="wolves"), "wolves", w.catalogue, w.enemies).battle
    there = next(e for e in following.combatants() if ident(e).name == "Brakka")
    assert hp(there).max_hp == grown.state["max_hp"]


def test_one_who_came_into_the_fight_down_fell_to_the_last_fights_wounds(world):
    """The morgue said "Morwen fell to something unseen" of a member carried in at 0 health."""
    w, party = world
    run, _ = play_depth(ai_run(world, 5, size=2), world)
    assert not run.over
    down = run.members[1]
    run = attrs.evolve(run, members=(run.members[0], attrs.evolve(down, state=dict(down.state, hp=0,
                                                                                    presence="unconscious"))))
    offer = depth_offers(run, w.rated, w.catalogue.rules, w.run_rules)[0]
    session = form_fight(attrs.evolve(run, fight=offer.encounter), offer.encounter, w.catalogue, w.enemies)
    run_ai(session.battle)
    record = fight_record(session.battle, offer.encounter, offer.name, run.depth)
    assert record["fell"][down.name] == "the last fight's wounds"


def test_a_run_given_up_before_its_first_fight_has_a_morgue(world):
    """Found by hand: g at depth 1, before any fight, crashed writing the morgue (no health carried
    yet: the full health the character's build gives)."""
    w, party = world
    run = attrs.evolve(start_run([RunMember(party[0])], 5, run_id="r"), over=True, cause_of_death="given up")
    full = whole(build(party[0], w.catalogue.rules).stats["health"])
    text = morgue_text(run, w.catalogue.rules)
    assert f"health {full}/{full}" in text and "Cause of death: given up." in text
