"""`horizon` / `horizon play`: run the player app in this terminal."""

from __future__ import annotations

from horizon_tui.subcommands import saves_dir_from  # one reading of --saves for `horizon` and `horizon gm`
from horizon_tui.terminal import tell

__all__ = ["run_player_app", "saves_dir_from"]


def run_player_app(args) -> int:
    """The rules data is loaded by the app when first needed, after the main menu is up; a
    broken data folder is reported there (and again here, on the way out, with every problem)."""
    from horizon_tui.ui.player.app import create_app

    app = create_app(saves_dir_from(args))
    app.run()
    problems = app.data_problems_seen
    if problems:
        tell(*(str(problem) for problem in problems))
    return app.crash_exit_code(1 if problems else app.return_code or 0)


def run_command(args) -> int:
    """`horizon run`: with --simulate, whole runs by the AI (no app); else the player app opened
    on a new run with that seed (or today's)."""
    if args.simulate:
        from horizon_tui.play.runs.simulation import cmd_simulate_runs

        return cmd_simulate_runs(args)
    from horizon_tui.ui.player.app import create_app

    app = create_app(saves_dir_from(args))
    app.run_start = {"seed": args.seed, "daily": args.daily, "pace": args.pace}
    app.run()
    return app.crash_exit_code(app.return_code or 0)
