"""Each player's points per colour over the game, as an SVG chart drawn by matplotlib.

matplotlib: the best-kept charting library for Python, in Debian (python3-matplotlib) and on PyPI,
and it writes SVG with its text as paths, so the chart needs no font and nothing from outside. It is
imported only here, when a report is made (a second or two on a Pi, once per game), and used through
its object interface (no pyplot), which keeps no global state and so may run off the main thread.
"""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING

from companion.rules import COLOURS

if TYPE_CHECKING:
    from .report import Report

# Lines on the dark page: the game's colours, lightened where they would not show (black).
INKS = {"red": "#e0524d", "blue": "#4d8fe6", "green": "#3dbb66", "black": "#d0d0d0"}
BACKGROUND, TEXT, GRID = "#1c1f24", "#f5f5f0", "#3a4049"
# Players told apart by line style and marker, never by colour: each chart is one game colour.
STYLES = (("-", "o"), ("--", "s"), (":", "^"), ("-.", "D"))


def points_chart(report: Report) -> str:
    """Four small charts side by side, one per colour, a line per player; the SVG element as text."""
    from matplotlib import rc_context
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10, 3.2), facecolor=BACKGROUND, layout="constrained")
    FigureCanvasSVG(figure)
    axes = figure.subplots(1, len(COLOURS), sharey=True)
    turns = list(report.turns)
    for ax, colour in zip(axes, COLOURS, strict=True):
        ax.set_facecolor(BACKGROUND)
        ax.set_title(f"{colour.value} {colour.tile_name}s", color=INKS[colour.value])
        ax.grid(True, color=GRID, linewidth=0.6)
        ax.tick_params(colors=TEXT)
        for spine in ax.spines.values():
            spine.set_color(GRID)
        for seat, name in enumerate(report.names):
            line, marker = STYLES[seat % len(STYLES)]
            values = [row[seat][colour.index] for row in report.points]
            ax.step(turns, values, where="post", linestyle=line, color=INKS[colour.value], linewidth=1.8,
                    label=name, marker=marker, markevery=max(1, len(turns) // 8), markersize=5)
        ax.set_xlabel("turn", color=TEXT)
    axes[0].set_ylabel("points", color=TEXT)
    legend = axes[0].legend(loc="upper left", fontsize="small", facecolor=BACKGROUND, edgecolor=GRID)
    for text in legend.get_texts():
        text.set_color(TEXT)
    for handle in legend.legend_handles if hasattr(legend, "legend_handles") else legend.legendHandles:
        handle.set_color(TEXT)
    out = io.StringIO()
    with rc_context({"svg.hashsalt": "te-companion"}):  # the same game gives the same file
        figure.savefig(out, format="svg", metadata={"Date": None})
    # Inline in the page: the <svg> element only, without the XML prolog.
    return re.sub(r"^.*?(?=<svg)", "", out.getvalue(), flags=re.S)
