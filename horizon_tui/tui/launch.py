"""`horizon` / `horizon play`: run the player app in this terminal."""

from __future__ import annotations

from pathlib import Path


def saves_dir_from(args) -> Path:
    """`horizon play --saves-dir DIR`, else `horizon --saves DIR`, else `./saves`."""
    chosen = getattr(args, "saves_dir", None) or getattr(args, "saves", None)
    return Path(chosen) if chosen else Path("saves")


def run_player_app(args) -> int:
    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.tui.app import create_app

    catalogue = default_catalogue()  # a broken data folder is reported by the CLI before any screen
    app = create_app(saves_dir_from(args), catalogue)
    app.run()
    return app.return_code or 0
