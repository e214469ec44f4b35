"""The battle screen: the battlefield, the initiative bar, the enemies in sight, the active
combatant, the ability slots, the log.

The keys are the table in `play.keymap` (rebindable by id); each goes to the input mode in force
(`ui.battle.modes`: moving, looking, travelling, targeting), which answers Act / Switch / Stay;
this screen applies the answer, asking first when the mode says so (fleeing). Enemies act one turn
at a time with a short delay the player can speed up or skip. What is drawn, listed and logged is
the viewer's read model (`engine.readmodel`, built once per change of the battle); the screen only
formats it and never works out sight.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import RichLog

from horizon_tui.engine import ai, targeting
from horizon_tui.engine.actions import FreeAction, Impossible, Move, move_costs
from horizon_tui.engine.battle import Battle, Entity, comp, gear, ident, pos, team
from horizon_tui.engine.components import FreeActions, Loadout, Presence
from horizon_tui.engine.persist import BattleInProgress
from horizon_tui.engine.readmodel import ReadModel, Reader
from horizon_tui.engine.runner import needs_input
from horizon_tui.engine.sideview import Eyes
from horizon_tui.engine.viewer import Viewer
from horizon_tui.engine.usability import ability_refusal, free_action_refusal
from horizon_tui.ui.battle import panels
from horizon_tui.ui.battle.modes import (  # noqa: F401 - DIRECTIONS: the GM's screens import it from here
    DIRECTIONS, Act, AutoFight, CursorMode, Mode, MoveMode, Place, PlaceMode, Stay, Switch, TargetMode,
)
from horizon_tui.ui.battle.threat import Threats
from horizon_tui.ui.battle.roles import SENT, ActorPolicy, BattlePanel, Driver, LocalEngine, Solo
from horizon_tui.ui.battle.typeahead import GUARD_S, TypeAhead
from horizon_tui.ui.battle.view import Overlay, glyph_map
from horizon_tui.ui.battle.widget import BattlefieldView, Panel
from horizon_tui.play.keymap import battle_bindings
from horizon_tui.ui.widgets.bars import KeyBar

SPEEDS = (0.8, 0.4, 0.15, 0.03)  # seconds between enemy turns


class BattleScreen(Screen):
    """One battle, played by the party's side from the keyboard."""

    BINDINGS = battle_bindings()
    # keys arriving as the turn changes hands are dropped (typeahead.py); a live table's screen
    # doesn't: its turns change hands through the table process, and a curtain parts each seat
    HOLD_TYPE_AHEAD = True
    AUTO_FOCUS = None  # nothing focused: every key goes to the screen's bindings (tui/keymap.py)
    # Toasts (a table's notes: an undo, the GM's changes) show at the top right, under the
    # initiative bar: at Textual's bottom right they covered the status line, where every key's
    # answer is read ("(enter confirm, …)" was hidden behind them)
    DEFAULT_CSS = """
    BattleScreen ToastRack { dock: top; align: right top; margin: 1 0 0 0; }
    """

    def __init__(self, session: BattleInProgress, *, driver: Driver | None = None, policy: ActorPolicy | None = None,
                 side: str | None = "party", eyes: Eyes = None, panels: Sequence[BattlePanel] = (),
                 placer: Callable[[Place], None] | None = None, id: str | None = "battle-field") -> None:
        """`driver`: what carries the inputs and keeps the battle (default: the engine here, no
        saving); `policy`: who acts here (default: everyone asking for input, `roles.Solo`);
        `side` and `eyes`: who looks; `panels`: `roles.BattlePanel` widgets atop the side column;
        `placer`: puts a combatant where place mode (`modes.PlaceMode`, the GM's) says."""
        super().__init__(id=id)
        self.session = session
        self.battle: Battle = session.battle
        self.driver: Driver = driver if driver is not None else LocalEngine()
        self.policy: ActorPolicy = policy if policy is not None else Solo()
        self.panels = tuple(panels)
        self.placer = placer
        # who looks (a side, a table seat's characters' eyes, None: the GM) and its read model
        self.reader = Reader(Viewer.from_sight(side, eyes))
        self.auto_fight = AutoFight()  # Tab's memory across presses (modes.MoveMode.auto_fight)
        self.type_ahead = TypeAhead()  # keys arriving as the turn changes hands are dropped (typeahead.py)
        self.input: Mode = MoveMode(self.battle, self.known, auto=self.auto_fight)
        self.prompt = ""
        self.speed = 1
        self.glyphs = glyph_map(self.battle)
        self.more = False  # a turn wrote more than the log pane shows: wait for a key
        self._ai_timer = None
        self._finished = False
        self._turn_lines = 0
        self._written = 0  # the read model's log lines written to the pane
        self._centre = False
        # Look's threat line: a duel's odds, simulated off the screen's thread (ui/battle/threat.py)
        self.threats = Threats(lambda: getattr(self.app, "catalogue", None),
                               lambda job: self.run_worker(job, thread=True, group="duel", exit_on_error=False),
                               lambda: self.app.call_from_thread(self.refresh_all))

    # --- who looks, and what it may know --------------------------------------------------------

    @property
    def side(self) -> str | None:
        """The side whose sight is shown; None: the GM sees everything."""
        return self.reader.viewer.side

    @property
    def eyes(self) -> Eyes:
        """A table seat's characters: the player sees through their eyes only."""
        return self.reader.viewer.eyes

    def known(self) -> ReadModel:
        """The viewer's read model of the battle now (rebuilt only when the battle changed)."""
        return self.reader.model(self.battle)

    # --- the mode in force, by name ------------------------------------------------------------

    @property
    def mode(self) -> str:
        return self.input.name

    @property
    def cursor(self) -> tuple[int, int] | None:
        return self.input.cursor

    @cursor.setter
    def cursor(self, xy: tuple[int, int] | None) -> None:
        if isinstance(self.input, CursorMode) and xy is not None:
            self.input.cursor = xy

    @property
    def mode_label(self) -> str:
        return getattr(self.input, "label", "")

    # --- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Panel(id="initiative")
        with Horizontal(id="battle-main"):
            with Vertical(id="map-column"):
                view = BattlefieldView(self.battle, id="map")
                view.glyphs = self.glyphs
                yield view
                yield Panel(id="legend")
            side = VerticalScroll(id="battle-side")
            side.can_focus = False  # a focused scroller would take the arrows, PgUp, Home from moving
            with side:
                yield from self.panels
                yield Panel(id="unit")
                yield Panel(id="enemies")
                yield Panel(id="slots")
        yield Panel(id="status")
        log = RichLog(id="log", wrap=True, markup=False, max_lines=500)
        log.can_focus = False  # likewise; `m` opens the whole log to scroll
        yield log
        yield KeyBar()

    def on_mount(self) -> None:
        self.auto_fight.stop = getattr(self.app, "auto_fight_stop", self.auto_fight.stop)  # keymap.toml [options]
        self._write_log()
        self._turn_lines = 0
        self._centre = True  # the battle opens centred on the character
        self.refresh_all()
        self.call_after_refresh(self.refresh_all)  # the enemies panel sized to the laid-out column
        self._schedule_ai()

    def on_unmount(self) -> None:
        self._save()

    def _write_log(self) -> None:
        """Write the viewer's new log lines to the pane: narrated once, when they happened
        (`engine.readmodel.Journal`), never again."""
        lines = self.known().lines
        log = self.query_one("#log", RichLog)
        for line in lines[self._written:]:
            self._turn_lines += 1
            log.write(Text(line.text, style=panels.log_style(line.kind, self.app.no_color)))
        self._written = len(lines)

    def _rewrite_log(self) -> None:
        """The pane again from the viewer's kept lines (another seat took the keyboard)."""
        self.query_one("#log", RichLog).clear()
        self._written = 0
        self._write_log()

    def log_lines(self) -> list[str]:
        """The whole log as it was written here: each line named whom its reader could see then."""
        return self.known().log_text()

    def _check_more(self) -> None:
        """`--more--`: the last turn wrote more lines than the log pane shows."""
        self._write_log()
        room = max(1, self.query_one("#log", RichLog).size.height)
        if self._turn_lines > room and not self.battle.over:
            self.more = True
        self._turn_lines = 0

    # --- turn flow -------------------------------------------------------------------------------

    @property
    def me(self) -> Entity | None:
        """The combatant whose turn it is, if it takes its keys here (the screen's policy)."""
        current = self.battle.current
        return current if current is not None and self.policy.acts_here(self.battle, current) else None

    def _schedule_ai(self) -> None:
        if self._ai_timer is not None:
            self._ai_timer.stop()
            self._ai_timer = None
        if self.battle.over:
            self._finish()
            return
        if self.driver.plays_ai and self.me is None and self.battle.current is not None and not self.more:
            self._ai_timer = self.set_timer(SPEEDS[self.speed], self._ai_step)

    def _ai_step(self) -> None:
        self._ai_timer = None
        current = self.battle.current
        if current is not None and not self.battle.over and not needs_input(self.battle, current):
            ai.take_turn(self.battle, current)
            self._check_more()
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
            return self.refuse(self.policy.waiting) if self.policy.waiting else False
        before = self.battle.current
        outcome = self.driver.submit(self.session, action)
        if isinstance(outcome, Impossible):
            return self.refuse(outcome.reason)
        if outcome == SENT:  # it comes back as the table's update
            self.prompt = "sent to the table…"
            self._leave_mode()
            self.refresh_all()
            return True
        self.prompt = ""
        self._leave_mode()
        self._check_more()
        if self.battle.current is not before:
            self._save()
        self.driver.recorded(action, outcome)
        self.refresh_all()
        self._schedule_ai()
        return True

    def _save(self) -> None:
        try:
            self.driver.save(self.session)
        except Exception as exc:  # noqa: BLE001 - a failed save must not end the battle
            self.notify(f"Battle not saved: {exc}", severity="error")

    def _finish(self) -> None:
        if self._finished:
            return
        self._finished = True
        self.refresh_all()
        self.driver.ended(self.session)

    # --- keys → the mode in force → what happens --------------------------------------------------

    def on_key(self, event) -> None:
        """While `--more--` is up, any key goes on, space and keys bound to nothing included (as
        in NetHack's --more--). The log's key and the app's own (help, the palette, quitting)
        keep their work, whatever keys a keymap file gave them: read from the live bindings."""
        if not self.more:
            return
        bound = self.active_bindings.get(event.key)
        if bound is not None and (bound.node is self.app or bound.binding.action == "log"):
            return
        event.stop()
        event.prevent_default()
        self.key("more")

    def key(self, command: str) -> None:
        """One key command (a `play.keymap` id without `battle.`) through the mode in force."""
        if self.more:
            self.more = False  # the key only dismisses --more--
            self.refresh_all()
            self._schedule_ai()
            return
        if self.HOLD_TYPE_AHEAD and not self.type_ahead.accept(command):
            self.prompt = self.type_ahead.notice()
            self.refresh_all()
            return
        self.apply(self.input.on_key(command, self.me))

    def apply(self, outcome) -> None:
        if isinstance(outcome, Act):
            if outcome.ask:
                from horizon_tui.ui.dialogs.confirm import ConfirmDialog

                self.app.push_screen(ConfirmDialog(outcome.ask, yes="Flee", no="Stay", title="Flee?"),
                                     lambda yes: yes and self._act(outcome.action))
                return
            self._act(outcome.action)
        elif isinstance(outcome, Place):
            self._leave_mode()
            if self.placer is None:
                self.refuse("nobody places combatants here")
                return
            self.placer(outcome)
        elif isinstance(outcome, Switch):
            self.input = outcome.mode if outcome.mode is not None else MoveMode(self.battle, self.known, auto=self.auto_fight)
            self.prompt = ""
            self.refresh_all()
        elif isinstance(outcome, Stay):
            if outcome.refused:
                self.refuse(outcome.say)
                return
            if outcome.say:
                self.prompt = outcome.say
            self.refresh_all()

    def _leave_mode(self) -> None:
        self.input = MoveMode(self.battle, self.known, auto=self.auto_fight)

    def action_direction(self, name: str) -> None:
        self.key(name)

    def action_attack(self) -> None:
        self.key("attack")

    def action_ability(self, number: int) -> None:
        self.key(f"ability{number}")

    def action_look(self) -> None:
        self.key("look")

    def action_travel(self) -> None:
        self.key("travel")

    def action_confirm(self) -> None:
        self.key("confirm")

    def action_next_target(self) -> None:
        self.key("next")

    def action_cancel(self) -> None:
        self.key("cancel")

    def action_wait(self) -> None:
        self.key("wait")

    # --- drawing ---------------------------------------------------------------------------------

    def refresh_all(self) -> None:
        me = self.me
        turn = (ident(me).id, self.battle.round) if me is not None else None
        if self.type_ahead.observe(turn) and self.HOLD_TYPE_AHEAD:
            self.set_timer(GUARD_S, self.refresh_all)  # "Your turn" once keys act again
        view = self.query_one("#map", BattlefieldView)
        known = self.known()
        self._write_log()
        view.redraw(known, self._overlay())
        focus = self.cursor
        if focus is None:
            mine = self.me
            if mine is not None and comp(mine, Presence) is Presence.active:
                focus = pos(mine)
            elif known.unit(known.current) is not None:  # the one acting, if the viewer sees it
                focus = known.unit(known.current).position
        if focus is not None:
            view.keep_in_view(focus, centred=self._centre)
            self._centre = False
        self.query_one("#initiative", Panel).show(self._initiative_text(known))
        self.query_one("#unit", Panel).show(self._unit_panel(known))
        me = self.me
        under = known.unit_at(self.cursor) if self.cursor is not None else None
        self.query_one("#enemies", Panel).show(panels.enemies_text(
            known, self.glyphs, lines=self._enemy_lines(), focus=under.id if under is not None else None))
        self.query_one("#legend", Panel).show(panels.legend_text(known, self.glyphs))
        self.query_one("#slots", Panel).show(self._slots_text(me))
        self.query_one("#status", Panel).show(self._status_text())
        for panel in self.panels:
            panel.show_model(known, self.battle)

    def _enemy_lines(self) -> int | None:
        """The lines the side column holds for the enemies under the unit and above the slots, as
        it was last laid out; None before any layout."""
        side = self.query_one("#battle-side")
        if not side.size.height:
            return None
        enemies = self.query_one("#enemies")
        others = [self.query_one("#unit"), self.query_one("#slots"), *self.panels]
        return side.size.height - enemies.styles.margin.bottom - sum(
            w.outer_size.height + w.styles.margin.top + w.styles.margin.bottom for w in others)

    def _unit_panel(self, known) -> Text:
        me = self.me
        if isinstance(self.input, TargetMode) and me is not None:
            return panels.targets_text(self.battle, self.input, me)
        unit = self._shown_unit(known)
        text = panels.unit_text(self.battle, unit, current=unit is not None and unit.id == known.current,
                                detailed=self.mode == "look")
        if self.mode == "look" and unit is not None and self.side is not None:
            text.append_text(self.threats.text(self.battle, me or self._watched(), unit))
        return text

    def _overlay(self) -> Overlay | None:
        me = self.me
        if self.mode == "move" or self.cursor is None:
            return None
        if isinstance(self.input, PlaceMode):
            return Overlay(cursor=self.cursor, cursor_blocked=not self.input.open_cell)
        if self.mode == "look" or me is None:
            return Overlay(cursor=self.cursor)
        if self.mode == "travel":
            from horizon_tui.engine.actions import blocked_for

            path = self.battle.battlefield.path(pos(me), self.cursor, blocked_for(self.battle, me),
                                                **move_costs(self.battle, me))
            return Overlay(path=path, cursor=self.cursor)
        if not isinstance(self.input, TargetMode):
            return Overlay(cursor=self.cursor)
        preview = self.input.preview(self.cursor)
        reach = targeting.reach_mask(self.battle, pos(me), preview.reach)
        greyed = [pos(e) for e in self.input.targets() if self.input.preview(pos(e)).problem]
        return Overlay(reach=reach, area=preview.cells, cursor=self.cursor, cursor_blocked=bool(preview.problem),
                       greyed=greyed)

    def _initiative_text(self, known: ReadModel) -> Text:
        text = Text(f"Round {known.round}  ", style="bold")
        for entry in known.turn_order():  # the unseen are not in it: their place in the order isn't shown
            style = "cyan" if entry.team == "party" else "red"
            if not entry.active:
                style = "dim strike"
            if entry.current:
                style += " reverse"
            text.append(f" {self.glyphs.get(entry.id, '')} {entry.name} ", style=style)
        return text

    def _shown_unit(self, known: ReadModel):
        """The unit under the cursor if the viewer sees one there, else the one acting (if seen)."""
        under = known.unit_at(self.cursor) if self.cursor is not None else None
        me = self.me
        return under or known.unit(ident(me).id if me is not None else known.current)

    def _slots_text(self, me: Entity | None) -> Text:
        return panels.slots_text(self.battle, me or self._watched())

    def _watched(self) -> Entity | None:
        """Whose slots show while none of ours is choosing: the one acting if it is of our side
        (an ally's AI, a companion), else our own character; never the other side's abilities,
        charges and cooldowns (the GM, side None, sees the one acting)."""
        current = self.battle.current
        if current is None or self.side is None or team(current) == self.side:
            return current
        ours = self._played_here()
        active = [e for e in ours if comp(e, Presence) is Presence.active]
        return (active or ours or [None])[0]

    def _acting_name(self) -> str:
        """The one acting, as the viewer's log names it: "Someone unseen" when it can't see it."""
        return self.known().acting

    def _slotted(self, e: Entity) -> list[str]:
        return list(comp(e, Loadout).slotted)

    def _status_text(self) -> Text:
        me = self.me
        if self.more:
            return Text("--more--  (a key to go on; m shows the whole log)", style="bold reverse")
        if self.battle.over:
            return Text("The battle is over.", style="bold")
        if me is None:
            who = self._acting_name()
            if self.prompt:
                return Text(self.prompt, style="yellow")
            return Text(f"{who} is acting…  (x skip, +/- speed, ; look)", style="dim")
        if self.prompt:
            return Text(self.prompt, style="yellow")
        if self.HOLD_TYPE_AHEAD and self.type_ahead.holding():
            return Text(f"{ident(me).name}'s turn comes up…", style="dim")
        if self.mode == "move":
            from horizon_tui.engine.components import TurnState

            acted = comp(me, TurnState).acted
            if acted:
                return Text("Action used: move on, or . to end the turn", style="dim")
            if self._several_played():  # a party played by hand: whose turn it is, by name
                return Text(f"{ident(me).name}'s turn: arrows move · a attack · z abilities · ? all keys",
                            style="dim")
            return Text("Your turn: arrows/hjklyubn/numpad move · a attack · z abilities · ? all keys",
                        style="dim")
        return Text(self._cursor_hint())

    def _played_here(self) -> list[Entity]:
        """The combatants of this screen's side that take their keys here (its policy), in turn
        order: a table seat plays its own characters only, the others' players are elsewhere."""
        return [self.battle[cid] for cid in self.battle.order
                if team(self.battle[cid]) == self.side and self.policy.acts_here(self.battle, self.battle[cid])]

    def _several_played(self) -> bool:
        """More than one combatant played at this screen (a hot-seat party)."""
        return len(self._played_here()) > 1

    def _cursor_hint(self) -> str:
        if self.cursor is None:
            return ""
        if self.mode == "look":
            seen = self.known().unit_at(self.cursor)
            terrain = self.battle.battlefield.terrain_at(self.cursor).name.lower()
            return f"Look: {seen.name if seen else terrain} — tab next, esc leave"
        if self.mode == "travel":
            return "Travel: pick a cell, enter walks there, esc cancels"
        if not isinstance(self.input, TargetMode):
            return ""
        preview = self.input.preview(self.cursor)
        parts = [self.mode_label]
        if preview.target:
            parts.append(ident(self.battle[preview.target]).name)
        if preview.problem:  # the reason first: it is what the player needs, and lines get cut
            return " · ".join(parts) + f": ✗ {preview.problem}   (esc cancel)"
        parts.append(f"reach {preview.reach}")
        return " · ".join(parts) + "   (enter confirm, tab next, esc cancel)"

    # --- dialogs: abilities menu, free actions, swap, the log -------------------------------------

    def action_abilities(self) -> None:
        """`z`: the slotted abilities as a numbered list; an unusable one says why."""
        me = self.me
        if me is None or self.mode != "move":
            return
        from horizon_tui.ui.battle.dialogs import ChoiceDialog

        g = gear(me)
        options = []
        for index, name in enumerate(self._slotted(me), start=1):
            ability = g.character.ability(name)
            problem = ability_refusal(self.battle, me, name)
            label = f"{index}  {name} ({ability.difficulty.value}, {ability.target.value})" if ability else name
            options.append((str(index), label + (f" — ✗ {problem}" if problem else "")))
        if not options:
            self.refuse("no ability slotted")
            return
        self.app.push_screen(ChoiceDialog("Use which ability? (its number or enter)", options, numbered=True),
                             lambda slot: slot and self.key(f"ability{slot}"))

    def action_free_action(self) -> None:
        me = self.me
        if me is None or self.mode != "move":
            return
        problem = free_action_refusal(self.battle, me)
        if problem:
            self.refuse(f"Free action: {problem}")
            return
        from horizon_tui.ui.battle.dialogs import ChoiceDialog

        options = [(a.name, panels.free_action_label(a)) for a in self.battle.rules.free_actions]

        def chosen(name: str | None) -> None:
            if name is None:
                return
            stock = next(a for a in self.battle.rules.free_actions if a.name == name)
            me_id = ident(me).id
            if stock.target == "self":
                self._act(FreeAction(me_id, stock=name))
                return
            mode = TargetMode(
                self.battle, self.known, me, name.capitalize(),
                lambda cell: targeting.free_action_preview(self.battle, me, name, cell, self.known()),
                lambda cell: FreeAction(me_id, stock=name, target=seen.id)
                if (seen := self.known().unit_at(cell)) else None, free_action=True,
            )
            self.apply(Switch(mode))

        self.app.push_screen(ChoiceDialog(f"Free action ({comp(me, FreeActions).points} points)", options), chosen)

    def action_swap(self) -> None:
        me = self.me
        if me is None or self.mode != "move":
            return
        from horizon_tui.engine.actions import Swap
        from horizon_tui.engine.usability import turn_refusal
        from horizon_tui.ui.battle.dialogs import ChoiceDialog

        problem = turn_refusal(self.battle, me)
        if problem:
            self.refuse(f"Swap: {problem}")
            return
        g = gear(me)
        slotted = self._slotted(me)
        removable = [(n, n) for n in slotted if (a := g.character.ability(n)) and not a.is_fixed]
        known = [(a.name, f"{a.name} ({a.difficulty}, {a.kind.value})") for a in g.character.abilities
                 if a.name not in slotted and not a.is_fixed]
        if not removable or not known:
            self.refuse("nothing to swap: every known ability is slotted, or the slots are fixed")
            return

        def picked_out(out: str | None) -> None:
            if out is None:
                return
            self.app.push_screen(ChoiceDialog(f"Swap {out} for…", known),
                                 lambda new: new and self._act(Swap(ident(me).id, out, new)))

        self.app.push_screen(ChoiceDialog("Swap which slotted ability? (costs the turn)", removable), picked_out)

    def action_log(self) -> None:
        from horizon_tui.ui.battle.dialogs import MessageLog

        if self.more:
            self.more = False
            self._schedule_ai()
        self.app.push_screen(MessageLog(self.log_lines()))
        self.refresh_all()

    def action_overview(self) -> None:
        """The whole field as the viewer knows it (`ui.battle.overview`), fitted into the terminal."""
        from horizon_tui.ui.battle.overview import BattleOverview

        self.app.push_screen(BattleOverview(self.battle, self.known(), self.glyphs, tuple(self.app.size)))

    def action_faster(self) -> None:
        self.speed = min(len(SPEEDS) - 1, self.speed + 1)
        self.notify(f"Enemy turns: {SPEEDS[self.speed]:g} s each", timeout=1.5)

    def action_slower(self) -> None:
        self.speed = max(0, self.speed - 1)
        self.notify(f"Enemy turns: {SPEEDS[self.speed]:g} s each", timeout=1.5)

    def action_leave_battle(self) -> None:
        """Leave the battlefield for the main menu, asked first: the battle is saved as it stands
        (Continue on the main menu, or Load ▸ Battles, comes back to it)."""
        from horizon_tui.ui.dialogs.confirm import ConfirmDialog

        def answered(yes: bool | None) -> None:
            if yes:
                self._save()
                self.call_later(self.run_action, "app.main_menu")

        self.app.push_screen(ConfirmDialog("Leave the battle for the main menu? It is saved as it stands: Continue "
                                           "on the main menu comes back to it.", yes="Leave", no="Stay",
                                           title="Leave the battle?"), answered)

    def action_skip(self) -> None:
        """Play the enemies' turns at once, up to the player's next turn."""
        if self._ai_timer is not None:
            self._ai_timer.stop()
            self._ai_timer = None
        from horizon_tui.engine.runner import run_ai

        self.more = False
        run_ai(self.battle)
        self._write_log()
        self._turn_lines = 0
        self.refresh_all()
        self._save()
        self._schedule_ai()


__all__ = ["BattleScreen", "DIRECTIONS", "Move", "SPEEDS"]
