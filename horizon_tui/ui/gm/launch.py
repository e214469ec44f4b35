"""`horizon gm`: run the game master's tool in this terminal."""

from __future__ import annotations

from horizon_tui.rules.validation import checked_catalogue
from horizon_tui.subcommands import saves_dir_from
from horizon_tui.ui.gm.app import create_gm_app


def run_gm_app(args) -> int:
    # A broken data folder (a file that doesn't read, or rules `horizon validate` refuses, such as
    # diagonal_cost = -1) is reported by the CLI before any screen, with its file and line.
    catalogue = checked_catalogue()
    app = create_gm_app(saves_dir_from(args), catalogue, campaign=getattr(args, "campaign", None))
    app.run()
    return app.crash_exit_code(app.return_code or 0)
