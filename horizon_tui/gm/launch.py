"""`horizon gm`: run the game master's tool in this terminal."""

from __future__ import annotations

from horizon_tui.commands import saves_dir_from


def run_gm_app(args) -> int:
    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.gm.app import create_gm_app

    catalogue = default_catalogue()  # a broken data folder is reported by the CLI before any screen
    app = create_gm_app(saves_dir_from(args), catalogue, campaign=getattr(args, "campaign", None))
    app.run()
    return app.crash_exit_code(app.return_code or 0)
