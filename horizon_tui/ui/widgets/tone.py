"""Rich styles from the app's theme, so Rich-rendered tables match the Textual theme."""

from __future__ import annotations

from textual.widget import Widget


def tone(widget: Widget, variable: str, *, bold: bool = False, dim: bool = False) -> str:
    """A Rich style string for a theme variable (`accent`, `warning`, `error`, `success`, …)."""
    color = widget.app.theme_variables.get(variable, "")
    parts = ["bold"] if bold else []
    if dim:
        parts.append("dim")
    if color:
        parts.append(color)
    return " ".join(parts)
