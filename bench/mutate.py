"""Mutated copies of every kind of file Horizon reads, for the property test
(tests/content/test_fuzz_readers.py) and `bench/fuzz.py`.

`samples(folder)` writes one good file of each kind (copies of data/ and examples/, plus a
battle save, a campaign and an account made here); `mutate(path, rng)` returns a damaged copy's
bytes: type swaps, huge and tiny numbers, deep nesting, truncation, stray bytes, unknown and
missing keys.
"""

from __future__ import annotations

import copy
import json
import random
import shutil
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "data"

# Values a mutation puts where something else belonged.
STRANGE: list[Any] = [
    "x" * 8000, "", "1e999999999", "-1e999999999", "NaN", "27/0", 0, -1, 1, 10**30, 10**31, -(10**40),
    10**39, 1e308, -1e308, 1e-300, 5e-324, 0.5, True, False, [], {}, [1], ["attack"], {"x": 1},
    [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]], "\x00\x1b[2J",
    100_000_000_000, 2_500, 2_501, -2_147_483_649, "é" * 70, [None] * 0, list(range(3000)),
]


def samples(folder: Path) -> dict[str, Path]:
    """One good file of each kind under `folder` (a catalogue copy with saves beside it)."""
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "data"
    if not data.exists():
        shutil.copytree(DATA, data)
    party = folder / "examples"
    if not party.exists():
        shutil.copytree(REPO / "examples" / "party", party)
    found = {
        "character": party / "iriel.toml",
        "rules": data / "rules.toml",
        "limits": data / "limits.toml",
        "weapons": data / "weapons.toml",
        "armor": data / "armor.toml",
        "species": data / "species" / "elf.toml",
        "ai": data / "ai.toml",
        "enemy": data / "enemies" / "goblin_hexer.toml",
        "encounter": data / "encounters" / "wolves.toml",
    }
    saves = folder / "saves"
    found["character_json"] = _json_character(party / "iriel.toml", saves / "characters" / "iriel.json")
    found["battle"] = _battle_save(data / "encounters" / "wolves.toml", party / "iriel.toml", saves / "battles" / "iriel.json")
    found["campaign"] = _campaign(saves, party / "iriel.toml")
    found["account"] = _account(folder / "server" / "users" / "ann" / "authorized_keys")
    return found


def _json_character(source: Path, target: Path) -> Path:
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(tomllib.loads(source.read_text(encoding="utf-8")), indent=1), encoding="utf-8")
    return target


def _battle_save(encounter: Path, character_file: Path, target: Path) -> Path:
    if target.exists():
        return target
    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.content.characters import load_character
    from horizon_tui.content.encounters import load_enemies
    from horizon_tui.engine import runner
    from horizon_tui.engine.forming import PartyMember, create_battle
    from horizon_tui.engine.encounter import load_encounter
    from horizon_tui.engine.persist import BattleInProgress, session_to_dict

    catalogue = default_catalogue()
    enemies = load_enemies(catalogue)
    party = [PartyMember(load_character(character_file, catalogue), "player")]
    battle = create_battle(load_encounter(encounter, catalogue, enemies), party, 7, catalogue, enemies)
    runner.begin(battle)
    runner.run_ai(battle)
    target.parent.mkdir(parents=True, exist_ok=True)
    # a save file as older versions wrote it: the app imports it into its journal on first open
    target.write_text(json.dumps(session_to_dict(BattleInProgress(battle, str(encounter), party), catalogue)))
    return target


def _campaign(saves: Path, character_file: Path) -> Path:
    """A campaign file as older versions wrote it (`SAVES/campaigns/*.json`): what the GM tool
    imports into its database on first open, so what a hostile folder can hand it."""
    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.content.characters import load_character
    from horizon_tui.campaign import changes
    from horizon_tui.campaign.campaign_files import encode
    from horizon_tui.campaign.model import Campaign

    target = saves / "campaigns" / "lantern-road.json"
    if target.exists():
        return target
    catalogue = default_catalogue()
    character = load_character(character_file, catalogue)
    campaign = Campaign(name="Lantern Road", seed=1234).logged("day", "The campaign Lantern Road begins: day 1")
    campaign = changes.add_member(campaign, character, str(character_file))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(encode(campaign, catalogue))
    return target


def _account(target: Path) -> Path:
    if not target.exists():
        import asyncssh

        target.parent.mkdir(parents=True, exist_ok=True)
        key = asyncssh.generate_private_key("ssh-ed25519", comment="ann@example")
        target.write_bytes(key.export_public_key("openssh"))
    return target


# --- mutations ---------------------------------------------------------------------------------


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every place in a document (dict keys and list indices), to pick one to damage."""
    out, stack = [], [(value, prefix)]
    while stack:
        current, path = stack.pop()
        items = current.items() if isinstance(current, dict) else enumerate(current) if isinstance(current, list) else ()
        for key, item in items:
            out.append(path + (key,))
            if isinstance(item, (dict, list)) and len(out) < 5000:
                stack.append((item, path + (key,)))
    return out


def _parent(doc: Any, path: tuple) -> Any:
    for key in path[:-1]:
        doc = doc[key]
    return doc


def _structural(doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    places = _paths(doc)
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        if not places:
            break
        path = rng.choice(places)
        try:
            parent = _parent(doc, path)
            key = path[-1]
            old = parent[key]
            _damage(parent, key, old, rng)
        except (KeyError, IndexError, TypeError, RecursionError):
            continue  # the place went with an earlier damage (or is nested too deep to print)
    return doc


def _damage(parent: Any, key: Any, old: Any, rng: random.Random) -> None:
    kind = rng.random()
    if kind < 0.45:
        parent[key] = copy.deepcopy(rng.choice(STRANGE))
    elif kind < 0.6 and isinstance(old, (int, float)) and not isinstance(old, bool):
        parent[key] = rng.choice([old * 10**rng.randint(3, 40), -old, old + 0.5, -(10**rng.randint(1, 45)), 1e308])
    elif kind < 0.7:
        nest: Any = rng.choice([1, "x", {}])
        for _ in range(rng.choice([40, 200, 1000])):
            nest = [nest] if rng.random() < 0.7 else {"a": nest}
        parent[key] = nest
    elif kind < 0.8 and isinstance(parent, dict):
        del parent[key]
    elif kind < 0.9 and isinstance(parent, dict):
        parent[rng.choice(["xpp", "nmae", "rating", "extra", "class", "__proto__", "z" * 300])] = copy.deepcopy(
            rng.choice(STRANGE))
    elif isinstance(old, list):
        parent[key] = old * rng.choice([2, 50, 500])
    else:
        parent[key] = str(old)


def _encode(doc: dict[str, Any], json_format: bool) -> bytes | None:
    try:
        if json_format:
            return json.dumps(doc, ensure_ascii=False).encode()
        return tomli_w.dumps(_toml_safe(doc)).encode()
    except (TypeError, ValueError, RecursionError):
        return None


def _toml_safe(value: Any) -> Any:
    stack = [value]
    while stack:  # TOML has no null and no empty keys problems worth modelling: drop None
        current = stack.pop()
        if isinstance(current, dict):
            for key in [k for k, v in current.items() if v is None]:
                del current[key]
            stack.extend(current.values())
        elif isinstance(current, list):
            current[:] = [v for v in current if v is not None]
            stack.extend(current)
    return value


def _textual(raw: bytes, rng: random.Random) -> bytes:
    kind = rng.random()
    if kind < 0.3 and raw:
        return raw[: rng.randrange(len(raw))]  # truncated (an interrupted copy)
    if kind < 0.55:
        data = bytearray(raw)
        for _ in range(rng.randint(1, 8)):
            if data:
                data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    if kind < 0.7:
        at = rng.randrange(len(raw) + 1)
        return raw[:at] + rng.choice([b"\x00", b"\xff\xfe", b"[[[[", b"{", b'"', b"= =", b"9" * 5000, b"\n[x]\n"]) + raw[at:]
    if kind < 0.8:
        return b"xp = " + b"[" * 2000 + b"]" * 2000 + b"\n" + raw
    if kind < 0.9:
        return raw.replace(b"= ", b'= "1e999999999" # ', 1)
    return raw * rng.choice([2, 3])


def mutate(path: Path, rng: random.Random) -> bytes:
    """A damaged copy of the file's bytes: structural (parse, damage, write back) or textual."""
    raw = path.read_bytes()
    if path.name == "authorized_keys" or rng.random() < 0.35:
        return _textual(raw, rng)
    json_format = path.suffix == ".json"
    try:
        doc = json.loads(raw) if json_format else tomllib.loads(raw.decode())
    except (ValueError, UnicodeDecodeError):
        return _textual(raw, rng)
    encoded = _encode(_structural(doc, rng), json_format)
    return encoded if encoded is not None else _textual(raw, rng)
