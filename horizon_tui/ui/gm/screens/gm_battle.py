"""The encounter runner: the player app's battle screen (`ui.battle.screen`) as the GM sees it —
no fog, every side — with the GM's hand (`tracker.GMHand`: the initiative tracker and overrides)
and the campaign following the fight (`CampaignFight`: its record, free-action rulings, leaving).

Every input (a move, an attack, a ruling, an override, a reordering) is saved into the campaign
as it happens, so `ctrl+z` steps back through the fight one input at a time: the battle is rebuilt
from its seed and the remaining inputs.
"""

from __future__ import annotations

from fractions import Fraction

from typing import ClassVar

from rich.text import Text

from horizon_tui.content.models import Ability, AbilityKind, Difficulty, EffectSpec, Target
from horizon_tui.engine.actions import FreeAction, Impossible
from horizon_tui.engine.battle import BattleError, comp, ident, is_active, pos, team
from horizon_tui.engine.components import FreeActions, Presence
from horizon_tui.engine.persist import BattleInProgress, session_to_dict
from horizon_tui.engine.runner import override
from horizon_tui.engine.usability import free_action_refusal
from horizon_tui.rules.ranges import distance
from horizon_tui.errors import DataError
from horizon_tui.campaign import battles
from horizon_tui.campaign import changes
from horizon_tui.campaign.initiative import logged
from horizon_tui.ui.battle.dialogs import BattleSummary, ChoiceDialog
from horizon_tui.ui.battle.flow import summary_rows
from horizon_tui.ui.battle.parts import BattlePart
from horizon_tui.ui.battle.roles import GameMaster, LocalEngine
from horizon_tui.ui.battle.screen import BattleScreen
from horizon_tui.ui.dialogs.effect import EffectDialog
from horizon_tui.ui.gm.screens.dialogs import Field, PromptDialog
from horizon_tui.ui.gm.screens.experience import ExperienceScreen
from horizon_tui.ui.gm.screens.tracker import GMHand
from horizon_tui.ui.player.screens.ability_form import AbilityFormScreen

LEGEND = ("[ ] pick ␣ mark D dmg H heal\n+ - health T temp v revive\nA add W out R reveal i init\n"
          "{ } order d hold e ready\nc/p/g/I who C party→AI\no over f free action\n")


def gm_battle_screen(session: BattleInProgress, name: str, *, mapless: bool = False) -> BattleScreen:
    """The GM's fight at this keyboard: the battle screen seeing everything (`Viewer.gm`), the GM
    giving every turn (`roles.GameMaster`), the campaign recording every input (`CampaignFight`),
    and the GM's hand on it (`tracker.GMHand`)."""
    fight = CampaignFight(name, mapless=mapless)
    hand = GMHand(fight.override, legend=LEGEND, mapless=mapless)
    return BattleScreen(session, driver=LocalEngine(on_end=fight.ended, after_input=fight.input_recorded),
                        policy=GameMaster(), side=None, parts=[hand, fight], placer=hand.place)


class CampaignFight(BattlePart):
    """The campaign following the GM's fight at this keyboard: every input (a move, an attack, a
    ruling, an override) saved into it as it happens, the fight rebuilt when the campaign steps
    back, free actions ruled by the GM (R-13), leaving or abandoning the fight, its end."""

    NAME = "fight"
    COMMANDS: ClassVar[frozenset[str]] = frozenset({"free_action", "make_ability", "leave"})
    GM_TOOL = True

    def __init__(self, name: str, *, mapless: bool = False) -> None:
        self.battle_name = name
        self.mapless = mapless  # the tracker alone, distances ruled by the GM
        self.last_ruling: tuple[str, FreeAction] | None = None

    @property
    def battle(self):
        return self.screen.battle

    @property
    def session(self) -> BattleInProgress:
        return self.screen.session

    def mounted(self) -> None:
        self.screen.title = f"Battle — {self.battle_name}" + (" (no map)" if self.mapless else "")
        if self.mapless:
            self.screen.add_class("mapless")

    def status(self) -> Text | None:
        screen = self.screen
        if screen.me is None and not self.battle.over and self.battle.current is not None:
            if screen.prompt:  # a refused override, while the AI plays
                return Text(screen.prompt, style="yellow")
            who = ident(self.battle.current).name
            return Text(f"{who} (AI) is acting…  x plays the AI turns now · c on it hands it to you", style="dim")
        return None

    # --- recording every GM input into the campaign ------------------------------------------

    def _record(self, label: str, extra=None) -> None:
        app = self.screen.app
        if self.screen.finished or app.campaign is None or app.campaign.battle is None:
            return
        saved = app.host.act(lambda c: battles.with_inputs(c, self.session, app.host.store.catalogue, app.host.gm.rules_for, extra),
                             label)
        if not saved and app.host.gm.read_only and not app.host.gm.was_read_only:
            self._taken_over()

    def _taken_over(self) -> None:
        """Another window took the campaign over: this one saves nothing more, so the fight (and its
        AI turns) stops here instead of going on where no one can keep it."""
        self.screen.leave_fight()
        app = self.screen.app
        app.notify(f"{app.host.gm.read_only_reason()}. The fight goes on in the window that has it; "
                        "this one left it where it was last saved.", title="Battle left", severity="warning",
                        timeout=10)
        app.call_later(app.pop_screen)

    def input_recorded(self, action, outcome) -> None:
        """The driver's call after each accepted input: into the campaign."""
        self._record(f"{self.battle_name}: {type(action).__name__.lower()}")

    def override(self, change, label: str | None, extra: dict | None) -> bool:
        """Run a GM override (the hand's route); logged as `label`, or (None: a tracker act) with
        what it changed."""
        screen = self.screen
        outcome = override(self.battle, change, self.session.inputs)
        if isinstance(outcome, Impossible):
            return screen.refuse(outcome.reason)
        screen.prompt = ""
        self._record(f"{self.battle_name}: {label or logged(self.battle, outcome)}", extra)
        screen.went_on()
        return True

    def after_undo(self):
        return self._follow_undo()

    async def _follow_undo(self) -> None:
        """The campaign stepped back: rebuild the battle from its record if its inputs changed."""
        app = self.screen.app
        record = app.campaign.battle
        if record is None:
            self.screen.leave_fight()
            await app.pop_screen()
            return
        if record.get("inputs") == session_to_dict(self.session, app.host.store.catalogue)["inputs"]:
            return
        try:
            session = battles.session_from_record(record, app.host.store.catalogue, app.host.gm.rules_for, app.enemies())
        except (DataError, BattleError) as exc:
            app.notify(str(exc), severity="error")
            return
        self.screen.leave_fight()  # this screen's battle is gone; the rebuilt one takes over
        await app.pop_screen()  # the screens share an id: the old one goes first
        await app.push_screen(gm_battle_screen(session, self.battle_name, mapless=self.mapless))

    # --- the end ---------------------------------------------------------------------------

    def ended(self, session: BattleInProgress) -> None:
        battle_ended(self.screen.app, session, self.battle_name)

    def action_leave(self) -> None:
        app = self.screen.app

        def chosen(choice: str | None) -> None:
            if choice == "leave":
                self.screen.leave_fight()
                app.pop_screen()
            elif choice == "abandon":
                self.screen.leave_fight()
                app.host.act(lambda c: battles.finish_battle(c, self.session), f"battle abandoned: {self.battle_name}")
                app.pop_screen()

        app.push_screen(ChoiceDialog("Leave the battle?", [
            ("leave", "Leave for now — it stays in the campaign; b resumes it"),
            ("abandon", "Abandon it — logged as unfinished, no XP"),
            ("stay", "Stay"),
        ]), chosen)

    # --- free actions: the player's words, the GM's ruling --------------------------------

    def action_free_action(self) -> None:
        screen = self.screen
        me = screen.me
        if me is None:
            screen.prompt = "free actions are for the combatant whose turn it is (c hands an AI one to you)"
            screen.refresh_all()
            return
        problem = free_action_refusal(self.battle, me)
        if problem:
            screen.refuse(f"{ident(me).name}: {problem}")
            return
        actor = ident(me).id
        name = ident(me).name

        def described(values: dict[str, str] | None) -> None:
            if not values:
                return
            screen.app.push_screen(EffectDialog(), lambda spec: spec and self._free_target(actor, values["description"], spec))

        screen.app.push_screen(PromptDialog(
            f"Free action — {name} ({comp(me, FreeActions).points} points)",
            [Field("description", "The player", placeholder="what they want to do, in their words")],
            note="Then the GM rules on its effect: certain (chance 1) or with a stated chance (R-13).",
            check=lambda v: None if v["description"].strip() else "what does the character do?",
        ), described)

    def _free_target(self, actor: str, description: str, spec: EffectSpec) -> None:
        me = self.battle[actor]
        here = pos(me)
        others = sorted(self.battle.active.values(), key=lambda e: (  # enemies nearest first, then self, allies
            0 if team(e) != team(me) else 1 if e is me else 2, distance(here, pos(e))))
        options = [(ident(e).id, f"{ident(e).name} ({'self' if e is me else team(e)}, "
                                 f"{max(0, distance(here, pos(e)))} cells between)") for e in others]

        def chosen(target: str | None) -> None:
            if not target:
                return
            chance = None if spec.chance >= 1 else Fraction(spec.chance)
            action = FreeAction(actor, target=target, description=description.strip(), effect=spec.effect,
                                chance=chance, duration=spec.duration, magnitude=spec.magnitude)
            if self.screen.act(action):
                self.last_ruling = (ident(me).name, action)
                self.screen.notify("P writes this ruling down as a permanent ability", timeout=4)

        self.screen.app.push_screen(ChoiceDialog(f"{spec.effect} on whom?", options), chosen)

    def action_make_ability(self) -> None:
        screen = self.screen
        app = screen.app
        if self.last_ruling is None:
            screen.prompt = "no free action ruled on yet in this battle"
            screen.refresh_all()
            return
        name, action = self.last_ruling
        member = app.campaign.member(name)
        if member is None:
            screen.prompt = f"{name} is not in the party: only party characters keep abilities"
            screen.refresh_all()
            return
        actor = self.battle.by_id.get(action.actor)
        target = self.battle.by_id.get(action.target or "")
        if target is None or target is actor:
            aim = Target.self
        else:
            aim = Target.ally if team(target) == team(actor) else Target.enemy
        words = " ".join(action.description.split())
        ability = Ability(
            name=(words[:1].upper() + words[1:])[:40] or "Ruling", difficulty=Difficulty.II, kind=AbilityKind.effect,
            description=words, target=aim,
            effects=[EffectSpec(action.effect or "stun", action.chance if action.chance is not None else Fraction(1),
                                action.duration, Fraction(action.magnitude))],
        )
        app.host.member = name  # the ability form previews with this character (app.session)

        def keep(result: Ability) -> bool:  # the form closes only once the campaign has it
            if not app.host.act(lambda c: changes.add_ability(c, name, result, words), f"{name} learns {result.name}"):
                return False
            screen.notify(f"{name} learns {result.name}", title="Permanent ability")
            return True

        app.push_screen(AbilityFormScreen(ability, [a.name for a in member.character.abilities], commit=keep))


def offered_award(app, session: BattleInProgress, shares: dict[str, int]) -> tuple[dict[str, int], list[str]]:
    """The award offered after a fight: R-14's shares (party members only), or, when a defeated
    foe was worth 0 XP (an NPC's default), R-4's guide's value of it shared by those standing
    (`changes.award_suggestion`), with a line per foe so valued."""

    battle = session.battle
    fallen = [(ident(e).name, ident(e).level, ident(e).xp_value) for e in battle.combatants()
              if ident(e).base_team == "enemies" and comp(e, Presence) is Presence.dead]
    if not any(xp == 0 for _, _, xp in fallen):
        return shares or {m.name: 0 for m in app.campaign.party}, []
    catalogue_xp: dict[int, list[int]] = {}
    for definition in app.enemies().values():
        catalogue_xp.setdefault(definition.level, []).append(definition.xp)
    standing = [ident(e).name for e in battle.combatants()
                if ident(e).kind == "character" and is_active(e) and app.campaign.member(ident(e).name) is not None]
    suggested, notes = changes.award_suggestion(fallen, standing, catalogue_xp, app.rules)
    return {**{name: 0 for name in shares}, **suggested} or {m.name: 0 for m in app.campaign.party}, notes


def battle_ended(app, session: BattleInProgress, name: str, *, on_award=None, leave: bool = True) -> None:
    """The GM tool's end of a battle (a local one, or one at a table): the campaign takes the
    result (`battles.finish_battle`: the log, the players' recap, what carries to the next fight),
    the summary shows, then the R-14 XP award, which the GM may change before giving it.
    `on_award(shares)`: told what was awarded; `leave`: the battle's screen closes first."""
    result = session.battle.result
    app.host.act(lambda c: battles.finish_battle(battles.with_inputs(c, session, app.host.store.catalogue, app.host.gm.rules_for),
                                                 session), f"battle ends: {name}")
    headline = {"party": "Victory!", "enemies": "Defeat.", "draw": "A draw."}[result.winner]
    headline += f"  {result.rounds} rounds."
    shares = {who: xp for who, xp in result.xp.items() if app.campaign.member(who) is not None}
    shares, guide = offered_award(app, session, shares)
    footer = ("XP (R-14): " + ", ".join(f"{n} {x}" for n, x in shares.items())) if any(shares.values()) \
        else "No XP earned by R-14: the award is yours to give."
    if guide:
        footer = "XP offered: " + ", ".join(f"{n} {x}" for n, x in shares.items()) + " (R-4's guide for foes worth 0)"

    def done(_: None) -> None:
        if leave:
            app.pop_screen()
        # always offered, a defeat or a fight worth nothing by the data too: the GM decides
        app.push_screen(ExperienceScreen(shares, f"Battle: {name}", on_award=on_award, note="\n".join(guide)))

    app.push_screen(BattleSummary(headline, summary_rows(session), footer,
                                  hint="enter: award the XP (ctrl+s there), or change it first"), done)
