"""JSON documents as the database keeps them (campaign journals, battle journals): written
compact, read back through the guarded reader (content.guard). No SQL here: the engine's save code
uses it without importing a database library."""

from __future__ import annotations

import json
from typing import Any

from horizon_tui.content.guard import decode_json_bytes

Plain = dict[str, Any]


def read_json_text(text: str, where: str) -> Plain:
    """A stored JSON document through the guarded reader (sizes, nesting, lengths): a damaged or
    hostile database is a DataError naming where, never another exception."""
    return decode_json_bytes(text.encode("utf-8"), where)


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
