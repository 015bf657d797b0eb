"""Error rates over a log (`explorer.evaluation.rates`) as a plotly figure, a Markdown table and a
self-contained HTML page, free of Streamlit: `explorer rates` writes them, the dataset page shows
the same figure and table."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from explorer.data.labels import ERROR_TITLES, ERROR_TYPES
from explorer.evaluation.rates import ALL, Rate

COLORS = {"hallucination": "#dc2626", "coverage": "#2563eb"}
_LAYOUT = {"template": "plotly_white", "margin": {"l": 10, "r": 10, "t": 40, "b": 10}}  # as `figures`' figures


def _plain(text: object) -> str:
    """Group names are user text: plotly reads labels as a little HTML, so they are escaped."""
    return html.escape(str(text), quote=False)


def rates_figure(rates: Sequence[Rate], title: str = "") -> go.Figure:
    """Each group's estimated rate per error type, with its interval as an error bar; all answers first."""
    groups = list(dict.fromkeys([ALL, *(r.group for r in rates)]))
    groups = [g for g in groups if any(r.group == g for r in rates)]
    figure = go.Figure()
    for error_type in ERROR_TYPES:
        found = {r.group: r for r in rates if r.error_type == error_type}
        if not found:
            continue
        shown = [g for g in groups if g in found]
        figure.add_trace(
            go.Scatter(
                x=[found[g].rate for g in shown],
                y=[_plain(g) for g in shown],
                mode="markers",
                marker={"size": 10, "color": COLORS[error_type]},
                name=ERROR_TITLES[error_type],
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": [found[g].high - found[g].rate for g in shown],
                    "arrayminus": [found[g].rate - found[g].low for g in shown],
                    "thickness": 1.5,
                },
                customdata=[[found[g].low, found[g].high, found[g].answers] for g in shown],
                hovertemplate="%{y}: %{x:.1%} (%{customdata[0]:.1%} to %{customdata[1]:.1%}), "
                "%{customdata[2]} answers<extra>%{fullData.name}</extra>",
            )
        )
    figure.update_layout(
        **_LAYOUT,
        title=_plain(title),
        height=max(260, 60 + 34 * len(groups)),
        xaxis={"title": "share of answers with the error (95% interval)", "range": [0, 1], "tickformat": ".0%"},
        yaxis={"autorange": "reversed", "type": "category"},
        legend={"orientation": "h", "y": -0.2},
    )
    return figure


def _cell(rate: Rate | None) -> str:
    return "–" if rate is None else f"{rate.rate:.1%} ({rate.low:.1%} to {rate.high:.1%})"


def rates_markdown(rates: Sequence[Rate], refused: Mapping[str, str], heading: str, notes: Sequence[str] = ()) -> str:
    """The rates as a Markdown table (group, answers, each error type's rate and interval)."""
    groups = list(dict.fromkeys(r.group for r in rates))
    by = {(r.group, r.error_type): r for r in rates}
    types = [t for t in ERROR_TYPES if any(r.error_type == t for r in rates)]
    lines = [f"# {heading}", "", *notes, ""] if notes else [f"# {heading}", ""]
    if types:
        lines += [
            "| group | answers | " + " | ".join(f"{ERROR_TITLES[t]} (95% interval)" for t in types) + " |",
            "|---|---:|" + "---:|" * len(types),
        ]
        for group in groups:
            answers = next(r.answers for r in rates if r.group == group)
            cells = " | ".join(_cell(by.get((group, t))) for t in types)
            lines.append(f"| {_markdown_text(group)} | {answers} | {cells} |")
    for error_type, why in refused.items():
        lines += ["", f"No {ERROR_TITLES[error_type].lower()} rate: {why}."]
    return "\n".join(lines) + "\n"


def _markdown_text(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def rates_page(figure: go.Figure, markdown_table: str, heading: str) -> str:
    """One HTML page with the figure (plotly's script inlined: it opens offline) and the table."""
    table = html.escape(markdown_table)
    # A fixed id: plotly draws a random one, and the same rates must give the same bytes.
    body = figure.to_html(full_html=False, include_plotlyjs=True, div_id="rates")
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(heading)}</title></head><body>{body}<pre>{table}</pre></body></html>\n"
    )
