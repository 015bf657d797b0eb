"""The Evaluation tab and the view controls: filters, ROC curves, the AUC table, the failures
at a threshold (the thresholds themselves: `thresholds`).

The view (error type, slice, whose failures) and the filters are widgets bound to the URL's
query parameters (`bind="query-params"`, their keys in `ui.state` are the parameter names), so
they survive a trip to Inspect and back, a reload, and a shared link. A threshold starts at the
detector's calibrated threshold, the one its verdict on Inspect uses, so the failures listed are
what the verdict gets wrong; the dataset's own optimum (Youden's J) is marked beside it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence

import pandas as pd
import streamlit as st

from explorer.data.example import Example
from explorer.data.labels import ERROR_TITLES, ERROR_TYPES
from explorer.evaluation import auc, report, slices, statistics, table
from explorer.evaluation.calibration import shipped
from explorer.render import failures, figures
from explorer.ui import links, state
from explorer.ui.dataset.scores import open_in_inspect
from explorer.ui.dataset.thresholds import show_thresholds, threshold_for

PAGE_BOOTSTRAP = 500  # resamples on the page; `explorer eval` and the downloaded report use 1000
MAX_FAILURES_LISTED = 12  # per kind; the Examples tab lists every one, failures first
SLICE_TITLES = {s.name: s.title for s in slices.SLICES}
SYNTHETIC_SAMPLE = "synthetic.jsonl"
SAMPLE_NOTE = (
    "The bundled sample is templated text written for this app: each topic's answers are built from one "
    "set of hand-written sentences, and its errors are sentences added to or left out of them."
)
URL = "query-params"


def filter_sidebar(frame: pd.DataFrame, detector_names: Sequence[str]) -> table.Filters:
    """Filter widgets in the sidebar, kept in the URL; the split starts on `test` when there is one."""
    with st.sidebar:
        st.subheader("Filter examples")
        splits = table.choices(frame, "split")
        chosen_splits = (
            st.multiselect(
                "Split", splits, default=["test"] if "test" in splits else [], key=state.DATASET_FILTER_SPLIT, bind=URL
            )
            if splits
            else []
        )
        topics = st.multiselect("Topic", table.choices(frame, "topic"), key=state.DATASET_FILTER_TOPIC, bind=URL)
        kinds = st.multiselect("Kind", table.choices(frame, "kind"), key=state.DATASET_FILTER_KIND, bind=URL)
        golds = st.multiselect(
            "Gold label",
            [g for g in table.GOLD_CATEGORIES if g in set(frame["gold"])],
            key=state.DATASET_FILTER_GOLD,
            bind=URL,
        )
        ambiguous = st.multiselect(
            "Ambiguous type", table.choices(frame, "ambiguous_type"), key=state.DATASET_FILTER_AMBIGUOUS, bind=URL
        )
        ranges = {}
        columns = [table.score_column(m, t) for m in detector_names for t in ERROR_TYPES]
        if columns:
            column = st.selectbox(
                "Score range of",
                columns,
                key=state.DATASET_FILTER_SCORE_COLUMN,
                format_func=lambda c: f"{report.detector_title(c.rsplit('.', 1)[0])} · {c.rsplit('.', 1)[1]}",
                bind=URL,
            )
            ranges[column] = st.slider(
                "Score range", 0.0, 1.0, (0.0, 1.0), step=0.01, key=state.DATASET_FILTER_SCORE_RANGE, bind=URL
            )
        traps_only = table.TRUST_TRAP in frame.columns and st.toggle(
            "Trust traps only",
            key=state.DATASET_FILTER_TRUST_TRAPS,
            bind=URL,
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


def restore_view(source: str) -> None:
    """Bring back the view last shown on `source` when the page is entered from another at an
    address that names none of it: the sidebar's link, "Back to the failures" on Inspect. A link
    that names any part of a view is followed as it is, and on the page itself the widgets keep
    their own values. Call before the view's widgets are drawn."""
    params = st.query_params
    saved = st.session_state.get(state.DATASET_VIEW, {}).get(source)
    entered = st.session_state.get(state.PAGE_BEFORE) != state.DATASET_PAGE
    if not saved or not entered or any(key in params for key in state.DATASET_VIEW_KEYS):
        return
    for key, value in saved.items():
        st.session_state[key] = value
    if links.EXAMPLE_PARAM in params:
        # Browser Back from a failure opened in Inspect lands on the entry Streamlit records for
        # the page switch: this page with Inspect's query and none of the view. In a run started
        # by Back the address wins over the values set above, so they take effect in a new run.
        del params[links.EXAMPLE_PARAM]
        st.rerun()


def remember_view(source: str) -> None:
    """Keep the view now shown on `source` (`restore_view`)."""
    view = {key: st.session_state[key] for key in state.DATASET_VIEW_KEYS if key in st.session_state}
    st.session_state.setdefault(state.DATASET_VIEW, {})[source] = view


def choose_view(
    detector_names: Sequence[str], examples: Sequence[Example], results, scoring: Sequence[str] = ()
) -> tuple[str, str, str]:
    """Error type, slice, and the detector whose failures and outcomes are listed (all kept in the URL).

    Whose failures: the user's choice where the URL holds one, else the detector ranking best on
    the slice (the AUC table's ★) among those scored in full (`scoring`: still in the background).
    """
    kind, chosen_slice, whose = st.columns([1.2, 1, 1])
    error_type = kind.radio(
        "Error type",
        ERROR_TYPES,
        format_func=ERROR_TITLES.get,
        horizontal=True,
        key=state.DATASET_ERROR_TYPE,
        bind=URL,
    )
    slice_name = chosen_slice.selectbox(
        "Slice",
        [s.name for s in slices.SLICES],
        format_func=SLICE_TITLES.get,
        key=state.DATASET_SLICE,
        bind=URL,
        help="\n\n".join(s.describe(error_type) for s in slices.SLICES)
        + "\n\nExamples with only the other error type are in no slice of this one.",
    )
    scored = [m for m in detector_names if m not in scoring] or list(detector_names)
    best = table.best_detector(examples, results, scored, error_type, slice_name) or detector_names[0]
    # Until the user picks one (here, or in the link they followed), the choice follows the
    # ranking as scores come in. A bound widget holding its default (`index`) is not in the URL.
    chosen = st.session_state.get(state.DATASET_FAILURE_DETECTOR)
    picked = state.DATASET_FAILURE_DETECTOR in st.query_params or st.session_state.get(state.DATASET_FAILURE_CHOSEN)
    if not picked and chosen != best:
        st.session_state[state.DATASET_FAILURE_DETECTOR] = best
    detector_name = whose.selectbox(
        "Failures of",
        list(detector_names),
        index=list(detector_names).index(best),
        format_func=report.detector_title,
        key=state.DATASET_FAILURE_DETECTOR,
        bind=URL,
        on_change=lambda: st.session_state.__setitem__(state.DATASET_FAILURE_CHOSEN, True),
        help="Starts on the detector that ranks best on this slice (★ in the table below).",
    )
    return error_type, slice_name, detector_name


def auc_table(
    cells: Sequence[auc.AucCell], detector_names: Sequence[str], scoring: Mapping[str, tuple[int, int]] | None = None
) -> pd.DataFrame:
    """Slices x detectors of one error type, each cell "AUC (interval)" in percent; a detector still
    scoring in the background says so ("scoring, n of N") instead of a verdict on partial data."""
    scoring = scoring or {}

    def text(cell: auc.AucCell) -> str:
        progress = scoring.get(cell.detector)
        if cell.auc is None:
            return f"scoring, {progress[0]} of {progress[1]}" if progress else cell.note or ""
        shown = f"{100 * cell.auc:.1f}"
        if cell.ci:
            shown += f" ({100 * cell.ci[0]:.1f}–{100 * cell.ci[1]:.1f})"
        if cell.best and len(detector_names) > 1:
            shown += " ★"
        elif cell.significantly_worse:
            shown += f" · p={cell.p_value:.2g}"
        if progress:
            shown += f" · so far ({progress[0]} of {progress[1]} scored)"
        return shown

    by_key = {(c.detector, c.slice): c for c in cells}
    rows = {}
    for chosen in slices.SLICES:
        row = {report.detector_title(m): text(by_key[(m, chosen.name)]) for m in detector_names}
        largest = max((by_key[(m, chosen.name)] for m in detector_names), key=lambda c: c.positives + c.negatives)
        row["errors / error-free"] = f"{largest.positives} / {largest.negatives}"
        rows[SLICE_TITLES[chosen.name]] = row
    return pd.DataFrame.from_dict(rows, orient="index")


def slice_cells(
    examples: Sequence[Example],
    results,
    detector_names: Sequence[str],
    error_type: str,
    partial: Collection[str] = (),
) -> list[auc.AucCell]:
    """Every slice's AUC cells. Detectors still scoring in the background (`partial`) are neither
    the best of a slice nor tested against it: a best (★) read off 22 of 226 examples is no verdict."""
    settings = auc.Settings(n_bootstrap=PAGE_BOOTSTRAP)
    complete = [m for m in detector_names if m not in partial]
    cells = []
    for chosen in slices.SLICES:
        members = slices.slice_members(examples, error_type, chosen.name)
        labels, scores = auc.slice_scores(members, results, detector_names, error_type)
        compared = {m: scores[m] for m in complete}
        cells += auc.compare_detectors("example", error_type, chosen.name, labels, compared, settings)
        for name in detector_names:
            if name in partial:
                alone = auc.compare_detectors(
                    "example", error_type, chosen.name, labels, {name: scores[name]}, settings
                )
                cells += [dataclasses.replace(cell, best=False) for cell in alone]
    return cells


def show_failures(
    source: str,
    dataset_key: str,
    examples: Sequence[Example],
    results,
    detector_names: Sequence[str],
    view: tuple[str, str, str],
) -> None:
    """False negatives and false positives of one detector at its threshold, each with the text it
    is about (the missed span or argument, or what was flagged), every detector's score, and a
    button opening it in Inspect."""
    error_type, slice_name, detector_name = view
    threshold = threshold_for(dataset_key, examples, results, detector_name, error_type, slice_name)
    if threshold is None:
        st.caption(f"{report.detector_title(detector_name)} has no ROC curve on this slice: no failures to list.")
        return
    outcome = table.outcomes(examples, results, detector_name, error_type, slice_name, threshold)
    by_id = {e.id: e for e in examples}
    titles = {m: report.detector_title(m) for m in detector_names}
    error_name = ERROR_TITLES[error_type].lower()
    missed, alarms = st.columns(2)
    for where, kind, heading, descending in (
        (missed, failures.MISSED, f"Missed: gold {error_name}, score below {threshold:.2f}", False),
        (alarms, "false positive", f"False alarms: no {error_name}, score at or above {threshold:.2f}", True),
    ):
        ids = sorted(
            outcome.index[outcome == kind],
            key=lambda i: results[i][detector_name].score(error_type),
            reverse=descending,
        )
        with where:
            st.markdown(f"**{heading}** ({len(ids)})")
            if not ids:
                st.caption("None at this threshold.")
            for example_id in ids[:MAX_FAILURES_LISTED]:
                example = by_id[example_id]
                text, button = st.columns([3, 1], vertical_alignment="top")
                text.html(
                    failures.failure_html(
                        example,
                        {m: r for m, r in results[example_id].items() if m in detector_names},
                        detector_name=detector_name,
                        error_type=error_type,
                        kind=kind,
                        threshold=threshold,
                        titles=titles,
                    )
                )
                if button.button(
                    "Inspect", key=f"{state.DATASET_OPEN}.{kind}.{example_id}", help="Open with gold labels overlaid"
                ):
                    open_in_inspect(example, source)
            if len(ids) > MAX_FAILURES_LISTED:
                st.caption(f"{len(ids) - MAX_FAILURES_LISTED} more in the Examples tab (failures first).")


def _no_curve_hint(source: str, slice_name: str, note: str) -> str:
    hint = f"{SLICE_TITLES[slice_name]}: {note}; no ROC curve to draw. Try another slice or filters."
    synthetic = slices.SLICES_BY_NAME[slice_name].positive_kind.startswith("synthetic")
    if synthetic and source != SYNTHETIC_SAMPLE and SYNTHETIC_SAMPLE in links.sample_datasets():
        hint += f" The sample file {SYNTHETIC_SAMPLE} holds the paper's synthetic errors: pick it as the dataset."
    return hint


def show_evaluation(
    source: str,
    dataset_key: str,
    examples: Sequence[Example],
    results,
    detector_names: Sequence[str],
    view: tuple[str, str, str],
    scoring: Mapping[str, tuple[int, int]],
) -> None:
    """AUC table of every slice; ROC curves and thresholds of the chosen slice; its failures."""
    error_type, slice_name, failure_detector = view
    partial = {name for name, (done, total) in scoring.items() if done < total}
    cells = slice_cells(examples, results, detector_names, error_type, partial)
    st.markdown(f"**ROC AUC × 100, {ERROR_TITLES[error_type].lower()}** (95% bootstrap interval)")
    st.table(auc_table(cells, detector_names, scoring))  # an HTML table: it wraps at 1280 px instead of clipping
    st.caption(
        "★ best in the slice among the detectors scored in full; p = DeLong's test against the best, "
        "Bonferroni-corrected, shown when significant (< 0.05). Examples with only the other error type are in "
        "no slice."
    )
    if source in links.sample_datasets():
        chosen_on = "; ".join(shipped().data_of_all(detector_names)) or "other data"
        st.caption(
            f"{SAMPLE_NOTE} Every detector's settings, the verdict's detector and every threshold were chosen on "
            f"{chosen_on}: a ranking here says how the detectors read this templated text, not how they rank on "
            "real answers."
        )
    current = [c for c in cells if c.slice == slice_name]
    usable = [c.detector for c in current if c.auc is not None]
    if not usable:
        note = current[0].note if current else "no examples"
        st.info(_no_curve_hint(source, slice_name, note))
        return
    members = slices.slice_members(examples, error_type, slice_name)
    labels, scores = auc.slice_scores(members, results, detector_names, error_type)
    curves, points = {}, {}
    plot, thresholds = st.columns([1, 1], gap="medium")
    with thresholds:
        for detector_name in usable:
            gold = [labels[u] for u in scores[detector_name]]
            values = list(scores[detector_name].values())
            value = threshold_for(dataset_key, examples, results, detector_name, error_type, slice_name)
            marks = table.thresholds(examples, results, detector_name, error_type, slice_name)
            counts = show_thresholds(dataset_key, detector_name, error_type, slice_name, gold, values, value, marks)
            curves[detector_name] = statistics.roc(gold, values)
            points[detector_name] = (counts.false_positive_rate or 0.0, counts.true_positive_rate or 0.0)
    with plot:
        st.plotly_chart(
            figures.roc_figure(
                curves,
                titles={m: report.detector_title(m) for m in curves},
                operating_points=points,
                title=f"{SLICE_TITLES[slice_name]} · {ERROR_TITLES[error_type]}",
            ),
            key=state.DATASET_ROC,
        )
    st.subheader(f"Failures of {report.detector_title(failure_detector)} at its threshold", anchor=False)
    if failure_detector in usable:
        show_failures(source, dataset_key, examples, results, detector_names, view)
    else:
        st.caption(f"{report.detector_title(failure_detector)} has no ROC curve on this slice: no failures to list.")
