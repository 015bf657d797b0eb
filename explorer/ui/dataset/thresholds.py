"""Thresholds on the dataset page: where a detector's slider starts (the verdict's calibrated
threshold, else the dataset's optimum), the slider with both marked, and what it gives
(rates, confusion matrix, score distribution).

A threshold belongs to the dataset (`dataset_key`: its name and content fingerprint), the
detector, the error type and the slice; the user's choice is kept per key for the session.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import streamlit as st

from explorer.data.example import Example
from explorer.evaluation import report, statistics, table
from explorer.render import figures
from explorer.ui import state


def _threshold_key(dataset_key: str, detector_name: str, error_type: str, slice_name: str) -> tuple[str, str, str, str]:
    return (dataset_key, detector_name, error_type, slice_name)


def threshold_for(
    dataset_key: str, examples: Sequence[Example], results, detector_name: str, error_type: str, slice_name: str
) -> float | None:
    """The detector's threshold on this dataset and view: the user's last choice, else the verdict's
    calibrated threshold, else Youden's optimum on the slice (None when there is neither)."""
    saved = st.session_state.setdefault(state.DATASET_THRESHOLDS, {})
    key = _threshold_key(dataset_key, detector_name, error_type, slice_name)
    if key not in saved:
        start = table.thresholds(examples, results, detector_name, error_type, slice_name).start
        if start is None:
            return None
        saved[key] = start
    return saved[key]


def confusion_html(counts: statistics.Confusion) -> str:
    """The 2x2 confusion matrix as a small table (no chart: nothing to clip, nothing to load)."""
    cells = (
        ("gold error", ("caught", counts.true_positives), ("missed", counts.false_negatives)),
        ("no error", ("false alarms", counts.false_positives), ("correctly passed", counts.true_negatives)),
    )
    shade = ("rgba(59,130,246,0.18)", "rgba(239,68,68,0.14)")
    rows = "".join(
        f'<tr><th style="text-align:left;padding:0.2em 0.5em;font-weight:normal">{name}</th>'
        + "".join(
            f'<td style="padding:0.2em 0.6em;text-align:center;background:{shade[(r + c) % 2]}">'
            f'{label}<br><b data-count="{html.escape(label)}">{count}</b></td>'
            for c, (label, count) in enumerate(pair)
        )
        + "</tr>"
        for r, (name, *pair) in enumerate(cells)
    )
    head = "".join(f'<th style="font-weight:normal">{name}</th>' for name in ("", "flagged", "not flagged"))
    head = f"<tr>{head}</tr>"
    style = "border-collapse:separate;border-spacing:2px;font-size:0.85em;width:100%;table-layout:fixed"
    return f'<table style="{style};overflow-wrap:anywhere">{head}{rows}</table>'


def marks_html(marks: table.Thresholds) -> str:
    """A ruler under the slider: the verdict's threshold and this set's optimum as ticks at their
    place on the 0 to 1 scale, each named with its value."""
    ticks = []
    for value, name, color, side in (
        (marks.calibrated, "verdict", "#111827", "top"),
        (marks.optimum, "this set's optimum", "#2563eb", "bottom"),
    ):
        if value is None:
            continue
        # Labels past the middle hang left of their tick, so the last one stays on screen.
        anchor = "right:0" if value > 0.5 else "left:0"
        ticks.append(
            f'<span data-mark="{html.escape(name)}" data-value="{value:.2f}" '
            f'style="position:absolute;left:{100 * value:.1f}%;{side}:0;height:50%;border-left:2px solid {color}">'
            f'<span style="position:absolute;{anchor};{side}:0;white-space:nowrap;font-size:0.75em;color:{color};'
            f'padding:0 4px;line-height:1.1">{html.escape(name)} {value:.2f}</span></span>'
        )
    # The slider's track starts and ends half a thumb (about 0.5rem) inside its box.
    return (
        '<div style="position:relative;height:2.2em;margin:-0.6rem 0.5rem 0.2rem;'
        f'border-top:1px solid rgba(128,128,128,0.35)">{"".join(ticks)}</div>'
    )


def show_thresholds(
    dataset_key: str,
    detector_name: str,
    error_type: str,
    slice_name: str,
    labels: list[bool],
    scores: list[float],
    value: float,
    marks: table.Thresholds,
) -> statistics.Confusion:
    """Slider (with the verdict's threshold and this set's optimum marked), rates, confusion
    matrix and score distribution of one detector."""
    key = _threshold_key(dataset_key, detector_name, error_type, slice_name)
    widget = f"{state.DATASET_THRESHOLD}.{dataset_key}.{detector_name}.{error_type}.{slice_name}"

    def save() -> None:
        st.session_state[state.DATASET_THRESHOLDS][key] = st.session_state[widget]

    def use(chosen: float) -> None:
        st.session_state[widget] = st.session_state[state.DATASET_THRESHOLDS][key] = chosen

    starts = (
        f"the verdict's threshold (P(error) = 0.5 on {marks.calibrated_on})"
        if marks.calibrated is not None
        else "this dataset's optimum: the point of its ROC curve farthest above chance (Youden's J)"
    )
    threshold = st.slider(
        f"{report.detector_title(detector_name)}: threshold",
        0.0,
        1.0,
        value=value,
        step=0.01,
        key=widget,
        on_change=save,
        help="An example counts as predicted error when its score is at or above the threshold. It starts at "
        f"{starts}, so the failures listed are the ones the verdict makes.",
    )
    st.html(marks_html(marks))
    counts = statistics.confusion(labels, scores, threshold)
    rates = [
        ("recall", counts.true_positive_rate),
        ("FPR", counts.false_positive_rate),
        ("precision", counts.precision),
    ]
    text, buttons = st.columns([1, 1], vertical_alignment="center")
    text.caption(" · ".join(f"{name} {'–' if v is None else f'{v:.2f}'}" for name, v in rates))
    # One button: to the set's optimum, or (once there) back to the verdict's threshold.
    for value, label, name in (
        (marks.optimum, "Use the optimum", "optimum"),
        (marks.calibrated, "Use the verdict's", "verdict"),
    ):
        if value is not None and value != threshold:
            buttons.button(
                f"{label} ({value:.2f})",
                key=f"{widget}.use.{name}",
                on_click=use,
                args=(value,),
                type="tertiary",
            )
            break
    st.html(confusion_html(counts))
    st.plotly_chart(
        figures.score_distribution_figure(
            labels, scores, threshold, color=figures.detector_color(detector_name), optimum=marks.optimum
        ),
        key=f"{state.DATASET_SPREAD}.{detector_name}",
        config={"displayModeBar": False},
    )
    return counts
