"""The battle screens: the tcod-drawn battlefield, targeting, the log, the end summary."""
