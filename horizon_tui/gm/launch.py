"""`horizon gm`: run the game master's tool in this terminal."""

from __future__ import annotations

from pathlib import Path


def run_gm_app(args) -> int:
    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.gm.app import create_gm_app

    catalogue = default_catalogue()  # a broken data folder is reported by the CLI before any screen
    chosen = getattr(args, "saves_dir", None) or getattr(args, "saves", None)
    app = create_gm_app(Path(chosen) if chosen else Path("saves"), catalogue, campaign=getattr(args, "campaign", None))
    app.run()
    return app.return_code or 0
