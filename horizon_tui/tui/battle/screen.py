"""The battle screen: the battlefield, the initiative bar, the active combatant, the log.

A small state machine drives the keys: `move` (step, bump to attack), `target` (a cursor for an
attack, an ability or a free action, with its reach, area and odds shown before confirming),
`travel` (walk to a cell along a path) and `look` (examine anyone). Enemies act one turn at a
time with a short delay the player can speed up or skip. The screen only asks the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import RichLog, Static

from horizon_tui.content.models import Target
from horizon_tui.engine import ai, targeting
from horizon_tui.engine.actions import Attack, FreeAction, Impossible, Move, UseAbility, Wait, move_costs
from horizon_tui.engine.battle import (
    Battle, Entity, charge_left, comp, effects, gear, hp, ident, pos, team,
)
from horizon_tui.engine.components import FreeActions, Loadout, Presence, TurnState
from horizon_tui.engine.narrate import describe
from horizon_tui.engine.persist import BattleSession
from horizon_tui.engine.sideview import effect_turns_left, hidden_from, targetable
from horizon_tui.engine.usability import ability_refusal, cooldown_left
from horizon_tui.engine.runner import needs_input, submit
from horizon_tui.rules.texts import EFFECT_TEXT
from horizon_tui.tui.battle.view import Overlay, team_view
from horizon_tui.tui.battle.widget import BattlefieldView
from horizon_tui.tui.widgets.bars import KeyBar

DIRECTIONS = {
    "up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0),
    "up_left": (-1, -1), "up_right": (1, -1), "down_left": (-1, 1), "down_right": (1, 1),
}
SPEEDS = (0.8, 0.4, 0.15, 0.03)  # seconds between enemy turns


def _pct(value: Fraction | None) -> str:
    return "—" if value is None else f"{float(value) * 100:.0f}%"


class BattleScreen(Screen):
    """One battle, played by the party's side from the keyboard."""

    BINDINGS = [
        Binding("up,k,kp_8", "direction('up')", "Move", id="battle.up", show=False),
        Binding("down,j,kp_2", "direction('down')", "Move", id="battle.down", show=False),
        Binding("left,h,kp_4", "direction('left')", "Move", id="battle.left", show=False),
        Binding("right,kp_6", "direction('right')", "Move", id="battle.right", show=False),  # l is look
        Binding("y,home,kp_7", "direction('up_left')", "Move ↖", id="battle.up_left", show=False),
        Binding("u,pageup,kp_9", "direction('up_right')", "Move ↗", id="battle.up_right", show=False),
        Binding("b,end,kp_1", "direction('down_left')", "Move ↙", id="battle.down_left", show=False),
        Binding("n,pagedown,kp_3", "direction('down_right')", "Move ↘", id="battle.down_right", show=False),
        *[Binding(str(i), f"ability({i})", f"Ability {i}", id=f"battle.ability{i}", show=False) for i in range(1, 10)],
        Binding("a", "attack", "Attack", id="battle.attack"),
        Binding("f", "free_action", "Free action", id="battle.free"),
        Binding("s", "swap", "Swap", id="battle.swap"),
        Binding("l", "look", "Look", id="battle.look"),
        Binding("t", "travel", "Travel", id="battle.travel"),
        Binding("full_stop,space,w", "wait", "End turn", id="battle.wait", key_display="."),
        Binding("enter", "confirm", "Confirm", id="battle.confirm", show=False),
        Binding("tab", "next_target", "Next target", id="battle.next", show=False),
        Binding("escape", "cancel", "Cancel", id="battle.cancel", show=False),
        Binding("plus,equals_sign", "faster", "Faster enemies", id="battle.faster", show=False, key_display="+"),
        Binding("minus", "slower", "Slower enemies", id="battle.slower", show=False, key_display="-"),
        Binding("x", "skip", "Skip enemy turns", id="battle.skip"),
    ]

    def __init__(self, session: BattleSession, *, on_end: Callable[[BattleSession], None] | None = None,
                 autosave: Callable[[BattleSession], None] | None = None, side: str | None = "party",
                 id: str | None = "battle-field") -> None:
        super().__init__(id=id)
        self.session = session
        self.battle: Battle = session.battle
        self.on_end = on_end
        self.autosave = autosave
        self.mode = "move"
        self.cursor: tuple[int, int] | None = None
        self.preview_fn: Callable[[tuple[int, int]], targeting.Preview] | None = None
        self.confirm_fn: Callable[[tuple[int, int]], object] | None = None
        self.prompt = ""
        self.speed = 1
        self.side = side  # the side whose sight is shown; None: the GM sees everything
        self._ai_timer = None
        self._finished = False

    # --- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="initiative", markup=False)
        with Horizontal(id="battle-main"):
            with Vertical(id="map-column"):
                yield BattlefieldView(self.battle, self.side, id="map")
            with VerticalScroll(id="battle-side"):
                yield Static(id="unit", markup=False)
                yield Static(id="slots", markup=False)
        yield Static(id="status", markup=False)
        yield RichLog(id="log", wrap=True, markup=False, max_lines=500)
        yield KeyBar()

    def on_mount(self) -> None:
        log = self.query_one("#log", RichLog)
        for event in self.battle.log:
            self._log(event, log)
        self.battle.listeners.append(self._on_event)
        self.refresh_all()
        self._schedule_ai()

    def on_unmount(self) -> None:
        if self._on_event in self.battle.listeners:
            self.battle.listeners.remove(self._on_event)
        self._save()

    def _on_event(self, event) -> None:
        self._log(event, self.query_one("#log", RichLog))

    def _log(self, event, log: RichLog) -> None:
        line = describe(self.battle, event)
        if line:
            log.write(Text(line, style="bold" if event.type in ("result", "defeated", "round") else ""))

    # --- turn flow -------------------------------------------------------------------------------

    @property
    def me(self) -> Entity | None:
        current = self.battle.current
        return current if current is not None and needs_input(self.battle, current) else None

    def _schedule_ai(self) -> None:
        if self._ai_timer is not None:
            self._ai_timer.stop()
            self._ai_timer = None
        if self.battle.over:
            self._finish()
            return
        if self.me is None and self.battle.current is not None:
            self._ai_timer = self.set_timer(SPEEDS[self.speed], self._ai_step)

    def _ai_step(self) -> None:
        self._ai_timer = None
        current = self.battle.current
        if current is not None and not self.battle.over and not needs_input(self.battle, current):
            ai.take_turn(self.battle, current)
        self.refresh_all()
        if self.me is not None:
            self._save()
        self._schedule_ai()

    def refuse(self, reason: str) -> bool:
        """Say why in the status line, with a bell; False, for the callers that return it."""
        self.prompt = reason
        self.app.bell()
        self.refresh_all()
        return False

    def _act(self, action) -> bool:
        """Submit a player action; report a refusal in the status line."""
        me = self.me
        if me is None:
            return False
        before = self.battle.current
        outcome = submit(self.battle, action, self.session.inputs)
        if isinstance(outcome, Impossible):
            return self.refuse(outcome.reason)
        self.prompt = ""
        self._leave_mode()
        if self.battle.current is not before:
            self._save()
        self.after_input(action, outcome)
        self.refresh_all()
        self._schedule_ai()
        return True

    def after_input(self, action, outcome) -> None:
        """Called after each accepted player or GM input; the GM's screen logs and saves here."""

    def _save(self) -> None:
        if self.autosave is not None and not self.battle.over:
            try:
                self.autosave(self.session)
            except Exception as exc:  # noqa: BLE001 - a failed save must not end the battle
                self.notify(f"Battle not saved: {exc}", severity="error")

    def _finish(self) -> None:
        if self._finished:
            return
        self._finished = True
        self.refresh_all()
        if self.on_end is not None:
            self.on_end(self.session)

    # --- drawing ---------------------------------------------------------------------------------

    def refresh_all(self) -> None:
        battle = self.battle
        view = self.query_one("#map", BattlefieldView)
        visible = team_view(battle, self.side)
        current = battle.current
        overlay = self._overlay()
        view.redraw(visible, ident(current).id if current is not None else None, overlay)
        focus = self.cursor or (pos(current) if current is not None and comp(current, Presence) is Presence.active
                                and visible[pos(current)[1], pos(current)[0]] else None)
        if focus is not None:
            view.keep_in_view(focus)
        self.query_one("#initiative", Static).update(self._initiative_text())
        shown = self._shown_unit(visible)
        self.query_one("#unit", Static).update(self._unit_text(shown))
        self.query_one("#slots", Static).update(self._slots_text(self.me))
        self.query_one("#status", Static).update(self._status_text())

    def _overlay(self) -> Overlay | None:
        me = self.me
        if self.mode == "move" or me is None or self.cursor is None:
            return None
        if self.mode in ("look", "travel"):
            path = []
            if self.mode == "travel":
                path = self.battle.battlefield.path(
                    pos(me), self.cursor, targeting_blocked(self.battle, me), **move_costs(self.battle, me))
            return Overlay(path=path, cursor=self.cursor)
        preview = self.preview_fn(self.cursor) if self.preview_fn else None
        reach = targeting.reach_mask(self.battle, pos(me), preview.reach) if preview else None
        return Overlay(reach=reach, area=preview.cells if preview else (), cursor=self.cursor,
                       cursor_blocked=bool(preview and preview.problem))

    def _initiative_text(self) -> Text:
        text = Text(f"Round {self.battle.round}  ", style="bold")
        current = self.battle.current
        for cid in self.battle.order:
            e = self.battle[cid]
            presence = comp(e, Presence)
            style = "cyan" if team(e) == "party" else "red"
            if presence is not Presence.active:
                style = "dim strike"
            if e is current:
                style += " reverse"
            text.append(f" {ident(e).name} ", style=style)
        return text

    def _shown_unit(self, visible) -> Entity | None:
        if self.cursor is not None:
            e = self.battle.at(self.cursor)
            if e is not None and visible[self.cursor[1], self.cursor[0]] and not hidden_from(e, self.side):
                return e
        return self.me or self.battle.current

    def _unit_text(self, e: Entity | None) -> Text:
        if e is None:
            return Text("")
        i, h = ident(e), hp(e)
        text = Text()
        text.append(i.name, style="bold cyan" if team(e) == "party" else "bold red")
        text.append(f" · level {i.level}\n", style="dim")
        share = max(0, h.hp) / h.max_hp if h.max_hp else 0
        bar = int(round(share * 20))
        text.append("█" * bar, style="green" if share > 0.5 else "yellow" if share > 0.25 else "red")
        text.append("░" * (20 - bar), style="dim")
        text.append(f" {max(0, h.hp)}/{h.max_hp}\n")
        state = comp(e, TurnState)
        if e is self.battle.current:
            text.append(f"movement {state.movement_left}  ", style="dim")
            text.append(f"free actions {comp(e, FreeActions).points}\n", style="dim")
        for fx in effects(e).active:
            text.append(f"{fx.effect}", style="magenta")
            left = effect_turns_left(fx)
            text.append(f" {left} turn{'s' if left != 1 else ''} left")
            if fx.magnitude:
                text.append(f", {float(fx.magnitude):g}")
            text.append("\n")
            if self.mode == "look":
                text.append(f"  {EFFECT_TEXT.get(fx.effect, '')}\n", style="dim italic")
        if self.mode == "look":
            from horizon_tui.engine.battle import stats

            values = stats(e).values
            for name in ("accuracy", "evasion", "speed", "willpower"):
                text.append(f"{name} {float(values[name]):.1f}  ", style="dim")
            text.append(f"\nweapon {gear(e).weapon.name}", style="dim")
        return text

    def _slots_text(self, me: Entity | None) -> Text:
        text = Text("Abilities\n", style="bold")
        e = me or self.battle.current
        if e is None:
            return text
        loadout = comp(e, Loadout)
        g = gear(e)
        for index, name in enumerate(self._slotted(e), start=1):
            ability = g.character.ability(name)
            if ability is None:
                continue
            left = charge_left(e, ability.difficulty)
            cooldown = cooldown_left(self.battle, e, name)
            usable = ability_refusal(self.battle, e, name) is None
            text.append(f"{index} ", style="bold" if usable else "dim")
            text.append(f"{name} ", style="" if usable else "dim")
            text.append(f"{ability.difficulty} ", style="yellow")
            if ability.is_passive:
                on = ability.is_fixed or name in loadout.active_passives
                text.append("passive " + ("on" if on else "off"), style="dim")
            else:
                text.append(f"{'∞' if left is None else left} charges", style="dim")
                if cooldown:
                    text.append(f" cd {cooldown}", style="red")
            text.append("\n")
        return text

    def _slotted(self, e: Entity) -> list[str]:
        return list(comp(e, Loadout).slotted)

    def _status_text(self) -> Text:
        me = self.me
        if self.battle.over:
            return Text("The battle is over.", style="bold")
        if me is None:
            current = self.battle.current
            who = ident(current).name if current is not None else "…"
            if self.prompt:
                return Text(self.prompt, style="yellow")
            return Text(f"{who} is acting…  (x skip, +/- speed)", style="dim")
        if self.prompt:
            hint = Text(self.prompt, style="yellow")
        elif self.mode == "move":
            acted = comp(me, TurnState).acted
            hint = Text("Action used: move on or press . to end the turn" if acted else
                        "Your turn: move (arrows, hjk yubn, numpad), a attack, 1-9 abilities, f free action, . wait",
                        style="dim")
        else:
            hint = Text(self._cursor_hint(), style="")
        return hint

    def _cursor_hint(self) -> str:
        if self.cursor is None:
            return ""
        if self.mode == "look":
            e = self.battle.at(self.cursor)
            terrain = self.battle.battlefield.terrain_at(self.cursor).name.lower()
            return f"Look: {ident(e).name if e else terrain} — esc to leave"
        if self.mode == "travel":
            return "Travel: pick a cell, enter to walk there, esc to cancel"
        preview = self.preview_fn(self.cursor) if self.preview_fn else None
        if preview is None:
            return ""
        parts = [self.mode_label]
        if preview.target:
            parts.append(ident(self.battle[preview.target]).name)
        if preview.problem:  # the reason first: it is what the player needs, and lines get cut
            return " · ".join(parts) + f": ✗ {preview.problem}   (esc cancel)"
        if preview.hit is not None:
            parts.append(f"hit {_pct(preview.hit)}")
        if preview.crit:
            parts.append(f"crit {_pct(preview.crit)}")
        if preview.check is not None:
            parts.append(f"check {_pct(preview.check)}")
        parts.append(f"reach {preview.reach}")
        return " · ".join(parts) + "   (enter confirm, tab next, esc cancel)"

    # --- modes -----------------------------------------------------------------------------------

    mode_label = ""

    def _enter_target(self, label: str, preview, confirm, *, start: tuple[int, int] | None = None) -> None:
        me = self.me
        if me is None:
            return
        self.mode = "target"
        self.mode_label = label
        self.preview_fn = preview
        self.confirm_fn = confirm
        self.cursor = start or self._nearest_enemy(me) or pos(me)
        self.prompt = ""
        self.refresh_all()

    def _leave_mode(self) -> None:
        self.mode = "move"
        self.cursor = None
        self.preview_fn = None
        self.confirm_fn = None

    def _nearest_enemy(self, me: Entity) -> tuple[int, int] | None:
        targets = self._visible_targets(me)
        return pos(targets[0]) if targets else None

    def _visible_targets(self, me: Entity) -> list[Entity]:
        return targetable(self.battle, me)

    # --- key actions -----------------------------------------------------------------------------

    def action_direction(self, name: str) -> None:
        dx, dy = DIRECTIONS[name]
        me = self.me
        if me is None:
            return
        if self.mode != "move":
            x, y = self.cursor or pos(me)
            nxt = (x + dx, y + dy)
            if self.battle.battlefield.in_bounds(nxt):
                self.cursor = nxt
            self.refresh_all()
            return
        x, y = pos(me)
        target = (x + dx, y + dy)
        other = self.battle.at(target)
        if other is not None and team(other) != team(me):
            self._act(Attack(ident(me).id, ident(other).id))  # bump to attack
            return
        self._act(Move(ident(me).id, target))

    def action_attack(self) -> None:
        me = self.me
        if me is None:
            return
        self._enter_target(
            "Attack",
            lambda cell: targeting.attack_preview(self.battle, me, cell),
            lambda cell: Attack(ident(me).id, ident(self.battle.at(cell)).id) if self.battle.at(cell) else None,
        )

    def action_ability(self, number: int) -> None:
        me = self.me
        if me is None:
            return
        slotted = self._slotted(me)
        if number > len(slotted):
            self.prompt = f"no ability in slot {number}"
            self.refresh_all()
            return
        ability = gear(me).character.ability(slotted[number - 1])
        if ability is None or ability.is_passive:
            self.prompt = f"{slotted[number - 1]} is a passive: it works by being slotted"
            self.refresh_all()
            return
        me_id = ident(me).id
        if ability.target is Target.self:
            self._act(UseAbility(me_id, ability.name))
            return

        def confirm(cell):
            if ability.target in (Target.area, Target.line):
                return UseAbility(me_id, ability.name, at=cell)
            target = self.battle.at(cell)
            return UseAbility(me_id, ability.name, target=ident(target).id) if target else None

        start = pos(me) if ability.target is Target.ally else None
        self._enter_target(ability.name, lambda cell: targeting.ability_preview(self.battle, me, ability, cell),
                           confirm, start=start)

    def action_free_action(self) -> None:
        me = self.me
        if me is None:
            return
        from horizon_tui.tui.battle.dialogs import ChoiceDialog

        options = [(a.name, f"{a.name} — {a.description} ({float(a.chance) * 100:.0f}%)"
                    if not a.contest_stat else f"{a.name} — {a.description}") for a in self.battle.rules.free_actions]

        def chosen(name: str | None) -> None:
            if name is None:
                return
            stock = next(a for a in self.battle.rules.free_actions if a.name == name)
            me_id = ident(me).id
            if stock.target == "self":
                self._act(FreeAction(me_id, stock=name))
                return
            self._enter_target(
                name.capitalize(),
                lambda cell: targeting.free_action_preview(self.battle, me, name, cell),
                lambda cell: FreeAction(me_id, stock=name, target=ident(self.battle.at(cell)).id)
                if self.battle.at(cell) else None,
            )

        self.app.push_screen(ChoiceDialog(f"Free action ({comp(me, FreeActions).points} points)", options), chosen)

    def action_swap(self) -> None:
        me = self.me
        if me is None:
            return
        from horizon_tui.engine.actions import Swap
        from horizon_tui.tui.battle.dialogs import ChoiceDialog

        g = gear(me)
        slotted = self._slotted(me)
        removable = [(n, n) for n in slotted if (a := g.character.ability(n)) and not a.is_fixed]
        known = [(a.name, f"{a.name} ({a.difficulty}, {a.kind.value})") for a in g.character.abilities
                 if a.name not in slotted and not a.is_fixed]
        if not removable or not known:
            self.prompt = "nothing to swap: every known ability is slotted, or the slots are fixed"
            self.refresh_all()
            return

        def picked_out(out: str | None) -> None:
            if out is None:
                return
            self.app.push_screen(ChoiceDialog(f"Swap {out} for…", known),
                                 lambda new: new and self._act(Swap(ident(me).id, out, new)))

        self.app.push_screen(ChoiceDialog("Swap which slotted ability? (costs the turn)", removable), picked_out)

    def action_look(self) -> None:
        me = self.me or self.battle.current
        if me is None:
            return
        self.mode = "look"
        self.cursor = pos(me) if comp(me, Presence) is Presence.active else (0, 0)
        self.refresh_all()

    def action_travel(self) -> None:
        me = self.me
        if me is None:
            return
        self.mode = "travel"
        self.cursor = pos(me)
        self.prompt = ""
        self.refresh_all()

    def action_confirm(self) -> None:
        me = self.me
        if me is None or self.cursor is None:
            return
        if self.mode == "travel":
            self._act(Move(ident(me).id, self.cursor, partial=True))
            return
        if self.mode == "target" and self.confirm_fn is not None:
            action = self.confirm_fn(self.cursor)
            if action is None:
                self.refuse("nothing there")
                return
            self._act(action)

    def action_next_target(self) -> None:
        me = self.me
        if me is None or self.mode not in ("target", "look"):
            return
        targets = self._visible_targets(me)
        if not targets:
            return
        cells = [pos(t) for t in targets]
        index = (cells.index(self.cursor) + 1) % len(cells) if self.cursor in cells else 0
        self.cursor = cells[index]
        self.refresh_all()

    def action_cancel(self) -> None:
        if self.mode != "move":
            self._leave_mode()
            self.prompt = ""
            self.refresh_all()

    def action_wait(self) -> None:
        me = self.me
        if me is not None and self.mode == "move":
            self._act(Wait(ident(me).id))

    def action_faster(self) -> None:
        self.speed = min(len(SPEEDS) - 1, self.speed + 1)
        self.notify(f"Enemy turns: {SPEEDS[self.speed]:g} s each", timeout=1.5)

    def action_slower(self) -> None:
        self.speed = max(0, self.speed - 1)
        self.notify(f"Enemy turns: {SPEEDS[self.speed]:g} s each", timeout=1.5)

    def action_skip(self) -> None:
        """Play the enemies' turns at once, up to the player's next turn."""
        if self._ai_timer is not None:
            self._ai_timer.stop()
            self._ai_timer = None
        from horizon_tui.engine.runner import run_ai

        run_ai(self.battle)
        self.refresh_all()
        self._save()
        self._schedule_ai()


def targeting_blocked(battle: Battle, e: Entity) -> list[tuple[int, int]]:
    from horizon_tui.engine.actions import blocked_for

    return blocked_for(battle, e)
