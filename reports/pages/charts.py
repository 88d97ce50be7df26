"""Chart layout the pages share (issue 18, item 3): the legend in rows above the plot, under the
title, where it can cover neither the x-axis title nor the data."""
from __future__ import annotations

import plotly.graph_objects as go

TITLE_PX = 46  # the title's band at the top
LEGEND_ROW_PX = 24  # a row of a horizontal legend
GAP_PX = 22  # between the legend and the plot: room for a line's label at the plot's top edge
DEFAULT_BOTTOM_PX = 80  # plotly's own bottom margin


def legend_on_top(fig: go.Figure, rows: int = 1) -> go.Figure:
    """Put ``fig``'s legend in ``rows`` horizontal rows between the title and the plot (its
    height must be set: the legend's place is in pixels above the plot)."""
    top = TITLE_PX + LEGEND_ROW_PX * rows + GAP_PX
    bottom = fig.layout.margin.b if fig.layout.margin.b is not None else DEFAULT_BOTTOM_PX
    plot = max(100, (fig.layout.height or 450) - top - bottom)
    fig.update_layout(
        margin={"t": top},
        title={"y": 1, "yref": "container", "yanchor": "top", "pad": {"t": 12}},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1 + GAP_PX / plot, "xanchor": "left", "x": 0})
    return fig
