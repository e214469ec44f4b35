"""The GM's hand on the selected combatant (engine.overrides): health, effects, charges,
cooldowns, the next check, where it stands, who plays it. A mixin of `GMBattleScreen`."""

from __future__ import annotations

from horizon_tui.content.models import Difficulty, EffectSpec
from horizon_tui.engine import overrides as ov
from horizon_tui.engine.battle import charge_left, comp, effects, hp, ident, pos
from horizon_tui.engine.components import Controller, Cooldowns, Presence
from horizon_tui.engine.sideview import effect_turns_left
from horizon_tui.engine.usability import cooldown_left
from horizon_tui.ui.dialogs.effect import EffectDialog
from horizon_tui.ui.gm.screens.dialogs import Field, PromptDialog
from horizon_tui.ui.gm.screens.tracker import checked, whole_in
from horizon_tui.ui.battle.dialogs import ChoiceDialog
from horizon_tui.ui.battle.modes import Place, PlaceMode


class OverrideMenu:
    """`o` on the selected combatant. Needs `battle`, `_selected_id()`, `_override(change, label)`,
    `prompt`, `refresh_all()` and the battle screen's `input` (place mode, whose choice `_place` makes)."""

    def action_override(self) -> None:
        target = self._selected_id()
        if target is None or self.battle.over:
            return
        e = self.battle[target]
        name = ident(e).name
        down = comp(e, Presence) is not Presence.active
        options = [
            ("revive", f"Revive it ({comp(e, Presence).value})") if down else
            ("health", f"Set health (now {hp(e).hp}/{hp(e).max_hp})"),
            ("add", "Add an effect (duration, magnitude)"),
            ("remove", "Remove an effect"),
            ("hide", "Reveal it (R-13: it is hidden)" if effects(e).get("hidden") is not None else
             "Hide it from the other side (R-13, until it acts)"),
            ("charges", "Restore or spend charges"),
            ("cooldown", "Reset a cooldown"),
            ("win", "Force the next check to succeed"),
            ("lose", "Force the next check to fail"),
            ("move", "Move it anywhere"),
            ("controller", f"Hand it to a player, the GM or its AI (now {comp(e, Controller).kind})"),
        ]
        self.app.push_screen(ChoiceDialog(f"GM override on {name}", options),
                             lambda choice: choice and getattr(self, f"_override_{choice}")(target))

    def _ask(self, title: str, fields: list[Field], then, check=None) -> None:
        self.app.push_screen(PromptDialog(title, [*fields, Field("reason", "Reason", placeholder="optional")],
                                          check=check), lambda values: values and then(values))

    def _override_health(self, target: str) -> None:
        e = self.battle[target]

        top = hp(e).max_hp
        self._ask(f"Set {ident(e).name}'s health (0…{top})", [Field("hp", "Health", str(hp(e).hp))],
                  lambda v: self._override(ov.SetHealth(target, whole_in(v["hp"], 0, top, "health"), v["reason"]),
                                           "set health"), checked({"hp": (0, top, "health")}))

    def _override_revive(self, target: str) -> None:
        self.selected = target
        self.action_revive()

    def _override_add(self, target: str) -> None:
        def chosen(spec: EffectSpec | None) -> None:
            if spec is None:
                return
            self._ask(f"Why {spec.effect}?", [], lambda v: self._override(
                ov.AddEffect(target, spec.effect, spec.duration, spec.magnitude, spec.stat, v["reason"]),
                f"add {spec.effect}"))

        self.app.push_screen(EffectDialog(), chosen)

    def _override_remove(self, target: str) -> None:
        active = effects(self.battle[target]).active
        if not active:
            self.prompt = f"{ident(self.battle[target]).name} is under no effect"
            self.refresh_all()
            return
        options = [(fx.effect, f"{fx.effect} ({effect_turns_left(fx)} turns left)") for fx in active]
        self.app.push_screen(ChoiceDialog("Remove which effect?", options), lambda name: name and self._override(
            ov.RemoveEffect(target, name), f"remove {name}"))

    def _override_hide(self, target: str) -> None:
        """R-13's hidden effect by the GM's hand: neither seen nor targeted by the other side (every
        player's view leaves it out) until it acts, or the GM reveals it."""
        e = self.battle[target]
        if effects(e).get("hidden") is not None:
            self._override(ov.RemoveEffect(target, "hidden", "revealed"), f"reveal {ident(e).name}")
            return
        self._override(ov.AddEffect(target, "hidden", self.battle.rules.turns.round_cap, reason="hidden by the GM"),
                       f"hide {ident(e).name}")

    def _override_charges(self, target: str) -> None:
        e = self.battle[target]
        options = []
        for d in Difficulty:
            if d is Difficulty.I:
                continue
            left = charge_left(e, d)
            options.append((d.value, f"{d.value}: {left if left is not None else '∞'} left"))

        def picked(difficulty: str | None) -> None:
            if not difficulty:
                return
            left = charge_left(e, Difficulty(difficulty))
            self._ask(f"Charges of difficulty {difficulty}", [Field("charges", "Charges", str(left or 0))],
                      lambda v: self._override(ov.SetCharges(target, difficulty, whole_in(v["charges"], 0, 99, "charges"),
                                                                 v["reason"]), f"charges {difficulty}"),
                      checked({"charges": (0, 99, "charges")}))

        self.app.push_screen(ChoiceDialog("Charges of which difficulty?", options), picked)

    def _override_cooldown(self, target: str) -> None:
        e = self.battle[target]
        left = {n: cooldown_left(self.battle, e, n) for n in comp(e, Cooldowns).ready_at}
        cooling = [(n, f"{n} ({turns} turn{'s' if turns != 1 else ''} left)") for n, turns in left.items() if turns]
        if not cooling:
            self.prompt = f"nothing of {ident(e).name}'s is cooling down"
            self.refresh_all()
            return
        self.app.push_screen(ChoiceDialog("Reset which cooldown?", cooling), lambda name: name and self._override(
            ov.ResetCooldown(target, name), f"reset {name}"))

    def _override_win(self, target: str) -> None:
        self._ask("Force the next check to succeed", [],
                  lambda v: self._override(ov.ForceCheck(target, True, v["reason"]), "force success"))

    def _override_lose(self, target: str) -> None:
        self._ask("Force the next check to fail", [],
                  lambda v: self._override(ov.ForceCheck(target, False, v["reason"]), "force failure"))

    def _override_controller(self, target: str) -> None:
        options = [("player", "a player (the GM plays it for them)"), ("gm", "the GM"), ("ai", "its AI")]
        self.app.push_screen(ChoiceDialog("Who plays it?", options), lambda kind: kind and self._override(
            ov.SetController(target, kind), f"controller {kind}"))

    def _override_move(self, target: str) -> None:
        e = self.battle[target]
        if getattr(self, "mapless", False):  # no cell is shown to put it on
            self.refuse(f"a fight without a map: {ident(e).name} stands where the GM says; no cell to pick")
            return
        if comp(e, Presence) is not Presence.active:
            self.prompt = f"{ident(e).name} is not on the battlefield"
            self.refresh_all()
            return
        self.input = PlaceMode(self.battle, target, pos(e))
        self.refresh_all()

    def _place(self, place: Place) -> None:
        """Place mode's choice (the battle screen's `placer`): the move override."""
        self._override(ov.Teleport(place.target, place.cell), "move")
