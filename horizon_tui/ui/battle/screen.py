"""The battle screen: the battlefield, the initiative bar, the enemies in sight, the active
combatant, the ability slots, the log.

The keys are the table in `play.keymap` (rebindable by id); each goes to the input mode in force
(`ui.battle.modes`: moving, looking, travelling, targeting, the GM's placing), which answers Act /
Switch / Stay / Place; this screen applies the answer, asking first when the mode says so (fleeing).

There is one battle screen. A seat's differs by what it is built from (`roles`): who looks (a
`Viewer`), who acts here (an `ActorPolicy`: solo, hot-seat, the GM, a table seat, a spectator),
what carries an input (a `Driver`: the engine here with autosave, a table client, the GM's
campaign recorder), and optional parts (`parts.BattlePart`: a table's controls and talk, the GM's
tracker and override menu, the campaign following a GM's fight), whose keys are in the screen's
key table (`ui.battle.keys`).

Enemies act one turn at a time with a short delay the player can speed up or skip. What is drawn, listed and logged is
the viewer's read model (`engine.readmodel`, built once per change of the battle); the screen only
formats it and never works out sight.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import RichLog

from horizon_tui.engine import ai, targeting
from horizon_tui.engine.actions import FreeAction, Impossible, Swap, blocked_for, move_costs
from horizon_tui.engine.battle import Battle, Entity, comp, gear, ident, pos, team
from horizon_tui.engine.components import FreeActions, Loadout, Presence, TurnState
from horizon_tui.engine.persist import BattleInProgress
from horizon_tui.engine.readmodel import ReadModel, Reader
from horizon_tui.engine.runner import needs_input, run_ai
from horizon_tui.engine.sideview import Eyes
from horizon_tui.engine.viewer import Viewer
from horizon_tui.engine.usability import ability_refusal, free_action_refusal, turn_refusal
from horizon_tui.ui.app_contract import AppContract
from horizon_tui.ui.battle import panels
from horizon_tui.ui.battle.modes import (
    Act, AutoFight, CursorMode, Mode, MoveMode, Place, PlaceMode, Stay, Switch, TargetMode,
)
from horizon_tui.ui.battle.keys import PART_KEYS, shadowed
from horizon_tui.ui.battle.parts import BattlePart
from horizon_tui.ui.battle.threat import Threats
from horizon_tui.ui.battle.roles import SENT, ActorPolicy, BattlePanel, Driver, LocalEngine, Solo
from horizon_tui.ui.battle.typeahead import GUARD_S, TypeAhead
from horizon_tui.ui.battle.view import Overlay, glyph_map
from horizon_tui.ui.battle.widget import BattlefieldView, Panel
from horizon_tui.play.keymap import battle_bindings
from horizon_tui.ui.widgets.bars import KeyBar
from horizon_tui.ui.dialogs.confirm import ConfirmDialog
from horizon_tui.ui.battle.dialogs import ChoiceDialog, MessageLog
from horizon_tui.ui.battle.overview import BattleOverview

SPEEDS = (0.8, 0.4, 0.15, 0.03)  # seconds between enemy turns
BATTLE_KEYS = battle_bindings()
_NOTHING = object()  # `_show`: no text given yet
PartT = TypeVar("PartT", bound=BattlePart)


class BattleScreen(Screen):
    """One battle, from one seat (see the module's docstring)."""

    app: AppContract  # what the screen asks of its app (`ui.app_contract`), a saves folder's or a campaign's
    BINDINGS = [*BATTLE_KEYS, *PART_KEYS]  # the battle's keys first in the key bar; a part's shadow them
    AUTO_FOCUS = None  # nothing focused: every key goes to the screen's bindings (tui/keymap.py)
    # Toasts (a table's notes: an undo, the GM's changes) show at the top right, under the
    # initiative bar: at Textual's bottom right they covered the status line, where every key's
    # answer is read ("(enter confirm, …)" was hidden behind them)
    DEFAULT_CSS = """
    BattleScreen ToastRack { dock: top; align: right top; margin: 1 0 0 0; }
    BattleScreen #table-bottom { height: 6; }
    BattleScreen #table-bottom #log { width: 1fr; height: 6; }
    """

    def __init__(self, session: BattleInProgress, *, driver: Driver | None = None, policy: ActorPolicy | None = None,
                 side: str | None = "party", eyes: Eyes = None, viewer: Viewer | None = None,
                 panels: Sequence[BattlePanel] = (), parts: Sequence[BattlePart] = (),
                 placer: Callable[[Place], None] | None = None, title: str = "",
                 id: str | None = "battle-field") -> None:
        """`driver`: what carries the inputs and keeps the battle (default: the engine here, no
        saving); `policy`: who acts here (default: everyone asking for input, `roles.Solo`);
        `viewer` (or `side` and `eyes`): who looks; `panels`: `roles.BattlePanel` widgets atop the
        side column; `parts`: the screen's optional components (`parts.BattlePart`); `placer`:
        puts a combatant where place mode (`modes.PlaceMode`, the GM's) says."""
        super().__init__(id=id)
        self.session = session
        self.battle: Battle = session.battle
        self.driver: Driver = driver if driver is not None else LocalEngine()
        self.policy: ActorPolicy = policy if policy is not None else Solo()
        self.parts = tuple(parts)
        self.placer = placer
        if title:
            self.title = title
        # who looks (a side, a table seat's characters' eyes, None: the GM) and its read model
        self.reader = Reader(viewer if viewer is not None else Viewer.from_sight(side, eyes))
        self.GM_SCREEN = any(part.GM_TOOL for part in self.parts)  # the GM app's undo keeps this screen
        for part in self.parts:
            part.attach(self)
        self.panels = (*(w for part in self.parts for w in part.side_widgets()), *panels)
        self._shadowed = shadowed(BATTLE_KEYS, self._offered)  # the battle's keys a part's take here
        self.auto_fight = AutoFight()  # Tab's memory across presses (modes.MoveMode.auto_fight)
        self.type_ahead = TypeAhead()  # keys arriving as the turn changes hands are dropped (typeahead.py)
        self.input: Mode = MoveMode(self.battle, self.known, auto=self.auto_fight)
        self.prompt = ""
        self.speed = 1
        self.glyphs = glyph_map(self.battle)
        self.more = False  # a turn wrote more than the log pane shows: wait for a key
        self._ai_timer = None
        self._finished = False
        self.left = False  # the fight goes on elsewhere (`leave_fight`): no AI turns, nothing kept here
        self._turn_lines = 0
        self._written = 0  # the read model's log lines written to the pane
        self._centre = False
        self._shown: dict[str, object] = {}  # a panel's id → the slice of the read model its text was made from (`_show`)
        # Look's threat line: a duel's odds, simulated off the screen's thread (ui/battle/threat.py)
        self.threats = Threats(lambda: self.app.catalogue,
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

    def part(self, kind: type[PartT]) -> PartT | None:
        """This screen's part of that kind, if it has one."""
        return next((part for part in self.parts if isinstance(part, kind)), None)

    def _offered(self, name: str, command: str) -> bool:
        return any(part.NAME == name and part.offers(command) for part in self.parts)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A part's key (`ui.battle.keys`) is on only where the screen has a part that offers it,
        and then the battle's same key is off."""
        if action == "part":
            return self._offered(str(parameters[0]), str(parameters[1]))
        return action not in self._shadowed

    def action_part(self, name: str, command: str, *args: object) -> None:
        for part in self.parts:
            if part.NAME == name and part.offers(command):
                part.run(command, *args)
                return

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
        beside = [w for part in self.parts for w in part.beside_log()]
        yield Horizontal(log, *beside, id="table-bottom") if beside else log
        yield KeyBar()

    def on_mount(self) -> None:
        if self.app.auto_fight_stop is not None:  # keymap.toml [options]
            self.auto_fight.stop = self.app.auto_fight_stop
        self._write_log()
        self._turn_lines = 0
        self._centre = True  # the battle opens centred on the character
        self.refresh_all()
        self.call_after_refresh(self.refresh_all)  # the enemies panel sized to the laid-out column
        self._schedule_ai()
        for part in self.parts:
            part.mounted()

    def on_screen_resume(self) -> None:
        for part in self.parts:
            part.resumed()

    def on_unmount(self) -> None:
        self._save()
        for part in self.parts:
            part.unmounted()

    def on_resize(self, event) -> None:
        if self.parts:
            self.call_after_refresh(self.refresh_all)  # a part's rows fit the side panel's new width

    async def after_undo(self) -> None:
        """The GM app's undo stepped the campaign back: each part follows."""
        for part in self.parts:
            done = part.after_undo()
            if done is not None:
                await done

    def _write_log(self) -> None:
        """Write the viewer's new log lines to the pane: narrated once, when they happened
        (`engine.readmodel.Journal`), never again."""
        lines = self.known().lines
        log = self.query_one("#log", RichLog)
        for line in lines[self._written:]:
            self._turn_lines += 1
            log.write(Text(line.text, style=panels.log_style(line.kind, self.app.no_color)))
        self._written = len(lines)

    def seat_taken(self, reader: Reader) -> None:
        """Another seat took the keyboard (a hot-seat hand-over): its read model from now on, and
        the log pane again from its kept lines, as it saw them live."""
        self.reader = reader
        self.input = MoveMode(self.battle, self.known, auto=self.auto_fight)
        self.query_one("#log", RichLog).clear()
        self._written = 0
        self._write_log()
        self.prompt = ""
        self.refresh_all()

    def rebind(self, battle: Battle, inputs: list) -> None:
        """The battle rebuilt (a table's undo or resync) from now on; the log stays as it was read
        (`Journal.follow`)."""
        self.battle = self.session.battle = battle
        self.session.inputs = inputs
        self.query_one("#map", BattlefieldView).battle = battle  # the map draws the rebuilt battle
        self.input = MoveMode(self.battle, self.known, auto=self.auto_fight)

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

    @property
    def finished(self) -> bool:
        """The battle ended here, or the screen left it (`leave_fight`)."""
        return self._finished or self.left

    def leave_fight(self) -> None:
        """This screen keeps the fight no longer (the GM left it, another window took the campaign,
        an undo rebuilt it): no more AI turns, records or saves here."""
        self.left = True
        self._stop_ai()

    def _stop_ai(self) -> None:
        if self._ai_timer is not None:
            self._ai_timer.stop()
            self._ai_timer = None

    def _schedule_ai(self) -> None:
        if self.left:
            return
        if self._ai_timer is not None:
            self._ai_timer.stop()
            self._ai_timer = None
        if self.battle.over:
            self.finish()
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

    def act(self, action) -> bool:
        """Submit an action of the one whose turn it is here; report a refusal in the status line."""
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

    def went_on(self) -> None:
        """The battle changed by another hand than an input here (the GM's override): redrawn, and
        the AI plays on if the turn is its."""
        self.refresh_all()
        self._schedule_ai()

    def _save(self) -> None:
        if self.left:
            return
        try:
            self.driver.save(self.session)
        except Exception as exc:  # noqa: BLE001 - a failed save must not end the battle
            self.notify(f"Battle not saved: {exc}", severity="error")

    def finish(self) -> None:
        """The battle is over: told once to the driver."""
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
        if self.policy.holds_keys and not self.type_ahead.accept(command):
            self.prompt = self.type_ahead.notice()
            self.refresh_all()
            return
        refusal = next((r for part in self.parts if (r := part.refusal(command)) is not None), None)
        if refusal is not None:
            self.refuse(refusal)
            return
        self.apply(self.input.on_key(command, self.me))

    def apply(self, outcome) -> None:
        if isinstance(outcome, Act):
            if outcome.ask:
                self.app.push_screen(ConfirmDialog(outcome.ask, yes="Flee", no="Stay", title="Flee?"),
                                     lambda yes: yes and self.act(outcome.action))
                return
            self.act(outcome.action)
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
        if self.type_ahead.observe(turn) and self.policy.holds_keys:
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
        self._show("#initiative", (known.round, known.initiative), lambda: self._initiative_text(known))
        self.query_one("#unit", Panel).show(self._unit_panel(known))
        me = self.me
        under = known.unit_at(self.cursor) if self.cursor is not None else None
        focus, lines = under.id if under is not None else None, self._enemy_lines()
        self._show("#enemies", (known.foes(), lines, focus),
                   lambda: panels.enemies_text(known, self.glyphs, lines=lines, focus=focus))
        self._show("#legend", tuple((u.id, u.kind_name) for u in known.units),
                   lambda: panels.legend_text(known, self.glyphs))
        self.query_one("#slots", Panel).show(self._slots_text(me))
        self.query_one("#status", Panel).show(self.status_text())
        for panel in self.panels:
            panel.show_model(known, self.battle)

    def _show(self, panel: str, shows: object, text: Callable[[], Text]) -> None:
        """Give a panel its text, made only when what it shows of the read model (`shows`: the
        slice its text is made from, compared as values) differs from the last time: a move
        that changes no enemy's line doesn't word the enemies again."""
        if self._shown.get(panel, _NOTHING) != shows:
            self.query_one(panel, Panel).show(text())
            self._shown[panel] = shows

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
        """The unit under the cursor if the viewer sees one there, else the one a part picks (the
        GM's), else the one acting (if seen)."""
        if self.cursor is not None:
            under = known.unit_at(self.cursor)
            if under is not None:
                return under
        else:
            picked = next((uid for part in self.parts if (uid := part.shown_unit(known)) is not None), None)
            if picked is not None:
                return known.unit(picked)
        me = self.me
        return known.unit(ident(me).id if me is not None else known.current)

    def _slots_text(self, me: Entity | None) -> Text:
        picked = next((e for part in self.parts if (e := part.slots_of(me)) is not None), None)
        return panels.slots_text(self.battle, picked or me or self._watched())

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

    def status_text(self) -> Text:
        """The status line: the first part's that words it, else the battle's; after a part's
        prefix (a table seat's name)."""
        line = next((t for part in self.parts if (t := part.status()) is not None), None)
        if line is None:
            line = self.battle_status()
        prefixes = [prefix for part in self.parts if (prefix := part.status_prefix())]
        # joined only when there is a prefix: a line's own style (a refusal's yellow) stays its
        # style, not a span of an empty text's (Textual draws the two in different yellows)
        return Text("").join([*prefixes, line]) if prefixes else line

    def battle_status(self) -> Text:
        """The status line as the battle words it, whoever sits here."""
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
        if self.policy.holds_keys and self.type_ahead.holding():
            return Text(f"{ident(me).name}'s turn comes up…", style="dim")
        if self.mode == "move":
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
        # the keys in few words: at 80 columns "(enter confirm, tab next, esc cancel)" was cut
        # after an ability's and a foe's name
        return " · ".join(parts) + "  enter ok · tab next · esc cancel"

    # --- dialogs: abilities menu, free actions, swap, the log -------------------------------------

    def action_abilities(self) -> None:
        """`z`: the slotted abilities as a numbered list; an unusable one says why."""
        me = self.me
        if me is None or self.mode != "move":
            return

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

        options = [(a.name, panels.free_action_label(a)) for a in self.battle.rules.free_actions]

        def chosen(name: str | None) -> None:
            if name is None:
                return
            stock = next(a for a in self.battle.rules.free_actions if a.name == name)
            me_id = ident(me).id
            if stock.target == "self":
                self.act(FreeAction(me_id, stock=name))
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
                                 lambda new: new and self.act(Swap(ident(me).id, out, new)))

        self.app.push_screen(ChoiceDialog("Swap which slotted ability? (costs the turn)", removable), picked_out)

    def action_log(self) -> None:
        if self.more:
            self.more = False
            self._schedule_ai()
        self.app.push_screen(MessageLog(self.log_lines()))
        self.refresh_all()

    def action_overview(self) -> None:
        """The whole field as the viewer knows it (`ui.battle.overview`), fitted into the terminal."""
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
        def answered(yes: bool | None) -> None:
            if yes:
                self._save()
                self.call_later(self.run_action, "app.main_menu")

        self.app.push_screen(ConfirmDialog("Leave the battle for the main menu? It is saved as it stands: Continue "
                                           "on the main menu comes back to it.", yes="Leave", no="Stay",
                                           title="Leave the battle?"), answered)

    def action_skip(self) -> None:
        """Play the enemies' turns at once, up to the player's next turn."""
        if not self.driver.plays_ai:
            self.notify("At a table the AI's turns play at the table's pace.", timeout=3)
            return
        self._stop_ai()

        self.more = False
        run_ai(self.battle)
        self._write_log()
        self._turn_lines = 0
        self.refresh_all()
        self._save()
        self._schedule_ai()


__all__ = ["BattleScreen", "SPEEDS"]
