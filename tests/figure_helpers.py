"""What a reader sees of a figure: its texts and where its legends lie (shared by the figure tests)."""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.text import Text


def figure_texts(fig: Figure) -> list[str]:
    """Every text of ``fig`` once drawn: titles, axis and tick labels, legends, notes."""
    fig.canvas.draw()
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def overlapping_legends(fig: Figure) -> list[str]:
    """Legends of ``fig`` (its own and its axes') whose box overlaps a bar or the inside of any axes."""
    fig.canvas.draw()
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend() is not None)]
    found = []
    for legend in legends:
        box = legend.get_window_extent()
        for ax in fig.axes:
            if ax.get_visible() and box.overlaps(ax.get_window_extent()):
                found.append(f"legend {legend.get_texts()[0].get_text()!r} over the axes {ax.get_title()!r}")
            bars = [p for p in ax.patches if p.get_width() > 0]
            if any(box.overlaps(p.get_window_extent()) for p in bars):
                found.append(f"legend {legend.get_texts()[0].get_text()!r} over a bar of {ax.get_title()!r}")
    return found
