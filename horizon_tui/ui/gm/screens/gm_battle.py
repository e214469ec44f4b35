"""The encounter runner: the player app's battle screen as the GM sees it — no fog, every side —
with an initiative tracker, the GM's overrides and free-action rulings.

Every input (a move, an attack, a ruling, an override, a reordering) is saved into the campaign
as it happens, so `ctrl+z` steps back through the fight one input at a time: the battle is rebuilt
from its seed and the remaining inputs.
"""

from __future__ import annotations

from fractions import Fraction

from rich.text import Text
from textual.binding import Binding

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
from horizon_tui.campaign.initiative import logged, tracker_rows
from horizon_tui.ui.gm.screens.dialogs import Field, PromptDialog
from horizon_tui.ui.gm.screens.gm_overrides import OverrideMenu
from horizon_tui.ui.gm.screens.tracker import TrackerMixin, TrackerPanel
from horizon_tui.ui.battle.dialogs import BattleSummary, ChoiceDialog
from horizon_tui.ui.battle.modes import PlaceMode
from horizon_tui.ui.battle.roles import LocalEngine
from horizon_tui.ui.battle.screen import BattleScreen

class GMBattleScreen(TrackerMixin, OverrideMenu, BattleScreen):
    """The player app's battle screen as the GM sees it: everything, every side, and the GM's hand."""

    GM_SCREEN = True
    HOLD_TYPE_AHEAD = False  # the GM plays every side: the turn is always the GM's to give
    TRACKER_LEGEND = ("[ ] pick ␣ mark D dmg H heal\n+ - health T temp v revive\nA add W out R reveal i init\n"
                      "{ } order d hold e ready\nc/p/g/I who C party→AI\no over f free action\n")
    BINDINGS = [
        Binding("left_square_bracket", "select(-1)", "Previous", id="gmb.prev", key_display="[", show=False),
        Binding("right_square_bracket", "select(1)", "Next", id="gmb.next", key_display="]", show=False),
        Binding("left_curly_bracket", "shift(-1)", "Earlier", id="gmb.earlier", key_display="{", show=False,
                tooltip="Move the selected combatant one place earlier in the turn order"),
        Binding("right_curly_bracket", "shift(1)", "Later", id="gmb.later", key_display="}", show=False,
                tooltip="Move the selected combatant one place later in the turn order"),
        Binding("d", "hold", "Delay/hold", id="gmb.delay",
                tooltip="Hold the selected combatant out of the order (the acting one too); on a held one: "
                        "it re-enters after this turn"),
        Binding("e", "ready", "Ready", id="gmb.ready", tooltip="The selected combatant acts right after this turn"),
        Binding("c", "controller", "Player/GM/AI", id="gmb.controller",
                tooltip="The selected combatant's next controller: player → GM → AI"),
        Binding("p", "controller_to('player')", "To a player", id="gmb.to_player", show=False,
                tooltip="The selected combatant played by its player"),
        Binding("g", "controller_to('gm')", "To the GM", id="gmb.to_gm", show=False,
                tooltip="The selected combatant played by the GM"),
        Binding("I", "controller_to('ai')", "To the AI", id="gmb.to_ai", show=False,
                tooltip="The selected combatant played by its AI"),
        Binding("C", "party_to_ai", "Party to AI", id="gmb.party_ai", show=False,
                tooltip="The whole party played by the AI"),
        Binding("plus,equals_sign", "health(1)", "Health +1", id="gmb.health_up", key_display="+", show=False,
                tooltip="The selected combatant's health one up"),
        Binding("minus", "health(-1)", "Health −1", id="gmb.health_down", key_display="-", show=False,
                tooltip="The selected combatant's health one down"),
        Binding("o", "override", "Override", id="gmb.override"),
        Binding("f", "free_action", "Free action", id="battle.free"),
        Binding("P", "make_ability", "Ruling→ability", id="gmb.ability",
                tooltip="Write the last free action's ruling down as a permanent ability"),
        Binding("q", "leave", "Leave", id="gmb.leave"),
        Binding("space", "mark", "Mark", id="gmb.mark", key_display="space",
                tooltip="Mark the selected combatant: D, H and T act on all marked (m is the battle log)"),
        Binding("D", "damage", "Damage", id="gmb.damage", tooltip="Damage by an amount (the marked, or the selected)"),
        Binding("H", "heal", "Heal", id="gmb.heal", tooltip="Heal by an amount (the marked, or the selected)"),
        Binding("T", "temp_health", "Temp health", id="gmb.temp", show=False,
                tooltip="Temporary health (the marked, or the selected): lost before health"),
        Binding("v", "revive", "Revive", id="gmb.revive", tooltip="Bring the selected fallen combatant back"),
        Binding("A", "add_combatant", "Add", id="gmb.add", tooltip="A combatant joins: catalogue, NPC or stat line"),
        Binding("W", "withdraw", "Withdraw", id="gmb.withdraw", show=False,
                tooltip="Take the selected combatant out of the fight"),
        Binding("i", "initiative", "Initiative", id="gmb.initiative", show=False,
                tooltip="Write the selected combatant's initiative total"),
        Binding("R", "reveal", "Reveal", id="gmb.reveal", show=False, tooltip="The selected hidden combatant is seen"),
    ]

    def __init__(self, session: BattleInProgress, name: str, *, mapless: bool = False) -> None:
        # the campaign recorder: every input is saved into the campaign as it happens (`_record`)
        super().__init__(session, driver=LocalEngine(on_end=self._ended, after_input=self._input_recorded), side=None,
                         panels=[TrackerPanel(self._tracker_text)], placer=self._place)
        self.battle_name = name
        self.mapless = mapless  # the tracker alone, distances ruled by the GM
        self.marked: set[str] = set()
        self.selected: str | None = None
        self.last_ruling: tuple[str, FreeAction] | None = None

    # --- layout and drawing --------------------------------------------------------------------

    def on_mount(self) -> None:  # BattleScreen.on_mount runs as well (Textual calls both)
        self.title = f"Battle — {self.battle_name}" + (" (no map)" if self.mapless else "")
        if self.mapless:
            self.add_class("mapless")

    def on_resize(self, event) -> None:
        self.call_after_refresh(self.refresh_all)  # the tracker's rows fit the side panel's new width

    def _selected_id(self) -> str | None:
        """The row the GM picked ([ ]): it stays there as the turns pass. Until one is picked, the
        one acting when the tracker was first drawn (then it stays)."""
        if self.selected not in self.battle.by_id:
            current = self.battle.current
            self.selected = ident(current).id if current is not None else None
        return self.selected

    def _tracker_text(self) -> Text:
        side = self.query_one("#battle-side")
        width = max(24, side.scrollable_content_region.width - 1) if side.size.width else 28
        text = self.tracker_text(width)
        text.append(self.TRACKER_LEGEND, style="dim")
        return text

    def _shown_unit(self, known):
        if self.cursor is None and self._selected_id() is not None:
            return known.unit(self._selected_id())
        return super()._shown_unit(known)

    # a fight without a map (m): no cell is shown, so no key walks one; the GM rules distances
    MAPLESS_KEYS = ". end turn · a attack · z ability · D/H dmg/heal · f free action"
    MAPLESS_REFUSAL = "a fight without a map: nobody walks it, the GM rules distances"

    def action_direction(self, name: str) -> None:
        if self.mapless:
            self.refuse(f"{self.MAPLESS_REFUSAL} (tab: next target)")
            return
        super().action_direction(name)

    def action_travel(self) -> None:
        if self.mapless:
            self.refuse(self.MAPLESS_REFUSAL)
            return
        super().action_travel()

    def action_look(self) -> None:
        if self.mapless:
            self.refuse(f"{self.MAPLESS_REFUSAL}: the turn order on the right shows everyone")
            return
        super().action_look()

    def _status_text(self) -> Text:
        me = self.me
        if (self.mapless and me is not None and self.mode == "move" and not self.prompt and not self.more
                and not self.battle.over):
            return Text(f"{ident(me).name}, no map: {self.MAPLESS_KEYS}", style="dim")
        if isinstance(self.input, PlaceMode):
            name = ident(self.battle[self.input.target]).name
            return Text(f"Move {name} anywhere: arrows pick the cell, enter puts it there, esc cancels", style="yellow")
        if self.me is None and not self.battle.over and self.battle.current is not None:
            if self.prompt:  # a refused override, while the AI plays
                return Text(self.prompt, style="yellow")
            who = ident(self.battle.current).name
            return Text(f"{who} (AI) is acting…  x plays the AI turns now · c on it hands it to you", style="dim")
        return super()._status_text()

    # --- recording every GM input into the campaign ------------------------------------------

    def _record(self, label: str, extra=None) -> None:
        app = self.app
        if self._finished or app.campaign is None or app.campaign.battle is None:
            return
        saved = app.act(lambda c: battles.with_inputs(c, self.session, app.store.catalogue, app.gm.rules_for, extra),
                        label)
        if not saved and app.gm.read_only and not app.gm.was_read_only:
            self._taken_over()

    def _schedule_ai(self) -> None:
        if self._finished and not self.battle.over:  # left (taken over, rebuilt by an undo): no more AI turns here
            return
        super()._schedule_ai()

    def _taken_over(self) -> None:
        """Another window took the campaign over: this one saves nothing more, so the fight (and its
        AI turns) stops here instead of going on where no one can keep it."""
        self._finished = True
        if self._ai_timer is not None:
            self._ai_timer.stop()
            self._ai_timer = None
        self.app.notify(f"{self.app.gm.read_only_reason()}. The fight goes on in the window that has it; "
                        "this one left it where it was last saved.", title="Battle left", severity="warning",
                        timeout=10)
        self.app.call_later(self.app.pop_screen)

    def _input_recorded(self, action, outcome) -> None:
        self._record(f"{self.battle_name}: {type(action).__name__.lower()}")

    def _override(self, change, label: str | None, extra=None) -> bool:
        """Run a GM override; logged as `label`, or (None: a tracker act) with what it changed."""
        outcome = override(self.battle, change, self.session.inputs)
        if isinstance(outcome, Impossible):
            return self.refuse(outcome.reason)
        self.prompt = ""
        self._record(f"{self.battle_name}: {label or logged(self.battle, outcome)}", extra)
        self.refresh_all()
        self._schedule_ai()
        return True

    async def after_undo(self) -> None:
        """The campaign stepped back: rebuild the battle from its record if its inputs changed."""
        app = self.app
        record = app.campaign.battle
        if record is None:
            self._finished = True
            await app.pop_screen()
            return
        if record.get("inputs") == session_to_dict(self.session, app.store.catalogue)["inputs"]:
            return
        try:
            session = battles.session_from_record(record, app.store.catalogue, app.gm.rules_for, app.enemies())
        except (DataError, BattleError) as exc:
            app.notify(str(exc), severity="error")
            return
        self._finished = True  # this screen's battle is gone; the rebuilt one takes over
        if self._ai_timer is not None:
            self._ai_timer.stop()
        await app.pop_screen()  # the screens share an id: the old one goes first
        await app.push_screen(GMBattleScreen(session, self.battle_name, mapless=self.mapless))

    # --- the end ---------------------------------------------------------------------------

    def _ended(self, session: BattleInProgress) -> None:
        battle_ended(self.app, session, self.battle_name)

    def action_leave(self) -> None:
        def chosen(choice: str | None) -> None:
            if choice == "leave":
                self._finished = True
                self.app.pop_screen()
            elif choice == "abandon":
                self._finished = True
                self.app.act(lambda c: battles.finish_battle(c, self.session), f"battle abandoned: {self.battle_name}")
                self.app.pop_screen()

        self.app.push_screen(ChoiceDialog("Leave the battle?", [
            ("leave", "Leave for now — it stays in the campaign; b resumes it"),
            ("abandon", "Abandon it — logged as unfinished, no XP"),
            ("stay", "Stay"),
        ]), chosen)

    # --- the initiative tracker ------------------------------------------------------------

    def action_select(self, step: int) -> None:
        rows = [row.id for row in tracker_rows(self.battle)]  # held ones too, after the order
        if not rows:
            return
        chosen = self._selected_id()
        index = rows.index(chosen) if chosen in rows else 0
        self.selected = rows[(index + step) % len(rows)]
        self.refresh_all()

    # --- free actions: the player's words, the GM's ruling --------------------------------

    def action_free_action(self) -> None:
        me = self.me
        if me is None:
            self.prompt = "free actions are for the combatant whose turn it is (c hands an AI one to you)"
            self.refresh_all()
            return
        problem = free_action_refusal(self.battle, me)
        if problem:
            self.refuse(f"{ident(me).name}: {problem}")
            return
        actor = ident(me).id
        name = ident(me).name

        def described(values: dict[str, str] | None) -> None:
            if not values:
                return
            from horizon_tui.ui.dialogs.effect import EffectDialog

            self.app.push_screen(EffectDialog(), lambda spec: spec and self._free_target(actor, values["description"], spec))

        self.app.push_screen(PromptDialog(
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
            if self._act(action):
                self.last_ruling = (ident(me).name, action)
                self.notify("P writes this ruling down as a permanent ability", timeout=4)

        self.app.push_screen(ChoiceDialog(f"{spec.effect} on whom?", options), chosen)

    def action_make_ability(self) -> None:
        from horizon_tui.ui.player.screens.ability_form import AbilityFormScreen

        if self.last_ruling is None:
            self.prompt = "no free action ruled on yet in this battle"
            self.refresh_all()
            return
        name, action = self.last_ruling
        member = self.app.campaign.member(name)
        if member is None:
            self.prompt = f"{name} is not in the party: only party characters keep abilities"
            self.refresh_all()
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
        self.app._member = name  # the ability form previews with this character (app.session)

        def keep(result: Ability) -> bool:  # the form closes only once the campaign has it
            if not self.app.act(lambda c: changes.add_ability(c, name, result, words), f"{name} learns {result.name}"):
                return False
            self.notify(f"{name} learns {result.name}", title="Permanent ability")
            return True

        self.app.push_screen(AbilityFormScreen(ability, [a.name for a in member.character.abilities], commit=keep))

    def _slots_text(self, me):
        """The abilities of the combatant the panel names: the selected one when the GM picked
        another than the one acting (not the acting one's under another's name)."""
        chosen = self._selected_id()
        if chosen is not None and (me is None or chosen != ident(me).id):
            return super()._slots_text(self.battle[chosen])
        return super()._slots_text(me)


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
    app.act(lambda c: battles.finish_battle(battles.with_inputs(c, session, app.store.catalogue, app.gm.rules_for),
                                            session), f"battle ends: {name}")
    from horizon_tui.ui.battle.flow import summary_rows

    headline = {"party": "Victory!", "enemies": "Defeat.", "draw": "A draw."}[result.winner]
    headline += f"  {result.rounds} rounds."
    shares = {who: xp for who, xp in result.xp.items() if app.campaign.member(who) is not None}
    shares, guide = offered_award(app, session, shares)
    footer = ("XP (R-14): " + ", ".join(f"{n} {x}" for n, x in shares.items())) if any(shares.values()) \
        else "No XP earned by R-14: the award is yours to give."
    if guide:
        footer = "XP offered: " + ", ".join(f"{n} {x}" for n, x in shares.items()) + " (R-4's guide for foes worth 0)"

    def done(_: None) -> None:
        from horizon_tui.ui.gm.screens.experience import ExperienceScreen

        if leave:
            app.pop_screen()
        # always offered, a defeat or a fight worth nothing by the data too: the GM decides
        app.push_screen(ExperienceScreen(shares, f"Battle: {name}", on_award=on_award, note="\n".join(guide)))

    app.push_screen(BattleSummary(headline, summary_rows(session), footer,
                                  hint="enter: award the XP (ctrl+s there), or change it first"), done)
