"""Plotly figures for the evaluation and the dataset page, free of Streamlit.

The app shows them with `st.plotly_chart`; exported HTML reports embed the same figures. A
detector keeps one color in every figure (its place in the registry picks it). Plotly reads
labels as a small subset of HTML, so user text (topics, perspective names, words) goes through
`_plain` and shows literally.
"""

from __future__ import annotations

import html
import zlib
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative

from explorer import detectors
from explorer.evaluation.statistics import RocCurve
from explorer.render import highlights

_PALETTE = qualitative.Plotly
_GOLD_COLOR = "#334155"  # dark slate: apart from every detector color
_LAYOUT = {"template": "plotly_white", "margin": {"l": 10, "r": 10, "t": 40, "b": 10}}


def _plain(text: object) -> str:
    return html.escape(str(text), quote=False)


def detector_color(name: str) -> str:
    names = detectors.names()
    index = names.index(name) if name in names else zlib.crc32(name.encode("utf-8"))
    return _PALETTE[index % len(_PALETTE)]


def roc_figure(
    curves: Mapping[str, RocCurve],
    *,
    titles: Mapping[str, str] | None = None,
    operating_points: Mapping[str, tuple[float, float]] | None = None,
    title: str = "",
) -> go.Figure:
    """ROC curves of several detectors on one slice; `operating_points[m] = (fpr, tpr)` at its threshold."""
    titles = titles or {}
    figure = go.Figure()
    figure.add_trace(
        go.Scatter(
            x=[0, 1], y=[0, 1], mode="lines", line={"dash": "dot", "color": "grey"}, name="chance", hoverinfo="skip"
        )
    )
    for detector_name, curve in curves.items():
        label = titles.get(detector_name, detector_name)
        thresholds = np.where(np.isfinite(curve.thresholds), curve.thresholds, np.nan)
        figure.add_trace(
            go.Scatter(
                x=curve.fpr,
                y=curve.tpr,
                mode="lines+markers",
                marker={"size": 4},
                # Straight segments through sklearn's points (not steps): every threshold's
                # (FPR, TPR) lies on them, the operating point included.
                line={"color": detector_color(detector_name)},
                name=f"{label} (AUC {curve.auc:.3f})",
                customdata=thresholds,
                hovertemplate=label + "<br>threshold %{customdata:.3f}<br>FPR %{x:.2f}, TPR %{y:.2f}<extra></extra>",
            )
        )
        if operating_points and detector_name in operating_points:
            fpr, tpr = operating_points[detector_name]
            figure.add_trace(
                go.Scatter(
                    x=[fpr],
                    y=[tpr],
                    mode="markers",
                    marker={
                        "size": 12,
                        "symbol": "circle-open",
                        "line": {"width": 3},
                        "color": detector_color(detector_name),
                    },
                    name=f"{label} at its threshold",
                    showlegend=False,
                    hovertemplate=f"{label} at the chosen threshold<br>FPR %{{x:.2f}}, TPR %{{y:.2f}}<extra></extra>",
                )
            )
    figure.update_layout(
        **_LAYOUT,
        title=title,
        xaxis={"title": "false positive rate", "range": [-0.02, 1.02], "constrain": "domain"},
        yaxis={"title": "true positive rate", "range": [-0.02, 1.02], "scaleanchor": "x", "scaleratio": 1},
        legend={"orientation": "h", "yanchor": "top", "y": -0.18, "x": 0},
        height=460,
    )
    return figure


def score_distribution_figure(
    labels: Sequence[bool],
    scores: Sequence[float],
    threshold: float,
    *,
    title: str = "",
    color: str | None = None,
    optimum: float | None = None,
) -> go.Figure:
    """Scores of gold errors vs gold non-errors, each example a point, the threshold a line (and
    the data's optimum threshold a dotted one, when given)."""
    labels = np.asarray(labels, dtype=bool)
    scores = np.asarray(scores, dtype=float)
    figure = go.Figure()
    # Horizontal boxes stack bottom-up: the error-free box first puts gold errors on top.
    for name, mask in (("no error", ~labels), ("gold error", labels)):
        figure.add_trace(
            go.Box(
                x=scores[mask],
                name=f"{name} ({int(mask.sum())})",
                boxpoints="all",
                jitter=0.4,
                pointpos=0,
                marker={"color": color or _PALETTE[0], "size": 6, "opacity": 0.7},
                line={"color": "rgba(120,120,120,0.6)"},
                fillcolor="rgba(0,0,0,0)",
                orientation="h",
                hovertemplate="score %{x:.3f}<extra></extra>",
            )
        )
    figure.add_vline(x=threshold, line={"color": "#dc2626", "width": 2, "dash": "dash"})
    if optimum is not None and optimum != threshold:
        figure.add_vline(x=optimum, line={"color": "#2563eb", "width": 1, "dash": "dot"})
    figure.update_layout(**_LAYOUT, title=title, height=220, showlegend=False, xaxis={"title": "error score"})
    return figure


def topic_figure(summary: pd.DataFrame) -> go.Figure:
    """Gold hallucination and coverage error rates per topic (horizontal bars)."""
    ordered = summary.iloc[::-1]
    figure = go.Figure()
    for column, color in (("hallucination rate", "#dc2626"), ("coverage error rate", "#f59e0b")):
        figure.add_trace(
            go.Bar(
                y=[_plain(topic) for topic in ordered.index],
                x=ordered[column],
                name=column,
                orientation="h",
                marker_color=color,
                hovertemplate="%{y}: %{x:.0%}<extra>" + column + "</extra>",
            )
        )
    figure.update_layout(
        **_LAYOUT,
        barmode="group",
        title="Gold error rate per topic",
        xaxis={"title": "share of labelled examples", "tickformat": ".0%", "range": [0, 1]},
        height=max(260, 34 * len(summary) + 120),
        legend={"orientation": "h", "y": -0.15},
    )
    return figure


def perspective_figure(summary: pd.DataFrame, detector_names: Sequence[str], titles: Mapping[str, str]) -> go.Figure:
    """Per perspective: how often gold drops one of its arguments, and each detector's mean score."""
    figure = go.Figure()
    figure.add_trace(
        go.Bar(
            x=[_plain(name) for name in summary.index],
            y=summary["uncovered rate"],
            name="gold: examples with an uncovered argument",
            marker_color=_GOLD_COLOR,
            hovertemplate="%{x}: %{y:.0%}<extra>gold</extra>",
        )
    )
    for detector_name in detector_names:
        figure.add_trace(
            go.Bar(
                x=[_plain(name) for name in summary.index],
                y=summary[f"mean {detector_name}.coverage"],
                name=f"{titles.get(detector_name, detector_name)}: mean coverage error score",
                marker_color=detector_color(detector_name),
                hovertemplate="%{x}: %{y:.3f}<extra>" + titles.get(detector_name, detector_name) + "</extra>",
            )
        )
    figure.update_layout(
        **_LAYOUT,
        barmode="group",
        title="Coverage errors per perspective",
        yaxis={"range": [0, 1]},
        height=360,
        legend={"orientation": "h", "y": -0.2},
    )
    return figure


def link_map_figure(
    z: np.ndarray,
    columns: Sequence[str],
    rows: Sequence[str],
    *,
    column_text: Sequence[str] | None = None,
    row_text: Sequence[str] | None = None,
    title: str = "",
    measure: tuple[str, str] = ("share", "strongest link"),
    clickable: bool = False,
) -> go.Figure:
    """A map of links between argument pieces (rows) and response pieces (columns), e.g. a
    detector's word map by sentences (`word_links.sentence_map`) or one block of it by words.

    `columns` / `rows` are the short tick labels; `column_text` / `row_text` the full texts
    shown on hover. `clickable` lays an invisible marker on every cell, so that a click selects
    it (Plotly heatmaps cannot be selected; `st.plotly_chart(on_select=...)` reports the
    marker's `x` = column and `y` = row). `measure`: what a cell holds, for the colour bar and the
    hover. Labels are user text, shown as plain text.
    """
    z = np.asarray(z, dtype=float)
    column_text = [_plain(t) for t in (column_text or columns)]
    row_text = [_plain(t) for t in (row_text or rows)]
    n_rows, n_columns = z.shape
    hover = f"%{{customdata[0]}}<br>→ %{{customdata[1]}}<br>{_plain(measure[1])} %{{customdata[2]:.3f}}<extra></extra>"
    cells = [[(row_text[r], column_text[c], z[r, c]) for c in range(n_columns)] for r in range(n_rows)]
    figure = go.Figure(
        go.Heatmap(
            z=z,
            x=list(range(n_columns)),
            y=list(range(n_rows)),
            customdata=cells,
            colorscale=highlights.COLORSCALE,
            colorbar={"title": {"text": _plain(measure[0])}, "thickness": 12},
            hovertemplate=hover,
            hoverinfo="skip" if clickable else None,
        )
    )
    if clickable:
        figure.add_trace(
            go.Scatter(
                x=[c for r in range(n_rows) for c in range(n_columns)],
                y=[r for r in range(n_rows) for c in range(n_columns)],
                customdata=[cells[r][c] for r in range(n_rows) for c in range(n_columns)],
                mode="markers",
                marker={"size": 22, "symbol": "square", "opacity": 0.0},
                hovertemplate=hover,
                showlegend=False,
            )
        )
    figure.update_layout(
        **_LAYOUT,
        title=_plain(title),
        xaxis={"tickmode": "array", "tickvals": list(range(n_columns)), "ticktext": [_plain(c) for c in columns]},
        yaxis={
            "tickmode": "array",
            "tickvals": list(range(n_rows)),
            "ticktext": [_plain(r) for r in rows],
            "autorange": "reversed",
        },
        height=max(240, 26 * n_rows + 110),
        clickmode="event+select",
        dragmode=False,
    )
    return figure
