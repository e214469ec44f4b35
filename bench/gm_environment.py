"""Imported first by the GM tool's benchmarks: the environment `horizon gm` sets before Textual
loads (`horizon_tui.subcommands._ENVIRONMENT`: Textual's frame rate), so a bench that builds the
app itself measures what the command runs."""

from horizon_tui.subcommands import handler

handler("gm")  # sets the command's environment, then imports its module (and Textual)
