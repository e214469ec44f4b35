"""`horizon scores`: the hall of fame, deepest runs first (then the score), as a table."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from horizon_tui.content.run_rules import load_run_rules
from horizon_tui.errors import DataError, HorizonError
from horizon_tui.paths import user_data_dir
from horizon_tui.storage.host_wiring import score_table
from horizon_tui.storage.runs import HALL_OF_FAME, hall_of_fame_path

COLUMNS = ("#", "party", "levels", "depth", "score", "pace", "seed", "account", "ended", "end")


def score_rows(entries: list[dict[str, Any]], limit: int | None = None) -> list[tuple[str, ...]]:
    rows = []
    for rank, e in enumerate(entries[:limit] if limit else entries, 1):
        end = "won" if e.get("won") else (str(e.get("cause") or "fell"))
        rows.append((str(rank), ", ".join(map(str, e.get("party", []))), "/".join(map(str, e.get("levels", []))),
                     str(e.get("depth", "")), str(e.get("score", "")), str(e.get("pace", "")),
                     str(e.get("seed", "")), str(e.get("account") or ""), str(e.get("ended", ""))[:16], end))
    return rows


def table_text(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """Plain columns (the file's text, never markup), padded to the widest cell."""
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    return "".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() + "\n" for row in (header, *rows))


def scores_text(entries: list[dict[str, Any]], daily: bool, ranked_pace: str, where: Path) -> str:
    title = ("The daily seed's hall of fame" if daily else "Hall of fame") + f" (ranked pace: {ranked_pace})"
    if not entries:
        return f"{title}\nNo runs yet in {where}: start one with `horizon run` or New run on the main menu.\n"
    ranked = [e for e in entries if e.get("pace", ranked_pace) == ranked_pace]
    others = [e for e in entries if e.get("pace", ranked_pace) != ranked_pace]
    text = f"{title}\n" + (table_text(COLUMNS, score_rows(ranked)) if ranked else
                           f"No run at the ranked pace ({ranked_pace}) yet.\n")
    if others:
        text += "\nOther paces (not ranked with the above)\n" + table_text(COLUMNS, score_rows(others))
    return text


def cmd_scores(args) -> int:
    path = Path(args.data_dir).expanduser() / HALL_OF_FAME if args.data_dir else hall_of_fame_path(user_data_dir())
    try:
        entries = score_table(path, args.database).entries(daily=args.daily)
        ranked_pace = load_run_rules().ranked_pace
    except DataError as exc:
        print(exc.problems[0], file=sys.stderr)
        return 1
    except HorizonError as exc:  # storage.database.DatabaseError: which database, what is wrong
        print(exc, file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"daily": args.daily, "runs": entries}, ensure_ascii=False))
        return 0
    sys.stdout.write(scores_text(entries, args.daily, ranked_pace, path))
    return 0


def add_scores_arguments(parser) -> None:
    parser.add_argument("--data-dir", default=None, metavar="D",
                        help="the data folder whose hall of fame to show (an SSH host's --data-dir; "
                             "default: your user data folder)")
    parser.add_argument("--database", default=None, metavar="URL",
                        help="the hall of fame in this database (an SSH host's `serve-ssh --database`: "
                             "every account on every host), e.g. postgresql://…")
    parser.add_argument("--daily", action="store_true", help="the daily seed's own table")
    parser.add_argument("--json", action="store_true")
