"""A whole run played by the AI (`horizon run --simulate`): every member played by its AI, the
easiest offer taken at each depth, the rest always taken. Everything random comes from the run's
seed, so the same seed plays the same run on any worker."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.encounters import EnemyDef
from horizon_tui.content.models import Character
from horizon_tui.engine.battlefield import Battlefield
from horizon_tui.engine.encounter import EncounterSetup
from horizon_tui.engine.runner import run_ai
from horizon_tui.content.run_rules import RunRules
from horizon_tui.play.runs.run import Offer, Run, RunMember, after_fight, depth_offers, form_fight, rest, start_run
from horizon_tui.tools.sweep.policy import SweepPolicy


@attrs.frozen
class RunWorld:
    """Everything an AI-played run needs, loaded once (sent whole to a worker process or a Dask
    worker): the paced catalogue, the enemies, the rated encounters' set-ups, the house numbers."""

    catalogue: Catalogue
    enemies: dict[str, EnemyDef]
    rated: tuple[Offer, ...]
    setups: dict[str, EncounterSetup]
    run_rules: RunRules
    policy: SweepPolicy

    def portable(self) -> RunWorld:
        """Fresh battlefields: their sight and path caches hold tcod handles that don't pickle."""
        setups = {key: attrs.evolve(s, battlefield=Battlefield(s.battlefield.terrain.copy()))
                  for key, s in self.setups.items()}
        return attrs.evolve(self, setups=setups)


def play_run(world: RunWorld, party: Sequence[Character], seed: int, run_id: str = "simulated") -> Run:
    """One run to its end, by the AI."""
    run = start_run([RunMember(c, "ai") for c in party], seed, run_id=run_id, permadeath=True)
    rules = world.catalogue.rules
    while not run.over:
        offers = depth_offers(run, world.rated, rules, world.run_rules)
        if not offers:
            raise ValueError("no rated encounters to offer: run `horizon sweep … --rate` first")
        offer = offers[0]
        run = attrs.evolve(run, fight=offer.encounter)
        session = form_fight(run, offer.encounter, world.catalogue, world.enemies, setup=world.setups[offer.encounter])
        while not session.battle.over:
            if run_ai(session.battle) == 0 and not session.battle.over:
                raise RuntimeError("an AI-played battle is waiting for a player")
        run, _ = after_fight(run, session.battle, offer.encounter, offer.name, rules, world.policy,
                             world.run_rules.max_depth)
        if not run.over:
            run, _ = rest(run, world.run_rules)
    return run
