"""The GM's hand on a fight, a part of the battle screen (`ui.battle.parts`) at this keyboard and
at a live table: the tracker (damage and healing by an amount on one or several marked combatants, revive, withdraw, reinforcements mid-fight (from the enemy
catalogue, the NPC roster or a quick stat line, hidden until revealed), initiative values written
by hand, and rows that show health, effects with turns left and charges) and the override menu
(`gm_overrides.OverrideMenu`, `o`), both on the row the GM picked (`[ ]`).

Every change is an override of `engine.overrides`, recorded as an input (so undo and replay hold):
the hand gives it to its `route` (the engine here and the campaign's record, or the table).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any, ClassVar

from rich.text import Text
from textual.widget import Widget

from horizon_tui.content.models import Difficulty
from horizon_tui.engine import overrides as ov
from horizon_tui.engine.battle import Battle, Entity, charge_left, comp, effects, gear, hp, ident, is_active, pos, team
from horizon_tui.engine.components import Presence
from horizon_tui.engine.turns import free_cell_near
from horizon_tui.campaign import battles
from horizon_tui.campaign import initiative
from horizon_tui.campaign.initiative import effect_badges, tracker_rows
from horizon_tui.ui.gm.screens.dialogs import Field, PromptDialog, checked, whole_in
from horizon_tui.ui.battle.dialogs import ChoiceDialog
from horizon_tui.ui.battle.modes import Place, PlaceMode
from horizon_tui.ui.battle.parts import BattlePart
from horizon_tui.ui.battle.widget import Panel
from horizon_tui.ui.gm.screens.gm_overrides import OverrideMenu
from horizon_tui.play.forms import name_length
from horizon_tui.rules.numbers import one_decimal

CONTROLLER_TAGS = {"player": "P", "gm": "GM", "ai": "AI"}
# each row's state in a glyph, read without colour (NO_COLOR): acting, acted, waiting, held, out
STATE_MARKS = {"current": "▶", "acted": "✓", "waiting": "·", "held": "‖", "out": "✗"}
SELECTED_MARK = "»"  # the row the GM's keys act on, besides reverse video
MAX_AMOUNT = 100_000  # a damage or heal typed by hand: more is a typo


class TrackerPanel(Panel):
    """The GM's tracker as a side panel of the battle screen (`ui.battle.roles.BattlePanel`):
    its rows from the screen that owns them (`rows()`), shown only while `shown()` says so (at
    one keyboard a player's seat sees no GM's tracker)."""

    def __init__(self, rows: Callable[[], Text], shown: Callable[[], bool] = lambda: True) -> None:
        super().__init__(id="gm-tracker")
        self._rows = rows
        self._shown = shown

    def show_model(self, known, battle) -> None:
        shown = self._shown()
        self.display = shown
        self.show(self._rows() if shown else Text(""))


# An override (`engine.overrides`) carried out, logged as the label (None: with what it changed),
# with the definitions of combatants that join (a reinforcement's): True if it was accepted.
Route = Callable[[Any, str | None, dict | None], bool]

HAND_COMMANDS = frozenset({
    "select", "shift", "hold", "ready", "controller", "controller_to", "party_to_ai", "health", "override", "mark",
    "damage", "heal", "temp_health", "revive", "add_combatant", "withdraw", "initiative", "reveal"})


class GMHand(BattlePart):
    """The GM's hand (see the module's docstring): the tracker in the side column, its keys and
    the override menu on the picked row. `route` carries out each change; `gm_seat` says whether
    the keyboard is the GM's now (at one keyboard a player's seat has none of it); `joins`: where
    a combatant joining mid-fight may come from (a table's process knows the catalogue's only)."""

    NAME = "gm"
    COMMANDS: ClassVar[frozenset[str]] = HAND_COMMANDS

    def __init__(self, route: Route, *, legend: str, mapless: bool = False,
                 joins: tuple[str, ...] = ("catalogue", "npc", "quick"),
                 gm_seat: Callable[[], bool] = lambda: True) -> None:
        self.route = route
        self.legend = legend
        self.mapless = mapless  # the tracker alone, distances ruled by the GM
        self.joins = joins
        self.gm_seat = gm_seat
        self.selected: str | None = None
        self.marked: set[str] = set()
        self.overrides = OverrideMenu(self)

    @property
    def battle(self) -> Battle:
        return self.screen.battle

    @property
    def app(self):
        return self.screen.app

    def refuse(self, reason: str) -> bool:
        return self.screen.refuse(reason)

    def run(self, command: str, *args: object) -> None:
        if not self.gm_seat():
            self.refuse("only the GM's seat has the GM's hand")
            return
        super().run(command, *args)

    # --- the screen's hooks ----------------------------------------------------------------

    def side_widgets(self) -> Iterable[Widget]:
        return (TrackerPanel(self.tracker_fitted, shown=self.gm_seat),)

    def shown_unit(self, known) -> str | None:
        return self.selected_id() if self.gm_seat() else None

    def slots_of(self, me: Entity | None) -> Entity | None:
        """The abilities of the combatant the panel names: the selected one when the GM picked
        another than the one acting (not the acting one's under another's name)."""
        chosen = self.selected_id() if self.gm_seat() else None
        if chosen is not None and (me is None or chosen != ident(me).id):
            return self.battle[chosen]
        return None

    # a fight without a map (m): no cell is shown, so no key walks one; the GM rules distances
    MAPLESS_KEYS = ". end turn · a attack · z ability · D/H dmg/heal · f free action"
    MAPLESS_REFUSAL = "a fight without a map: nobody walks it, the GM rules distances"

    def refusal(self, command: str) -> str | None:
        if not self.mapless:
            return None
        if command == "travel":
            return self.MAPLESS_REFUSAL
        if command == "look":
            return f"{self.MAPLESS_REFUSAL}: the turn order on the right shows everyone"
        if command in ("up", "down", "left", "right", "up_left", "up_right", "down_left", "down_right"):
            return f"{self.MAPLESS_REFUSAL} (tab: next target)"
        return None

    def status(self) -> Text | None:
        screen = self.screen
        me = screen.me
        if (self.mapless and me is not None and screen.mode == "move" and not screen.prompt and not screen.more
                and not self.battle.over):
            return Text(f"{ident(me).name}, no map: {self.MAPLESS_KEYS}", style="dim")
        if isinstance(screen.input, PlaceMode):
            name = ident(self.battle[screen.input.target]).name
            return Text(f"Move {name} anywhere: arrows pick the cell, enter puts it there, esc cancels", style="yellow")
        return None

    def place(self, place: Place) -> None:
        """Place mode's choice (the battle screen's `placer`): the move override."""
        self.route(ov.Teleport(place.target, place.cell), "move", None)

    # --- the picked row ------------------------------------------------------------------------

    def selected_id(self) -> str | None:
        """The row the GM picked ([ ]): it stays there as the turns pass. Until one is picked, the
        one acting when the tracker was first drawn (then it stays)."""
        if self.selected not in self.battle.by_id:
            current = self.battle.current
            self.selected = ident(current).id if current is not None else None
        return self.selected

    def action_select(self, step: int) -> None:
        rows = [row.id for row in tracker_rows(self.battle)]  # held ones too, after the order
        if not rows:
            return
        chosen = self.selected_id()
        index = rows.index(chosen) if chosen in rows else 0
        self.selected = rows[(index + step) % len(rows)]
        self.screen.refresh_all()

    def action_override(self) -> None:
        target = self.selected_id()
        if target is not None and not self.battle.over:
            self.overrides.open(target)

    def tracker_fitted(self) -> Text:
        """The tracker's rows as wide as the side column, and the legend of its keys."""
        side = self.screen.query_one("#battle-side")
        width = max(24, side.scrollable_content_region.width - 1) if side.size.width else 28
        text = self.tracker_text(width)
        text.append(self.legend, style="dim")
        return text

    # --- drawing ---------------------------------------------------------------------------

    def tracker_text(self, width: int = 32) -> Text:
        battle = self.battle
        values = ov.initiative_values(battle)
        text = Text(f"Round {battle.round} — turn order\n", style="bold", no_wrap=True, overflow="ellipsis")
        chosen = self.selected_id()
        rows = tracker_rows(battle)
        acting = next((row.name for row in rows if row.state == "current"), None)
        picked = next((row.name for row in rows if row.id == chosen), None)
        # in words too: which row acts, which the keys act on (the two are easily taken for each other)
        text.append(f"▶ acting: {(acting or '—')[:width - 11]}\n", style="bold yellow")
        marked = f" (• {len(self.marked)} marked)" if self.marked else ""
        text.append(f"{SELECTED_MARK} keys on: {(picked or '—')[:width - 11 - len(marked)]}{marked}\n", style="bold")
        name_width = max(6, width - 18)  # marks 2, initiative 5, health 8, controller 3
        held_heading = False
        for row in rows:
            if row.state == "held" and not held_heading:
                text.append("held (d re-enters after this turn)\n", style="dim italic")
                held_heading = True
            e = battle[row.id]
            colour = "cyan" if row.team == "party" else "red"
            style = "dim strike" if row.state == "out" else colour + (" dim" if row.state == "acted" else "")
            line = Text()
            # the row the keys act on (»), else a row marked for D, H and T (•); then its state
            line.append(SELECTED_MARK if row.id == chosen else "•" if row.id in self.marked else " ",
                        style="bold magenta" if row.id in self.marked else "bold")
            line.append(STATE_MARKS[row.state], style="bold yellow" if row.state == "current" else "dim")
            line.append(f"{row.name[:name_width]:<{name_width}}", style=style + (" bold" if row.state == "current" else ""))
            value = values.get(row.id)
            # R-8's total (initiative + 1d6) as R-2 shows numbers: one decimal, half up (int() cut
            # 15.7 to 15, and equal-looking totals stood in an order nothing explained)
            line.append(f"{initiative_text(value):>5}" if value is not None else "    –", style="dim")
            health = hp(e)
            temp = ov.temp_health(e)
            shown = (f"{max(0, health.hp)}{'+' + str(temp) if temp else ''}/{health.max_hp}" if row.state != "out"
                     else row.presence[:7])
            line.append(f" {shown:>7}", style="bold red" if row.state != "out" and health.hp * 4 <= health.max_hp
                        else "")
            line.append(f" {CONTROLLER_TAGS.get(row.controller, row.controller)}",
                        style="bold" if row.controller != "ai" else "dim")
            if row.id == chosen:
                line.stylize("reverse")
            text.append_text(line)
            text.append("\n")
            details = self._row_details(e)
            if details:
                text.append(f"   {details[:width - 3]}\n", style="dim")
        return text

    def _row_details(self, e) -> str:
        """The effects, each an icon with its turns left ("♦bleeding 2t"), and charges left."""
        parts = [str(badge) for badge in effect_badges(self.battle, ident(e).id)]
        if is_active(e):
            charges = [f"{d.value}{charge_left(e, d)}" for d in Difficulty
                       if d is not Difficulty.I and charge_left(e, d) is not None and gear_knows(e, d)]
            if charges:
                parts.append(" ".join(charges))
        return " · ".join(parts)

    # --- the tracker's acts (campaign.initiative): on the selected row, never another ----------

    def _tracker_act(self, change) -> bool:
        """One act of `campaign.initiative`: its refusal shown, or the override run and logged
        with what it changed."""
        if self.battle.over:
            return False
        if isinstance(change, str):
            return self.refuse(change)
        return self.route(change, None, None)

    def action_hold(self) -> None:
        target = self.selected_id()
        if target is not None:
            self._tracker_act(initiative.hold_or_reenter(self.battle, target))

    def action_ready(self) -> None:
        target = self.selected_id()
        if target is not None:
            position = initiative.ready_position(self.battle, target)
            self._tracker_act(position if isinstance(position, str) else ov.Reorder(target, position))

    def action_shift(self, step: int) -> None:
        target = self.selected_id()
        if target is not None:
            self._tracker_act(initiative.reorder(self.battle, target, step))

    def action_controller(self) -> None:
        target = self.selected_id()
        if target is not None:
            self._tracker_act(initiative.next_controller(self.battle, target))

    def action_controller_to(self, kind: str) -> None:
        target = self.selected_id()
        if target is not None:
            self._tracker_act(initiative.controller_change(self.battle, target, kind))

    def action_party_to_ai(self) -> None:
        changes = initiative.party_to_ai(self.battle)
        if isinstance(changes, str):
            self.refuse(changes)
            return
        for change in changes:
            if not self._tracker_act(change):
                break

    def action_health(self, step: int) -> None:
        target = self.selected_id()
        if target is not None:
            self._tracker_act(initiative.adjust_health(self.battle, target, step))

    # --- targets ---------------------------------------------------------------------------

    def action_mark(self) -> None:
        target = self.selected_id()
        if target is None:
            return
        self.marked ^= {target}
        self.screen.refresh_all()

    def _targets(self) -> list[str]:
        chosen = [t for t in self.battle.order if t in self.marked and is_active(self.battle[t])]
        if chosen:
            return chosen
        target = self.selected_id()
        return [target] if target is not None and is_active(self.battle[target]) else []

    def _names(self, targets: list[str]) -> str:
        names = [ident(self.battle[t]).name for t in targets]
        return ", ".join(names) if len(names) <= 3 else f"{', '.join(names[:3])} and {len(names) - 3} more"

    # --- damage, heal, revive, withdraw ----------------------------------------------------

    def action_damage(self) -> None:
        self._amount("damage")

    def action_heal(self) -> None:
        self._amount("heal")

    def action_temp_health(self) -> None:
        self._amount("temp")

    def _amount(self, kind: str) -> None:
        if self.battle.over:
            return
        targets = self._targets()
        if not targets:
            self.refuse("select a combatant on the battlefield ([ ]), or mark several (space)")
            return
        verb = {"damage": "Damage", "heal": "Heal", "temp": "Temporary health for"}[kind]
        title = f"{verb} {self._names(targets)}"

        def done(values: dict[str, str] | None) -> None:
            if not values:
                return
            amount = whole_in(values["amount"], 1, MAX_AMOUNT, "the amount")
            make = {"damage": ov.Damage, "heal": ov.Heal, "temp": ov.GrantTempHealth}[kind]
            change = make(tuple(targets), amount, values["reason"].strip())
            if self.route(change, f"{kind} {amount} on {self._names(targets)}", None):
                self.marked.clear()
                self.screen.refresh_all()

        self.app.push_screen(PromptDialog(title, [Field("amount", "Amount"), Field("reason", "Reason",
                                                                                  placeholder="optional")],
                                          check=checked({"amount": (1, MAX_AMOUNT, "the amount")})), done)

    def action_revive(self) -> None:
        target = self.selected_id()
        if target is None or self.battle.over:
            return
        e = self.battle[target]
        if comp(e, Presence) not in (Presence.unconscious, Presence.dead):
            self.refuse(f"{ident(e).name} is {comp(e, Presence).value}: revive is for the fallen ([ ] selects)")
            return
        top = hp(e).max_hp
        cell = ov.revive_cell(self.battle, target)
        if cell is None:
            self.refuse("no free cell to stand it on")
            return

        def done(values: dict[str, str] | None) -> None:
            if values:
                amount = whole_in(values["hp"], 1, top, "health")
                self.route(ov.Revive(target, amount, cell, values["reason"].strip()),
                           f"revive {ident(e).name} with {amount}", None)

        self.app.push_screen(PromptDialog(f"Revive {ident(e).name} (health 1…{top})", [
            Field("hp", "Health", "1"), Field("reason", "Reason", placeholder="a potion, a prayer…")],
            check=checked({"hp": (1, top, "health")})), done)

    def action_withdraw(self) -> None:
        target = self.selected_id()
        if target is None or self.battle.over or not is_active(self.battle[target]):
            return
        name = ident(self.battle[target]).name

        def chosen(choice: str | None) -> None:
            if choice == "yes":
                self.route(ov.Withdraw(target, "the GM takes it out"), f"withdraw {name}", None)

        self.app.push_screen(ChoiceDialog(f"Take {name} out of the fight? (no XP for it; v revives it)",
                                          [("yes", f"Yes, {name} leaves"), ("no", "No")]), chosen)

    def action_initiative(self) -> None:
        target = self.selected_id()
        if target is None or self.battle.over:
            return
        name = ident(self.battle[target]).name
        now = ov.initiative_values(self.battle).get(target)
        shown = "" if now is None else str(int(now))  # a whole number is what the GM types

        def done(values: dict[str, str] | None) -> None:
            if values:
                if now is not None and values["total"].strip() == shown:
                    # left as offered: the rolled total (17.7 offered as 17) stays, and so does the order
                    self.refuse(f"{name}'s initiative is unchanged")
                    return
                total = whole_in(values["total"], -999, 999, "initiative")
                self.route(ov.SetInitiative(target, total, values["reason"].strip()), f"initiative {name} {total}", None)

        self.app.push_screen(PromptDialog(f"Initiative of {name}", [
            Field("total", "Total", shown), Field("reason", "Reason", placeholder="optional")],
            note="The turn order follows the totals, highest first (R-8).",
            check=checked({"total": (-999, 999, "initiative")})), done)

    def action_reveal(self) -> None:
        target = self.selected_id()
        if target is None or self.battle.over:
            return
        e = self.battle[target]
        if effects(e).get("hidden") is None:
            self.refuse(f"{ident(e).name} is not hidden")
            return
        self.route(ov.RemoveEffect(target, "hidden", "revealed"), f"reveal {ident(e).name}", None)

    # --- reinforcements --------------------------------------------------------------------

    def action_add_combatant(self) -> None:
        if self.battle.over:
            return
        sources = {"catalogue": ("An enemy type from the catalogue", self._join_catalogue),
                   "npc": ("An NPC from the campaign's roster", self._join_npc),
                   "quick": ("A quick stat line (name, level, health, weapon)", self._join_quick)}
        offered = [(key, sources[key][0]) for key in self.joins]
        if len(offered) == 1:  # a table's process knows the catalogue's enemy types only
            sources[offered[0][0]][1]()
            return
        self.app.push_screen(ChoiceDialog("Who joins the fight?", offered),
                             lambda source: source and sources[source][1]())

    def _join_catalogue(self) -> None:
        defs = self.app.enemies()
        options = [(key, f"{d.character.name} (level {d.level}, {d.xp} XP)")
                   for key, d in sorted(defs.items(), key=lambda kv: (kv[1].level, kv[1].character.name))]
        self.app.push_screen(ChoiceDialog("Which enemy type?", options),
                             lambda key: key and self._join_how(key, defs[key], None))

    def _join_npc(self) -> None:
        npcs = [n for n in self.app.campaign.npcs if not n.dead]
        if not npcs:
            self.refuse("no NPC in the roster (n on the dashboard makes one)")
            return
        options = [(n.name, f"{n.name} (level {n.level}, {n.attitude})") for n in npcs]

        def picked(name: str | None) -> None:
            if not name:
                return
            npc = self.app.campaign.npc(name)
            try:
                definition = battles.npc_enemy(npc, self.app.catalogue, self.app.enemies())
            except ValueError as exc:
                self.refuse(str(exc))
                return
            self._join_how(definition.id, definition, npc.combat_side(), npc.name)

        self.app.push_screen(ChoiceDialog("Which NPC?", options), picked)

    def _join_quick(self) -> None:
        def done(values: dict[str, str] | None) -> None:
            if not values:
                return
            try:
                definition = battles.quick_enemy(
                    values["name"], whole_in(values["level"], 1, 99, "level"),
                    whole_in(values["health"], 1, MAX_AMOUNT, "health"), values["weapon"].strip(),
                    self.app.catalogue, self.app.enemies(), whole_in(values["xp"] or "0", 0, MAX_AMOUNT, "XP"))
            except ValueError as exc:
                self.refuse(str(exc))
                return
            self._join_how(definition.id, definition, None, values["name"].strip())

        def check(values):
            problem = checked({"level": (1, 99, "level"), "health": (1, MAX_AMOUNT, "health")})(values)
            if problem:
                return problem
            if not values["name"].strip():
                return "a name, please"
            if values["weapon"].strip() not in self.app.catalogue.weapons:
                return f"a weapon id: {', '.join(sorted(self.app.catalogue.weapons))}"
            return None

        self.app.push_screen(PromptDialog("A quick stat line", [
            Field("name", "Name", placeholder="Wolf", max_length=name_length()), Field("level", "Level", "1"), Field("health", "Health", "20"),
            Field("weapon", "Weapon", "dagger"), Field("xp", "XP", "0")], check=check), done)

    def _join_how(self, key: str, definition, side: str | None, name: str = "") -> None:
        def done(values: dict[str, str] | None) -> None:
            if not values:
                return
            count = whole_in(values["count"], 1, 20, "how many")
            hidden = values["hidden"].strip().lower() in ("y", "yes")
            where = values["side"].strip().lower()
            self.reinforce(key, definition, count, "party" if where.startswith("p") else "enemies", hidden,
                           values["name"].strip() or name or definition.character.name)

        self.app.push_screen(PromptDialog(f"{definition.character.name} joins", [
            Field("count", "How many", "1"), Field("side", "Side", side or "enemies"),
            Field("hidden", "Hidden", "no", placeholder="yes: unseen until revealed (R)"),
            Field("name", "Name", name or definition.character.name, max_length=name_length())],
            note="They stand on free cells beside their side and act right after this turn.",
            check=lambda v: checked({"count": (1, 20, "how many")})(v) or (
                None if v["side"].strip().lower()[:1] in ("p", "e") else "side: party or enemies")), done)

    def reinforce(self, key: str, definition, count: int, side: str, hidden: bool, name: str) -> bool:
        """`count` of them join on free cells near their side (near the enemies' middle if none)."""
        battle = self.battle
        extra = {} if key in self.app.enemies() else {key: definition}
        battle.enemy_defs.setdefault(key, definition)
        friends = [pos(e) for e in battle.active.values() if team(e) == side] or \
                  [pos(e) for e in battle.active.values()]
        anchor = friends[len(friends) // 2] if friends else (battle.battlefield.width // 2, battle.battlefield.height // 2)
        joined = 0
        for n in range(count):
            cell = free_cell_near(battle, anchor)
            if cell is None:
                break
            label = name if count == 1 else f"{name} {n + 1}"
            change = ov.Reinforce(key, cell, side, label, hidden, "ai" if not self.mapless else "gm",
                                  "joins mid-fight")
            if not self.route(change, f"{label} joins", extra):
                break
            extra = {}
            joined += 1
        if joined < count:
            self.refuse(f"only {joined} of {count} found a free cell")
        return joined == count


def initiative_text(value: float) -> str:
    """An initiative total for the tracker: "17.7", "21" (one decimal, half up, R-2's way)."""
    return f"{one_decimal(Fraction(str(value))):g}"


def gear_knows(e, difficulty: Difficulty) -> bool:
    """Whether it carries an ability of this difficulty (its charges matter then)."""
    return any(a.difficulty is difficulty for a in gear(e).character.abilities)
