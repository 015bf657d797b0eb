"""The argument x claim coverage matrix as a plotly figure (no Streamlit).

Rows are arguments (grouped by perspective), columns the response's claims in order. A cell's
shade is the cosine similarity of the claim to the argument's best sentence; a check mark is
a match that counts (the argument supports the claim and the claim covers the argument), a
ring a match that does not count (the claim sits in another perspective's part, or the
argument sentence already supports another claim). Outlines mark the flags: a red row for an
argument nobody covers, a red column for a claim nobody supports, orange cells for a
repetition, purple for a perspective confusion. Hovering a cell shows both texts, the
similarity against the threshold, the evidence sentence and why the match counts or not.

User text reaches plotly only through `html.escape` (plotly renders a subset of HTML in hover
labels and tick labels).
"""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from explorer.data.example import Example
from explorer.detectors.ops.assessment import (
    COVERAGE_ERROR,
    FLAG_TITLES,
    PERSPECTIVE_CONFUSION,
    REPETITION,
    UNSUPPORTED_CLAIM,
    Assessment,
)
from explorer.text.words import shorten

# Unrelated sentences of one debate are often 0.3 similar; starting the scale there keeps the
# background pale so the matches stand out.
SIMILARITY_FLOOR = 0.3
SIMILARITY_SCALE = [[0.0, "rgb(247,251,255)"], [0.5, "rgb(158,202,225)"], [1.0, "rgb(8,81,156)"]]
FLAG_COLORS = {
    COVERAGE_ERROR: "#dc2626",
    UNSUPPORTED_CLAIM: "#dc2626",
    REPETITION: "#ea580c",
    PERSPECTIVE_CONFUSION: "#7c3aed",
}
CHECK, RING = "\u2713", "\u25cb"


def _one_line(text: str, limit: int) -> str:
    """One line: a hover label breaks lines itself (`_wrap`)."""
    return shorten(" ".join(text.split()), limit)


def _wrap(text: str, width: int = 70) -> str:
    """Escaped text broken into lines of about `width` characters for a hover label."""
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "<br>".join(html.escape(piece) for piece in lines)


def argument_label(example: Example, perspective: int, argument: int) -> str:
    return f"{example.perspectives[perspective].name} {argument + 1}"


def claim_label(index: int) -> str:
    return f"C{index + 1}"


def _cell_reason(assessment: Assessment, row: int, claim: int) -> str:
    alignment, settings = assessment.alignment, assessment.settings
    raw = float(alignment.similarity[row, claim])
    credited = float(assessment.credited[row, claim])
    if assessment.framing[claim]:
        return "not counted: the claim frames the question"
    if raw < settings.match:
        return "no match"
    if credited >= settings.match:
        return "match: the argument supports the claim"
    perspective = alignment.arguments[row][0]
    part = int(assessment.parts[claim])
    if part >= 0 and part != perspective:
        return f"not counted: the claim sits in the {html.escape(alignment.perspective_names[part])} part"
    if claim in assessment.lost_to:
        winner = assessment.lost_to[claim][0]
        return f"not counted: this argument sentence supports {claim_label(winner)} better"
    return "not counted: the argument sentence supports another claim better"


def coverage_matrix(example: Example, assessment: Assessment) -> go.Figure:
    """The heatmap with match marks, flag outlines and hover evidence (see the module doc)."""
    alignment, settings = assessment.alignment, assessment.settings
    n_arguments, n_claims = len(alignment.arguments), len(alignment.claims)
    rows = list(range(n_arguments))
    similarity = np.clip(alignment.similarity, 0.0, 1.0) if n_claims else np.zeros((n_arguments, 0))
    marks, hovers = [], []
    for row in rows:
        p, a = alignment.arguments[row]
        argument_text = example.perspectives[p].arguments[a]
        mark_row, hover_row = [], []
        for c, claim in enumerate(alignment.claims):
            raw = float(alignment.similarity[row, c])
            counted = float(assessment.credited[row, c]) >= settings.match
            mark_row.append(CHECK if counted else RING if raw >= settings.match and not assessment.framing[c] else "")
            unit = alignment.units[int(alignment.evidence[row, c])]
            evidence = argument_text[unit.start : unit.end]
            hover_row.append(
                f"<b>{html.escape(argument_label(example, p, a))}</b>: {_wrap(_one_line(argument_text, 220))}<br>"
                f"<b>{claim_label(c)}</b>: {_wrap(_one_line(claim.text, 220))}<br>"
                f"similarity <b>{raw:.2f}</b> (match at \u2265 {settings.match:.2f})<br>"
                f"evidence, sentence {unit.sentence + 1}: {_wrap(_one_line(evidence, 160))}<br>"
                f"{_cell_reason(assessment, row, c)}"
            )
        marks.append(mark_row)
        hovers.append(hover_row)

    found = assessment.flags()
    uncovered_rows = {f.argument for f in found if f.kind == COVERAGE_ERROR}
    unsupported_claims = {f.claims[0] for f in found if f.kind == UNSUPPORTED_CLAIM}
    y_labels = [
        ("\u26a0 " if row in uncovered_rows else "") + html.escape(argument_label(example, *alignment.arguments[row]))
        for row in rows
    ]
    x_labels = [
        ("F\u00b7" if assessment.framing[c] else "") + claim_label(c) + (" \u26a0" if c in unsupported_claims else "")
        for c in range(n_claims)
    ]
    figure = go.Figure(
        go.Heatmap(
            z=similarity,
            x=list(range(n_claims)),
            y=rows,
            text=marks,
            texttemplate="%{text}",
            textfont={"size": 15, "color": "#111"},
            customdata=hovers,
            hovertemplate="%{customdata}<extra></extra>",
            colorscale=SIMILARITY_SCALE,
            zmin=SIMILARITY_FLOOR,
            zmax=1.0,
            xgap=2,
            ygap=2,
            colorbar={"title": {"text": "cosine"}, "thickness": 12, "len": 0.8},
        )
    )
    _outline_flags(figure, assessment, found, n_arguments, n_claims)
    for boundary in _perspective_boundaries(alignment.arguments):
        figure.add_hline(y=boundary - 0.5, line={"color": "#374151", "width": 2})
    figure.update_xaxes(
        tickmode="array",
        tickvals=list(range(n_claims)),
        ticktext=x_labels,
        side="top",
        title_text="claims of the response",
    )
    figure.update_yaxes(
        tickmode="array", tickvals=rows, ticktext=y_labels, autorange="reversed", title_text="arguments"
    )
    figure.update_layout(
        height=max(290, 100 + 34 * n_arguments),
        # The axis title and claim labels sit on top; 30 px above them keep plotly's toolbar
        # (drawn over the figure's top right on hover) off the title.
        margin={"l": 10, "r": 10, "t": 90, "b": 10},
        plot_bgcolor="white",
        hoverlabel={"align": "left"},
    )
    return figure


def _perspective_boundaries(arguments: tuple[tuple[int, int], ...]) -> list[int]:
    return [row for row in range(1, len(arguments)) if arguments[row][0] != arguments[row - 1][0]]


def _outline_flags(figure: go.Figure, assessment: Assessment, found, n_arguments: int, n_claims: int) -> None:
    def box(x0: float, x1: float, y0: float, y1: float, kind: str, dash: str = "solid") -> None:
        figure.add_shape(
            type="rect",
            x0=x0,
            x1=x1,
            y0=y0,
            y1=y1,
            line={"color": FLAG_COLORS[kind], "width": 3, "dash": dash},
            fillcolor="rgba(0,0,0,0)",
        )

    for flag in found:
        if flag.kind == COVERAGE_ERROR and n_claims:
            box(-0.5, n_claims - 0.5, flag.argument - 0.5, flag.argument + 0.5, flag.kind)
        elif flag.kind == UNSUPPORTED_CLAIM and n_arguments:
            box(flag.claims[0] - 0.5, flag.claims[0] + 0.5, -0.5, n_arguments - 0.5, flag.kind, dash="dot")
        elif flag.kind in (REPETITION, PERSPECTIVE_CONFUSION):
            for c in flag.claims:
                box(c - 0.45, c + 0.45, flag.argument - 0.45, flag.argument + 0.45, flag.kind)


def flag_legend() -> list[tuple[str, str]]:
    """(color, meaning) pairs for the outlines, for a legend next to the figure."""
    return [
        (FLAG_COLORS[COVERAGE_ERROR], f"{FLAG_TITLES[COVERAGE_ERROR]}: row outlined"),
        (FLAG_COLORS[UNSUPPORTED_CLAIM], f"{FLAG_TITLES[UNSUPPORTED_CLAIM]}: column dotted"),
        (FLAG_COLORS[REPETITION], FLAG_TITLES[REPETITION]),
        (FLAG_COLORS[PERSPECTIVE_CONFUSION], FLAG_TITLES[PERSPECTIVE_CONFUSION]),
    ]
