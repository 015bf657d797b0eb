"""The Evaluation tab and the filters: ROC curves, the AUC table, thresholds, the failures at a threshold."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from explorer.data.example import Example
from explorer.data.labels import ERROR_TITLES, ERROR_TYPES
from explorer.evaluation import auc, report, slices, statistics, table
from explorer.render import figures
from explorer.ui import state
from explorer.ui.dataset.scores import open_in_inspect
from explorer.ui.text import code, literal

PAGE_BOOTSTRAP = 500  # resamples on the page; `explorer eval` and the downloaded report use 1000


MAX_FAILURES_LISTED = 40


SLICE_TITLES = {s.name: s.title for s in slices.SLICES}


def filter_sidebar(frame: pd.DataFrame, methods: Sequence[str]) -> table.Filters:
    """Filter widgets in the sidebar; the split starts on `test` when there is one."""
    with st.sidebar:
        st.subheader("Filter examples")
        splits = table.choices(frame, "split")
        chosen_splits = (
            st.multiselect(
                "Split", splits, default=["test"] if "test" in splits else [], key=state.DATASET_FILTER_SPLIT
            )
            if splits
            else []
        )
        topics = st.multiselect("Topic", table.choices(frame, "topic"), key=state.DATASET_FILTER_TOPIC)
        kinds = st.multiselect("Kind", table.choices(frame, "kind"), key=state.DATASET_FILTER_KIND)
        golds = st.multiselect(
            "Gold label", [g for g in table.GOLD_CATEGORIES if g in set(frame["gold"])], key=state.DATASET_FILTER_GOLD
        )
        ambiguous = st.multiselect(
            "Ambiguous type", table.choices(frame, "ambiguous_type"), key=state.DATASET_FILTER_AMBIGUOUS
        )
        ranges = {}
        columns = [table.score_column(m, t) for m in methods for t in ERROR_TYPES]
        if columns:
            column = st.selectbox(
                "Score range of",
                columns,
                key=state.DATASET_FILTER_SCORE_COLUMN,
                format_func=lambda c: f"{report.method_title(c.rsplit('.', 1)[0])} · {c.rsplit('.', 1)[1]}",
            )
            ranges[column] = st.slider(
                "Score range", 0.0, 1.0, (0.0, 1.0), step=0.01, key=state.DATASET_FILTER_SCORE_RANGE
            )
        traps_only = table.TRUST_TRAP in frame.columns and st.toggle(
            "Trust traps only",
            key=state.DATASET_FILTER_TRUST_TRAPS,
            help="Responses that repeat the query's words but are poorly grounded in the arguments.",
        )
    return table.Filters(
        topics=tuple(topics),
        splits=tuple(chosen_splits),
        kinds=tuple(kinds),
        golds=tuple(golds),
        ambiguous_types=tuple(ambiguous),
        score_ranges=ranges,
        trust_traps_only=traps_only,
    )


def choose_view() -> tuple[str, str]:
    """Error type and slice for the ROC curves, thresholds and failures."""
    left, right = st.columns(2)
    error_type = left.radio(
        "Error type",
        ERROR_TYPES,
        format_func=ERROR_TITLES.get,
        horizontal=True,
        key=state.DATASET_ERROR_TYPE,
    )
    slice_name = right.selectbox(
        "Slice",
        [s.name for s in slices.SLICES],
        format_func=SLICE_TITLES.get,
        key=state.DATASET_SLICE,
        help="\n\n".join(s.describe(error_type) for s in slices.SLICES)
        + "\n\nExamples with only the other error type are in no slice of this one.",
    )
    return error_type, slice_name


def auc_table(cells: Sequence[auc.AucCell], methods: Sequence[str]) -> pd.DataFrame:
    """Slices x methods of one error type, each cell "AUC (interval)" in percent."""

    def text(cell: auc.AucCell) -> str:
        if cell.auc is None:
            return cell.note or ""
        shown = (
            f"{100 * cell.auc:.1f} ({100 * cell.ci[0]:.1f}–{100 * cell.ci[1]:.1f})"
            if cell.ci
            else f"{100 * cell.auc:.1f}"
        )
        if cell.best and len(methods) > 1:
            shown += " ★"
        elif cell.significantly_worse:
            shown += f" · p={cell.p_value:.2g}"
        return shown

    by_key = {(c.method, c.slice): c for c in cells}
    rows = {}
    for chosen in slices.SLICES:
        row = {report.method_title(m): text(by_key[(m, chosen.name)]) for m in methods}
        largest = max((by_key[(m, chosen.name)] for m in methods), key=lambda c: c.positives + c.negatives)
        row["errors / error-free"] = f"{largest.positives} / {largest.negatives}"
        rows[SLICE_TITLES[chosen.name]] = row
    return pd.DataFrame.from_dict(rows, orient="index")


def slice_cells(examples: Sequence[Example], results, methods: Sequence[str], error_type: str) -> list[auc.AucCell]:
    settings = auc.Settings(n_bootstrap=PAGE_BOOTSTRAP)
    cells = []
    for chosen in slices.SLICES:
        members = slices.slice_members(examples, error_type, chosen.name)
        labels, scores = auc.slice_scores(members, results, methods, error_type)
        cells += auc.compare_methods("example", error_type, chosen.name, labels, scores, settings)
    return cells


def threshold_for(method: str, error_type: str, slice_name: str, labels, scores) -> float:
    """The method's threshold for this view: the user's last choice, else Youden's optimum."""
    key = (method, error_type, slice_name)
    saved = st.session_state.setdefault(state.DATASET_THRESHOLDS, {})
    if key not in saved:
        saved[key] = int(statistics.youden_threshold(labels, scores) * 100) / 100
    return saved[key]


def show_thresholds(
    method: str, error_type: str, slice_name: str, labels: list[bool], scores: list[float]
) -> statistics.Confusion:
    """Slider, confusion matrix and score distribution of one method."""
    key = (method, error_type, slice_name)
    widget = f"dataset.threshold.{method}.{error_type}.{slice_name}"
    value = threshold_for(method, error_type, slice_name, labels, scores)

    def save() -> None:
        st.session_state[state.DATASET_THRESHOLDS][key] = st.session_state[widget]

    controls, matrix, spread = st.columns([1, 1.2, 1.6])
    with controls:
        st.markdown(f"**{report.method_title(method)}**")
        threshold = st.slider(
            "Threshold",
            0.0,
            1.0,
            value=value,
            step=0.01,
            key=widget,
            on_change=save,
            help="An example counts as predicted error when its score is at or above the threshold. "
            "It starts at the point of the ROC curve farthest above chance (Youden's J).",
        )
        counts = statistics.confusion(labels, scores, threshold)
        rates = [
            ("recall", counts.true_positive_rate),
            ("false positive rate", counts.false_positive_rate),
            ("precision", counts.precision),
        ]
        st.caption(" · ".join(f"{name} {'–' if v is None else f'{v:.2f}'}" for name, v in rates))
    with matrix:
        st.plotly_chart(
            figures.confusion_figure(counts),
            key=f"{state.DATASET_CONFUSION}.{method}",
            config={"displayModeBar": False},
        )
    with spread:
        st.plotly_chart(
            figures.score_distribution_figure(labels, scores, threshold, color=figures.method_color(method)),
            key=f"{state.DATASET_SPREAD}.{method}",
            config={"displayModeBar": False},
        )
    return counts


def show_failures(
    source: str,
    examples: Sequence[Example],
    results,
    methods: Sequence[str],
    error_type: str,
    slice_name: str,
) -> None:
    """False negatives and false positives of one method at its threshold, each opening Inspect."""
    scored_methods = [m for m in methods if any(m in results.get(e.id, {}) for e in examples)]
    if not scored_methods:
        return
    method = st.selectbox(
        "Failures of", scored_methods, format_func=report.method_title, key=state.DATASET_FAILURE_METHOD
    )
    threshold = st.session_state.get(state.DATASET_THRESHOLDS, {}).get((method, error_type, slice_name))
    if threshold is None:
        return
    outcome = table.outcomes(examples, results, method, error_type, slice_name, threshold)
    by_id = {e.id: e for e in examples}
    error_name = ERROR_TITLES[error_type].lower()
    for kind, heading, descending in (
        ("false negative", f"Missed: gold {error_name}, score below {threshold:.2f}", False),
        ("false positive", f"False alarms: no {error_name}, score at or above {threshold:.2f}", True),
    ):
        ids = sorted(
            outcome.index[outcome == kind],
            key=lambda i: auc.example_score(results[i][method], error_type),
            reverse=descending,
        )
        st.markdown(f"**{heading}** ({len(ids)})")
        if not ids:
            st.caption("None at this threshold.")
        for example_id in ids[:MAX_FAILURES_LISTED]:
            example = by_id[example_id]
            score = auc.example_score(results[example_id][method], error_type)
            text, button = st.columns([6, 1])
            topic = f"{literal(example.topic)} · " if example.topic else ""
            text.markdown(
                f"{code(example_id)} · {topic}gold: {example.labels.summary()} · score **{score:.3f}**",
                help=literal(example.response[:400]),
            )
            if button.button(
                "Inspect", key=f"{state.DATASET_OPEN}.{kind}.{example_id}", help="Open with gold labels overlaid"
            ):
                open_in_inspect(example, source)
        if len(ids) > MAX_FAILURES_LISTED:
            st.caption(f"{len(ids) - MAX_FAILURES_LISTED} more; see the Examples tab (failures first).")


def show_evaluation(
    source: str, examples: Sequence[Example], results, methods: Sequence[str], error_type: str, slice_name: str
) -> None:
    """AUC table of every slice, ROC curves and thresholds of the chosen slice, then its failures."""
    cells = slice_cells(examples, results, methods, error_type)
    current = [c for c in cells if c.slice == slice_name]
    plot, aucs = st.columns([1, 1.3])
    with aucs:
        st.markdown(f"**ROC AUC × 100, {ERROR_TITLES[error_type].lower()}** (95% bootstrap interval)")
        st.dataframe(auc_table(cells, methods), key=state.DATASET_AUC_TABLE)
        st.caption(
            "★ best in the slice; p = DeLong's test against the best, Bonferroni-corrected, shown when "
            "significant (< 0.05). Examples with only the other error type are in no slice."
        )
    usable = [c.method for c in current if c.auc is not None]
    if not usable:
        note = current[0].note if current else "no examples"
        plot.info(f"{SLICE_TITLES[slice_name]}: {note}; no ROC curve to draw. Try another slice or filters.")
        return
    members = slices.slice_members(examples, error_type, slice_name)
    labels, scores = auc.slice_scores(members, results, methods, error_type)
    curves, points = {}, {}
    st.markdown("**Thresholds**")
    for method in usable:
        gold = [labels[u] for u in scores[method]]
        values = list(scores[method].values())
        counts = show_thresholds(method, error_type, slice_name, gold, values)
        curves[method] = statistics.roc(gold, values)
        points[method] = (counts.false_positive_rate or 0.0, counts.true_positive_rate or 0.0)
    with plot:
        st.plotly_chart(
            figures.roc_figure(
                curves,
                titles={m: report.method_title(m) for m in curves},
                operating_points=points,
                title=f"{SLICE_TITLES[slice_name]} · {ERROR_TITLES[error_type]}",
            ),
            key=state.DATASET_ROC,
        )
    st.subheader("Failures at the threshold", anchor=False)
    show_failures(source, examples, results, usable, error_type, slice_name)
