"""A GM's campaign as one immutable value: the party, the NPCs, the in-game day, the session log,
the campaign's own rules and the battle in progress.

No Textual and no engine here. Every change makes a new `Campaign` (`attrs.evolve`), so undo is
"go back to the previous value" and a save is one atomic write of one file.

The party is embedded, not referenced: a character's level, slots and charges depend on the
campaign's house rules (the same file in two campaigns would disagree), one file is one atomic
write (party and log can never be out of step), and undo restores the whole party exactly. A
member remembers the file it was imported from (`source`), and can be exported back to one.
"""

from __future__ import annotations

import functools
import random
import weakref
from fractions import Fraction
from typing import Any

import attrs

from horizon_tui.campaign.session_log import LogEntry, SessionLog
from horizon_tui.content.catalogue import Catalogue, default_catalogue
from horizon_tui.content.characters import character_from_dict, character_to_dict
from horizon_tui.content.encounters import EnemyDef
from horizon_tui.content.guard import LIMIT
from horizon_tui.content.convert import converter, fraction_to_plain, structure
from horizon_tui.content.models import ATTRIBUTES, Character, Difficulty
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.engine.components import Presence
from horizon_tui.errors import DataError
from horizon_tui.rules import progression
from horizon_tui.rules.character import build
from horizon_tui.rules.creation import starting_attributes
from horizon_tui.rules.numbers import whole
from horizon_tui.rules.stats import derived_stats
from horizon_tui.rules.validation import loadout_problems

SCHEMA = 1
KIND = "horizon-campaign"
ATTITUDES = ("hostile", "unfriendly", "neutral", "friendly", "ally")
NPC_SIDES = ("auto", "party", "enemies")  # auto: with the party when friendly or an ally, else against it
NPC_CONTROLLERS = ("ai", "gm")


@attrs.frozen
class Member:
    """A party member: the character as its file would hold it, and where it came from."""

    character: Character
    source: str = ""  # the character file it was imported from, if any
    notes: str = ""

    @property
    def name(self) -> str:
        return self.character.name


def rules_minimums() -> dict[str, int]:
    """R-1's minimums as the shipped rules data sets them (data/rules.toml, [creation]): what an NPC
    made without attributes starts with, as a new character does (rules.creation.starting_attributes)."""
    return starting_attributes(default_catalogue().rules)


@attrs.frozen
class Npc:
    """A non-player character the party meets: enough for dialogue checks (R-12) and the roster.

    Derived numbers (R-2) come from `attributes`; the GM may set willpower or health outright."""

    name: str
    # numbers held to data/limits.toml's ranges when a file is read, as the editor holds them
    level: int = attrs.field(default=1, metadata=LIMIT("level"))
    species: str = ""
    attributes: dict[str, int] = attrs.field(factory=rules_minimums, metadata=LIMIT("attribute"))  # the GM's editor: the campaign's own
    willpower: Fraction | None = None  # None: from the attributes
    health: int | None = None  # None: from the attributes
    xp: int = attrs.field(default=0, metadata=LIMIT("xp"))  # what the party earns for dealing with it
    checkable: bool = True  # not every NPC can be talked round
    attitude: str = "neutral"
    notes: str = ""
    # --- in a fight (campaign.battles.npc_character / npc_enemy); defaults keep old campaign files loading
    race: str = "human"  # a catalogue species id (`species` above is the GM's free text)
    weapon: str = "dagger"  # a catalogue weapon id
    armor: str = ""  # a catalogue armour id; "" for none
    side: str = "auto"  # one of NPC_SIDES
    controller: str = "ai"  # one of NPC_CONTROLLERS: its AI plays it, or the GM does
    ai: str = "brute"  # its AI's behaviour profile (content.encounters.AI_PROFILES)
    targeting: str = "nearest"  # content.encounters.TARGETINGS
    abilities_from: str = ""  # an enemy type's id (data/enemies): it fights with its abilities and loadout
    dead: bool = False  # fell in a fight (campaign.carry): it fights no more
    earned_xp: int = attrs.field(default=0, metadata=LIMIT("xp"))  # kept from older campaigns: allies once took R-14 shares (they take none now)

    def combat_side(self) -> str:
        """"party" or "enemies": the side it fights on."""
        if self.side != "auto":
            return self.side
        return "party" if self.attitude in ("friendly", "ally") else "enemies"

    def stats(self, catalogue: Catalogue | None = None, enemies: dict[str, EnemyDef] | None = None) -> dict[str, Fraction]:
        """The numbers it fights with: rules.character.build over the NPC as the character a battle
        fields (npc_character) — species (R-3), armour, always-on passives and the rules'
        `health_scale` (R-2 [H]). Without `enemies`, the passives of `abilities_from` are left out;
        an NPC the catalogue can't field (an unknown species or weapon id) has R-2 from its own
        attributes."""
        catalogue = catalogue or default_catalogue()
        memo = _npc_stats.get(id(self))
        if memo is None or memo.npc() is not self:
            memo = _npc_stats[id(self)] = _StatsMemo(self)
        found = memo.get(catalogue, enemies)
        if found is None:
            npc = self if enemies is not None or not self.abilities_from else attrs.evolve(self, abilities_from="")
            try:
                found = dict(build(npc_character(npc, catalogue, enemies), catalogue.rules).stats)
            except ValueError:
                found = derived_stats(self.attributes, health_scale=catalogue.rules.derived_stats.health_scale)
            memo.put(catalogue, enemies, found)
        return dict(found)

    def effective_willpower(self, catalogue: Catalogue | None = None, enemies: dict[str, EnemyDef] | None = None) -> Fraction:
        return Fraction(self.willpower) if self.willpower is not None else self.stats(catalogue, enemies)["willpower"]

    def effective_health(self, catalogue: Catalogue | None = None, enemies: dict[str, EnemyDef] | None = None) -> int:
        """The health a battle starts it with: set by hand, else R-2 as `stats` (health_scale applied)."""
        return self.health if self.health is not None else whole(self.stats(catalogue, enemies)["health"])

    def free_action_points(self, rules: Ruleset) -> int:
        return progression.free_action_points(self.level, rules)


class _StatsMemo:
    """One (frozen) NPC's `Npc.stats`, per catalogue and enemy table it was asked with (the
    dashboard asks every NPC's health and willpower each time its roster changes, ~0.25 ms each
    worked out). It holds the NPC weakly and goes when the NPC does (`_npc_stats`), so an id a
    later object is given never finds it; it holds the catalogues and tables it answers for, so
    their ids aren't given to another while it looks them up."""

    __slots__ = ("npc", "_by")

    def __init__(self, npc: Npc):
        self.npc = weakref.ref(npc, functools.partial(_forget_stats, id(npc)))
        self._by: dict[tuple[int, int], tuple[Catalogue, Any, dict[str, Fraction]]] = {}

    def get(self, catalogue: Catalogue, enemies: Any) -> dict[str, Fraction] | None:
        hit = self._by.get((id(catalogue), id(enemies)))
        return hit[2] if hit is not None and hit[0] is catalogue and hit[1] is enemies else None

    def put(self, catalogue: Catalogue, enemies: Any, stats: dict[str, Fraction]) -> None:
        if len(self._by) >= 4:  # (a campaign's catalogue, with and without its enemy table)
            self._by.clear()
        self._by[(id(catalogue), id(enemies))] = (catalogue, enemies, stats)


def _forget_stats(key: int, gone: weakref.ref) -> None:
    """An NPC is gone: its memo goes with it (unless a newer NPC of that id has one already)."""
    memo = _npc_stats.get(key)
    if memo is not None and memo.npc is gone:
        del _npc_stats[key]


# The live NPCs' `_StatsMemo`s by id(npc): an NPC's entry leaves when it dies
_npc_stats: dict[int, _StatsMemo] = {}


def npc_character(npc: Npc, catalogue: Catalogue, enemies: dict[str, EnemyDef] | None = None) -> Character:
    """The NPC as a character the engine can field: its attributes, species, weapon and armour,
    and the abilities and loadout of the enemy type it takes them from (`abilities_from`), which
    must fit the NPC's own level (R-6). ValueError naming what is missing or doesn't fit."""
    data: dict[str, Any] = {"name": npc.name, "species": npc.race, "weapon": npc.weapon,
                            "attributes": {a: int(npc.attributes.get(a, 0)) for a in ATTRIBUTES}}
    if npc.armor:
        data["armor"] = npc.armor
    if npc.abilities_from:
        template = (enemies or {}).get(npc.abilities_from)
        if template is None:
            known = ", ".join(sorted(enemies or {})) or "none loaded"
            raise ValueError(f"{npc.name}: no enemy type {npc.abilities_from!r} to take abilities from ({known})")
        kit = character_to_dict(template.character, catalogue)
        data["abilities"] = kit.get("abilities", [])
        if "loadout" in kit:
            data["loadout"] = kit["loadout"]
    try:
        character = character_from_dict(data, catalogue, f"NPC {npc.name}")
    except DataError as exc:
        raise ValueError("; ".join(str(p) for p in exc.problems)) from None
    problems = loadout_problems(character, catalogue.rules, f"NPC {npc.name}", level=npc.level)
    if problems:
        raise ValueError(f"{npc.name}'s abilities from {npc.abilities_from}: {problems[0].message}")
    return character


def rounds_text(rounds) -> str:
    """A battle's length as the log and the export say it ("1 round", "4 rounds")."""
    return f"{rounds} round{'' if rounds == 1 else 's'}"


@attrs.frozen
class Campaign:
    name: str
    seed: int
    day: int = 1
    draws: int = 0  # how many times the campaign's random source was used
    party: tuple[Member, ...] = ()
    npcs: tuple[Npc, ...] = ()
    log: SessionLog = attrs.field(factory=SessionLog, converter=SessionLog.of)  # a tuple of lines is taken too
    rules: dict[str, Any] = attrs.field(factory=dict)  # overrides of the shipped rules.toml (plain data)
    battle: dict[str, Any] | None = None  # the battle in progress (campaign.battles), plain data
    notes: str = ""
    # what the last fights left on each party member until a rest (campaign.carry): plain data by name
    carried: dict[str, Any] = attrs.field(factory=dict)
    rests: int = 0  # rests taken (the log says when)

    # --- look-ups ----------------------------------------------------------------------------

    def member(self, name: str) -> Member | None:
        return next((m for m in self.party if m.name == name), None)

    def npc(self, name: str) -> Npc | None:
        return next((n for n in self.npcs if n.name == name), None)

    def today(self, kind: str | None = None) -> list[LogEntry]:
        return self.lines_of(self.day, kind)

    def lines_of(self, day: int, kind: str | None = None) -> list[LogEntry]:
        """The log's lines of `day`, read back from the end: days only advance, so a day's lines
        are together and the newest last (today's checks at the end of a 20,000-line campaign read
        today's lines, not the whole log; a stored log is asked in SQL, session_log). A log out of
        day order (a file edited by hand) gives the lines of `day` after its last line of an earlier day."""
        return self.log.lines_of(day, None if kind is None else (kind,))

    def last_lines(self, kind: str, count: int) -> list[LogEntry]:
        """The newest `count` lines of `kind`, oldest first, read back from the end of the log."""
        return self.log.last_lines((kind,), count)

    # --- changes (each returns a new campaign) ---------------------------------------------

    def logged(self, kind: str, text: str, /, **data: Any) -> Campaign:
        return attrs.evolve(self, log=self.log.appended(LogEntry(self.day, kind, text, _plain(data))))

    def with_member(self, old_name: str, member: Member) -> Campaign:
        party = tuple(member if m.name == old_name else m for m in self.party)
        return attrs.evolve(self, party=party)

    def with_npc(self, old_name: str | None, npc: Npc) -> Campaign:
        if old_name is None or self.npc(old_name) is None:
            return attrs.evolve(self, npcs=(*self.npcs, npc))
        return attrs.evolve(self, npcs=tuple(npc if n.name == old_name else n for n in self.npcs))

    def rng(self) -> tuple[random.Random, Campaign]:
        """The campaign's seeded random source for one roll, and the campaign that used it.

        Each roll draws from its own stream (seed, draw number): undoing a roll and rolling
        again gives the same result, so undo can't be used to re-roll a failed check."""
        return random.Random(f"{self.seed}:{self.draws}"), attrs.evolve(self, draws=self.draws + 1)


# --- plain data ------------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """JSON-ready: Fractions as numbers, tuples as lists, keys as text."""
    if isinstance(value, Fraction):
        return fraction_to_plain(value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


# A campaign's fields other than its log, in the order a campaign file writes them: storage keeps
# them as the campaign's state, and a GM action's journal row holds those it changed.
STATE_FIELDS = ("name", "seed", "day", "draws", "notes", "party", "npcs", "rules", "battle", "carried", "rests")


ROSTERS = ("party", "npcs")  # the state fields that are lists of members (Member, Npc)


def roster_entry(item: Member | Npc, catalogue: Catalogue) -> dict[str, Any]:
    """One party member or NPC as plain JSON data (as state_field lists them)."""
    if isinstance(item, Member):
        return {"character": character_to_dict(item.character, catalogue), "source": item.source, "notes": item.notes}
    return converter.unstructure(item)


def state_field(campaign: Campaign, name: str, catalogue: Catalogue) -> Any:
    """One of STATE_FIELDS as plain JSON data."""
    if name in ROSTERS:
        return [roster_entry(item, catalogue) for item in getattr(campaign, name)]
    if name == "rules":
        return _plain(campaign.rules)
    return getattr(campaign, name)


def log_line(entry: LogEntry) -> dict[str, Any]:
    return {"day": entry.day, "kind": entry.kind, "text": entry.text, "data": entry.data}


def campaign_to_dict(campaign: Campaign, catalogue: Catalogue) -> dict[str, Any]:
    return {
        "kind": KIND,
        "schema": SCHEMA,
        **{name: state_field(campaign, name, catalogue) for name in STATE_FIELDS},
        "log": [log_line(e) for e in campaign.log],
    }


def campaign_from_dict(data: dict[str, Any], catalogue: Catalogue, file: str = "<campaign>") -> Campaign:
    """Raises DataError naming the file and key of whatever can't be read."""
    if data.get("kind") != KIND:
        raise DataError.one(file, "kind", f"not a campaign (expected kind = {KIND!r})")
    schema = data.get("schema")
    if not isinstance(schema, int) or schema > SCHEMA:
        raise DataError.one(file, "schema", f"written by a newer Horizon (schema {schema!r})")
    try:
        party = []
        for index, item in enumerate(_list(data, "party", file)):
            where = f"party.{index}"
            item = _table(item, where, file)
            if "character" not in item:
                raise DataError.one(file, f"{where}.character", "missing: the party member's character")
            character = character_from_dict(item["character"], catalogue, f"{file}: {where}")
            party.append(Member(character, _text(item, "source", file, where, ""), _text(item, "notes", file, where, "")))
        npcs = [structure(n, Npc, file, ("npcs", str(i))) for i, n in enumerate(_list(data, "npcs", file))]
        for roster, names in (("party", [m.name for m in party]), ("npcs", [n.name for n in npcs])):
            for index, name in enumerate(names):
                if name in names[:index]:  # every change finds a member by name
                    raise DataError.one(file, f"{roster}.{index}", f"{name!r:.40} is already in the {roster} "
                                        f"(as {roster}.{names.index(name)}): names are unique in a roster")
        log = []
        for index, entry in enumerate(_list(data, "log", file)):
            if (type(entry) is dict and type(entry.get("day")) is int and type(entry.get("kind")) is str
                    and type(entry.get("text")) is str and type(entry.get("data") or {}) is dict):
                log.append(LogEntry(entry["day"], entry["kind"], entry["text"], entry.get("data") or {}))
                continue  # the usual line, checked in one go: a long log opens in milliseconds
            where = f"log.{index}"
            entry = _table(entry, where, file)
            log.append(LogEntry(_whole(entry, "day", file, where), _text(entry, "kind", file, where),
                                _text(entry, "text", file, where), _table(entry.get("data") or {}, f"{where}.data", file)))
        return Campaign(
            name=_text(data, "name", file), seed=_whole(data, "seed", file), day=_whole(data, "day", file, default=1),
            draws=_whole(data, "draws", file, default=0), party=tuple(party), npcs=tuple(npcs), log=tuple(log),
            rules=_table(data.get("rules") or {}, "rules", file), battle=_battle(data.get("battle"), file),
            notes=_text(data, "notes", file, default=""),
            carried=_carried(data.get("carried") or {}, file), rests=_whole(data, "rests", file, default=0),
        )
    except DataError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise DataError.one(file, "", f"not a campaign this version can read ({type(exc).__name__}: "
                            f"{str(exc)[:120]})") from None


_MISSING = object()


def _key(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _value(data: dict[str, Any], key: str, file: str, where: str, default: Any) -> Any:
    if key in data:
        return data[key]
    if default is _MISSING:
        raise DataError.one(file, _key(where, key), "missing")
    return default


def _whole(data: dict[str, Any], key: str, file: str, where: str = "", default: Any = _MISSING) -> int:
    value = _value(data, key, file, where, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataError.one(file, _key(where, key), f"expected a whole number, got {value!r:.40}")
    return value


def _text(data: dict[str, Any], key: str, file: str, where: str = "", default: Any = _MISSING) -> str:
    value = _value(data, key, file, where, default)
    if not isinstance(value, str):
        raise DataError.one(file, _key(where, key), f"expected a text, got {value!r:.40}")
    return value


def _list(data: dict[str, Any], key: str, file: str) -> list[Any]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise DataError.one(file, key, f"expected a list, got {type(value).__name__}")
    return value


def _table(value: Any, key: str, file: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise DataError.one(file, key, f"expected a table of keys, got {type(value).__name__}")
    return dict(value)


def _battle(value: Any, file: str) -> dict[str, Any] | None:
    """The battle in progress as written (campaign.battles rebuilds it, naming what it can't)."""
    return None if value is None else _table(value, "battle", file)


PRESENCES = tuple(p.value for p in Presence)  # what campaign.carry.capture writes


@attrs.frozen
class _CarriedEffect:
    effect: str
    turns: int
    magnitude: str = "0"  # a Fraction as text, "5" or "3/2"
    stat: str | None = None


@attrs.frozen
class _CarriedState:
    """The shape campaign.carry.capture writes for one party member: read with its types, so a damaged
    file names its key instead of crashing the dashboard that draws it."""

    hp: int
    max_hp: int
    presence: str
    charges: dict[Difficulty, int] = attrs.field(factory=dict)
    cooldowns: dict[str, int] = attrs.field(factory=dict)
    effects: list[_CarriedEffect] = attrs.field(factory=list)


def _carried(data: Any, file: str) -> dict[str, Any]:
    """The carried state as written (campaign.carry reads it); a wrong shape or type names its key."""
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise DataError.one(file, "carried", "a table of party member → their state after the last fight")
    for name, state in data.items():
        read = structure(state, _CarriedState, file, ("carried", str(name)))
        if read.presence not in PRESENCES:
            raise DataError.one(file, f"carried.{name}.presence",
                                f"expected one of {', '.join(PRESENCES)}, got {read.presence!r:.40}")
        for index, fx in enumerate(read.effects):
            try:
                Fraction(fx.magnitude)
            except (ValueError, ZeroDivisionError):
                raise DataError.one(file, f"carried.{name}.effects.{index}.magnitude",
                                    f"expected a number as text (\"5\", \"3/2\"), got {fx.magnitude!r:.40}") from None
    return {str(k): dict(v) for k, v in data.items()}
