"""A battle saved mid-fight, as JSON (never pickle: loading a save must never run code).

A battle is deterministic from its seed and the decisions made in it, so the save holds the
set-up (encounter, party, seed) and the recorded inputs. Loading replays them and checks the
replayed log against the saved length and last event; a save that doesn't replay is reported
and left as it is.

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
from horizon_tui.content.guard import decode_json_bytes
from horizon_tui.engine.battle import Battle
from horizon_tui.engine.forming import PartyMember
from horizon_tui.engine.encounter import EncounterSetup
from horizon_tui.engine.runner import Input, action_from_dict, action_to_dict, replay, run_ai
from horizon_tui.errors import DataError, Problem
from horizon_tui.storage.atomic import atomic_write, read_json, rotate_backups
from horizon_tui.content.encounters import encounter_path
from horizon_tui.content.guard import current, read_limited
from horizon_tui.content.guard import parse_decimal
from horizon_tui.engine.forming import create_battle
from horizon_tui.engine.encounter import load_encounter

SCHEMA = 1
KIND = "horizon-battle"


@attrs.define
class BattleInProgress:
    """A live battle with what's needed to save it: its set-up and the inputs given so far."""

    battle: Battle
    encounter: str  # an id in the catalogue, or the path of a GM's own encounter file
    party: list[PartyMember]
    inputs: list[Input] = attrs.field(factory=list)
    setup_copy: EncounterCopy | None = None  # the encounter file as the battle began (read once, then kept)


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


def session_to_dict(session: BattleInProgress, catalogue: Catalogue) -> dict[str, Any]:
    battle = session.battle
    return {
        "kind": KIND,
        "schema": SCHEMA,
        "seed": battle.seed,
        "encounter": portable_encounter(session.encounter, catalogue),
        "party": [
            {"character": character_to_dict(m.character, catalogue), "controller": m.controller}
            | ({"hand_set": hand_set_to_dict(m.hand_set)} if m.hand_set else {})
            | ({"level": m.level} if m.level is not None else {})
            | ({"ally": True} if m.ally else {})
            for m in session.party
        ],
        "inputs": [
            {"at": i.at, "auto_end": i.auto_end, "action": action_to_dict(i.action)} for i in session.inputs
        ],
        "log_length": len(battle.log),
        "last_event": battle.log[-1].to_json() if battle.log else None,
        "log_sha256": log_digest(battle),
    } | ({"setup": {"sha256": copy.sha256, "text": copy.text}} if (copy := encounter_copy(session, catalogue)) else {})


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


def save_session(path: Path, session: BattleInProgress, catalogue: Catalogue) -> None:
    """Atomic, with the last versions kept as backups; never over a save that can't be read."""
    if path.exists():
        try:
            read_json(path)
        except DataError:
            raise
    data = json.dumps(session_to_dict(session, catalogue), ensure_ascii=False, indent=1).encode()
    decode_json_bytes(data, str(path))  # what load_session would refuse (a text too long…) is not written
    rotate_backups(path)
    atomic_write(path, data)


def is_battle_save(data: dict[str, Any]) -> bool:
    return data.get("kind") == KIND


def load_session(path: Path, catalogue: Catalogue, enemies: dict[str, EnemyDef]) -> BattleInProgress:
    """Rebuild a saved battle by replaying it. Raises DataError (naming the file and key) if
    the save can't be read or no longer replays to the same point; the file is not touched."""
    return session_from_dict(read_json(path), catalogue, enemies, str(path))


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
