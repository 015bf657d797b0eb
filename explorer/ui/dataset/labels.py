"""The Label tab: the dataset's answers one after another, those the verdict is least sure of
first, each in the labelling view (`explorer.ui.labelling`); and the calibration refitted on the
labels (`explorer.evaluation.refit`), which the whole app then uses and names.

The queue is ordered once for what it was ordered from (the dataset, how many answers the
verdict has scored, the calibration in force), so labelling an answer does not reshuffle it:
unlabelled answers first, by how close the verdict's P(error) is to 0.5 (the closer of its two
error types), answers the verdict has not scored yet after them, labelled answers last.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import pandas as pd
import streamlit as st

from explorer import detectors
from explorer.data.example import Example
from explorer.data.labels import ERROR_TYPES
from explorer.detectors import DetectorResult
from explorer.evaluation import calibration, refit, verdict
from explorer.ui import labelling, links, state
from explorer.ui.text import literal

CALIBRATION_BOOTSTRAP = 200  # resamples for the intervals on the page; `explorer calibrate` uses 1000
Results = Mapping[str, Mapping[str, DetectorResult]]


def doubt(example: Example, results: Results) -> float | None:
    """How unsure the verdict is of `example`: the least distance of its P(error) from 0.5 over
    the error types (0: a coin toss); None when it has no calibrated verdict."""
    judge = results.get(example.id, {}).get(detectors.VERDICT_DETECTOR)
    if judge is None:
        return None
    fits = [(t, calibration.active().get(judge, t)) for t in ERROR_TYPES]
    distances = [abs(fit.probability(judge.score(t)) - 0.5) for t, fit in fits if fit is not None and fit.informative]
    return min(distances) if distances else None


def queue(examples: Sequence[Example], results: Results) -> list[str]:
    """Example ids, least sure first (see the module's docstring)."""

    def rank(example: Example) -> tuple[int, float]:
        if labelling.is_labelled(example):
            return (2, 0.0)
        distance = doubt(example, results)
        return (1, 0.0) if distance is None else (0, distance)

    return [e.id for e in sorted(examples, key=rank)]


def _queue(dataset_key: str, examples: Sequence[Example], results: Results) -> list[str]:
    scored = sum(detectors.VERDICT_DETECTOR in results.get(e.id, {}) for e in examples)
    own = labelling.own_calibration()
    ordered_for = (dataset_key, tuple(e.id for e in examples), scored, own.name if own else "")
    kept = st.session_state.get(state.LABEL_QUEUE)
    if kept is None or kept[0] != ordered_for:
        kept = (ordered_for, queue(examples, results))
        st.session_state[state.LABEL_QUEUE] = kept
    return kept[1]


def show_labelling(dataset_name: str, dataset_key: str, examples: Sequence[Example], results: Results) -> None:
    """The tab: the labels file, the answer the queue is at with its labelling view, then
    calibrating. `examples`: those the filters keep, with the user's labels."""
    labelling.labels_file_controls("dataset.labels")
    if not examples:
        st.info("No answer matches the filters.")
        return
    order = _queue(dataset_key, examples, results)
    by_id = {e.id: e for e in examples}
    at = st.session_state.setdefault(state.LABEL_AT, {})
    if at.get(dataset_key) not in by_id:
        at[dataset_key] = order[0]
    position = order.index(at[dataset_key])

    def navigate(step: int) -> None:
        at[dataset_key] = order[min(max(order.index(at[dataset_key]) + step, 0), len(order) - 1)]

    example = by_id[at[dataset_key]]
    done = sum(labelling.is_labelled(e) for e in examples)
    back, where, forward = st.columns([1, 6, 1], vertical_alignment="center")
    back.button("Previous", key="dataset.labels.previous", on_click=navigate, args=(-1,), disabled=position == 0)
    forward.button("Next", key="dataset.labels.next", on_click=navigate, args=(1,), disabled=position == len(order) - 1)
    judge = results.get(example.id, {}).get(detectors.VERDICT_DETECTOR)
    found = verdict.verdicts(example, judge) if judge is not None else None
    sure = "; ".join(f"P({t}) {v.probability:.2f}" for t, v in (found or {}).items() if v.probability is not None)
    where.markdown(
        f"Answer **{position + 1}** of {len(order)} in the queue, least sure first · **{done}** labelled · "
        f"`{literal(example.id)}`" + (f" · verdict {sure}" if sure else " · no verdict yet")
    )
    st.markdown(f"**{literal(example.query)}**")
    labelling.label_view(example, found, key=f"dataset.labels.{dataset_key}", navigate=navigate)
    st.divider()
    calibrate_section(dataset_name, examples, results)


def calibrate_section(dataset_name: str, examples: Sequence[Example], results: Results) -> None:
    """Refit the detectors' calibrations on the labelled answers of this dataset, or load a
    calibration file; say what is in force."""
    labelled = [e for e in examples if labelling.is_labelled(e)]  # the page shows them with the user's labels
    by_detector = {
        name: {e.id: results[e.id][name] for e in labelled if name in results.get(e.id, {})}
        for name in dict.fromkeys(name for e in labelled for name in results.get(e.id, {}))
    }
    st.subheader("Calibrate on your labels", anchor=False)
    st.caption(
        f"Refits each detector's threshold and likely / unclear / unlikely bands on your labelled answers "
        f"(Platt scaling, as the shipped calibration), with {CALIBRATION_BOOTSTRAP}-resample bootstrap intervals; "
        f"needs {refit.MIN_PER_CLASS} labelled answers with and without each error. Verdicts on every page then use it."
    )
    left, right = st.columns([1, 1], vertical_alignment="bottom")
    left.button(
        f"Calibrate on your {len(labelled)} labels",
        key="dataset.labels.calibrate",
        on_click=_calibrate,
        args=(labelled, by_detector, dataset_name.removeprefix(links.UPLOAD_PREFIX)),
        disabled=not labelled,
        type="primary",
    )
    right.file_uploader(
        "Or load a calibration file",
        type=["json"],
        key="dataset.labels.calibration_file",
        on_change=_load_calibration,
        help="A file `explorer calibrate` wrote.",
    )
    if problem := st.session_state.get(state.OWN_CALIBRATION_PROBLEM):
        st.error(literal(problem))
    own = labelling.own_calibration()
    if own is None:
        st.caption("In force: the shipped calibration.")
        return
    st.success(f"In force: calibrated on {literal(own.name)}.")
    st.dataframe(calibration_frame(own), hide_index=True)
    for name, by_type in own.refused.items():
        for error_type, why in by_type.items():
            st.caption(f"{literal(name)} {error_type}: not refitted ({literal(why)}); the shipped one stays.")
    st.download_button(
        "Download the calibration",
        data=calibration.dumps(own.to_dict()),
        file_name="my-calibration.json",
        mime="application/json",
        key="dataset.labels.calibration_download",
        on_click="ignore",
        help="Use it with `explorer rates --calibration` or load it here in another session.",
    )


def _calibrate(labelled: Sequence[Example], by_detector: Mapping, source: str) -> None:
    st.session_state.pop(state.OWN_CALIBRATION_PROBLEM, None)
    try:
        fitted = refit.fit_labels(labelled, by_detector, source=source, n_bootstrap=CALIBRATION_BOOTSTRAP)
    except refit.TooFewLabels as error:
        st.session_state[state.OWN_CALIBRATION_PROBLEM] = f"Not calibrated: {error}."
        return
    st.session_state[state.OWN_CALIBRATION] = fitted


def _load_calibration() -> None:
    file = st.session_state.get("dataset.labels.calibration_file")
    st.session_state.pop(state.OWN_CALIBRATION_PROBLEM, None)
    if file is None:
        return
    try:
        st.session_state[state.OWN_CALIBRATION] = refit.parse(file.getvalue().decode("utf-8", "replace"), file.name)
    except refit.CalibrationFileError as error:
        st.session_state[state.OWN_CALIBRATION_PROBLEM] = str(error)


def calibration_frame(own: refit.Refit) -> pd.DataFrame:
    """One row per refitted detector and error type: labels, ROC AUC and cut points with intervals."""

    def cell(value: float, interval) -> str:
        return f"{value:.3f}" + (f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "")

    rows = []
    for name, (_, by_type) in own.calibrations.detectors.items():
        for error_type, fit in by_type.items():
            spread = own.spreads.get(name, {}).get(error_type)
            intervals = spread.intervals if spread is not None else {}
            row = {
                "detector": detectors.spec(name).title if name in detectors.names() else name,
                "error type": error_type,
                "with / without": f"{fit.positives} / {fit.negatives}",
                "ROC AUC": cell(fit.auc, intervals.get("auc")),
            }
            for cut in refit.CUTS:
                row[cut.replace("_", " ")] = cell(getattr(fit, cut), intervals.get(cut)) if fit.informative else "–"
            rows.append(row)
    return pd.DataFrame(rows)


def calibration_digest() -> str:
    """What identifies the calibration in force (a cache key of results read through it)."""
    own = labelling.own_calibration()
    return json.dumps(own.to_dict(), sort_keys=True) if own else ""
