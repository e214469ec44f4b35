"""A sweep's results for people: terminal plots (plotext) and an HTML report with its charts
drawn as inline SVG (no plotting library: the page is one self-contained file)."""

from __future__ import annotations

import html
from collections.abc import Sequence

import plotext as plt

from horizon_tui.tools.sweep.grid import Row

_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")


def _series(rows: Sequence[Row], encounter: str) -> dict[int, list[Row]]:
    """An encounter's rows by party size, each by level."""
    out: dict[int, list[Row]] = {}
    for row in sorted((r for r in rows if r.cell.encounter == encounter), key=lambda r: (r.cell.size, r.cell.level)):
        out.setdefault(row.cell.size, []).append(row)
    return out


def encounters_of(rows: Sequence[Row]) -> list[str]:
    return list(dict.fromkeys(r.cell.encounter for r in rows))


def terminal_plots(rows: Sequence[Row], width: int = 70, *, color: bool = True) -> str:
    """Per encounter: the win rate (%) against the party level, a line per party size."""
    out = []
    for encounter in encounters_of(rows):
        plt.clear_figure()
        for size, line in _series(rows, encounter).items():
            plt.plot([r.cell.level for r in line], [round(r.estimate.win_rate * 100, 1) for r in line],
                     label=f"{size} in the party", marker="dot")
        plt.title(f"{encounter}: party win rate (%) by level")
        plt.ylim(0, 100)
        plt.xticks(sorted({r.cell.level for r in rows}))
        plt.plotsize(width, 14)
        plt.theme("clear")
        built = plt.build()
        out.append(built if color else plt.uncolorize(built))
    return "\n".join(out)


def _chart(rows: Sequence[Row], encounter: str, target: float | None) -> str:
    """An SVG line chart: win rate by level, a line per size, the 95 % intervals as bars."""
    w, h, left, right, top, bottom = 520, 300, 50, 130, 20, 40
    series = _series(rows, encounter)
    levels = sorted({r.cell.level for line in series.values() for r in line})
    lo, hi = levels[0], levels[-1]

    def x(level: int) -> float:
        return left + (0.5 if hi == lo else (level - lo) / (hi - lo)) * (w - left - right)

    def y(rate: float) -> float:
        return top + (1 - rate) * (h - top - bottom)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" '
             f'aria-label="{html.escape(encounter)}: win rate by party level">']
    for tick in range(0, 101, 25):
        parts.append(f'<line x1="{left}" x2="{w - right}" y1="{y(tick / 100):.1f}" y2="{y(tick / 100):.1f}" stroke="#ddd"/>'
                     f'<text x="{left - 6}" y="{y(tick / 100) + 4:.1f}" text-anchor="end" font-size="11">{tick}%</text>')
    for level in levels:
        parts.append(f'<text x="{x(level):.1f}" y="{h - bottom + 16}" text-anchor="middle" font-size="11">{level}</text>')
    parts.append(f'<text x="{(left + w - right) / 2:.1f}" y="{h - 6}" text-anchor="middle" font-size="12">party level</text>')
    if target is not None:
        parts.append(f'<line x1="{left}" x2="{w - right}" y1="{y(target):.1f}" y2="{y(target):.1f}" stroke="#888" '
                     f'stroke-dasharray="4 3"/><text x="{w - right + 4}" y="{y(target) + 4:.1f}" font-size="10">'
                     f'target {target:.0%}</text>')
    for i, (size, line) in enumerate(series.items()):
        colour = _COLOURS[i % len(_COLOURS)]
        points = " ".join(f"{x(r.cell.level):.1f},{y(r.estimate.win_rate):.1f}" for r in line)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{points}"/>')
        for r in line:
            e, cx = r.estimate, x(r.cell.level)
            parts.append(f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{y(e.ci_low):.1f}" y2="{y(e.ci_high):.1f}" '
                         f'stroke="{colour}" stroke-opacity="0.5" stroke-width="5"/>'
                         f'<circle cx="{cx:.1f}" cy="{y(e.win_rate):.1f}" r="3" fill="{colour}">'
                         f'<title>level {r.cell.level}, {size} in the party: {e.win_rate:.1%} '
                         f'({e.ci_low:.1%}–{e.ci_high:.1%}), {e.runs} battles</title></circle>')
        ly = top + 14 + 16 * i
        parts.append(f'<line x1="{w - right + 10}" x2="{w - right + 28}" y1="{ly}" y2="{ly}" stroke="{colour}" '
                     f'stroke-width="2"/><text x="{w - right + 32}" y="{ly + 4}" font-size="11">{size} in the party</text>')
    parts.append("</svg>")
    return "".join(parts)


def html_report(rows: Sequence[Row], *, seed: int, runs: int, target: float | None, ratings: dict | None = None,
                title: str = "Horizon sweep") -> str:
    """One self-contained HTML page: per encounter a chart and the table of its cells."""
    out = [f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>",
           "<style>body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}"
           "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f4f4f4}"
           "section{margin-bottom:2.5em}</style></head><body>",
           f"<h1>{html.escape(title)}</h1>",
           f"<p>{runs} battles per cell, seed {seed}. Win rates with their 95&nbsp;% (Wilson) intervals; "
           f"the same seed gives the same numbers on any number of workers or machines.</p>"]
    for encounter in encounters_of(rows):
        out.append(f"<section><h2>{html.escape(encounter)}</h2>")
        if ratings and encounter in ratings:
            rating, reached = ratings[encounter]
            verdict = "reaches" if reached else "does not reach (best cell shown)"
            out.append(f"<p>Rating: party level {rating.party_level}, {rating.party_size} in the party — "
                       f"{rating.measured_win_rate:.1%} {verdict} the target {rating.target_win_rate:.0%}.</p>")
        out.append(_chart(rows, encounter, target))
        out.append("<table><tr><th>level</th><th>size</th><th>battles</th><th>win rate</th><th>95 % interval</th>"
                   "<th>median rounds</th><th>party down per battle</th></tr>")
        for r in sorted((r for r in rows if r.cell.encounter == encounter), key=lambda r: (r.cell.level, r.cell.size)):
            e = r.estimate
            out.append(f"<tr><td>{r.cell.level}</td><td>{r.cell.size}</td><td>{e.runs}</td><td>{e.win_rate:.1%}</td>"
                       f"<td>{e.ci_low:.1%}–{e.ci_high:.1%}</td><td>{e.rounds_p50:g}</td><td>{e.deaths:.2f}</td></tr>")
        out.append("</table></section>")
    out.append("</body></html>\n")
    return "\n".join(out)
