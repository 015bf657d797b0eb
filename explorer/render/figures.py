"""Plotly figures for the evaluation and the dataset page, free of Streamlit.

The app shows them with `st.plotly_chart`; exported HTML reports embed the same figures. A
method keeps one color in every figure (its place in the registry picks it). Plotly reads
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
_GOLD_COLOR = "#334155"  # dark slate: apart from every method color
_LAYOUT = {"template": "plotly_white", "margin": {"l": 10, "r": 10, "t": 40, "b": 10}}


def _plain(text: object) -> str:
    return html.escape(str(text), quote=False)


def method_color(name: str) -> str:
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
    """ROC curves of several methods on one slice; `operating_points[m] = (fpr, tpr)` at its threshold."""
    titles = titles or {}
    figure = go.Figure()
    figure.add_trace(
        go.Scatter(
            x=[0, 1], y=[0, 1], mode="lines", line={"dash": "dot", "color": "grey"}, name="chance", hoverinfo="skip"
        )
    )
    for method, curve in curves.items():
        label = titles.get(method, method)
        thresholds = np.where(np.isfinite(curve.thresholds), curve.thresholds, np.nan)
        figure.add_trace(
            go.Scatter(
                x=curve.fpr,
                y=curve.tpr,
                mode="lines+markers",
                marker={"size": 4},
                # Straight segments through sklearn's points (not steps): every threshold's
                # (FPR, TPR) lies on them, the operating point included.
                line={"color": method_color(method)},
                name=f"{label} (AUC {curve.auc:.3f})",
                customdata=thresholds,
                hovertemplate=label + "<br>threshold %{customdata:.3f}<br>FPR %{x:.2f}, TPR %{y:.2f}<extra></extra>",
            )
        )
        if operating_points and method in operating_points:
            fpr, tpr = operating_points[method]
            figure.add_trace(
                go.Scatter(
                    x=[fpr],
                    y=[tpr],
                    mode="markers",
                    marker={"size": 12, "symbol": "circle-open", "line": {"width": 3}, "color": method_color(method)},
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
    labels: Sequence[bool], scores: Sequence[float], threshold: float, *, title: str = "", color: str | None = None
) -> go.Figure:
    """Scores of gold errors vs gold non-errors, each example a point, the threshold a line."""
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


def perspective_figure(summary: pd.DataFrame, methods: Sequence[str], titles: Mapping[str, str]) -> go.Figure:
    """Per perspective: how often gold drops one of its arguments, and each method's mean score."""
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
    for method in methods:
        figure.add_trace(
            go.Bar(
                x=[_plain(name) for name in summary.index],
                y=summary[f"mean {method}.coverage"],
                name=f"{titles.get(method, method)}: mean coverage error score",
                marker_color=method_color(method),
                hovertemplate="%{x}: %{y:.3f}<extra>" + titles.get(method, method) + "</extra>",
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


def heatmap_figure(heatmap: Mapping, row_groups: Sequence[str] | None = None) -> go.Figure:
    """A detector's own heatmap from `DetectorResult.details["heatmap"]`.

    The convention: `{"z": rows x columns of numbers, "x": column labels, "y": row labels,
    "title": str (optional), "colorbar": str (optional)}`, e.g. salience of argument words
    (rows) over response words (columns). `row_groups` names each row's group (e.g. its
    argument); a line separates consecutive groups. Labels are user text, shown as plain text.
    """
    z = np.asarray(heatmap["z"], dtype=float)
    x = [_plain(label) for label in heatmap.get("x", range(z.shape[1]))]
    y = [_plain(label) for label in heatmap.get("y", range(z.shape[0]))]
    figure = go.Figure(
        go.Heatmap(
            z=z,
            x=list(range(len(x))),
            y=list(range(len(y))),
            customdata=[[(y[r], x[c]) for c in range(len(x))] for r in range(len(y))],
            colorscale=highlights.COLORSCALE,
            colorbar={"title": {"text": _plain(heatmap.get("colorbar", ""))}},
            hovertemplate="%{customdata[0]} → %{customdata[1]}: %{z:.3f}<extra></extra>",
        )
    )
    if row_groups is not None:
        for row in range(1, len(row_groups)):
            if row_groups[row] != row_groups[row - 1]:
                figure.add_hline(y=row - 0.5, line={"color": "rgba(60,60,60,0.6)", "width": 1})
    figure.update_layout(
        **_LAYOUT,
        title=_plain(heatmap.get("title", "")),
        xaxis={"tickmode": "array", "tickvals": list(range(len(x))), "ticktext": x, "tickangle": -60},
        yaxis={"tickmode": "array", "tickvals": list(range(len(y))), "ticktext": y, "autorange": "reversed"},
        height=max(300, 18 * len(y) + 160),
    )
    return figure
