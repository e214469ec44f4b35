"""A battle saved mid-fight, as JSON (never pickle: loading a save must never run code).

A battle is deterministic from its seed and the decisions made in it, so the save holds the
set-up (encounter, party, seed) and the recorded inputs. Loading replays them and checks the
replayed log against the saved length, last event and digest; a save that doesn't replay is
reported and left as it is.

This module only encodes and decodes; storage keeps the battle (`storage.battles`, a journal: each
save appends the inputs given since the last one, one row each, with the checks). `save_session`
hands the repository the new inputs, the set-up encoded once per session and the log's digest
carried forward event by event (never the whole log again each turn); `session_to_dict` is the
whole save as one JSON object (a GM's campaign keeps its battles so, and a finished battle's record).

The encounter is named by its id in the catalogue, never by where the catalogue is installed (a
venv rebuilt, moved or upgraded to another Python must not strand a battle), and the save keeps a
copy of the encounter file as the battle began with its hash (`setup`): an encounter whose file
changed or went is rebuilt from that copy. Older saves named an install path
(`…/site-packages/horizon_tui/data/encounters/wolves.toml`): read as the id `wolves`.
"""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import attrs

from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.characters import character_from_dict, character_to_dict
from horizon_tui.content.encounters import EnemyDef
from horizon_tui.engine.battle import Battle
from horizon_tui.engine.forming import PartyMember
from horizon_tui.engine.encounter import EncounterSetup
from horizon_tui.engine.runner import Input, action_from_dict, action_to_dict, replay, run_ai
from horizon_tui.errors import DataError, Problem
from horizon_tui.storage.battles import BATTLE_KIND, CHECK_KEYS, BattleRepository, StaleJournal
from horizon_tui.content.encounters import encounter_path
from horizon_tui.content.guard import current, read_limited
from horizon_tui.content.guard import parse_decimal
from horizon_tui.engine.forming import create_battle
from horizon_tui.engine.encounter import load_encounter

SCHEMA = 1
KIND = BATTLE_KIND


@attrs.define
class BattleInProgress:
    """A live battle with what's needed to save it: its set-up and the inputs given so far."""

    battle: Battle
    encounter: str  # an id in the catalogue, or the path of a GM's own encounter file
    party: list[PartyMember]
    inputs: list[Input] = attrs.field(factory=list)
    setup_copy: EncounterCopy | None = None  # the encounter file as the battle began (read once, then kept)
    saved: SavedAs | None = attrs.field(default=None, init=False, eq=False, repr=False)  # save_session's


@attrs.define(eq=False)
class LogFingerprint:
    """`log_digest` of a battle's log carried forward: each call hashes only the events added
    since the last, so a save's digest costs O(new events), not O(log)."""

    battle: Battle
    hashed: int = 0
    digest: Any = attrs.field(factory=hashlib.sha256)

    def of(self, battle: Battle) -> str:
        if battle is not self.battle or self.hashed > len(battle.log):  # another battle, or its log was cut
            self.battle, self.hashed, self.digest = battle, 0, hashlib.sha256()
        for event in battle.log[self.hashed:]:
            self.digest.update(event.to_json().encode())
            self.digest.update(b"\n")
        self.hashed = len(battle.log)
        return self.digest.copy().hexdigest()


@attrs.define(eq=False)
class SavedAs:
    """Where a session was last saved and how much of it: the next save appends from there."""

    repository: BattleRepository
    slot: str
    header: str  # the set-up as the journal holds it (encoded once)
    inputs: int  # the inputs the journal has
    fingerprint: LogFingerprint


@attrs.frozen
class EncounterCopy:
    """An encounter file's text as a battle began with it, and its hash."""

    text: str
    sha256: str

    @classmethod
    def of(cls, text: str) -> EncounterCopy:
        return cls(text, hashlib.sha256(text.encode("utf-8")).hexdigest())


def portable_encounter(encounter: str, catalogue: Catalogue) -> str:
    """The encounter as a save names it: a file in an install's `data/encounters/` (this one's or
    another venv's) whose id this catalogue has is named by its id; anything else as given."""
    path = Path(encounter)
    if (path.suffix == ".toml" and path.parent.name == "encounters" and path.parent.parent.name == "data"
            and catalogue.root is not None and (catalogue.root / "encounters" / path.name).is_file()):
        return path.stem
    return encounter


def _read_encounter_text(encounter: str, catalogue: Catalogue) -> str | None:
    """The encounter file's text now, None if there is none to read (gone, unreadable, too big)."""

    try:
        return read_limited(encounter_path(encounter, catalogue.root), current().file_bytes).decode("utf-8")
    except (DataError, OSError, UnicodeDecodeError):
        return None


def encounter_copy(session: BattleInProgress, catalogue: Catalogue) -> EncounterCopy | None:
    """The copy of the battle's encounter the save keeps, read from its file the first time."""
    if session.setup_copy is None and session.encounter not in ("placed", ""):
        text = _read_encounter_text(session.encounter, catalogue)
        if text is not None:
            session.setup_copy = EncounterCopy.of(text)
    return session.setup_copy


def session_header(session: BattleInProgress, catalogue: Catalogue) -> dict[str, Any]:
    """The save's set-up: what doesn't change as the battle goes on."""
    return {
        "kind": KIND,
        "schema": SCHEMA,
        "seed": session.battle.seed,
        "encounter": portable_encounter(session.encounter, catalogue),
        "party": [
            {"character": character_to_dict(m.character, catalogue), "controller": m.controller}
            | ({"hand_set": hand_set_to_dict(m.hand_set)} if m.hand_set else {})
            | ({"level": m.level} if m.level is not None else {})
            | ({"ally": True} if m.ally else {})
            for m in session.party
        ],
    } | ({"setup": {"sha256": copy.sha256, "text": copy.text}} if (copy := encounter_copy(session, catalogue)) else {})


def input_to_dict(item: Input) -> dict[str, Any]:
    return {"at": item.at, "auto_end": item.auto_end, "action": action_to_dict(item.action)}


def session_checks(battle: Battle, digest: str | None = None) -> dict[str, Any]:
    """What opening compares with the replay: the log's length, its last event and its digest."""
    return {"log_length": len(battle.log), "last_event": battle.log[-1].to_json() if battle.log else None,
            "log_sha256": digest if digest is not None else log_digest(battle)}


def session_to_dict(session: BattleInProgress, catalogue: Catalogue) -> dict[str, Any]:
    """The whole save as one JSON object (the older save file's shape, which `session_from_dict` reads)."""
    header = session_header(session, catalogue)
    return {**{k: v for k, v in header.items() if k != "setup"},
            "inputs": [input_to_dict(i) for i in session.inputs], **session_checks(session.battle),
            **({"setup": header["setup"]} if "setup" in header else {})}


def hand_set_to_dict(hand_set: dict[str, Fraction]) -> dict[str, str]:
    """Hand-set stats (EnemyDef.hand_set) for JSON: exact, as "27/2" or "300"."""
    return {stat: str(value) for stat, value in hand_set.items()}


def hand_set_from_dict(data: Any) -> dict[str, Fraction]:
    """ValueError saying what is wrong. Numbers as text go through the guarded parser
    (content.guard.parse_decimal): "1e999999999" is refused, never computed."""

    if not isinstance(data, dict):
        raise ValueError(f"hand_set is a table of stat → number, not {type(data).__name__}")
    out = {}
    for stat, value in data.items():
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ValueError(f"{stat}: a number, not {type(value).__name__}")
        out[str(stat)] = parse_decimal(value if isinstance(value, str) else repr(value))
    return out


def log_digest(battle: Battle, upto: int | None = None) -> str:
    """A fingerprint of the event log (its first `upto` events): a replay must reproduce every
    event, not just the last."""
    digest = hashlib.sha256()
    for event in battle.log[:upto]:
        digest.update(event.to_json().encode())
        digest.update(b"\n")
    return digest.hexdigest()


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def save_session(battles: BattleRepository, slot: str, session: BattleInProgress, catalogue: Catalogue) -> None:
    """Keep the battle in `battles` as `slot`: the inputs given since the session was last saved
    there, in one transaction. The first save of a session (or one whose journal another writer
    changed) writes it whole. The repository's errors (storage.database.StorageRefused: a full
    disk, a read-only folder) leave what was saved before as it was."""
    saved = session.saved
    if (saved is None or saved.repository is not battles or saved.slot != slot or saved.inputs > len(session.inputs)
            or saved.fingerprint.battle is not session.battle):  # a battle rebuilt (a table's take-back): whole
        saved = SavedAs(battles, slot, _compact(session_header(session, catalogue)), 0, LogFingerprint(session.battle))
    checks = session_checks(session.battle, saved.fingerprint.of(session.battle))
    new = [_compact(input_to_dict(i)) for i in session.inputs[saved.inputs:]]
    try:
        saved.inputs = battles.save(slot, saved.header, saved.inputs, new, checks)
    except StaleJournal:  # another writer's rows (a window that took the battle over and gave it back)
        every = [_compact(input_to_dict(i)) for i in session.inputs]
        saved.inputs = battles.save(slot, saved.header, 0, every, checks)
    session.saved = saved


def is_battle_save(data: dict[str, Any]) -> bool:
    return data.get("kind") == KIND


def load_session(battles: BattleRepository, slot: str, catalogue: Catalogue,
                 enemies: dict[str, EnemyDef]) -> BattleInProgress | None:
    """Rebuild the battle kept as `slot` by replaying it; None if there is none. Raises DataError
    (naming the save) if it can't be read or no longer replays to the same point; nothing is touched."""
    data = battles.load(slot)
    if data is None:
        return None
    session = session_from_dict(data, catalogue, enemies, slot)
    header = {k: v for k, v in data.items() if k not in ("inputs", *CHECK_KEYS)}
    fingerprint = LogFingerprint(session.battle)
    session.saved = SavedAs(battles, slot, _compact(header), len(session.inputs), fingerprint)
    return session


def session_from_dict(
    data: dict[str, Any], catalogue: Catalogue, enemies: dict[str, EnemyDef], file: str = "<battle>",
    setup: EncounterSetup | None = None,
) -> BattleInProgress:
    """A saved battle from its JSON object (a file's, or one kept inside a GM's campaign).

    `setup`: the battle's set-up when it was built in memory rather than read from the encounter
    file named in the save (a GM's battle placed by hand on a map, `campaign.battles`)."""

    if not is_battle_save(data):
        raise DataError.one(file, "kind", f"not a battle save (expected kind = {KIND!r})")
    if not isinstance(data.get("schema"), int) or data["schema"] > SCHEMA:
        raise DataError.one(file, "schema", f"written by a newer Horizon (schema {data.get('schema')!r})")
    problems = []
    for key, kinds, what in (("seed", (int,), "a whole number"), ("encounter", (str,), "an encounter id or path"),
                             ("party", (list,), "a list of party members"), ("inputs", (list,), "a list of inputs")):
        value = data.get(key)
        if value is None:
            problems.append(Problem(file, key, f"is required but missing ({what})"))
        elif isinstance(value, bool) or not isinstance(value, kinds):
            problems.append(Problem(file, key, f"expected {what}, got {type(value).__name__}"))
    if problems:
        raise DataError(problems)
    seed = data["seed"]
    encounter = portable_encounter(data["encounter"], catalogue)
    party_data = data["party"]
    inputs_data = data["inputs"]
    party = []
    for index, member in enumerate(party_data):
        if not isinstance(member, dict) or not isinstance(member.get("character"), dict):
            raise DataError.one(file, f"party.{index}", "expected a table with the member's `character`")
        if not isinstance(member.get("controller", "player"), str):
            raise DataError.one(file, f"party.{index}.controller", "expected \"player\", \"ai\" or \"gm\"")
        character = character_from_dict(member["character"], catalogue, f"{file}: party.{index}")
        try:
            hand_set = hand_set_from_dict(member.get("hand_set", {}))
        except (ValueError, ZeroDivisionError) as exc:
            raise DataError.one(file, f"party.{index}.hand_set", f"a table of stat → number ({exc})") from None
        level = member.get("level")
        if level is not None and (not isinstance(level, int) or level < 1):
            raise DataError.one(file, f"party.{index}.level", f"a level is a whole number from 1, not {level!r}")
        ally = member.get("ally", False)
        if not isinstance(ally, bool):
            raise DataError.one(file, f"party.{index}.ally", f"true or false, not {ally!r}")
        party.append(PartyMember(character, member.get("controller", "player"), hand_set, level, ally))
    inputs = []
    for index, item in enumerate(inputs_data):
        try:
            if not isinstance(item, dict) or isinstance(item.get("at"), bool) or not isinstance(item.get("at"), int):
                raise ValueError("expected a table with `at` (a whole number) and `action`")
            inputs.append(Input(item["at"], action_from_dict(item["action"]), bool(item.get("auto_end", True))))
        except Exception as exc:  # noqa: BLE001 - any malformed input is a problem with the file
            raise DataError.one(file, f"inputs.{index}", f"not an action this version knows ({exc})") from None
    kept = _kept_setup(data.get("setup"), file)
    if setup is None:
        setup = _encounter_setup(encounter, kept, catalogue, enemies)
    try:
        battle = create_battle(setup, party, seed, catalogue, enemies)
    except DataError:
        raise
    except Exception as exc:  # noqa: BLE001 - a party the rules can't field is a problem with the save
        raise DataError.one(file, "party", f"can't start this battle ({type(exc).__name__}: {str(exc)[:160]})") from None
    try:
        replay(battle, inputs)
        run_ai(battle)
    except ValueError as exc:
        raise DataError.one(file, "inputs", str(exc)[:300]) from None
    except Exception as exc:  # noqa: BLE001 - inputs that don't fit the battle are a problem with the save
        raise DataError.one(file, "inputs", f"the inputs don't replay ({type(exc).__name__}: {str(exc)[:160]})") from None
    # A save written while the AI's turns were still being shown (the player left mid-way) holds
    # fewer events than the replay, which plays the AI on to the next input: its log must be the
    # replay's first `log_length` events.
    expected = data.get("log_length")
    known = isinstance(expected, int) and not isinstance(expected, bool) and 0 <= expected <= len(battle.log)
    last = battle.log[expected - 1].to_json() if known and expected else None
    fingerprint = data.get("log_sha256")
    if not known or data.get("last_event") != last or (
        fingerprint is not None and fingerprint != log_digest(battle, expected)
    ):
        raise DataError.one(
            file, "log_length",
            "the battle replays differently (the rules or the catalogue changed since it was saved)",
        )
    return BattleInProgress(battle, encounter, party, inputs, kept)


def _kept_setup(value: Any, file: str) -> EncounterCopy | None:
    if value is None:
        return None  # a save of an older version: its encounter is read from the catalogue
    if not isinstance(value, dict) or not isinstance(value.get("text"), str) or not isinstance(value.get("sha256"), str):
        raise DataError.one(file, "setup", "expected the encounter's copy: a table with `text` and `sha256`")
    kept = EncounterCopy.of(value["text"])
    if kept.sha256 != value["sha256"]:
        raise DataError.one(file, "setup.sha256", "doesn't match the encounter's copy kept beside it")
    return kept


def _encounter_setup(encounter: str, kept: EncounterCopy | None, catalogue: Catalogue,
                     enemies: dict[str, EnemyDef]) -> EncounterSetup:
    """The encounter from its file while the file is as the battle began; else from the copy the
    save kept (the file changed or is gone: the battle goes on as it began)."""

    if kept is not None:
        now = _read_encounter_text(encounter, catalogue)
        if now is None or EncounterCopy.of(now).sha256 != kept.sha256:
            return load_encounter(f"{Path(encounter).stem}.toml", catalogue, enemies, text=kept.text)  # the id as before
    return load_encounter(encounter, catalogue, enemies)
