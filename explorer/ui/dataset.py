"""Streamlit glue of the dataset page: choose a dataset, get its scores, filter, evaluate, export.

Model-free detectors score the whole dataset at once (cached per dataset). Model-based ones
serve what the result cache and the shipped seed bundles hold, and score the rest in one
background job per detector and dataset, so the page is usable at once and fills in as the
job goes; a fragment polls the jobs and reruns the page when they finish.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from explorer import detectors
from explorer.data.example import Example
from explorer.data.jsonl import LoadResult
from explorer.data.labels import ERROR_TITLES, ERROR_TYPES
from explorer.detectors import DetectorResult
from explorer.evaluation import auc, report, slices, statistics, table, trust
from explorer.render import export, figures
from explorer.scoring import scores_file
from explorer.scoring.jobs import Job
from explorer.scoring.runner import cached_result, score_example
from explorer.ui import links, state
from explorer.ui.text import code, literal

SOURCE = "dataset.source"
SOURCE_WIDGET = "dataset.source_widget"
UPLOADER = "dataset.uploader"
THRESHOLDS = "dataset.thresholds"
ERROR_TYPE = "dataset.error_type"
SLICE = "dataset.slice"
FAILURE_METHOD = "dataset.failure_method"
STARTED_JOBS = "dataset.started_jobs"
PAUSED_JOBS = "dataset.paused_jobs"
TABLE = "dataset.table"
TABLE_ORDER = "dataset.table_order"
CHOSEN_EXAMPLE = "dataset.example"
LINK_SEEN = "dataset.link_seen"
GIVEN_SCORES = "dataset.given_scores"
SCORES_PROBLEM = "dataset.scores_problem"
PAGE_BOOTSTRAP = 500  # resamples on the page; `explorer eval` and the downloaded report use 1000
MAX_FAILURES_LISTED = 40

SLICE_TITLES = {s.name: s.title for s in slices.SLICES}


def title(method: str) -> str:
    return report.method_title(method)


def fingerprint(examples: Sequence[Example]) -> str:
    """Identifies a dataset's content: ids and what detectors read."""
    digest = hashlib.sha256()
    for example in examples:
        digest.update(f"{example.id}\t{example.content_hash()}\n".encode())
    return digest.hexdigest()[:20]


# --- choosing a dataset ---------------------------------------------------------------------


def choose_dataset() -> tuple[str, LoadResult] | None:
    """A picker over the sample files and this session's uploads, plus an uploader."""
    session = st.session_state
    options = links.sample_datasets() + list(session.get(links.UPLOADS, {}))
    linked = st.query_params.get("dataset")
    if linked and linked in options and session.get(LINK_SEEN) != linked:
        session[LINK_SEEN] = linked
        session[SOURCE] = linked
    if session.get(SOURCE) not in options:
        session[SOURCE] = options[0] if options else None
    if session.get(SOURCE_WIDGET) != session[SOURCE]:
        session[SOURCE_WIDGET] = session[SOURCE]  # the widget's own value is dropped on other pages

    def upload() -> None:
        file = session[UPLOADER]
        if file is not None:
            session[SOURCE] = session[SOURCE_WIDGET] = links.add_upload(file.name, file.getvalue())

    pick, add = st.columns([2, 1])
    with pick:
        if options:
            st.selectbox(
                "Dataset",
                options,
                key=SOURCE_WIDGET,
                format_func=lambda name: (
                    name.removeprefix(links.UPLOAD_PREFIX)
                    + (" (uploaded)" if name.startswith(links.UPLOAD_PREFIX) else "")
                ),
                on_change=lambda: session.__setitem__(SOURCE, session[SOURCE_WIDGET]),
            )
    with add:
        st.file_uploader(
            "Upload JSON Lines",
            type=["jsonl", "json", "txt"],
            key=UPLOADER,
            on_change=upload,
            help="One example per line in the explorer's format (see the README), with labels to evaluate.",
        )
    name = session.get(SOURCE)
    loaded = links.load_dataset(name) if name else None
    if loaded is None:
        st.info("Choose a sample dataset or upload a JSON Lines file of examples.")
        return None
    st.query_params["dataset"] = name
    # The page's own link is no link to follow: on the next run it would undo an upload.
    session[LINK_SEEN] = name
    if loaded.errors:
        with st.expander(f"⚠️ {len(loaded.errors)} problem(s) in the file; the other lines were loaded"):
            st.code("\n".join(str(e) for e in loaded.errors[:200]), language=None)
    if not loaded.examples:
        st.error("The file holds no valid example.")
        return None
    return name, loaded


# --- scores -------------------------------------------------------------------------------


@dataclass
class DatasetScores:
    """Results by example id and method, and for each method what is still missing and why."""

    results: dict[str, dict[str, DetectorResult]]
    jobs: dict[str, Job] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    failures: dict[str, dict[str, str]] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)

    def scored(self, method: str) -> int:
        return sum(1 for by_method in self.results.values() if method in by_method)


@st.cache_data(show_spinner="Scoring the dataset…", max_entries=16)
def _model_free_scores(
    method: str, dataset_key: str, _examples: Sequence[Example]
) -> tuple[dict[str, DetectorResult], dict[str, str]]:
    detector = state.get_detector(method)
    results, failures = {}, {}
    for example in _examples:
        _record(score_example(example, [detector]), method, results, failures)
    return results, failures


def _record(scored, method: str, results: dict, failures: dict) -> None:
    if method in scored.results:
        results[scored.example.id] = scored.results[method]
    if method in scored.errors:
        failures[scored.example.id] = scored.errors[method]


def _background_work(detector: detectors.Detector, examples: Sequence[Example], stop: threading.Event):
    cache = state.get_result_cache()

    def work(progress):
        results, failures = {}, {}
        for done, example in enumerate(examples):
            if stop.is_set():
                break
            _record(score_example(example, [detector], cache), detector.name, results, failures)
            progress(done + 1, len(examples))
        return results, failures

    return work


# Stop signals of dataset jobs by job key. Module-level, like the job runner, because a job
# outlives the session rerun that started it.
_STOPS: dict[str, threading.Event] = {}


def _job_key(method: str, model: str, dataset_key: str) -> str:
    return f"dataset:{method}:{model}:{dataset_key}"


def _pause_jobs(keep_dataset: str | None = None) -> None:
    """Stop this session's dataset jobs (but those on `keep_dataset`): the one job worker
    serves what is in view, e.g. the example just opened in Inspect.

    They resume by themselves when their dataset is viewed again (from the result cache).
    """
    for key in st.session_state.get(STARTED_JOBS, set()):
        if keep_dataset is None or not key.endswith(f":{keep_dataset}"):
            _STOPS[key].set()


def open_in_inspect(example: Example, source: str) -> None:
    _pause_jobs()
    links.open_in_inspect(example, source)


def given_scores(source: str) -> tuple[dict, dict]:
    """Scores the user uploaded for this dataset (`explorer score` output): results, failures."""
    return st.session_state.get(GIVEN_SCORES, {}).get(source, ({}, {}))


def scores_uploader(source: str) -> None:
    """Optional precomputed scores, e.g. from a machine with a GPU; they win over computing."""
    key = f"dataset.scores_uploader.{source}"

    def read() -> None:
        file = st.session_state[key]
        given = st.session_state.setdefault(GIVEN_SCORES, {})
        st.session_state.pop(SCORES_PROBLEM, None)
        if file is None:
            given.pop(source, None)
            return
        try:
            given[source] = scores_file.read_scores(file.getvalue())
        except (ValueError, UnicodeDecodeError) as error:
            st.session_state[SCORES_PROBLEM] = f"{file.name}: {error}"

    results, _ = given_scores(source)
    count = len({m for by_method in results.values() for m in by_method})
    label = f"Precomputed scores ({count} method(s) loaded)" if results else "Precomputed scores (optional)"
    with st.expander(label):
        st.file_uploader(
            "Output of `explorer score` for this dataset",
            type=["jsonl", "json", "txt"],
            key=key,
            on_change=read,
            help="Scores in this file are used as they are; its methods join the ones chosen in the sidebar.",
        )
        if SCORES_PROBLEM in st.session_state:
            st.error(st.session_state[SCORES_PROBLEM])


@st.cache_data(max_entries=16)
def trust_columns(dataset_key: str, _examples: Sequence[Example]) -> pd.DataFrame:
    """The faithfulness and trust metrics of every example (cheap, computed once per dataset)."""
    return trust.trust_frame(_examples)


def dataset_methods(source: str, chosen: Sequence[str]) -> list[str]:
    """The sidebar's detectors, then any other method the uploaded scores hold."""
    results, _ = given_scores(source)
    found = dict.fromkeys(m for by_method in results.values() for m in by_method)
    return list(chosen) + [m for m in found if m not in chosen]


def dataset_scores(source: str, examples: Sequence[Example], methods: Sequence[str]) -> DatasetScores:
    """Every result available now; detectors whose results are cached (the model-based ones and
    the semantic detector) fill in through background jobs."""
    dataset_key = fingerprint(examples)
    _pause_jobs(keep_dataset=dataset_key)
    model = st.session_state.get(state.MODEL, "")
    given, given_failures = given_scores(source)
    scores = DatasetScores(results={e.id: dict(given.get(e.id, {})) for e in examples})
    for method in methods:
        for example_id, by_method in given_failures.items():
            if method in by_method and example_id in scores.results:
                scores.failures.setdefault(method, {})[example_id] = by_method[method]
        missing = [e for e in examples if method not in scores.results[e.id]]
        if not missing or method not in detectors.names():
            continue
        try:
            detector = state.get_detector(method, model)
        except Exception as error:  # a bad model path must show as a message, not a traceback
            scores.problems[method] = f"cannot load: {error}"
            continue
        # Only what needs no cache is worth computing while the page waits: over a whole
        # dataset even the small MiniLM of the semantic detector takes a minute on two cores.
        if not detectors.spec(method).background_for_many():
            results, failures = _model_free_scores(method, dataset_key, examples)
        else:
            results, failures = _cached_or_started(
                method, _job_key(method, model, dataset_key), detector, missing, scores
            )
        for example_id, result in results.items():
            scores.results[example_id].setdefault(method, result)
        for example_id, message in failures.items():
            scores.failures.setdefault(method, {})[example_id] = message
    return scores


def _cached_or_started(method, key, detector, examples, scores):
    """Cached results, plus those of this dataset's finished job; starts a job for the rest."""
    cache = state.get_result_cache()
    results, failures = {}, {}
    missing = []
    for example in examples:
        result = cached_result(detector, example, cache)
        if result is None:
            missing.append(example)
        else:
            results[example.id] = result
    jobs = state.get_jobs()
    job = jobs.get(key)
    if job is not None and job.finished:
        if job.future.exception() is not None:
            scores.problems[method] = f"scoring failed: {job.future.exception()}"
            return results, failures
        done, failed = job.result()
        results.update({i: r for i, r in done.items() if i not in results})
        failures.update(failed)
        missing = [e for e in missing if e.id not in done and e.id not in failed]
        if missing and key in st.session_state.get(PAUSED_JOBS, set()):
            scores.problems[method] = f"stopped with {len(missing)} example(s) left"
            scores.keys[method] = key
            return results, failures
        jobs.forget(key)  # stopped when another dataset was viewed: go on from the cache
    if missing:
        stop = _STOPS.setdefault(key, threading.Event())
        if job is None or job.finished:
            stop.clear()
        st.session_state.setdefault(STARTED_JOBS, set()).add(key)
        scores.jobs[method] = jobs.submit(
            key, f"{detectors.spec(method).title} on {len(missing)} examples", _background_work(detector, missing, stop)
        )
        scores.keys[method] = key
    return results, failures


def _stop(key: str) -> None:
    _STOPS[key].set()
    st.session_state.setdefault(PAUSED_JOBS, set()).add(key)


def _resume(key: str) -> None:
    st.session_state.setdefault(PAUSED_JOBS, set()).discard(key)
    state.get_jobs().forget(key)


def show_scoring_status(scores: DatasetScores, total: int) -> None:
    """Progress of running jobs (polled every 2 s) and what could not be scored."""
    for method, message in scores.problems.items():
        text, button = st.columns([5, 1])
        text.warning(f"{title(method)}: {message}. Examples without a score are left out of its numbers.")
        if method in scores.keys:
            button.button("Resume", key=f"dataset.resume.{method}", on_click=_resume, args=(scores.keys[method],))
    for method, failed in scores.failures.items():
        with st.expander(f"{title(method)} could not score {len(failed)} example(s)"):
            st.markdown("\n".join(f"- {code(i)}: {literal(m)}" for i, m in list(failed.items())[:100]))
    if scores.jobs:
        _progress(scores.jobs, scores.keys, {m: scores.scored(m) for m in scores.jobs}, total)


@st.fragment(run_every=2)
def _progress(jobs: dict[str, Job], keys: dict[str, str], already: dict[str, int], total: int) -> None:
    running = False
    for method, job in jobs.items():
        left = job.seconds_left()
        eta = f", about {left / 60:.0f} min left" if left is not None and left > 90 else ""
        eta = eta or (f", about {left:.0f} s left" if left is not None else "")
        # A rerun while the job runs finds the job's own results in the cache too, so count
        # what the job still has left rather than adding its progress to what was found.
        done = total - (job.total - job.done) if job.total else already[method]
        text, button = st.columns([5, 1])
        text.progress(
            done / total if total else 0.0,
            text=f"{title(method)}: {done} of {total} examples scored, the rest in the background{eta}",
        )
        if not job.finished:
            running = True
            button.button("Stop", key=f"dataset.stop.{method}", on_click=_stop, args=(keys[method],))
    if not running:
        st.rerun()


# --- filters -------------------------------------------------------------------------------


def filter_sidebar(frame: pd.DataFrame, methods: Sequence[str]) -> table.Filters:
    """Filter widgets in the sidebar; the split starts on `test` when there is one."""
    with st.sidebar:
        st.subheader("Filter examples")
        splits = table.choices(frame, "split")
        chosen_splits = (
            st.multiselect("Split", splits, default=["test"] if "test" in splits else [], key="dataset.filter.split")
            if splits
            else []
        )
        topics = st.multiselect("Topic", table.choices(frame, "topic"), key="dataset.filter.topic")
        kinds = st.multiselect("Kind", table.choices(frame, "kind"), key="dataset.filter.kind")
        golds = st.multiselect(
            "Gold label", [g for g in table.GOLD_CATEGORIES if g in set(frame["gold"])], key="dataset.filter.gold"
        )
        ambiguous = st.multiselect(
            "Ambiguous type", table.choices(frame, "ambiguous_type"), key="dataset.filter.ambiguous"
        )
        ranges = {}
        columns = [table.score_column(m, t) for m in methods for t in ERROR_TYPES]
        if columns:
            column = st.selectbox(
                "Score range of",
                columns,
                key="dataset.filter.score_column",
                format_func=lambda c: f"{title(c.rsplit('.', 1)[0])} · {c.rsplit('.', 1)[1]}",
            )
            ranges[column] = st.slider("Score range", 0.0, 1.0, (0.0, 1.0), step=0.01, key="dataset.filter.score_range")
        traps_only = table.TRUST_TRAP in frame.columns and st.toggle(
            "Trust traps only",
            key="dataset.filter.trust_traps",
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


# --- evaluation ----------------------------------------------------------------------------


def choose_view() -> tuple[str, str]:
    """Error type and slice for the ROC curves, thresholds and failures."""
    left, right = st.columns(2)
    error_type = left.radio(
        "Error type",
        ERROR_TYPES,
        format_func=ERROR_TITLES.get,
        horizontal=True,
        key=ERROR_TYPE,
    )
    slice_name = right.selectbox(
        "Slice",
        [s.name for s in slices.SLICES],
        format_func=SLICE_TITLES.get,
        key=SLICE,
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
        row = {title(m): text(by_key[(m, chosen.name)]) for m in methods}
        largest = max((by_key[(m, chosen.name)] for m in methods), key=lambda c: c.positives + c.negatives)
        row["errors / error-free"] = f"{largest.positives} / {largest.negatives}"
        rows[SLICE_TITLES[chosen.name]] = row
    return pd.DataFrame.from_dict(rows, orient="index")


def slice_cells(
    examples: Sequence[Example], results, methods: Sequence[str], error_type: str
) -> list[auc.AucCell]:
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
    saved = st.session_state.setdefault(THRESHOLDS, {})
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
        st.session_state[THRESHOLDS][key] = st.session_state[widget]

    controls, matrix, spread = st.columns([1, 1.2, 1.6])
    with controls:
        st.markdown(f"**{title(method)}**")
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
            figures.confusion_figure(counts), key=f"dataset.confusion.{method}", config={"displayModeBar": False}
        )
    with spread:
        st.plotly_chart(
            figures.score_distribution_figure(labels, scores, threshold, color=figures.method_color(method)),
            key=f"dataset.spread.{method}",
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
    method = st.selectbox("Failures of", scored_methods, format_func=title, key=FAILURE_METHOD)
    threshold = st.session_state.get(THRESHOLDS, {}).get((method, error_type, slice_name))
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
            if button.button("Inspect", key=f"dataset.open.{kind}.{example_id}", help="Open with gold labels overlaid"):
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
        st.dataframe(auc_table(cells, methods), key="dataset.auc_table")
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
                titles={m: title(m) for m in curves},
                operating_points=points,
                title=f"{SLICE_TITLES[slice_name]} · {ERROR_TITLES[error_type]}",
            ),
            key="dataset.roc",
        )
    st.subheader("Failures at the threshold", anchor=False)
    show_failures(source, examples, results, usable, error_type, slice_name)


# --- the examples table -------------------------------------------------------------------


def display_frame(frame: pd.DataFrame, outcome: pd.Series | None) -> pd.DataFrame:
    """The table as shown: an outcome column first when there is one, failures sorted first."""
    shown = frame.copy()
    if outcome is not None:
        shown.insert(0, "outcome", outcome.reindex(shown.index).astype("string"))
        order = {name: rank for rank, name in enumerate(table.OUTCOMES)}
        shown = shown.iloc[sorted(range(len(shown)), key=lambda i: order.get(shown["outcome"].iloc[i], len(order)))]
    return shown


def show_table(frame: pd.DataFrame, methods: Sequence[str]) -> pd.DataFrame:
    """Sort controls and the table; returns the rows in the order shown."""
    sort_options = ["(failures first)", *frame.columns]
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    sort_by = left.selectbox(
        "Sort by",
        sort_options,
        key="dataset.sort",
        format_func=lambda c: _column_title(c) if c in frame.columns else c,
    )
    descending = right.toggle("Descending", key="dataset.sort_descending")
    if sort_by != "(failures first)":
        frame = frame.sort_values(sort_by, ascending=not descending, na_position="last", kind="stable")
    column_config = {
        table.score_column(m, t): st.column_config.ProgressColumn(
            _column_title(table.score_column(m, t)), min_value=0.0, max_value=1.0, format="%.3f"
        )
        for m in methods
        for t in ERROR_TYPES
    }
    thresholds = trust.TrustThresholds()
    trust_help = {
        "query recall": (
            f"share of the query's content words the response repeats; "
            f"a trust trap needs ≥ {thresholds.query_recall:.2f}"
        ),
        "K-F1": "unigram F1 between the response and all arguments (Knowledge-F1)",
        "K-F1++": (
            f"K-F1 after removing the query's words from the response; a trust trap needs < {thresholds.kf1_plus:.2f}"
        ),
    }
    for column in ("query precision", "query recall", "query F1", "K-F1", "K-F1++"):
        column_config[column] = st.column_config.NumberColumn(column, format="%.2f", help=trust_help.get(column))
    column_config[table.TRUST_TRAP] = st.column_config.CheckboxColumn(
        table.TRUST_TRAP, help="aligned with the query, poorly grounded in the arguments"
    )
    column_config["ambiguous_type"] = st.column_config.TextColumn("ambiguous type")
    column_config["coverage_error"] = st.column_config.CheckboxColumn("coverage error")
    column_config["hallucination"] = st.column_config.CheckboxColumn("hallucination")
    st.session_state[TABLE_ORDER] = list(frame.index)
    st.dataframe(
        frame,
        column_config=column_config,
        key=TABLE,
        height=420,
        on_select=_select_row,
        selection_mode="single-row",
    )
    return frame


def _select_row() -> None:
    """A row clicked in the table becomes the example to open or export."""
    rows = st.session_state[TABLE]["selection"]["rows"]
    if rows:
        st.session_state[CHOSEN_EXAMPLE] = st.session_state[TABLE_ORDER][rows[0]]


def show_examples(
    source: str,
    all_examples: Sequence[Example],
    frame: pd.DataFrame,
    examples: Sequence[Example],
    results,
    methods: Sequence[str],
    error_type: str,
    slice_name: str,
) -> None:
    """The filtered table with each example's outcome at the failure method's threshold."""
    method = st.session_state.get(FAILURE_METHOD) or methods[0]
    threshold = st.session_state.get(THRESHOLDS, {}).get((method, error_type, slice_name))
    outcome = None
    if threshold is not None:
        outcome = table.outcomes(examples, results, method, error_type, slice_name, threshold)
        st.caption(
            f"Outcome: {title(method)} at threshold {threshold:.2f} on the {SLICE_TITLES[slice_name].lower()} "
            f"slice ({ERROR_TITLES[error_type].lower()}); examples outside the slice have none."
        )
    shown = show_table(display_frame(frame, outcome), methods)
    example_actions(source, all_examples, list(shown.index), results)


def _column_title(column: str) -> str:
    if "." in column:
        method, error_type = column.rsplit(".", 1)
        return f"{title(method)} · {error_type}"
    return column.replace("_", " ")


def example_actions(source: str, examples: Sequence[Example], order: Sequence[str], results) -> None:
    """Open one example in Inspect or download its HTML report."""
    if not order:
        return
    by_id = {e.id: e for e in examples}
    left, middle, right = st.columns([3, 1, 1], vertical_alignment="bottom")
    if st.session_state.get(CHOSEN_EXAMPLE) not in order:
        st.session_state.pop(CHOSEN_EXAMPLE, None)
    chosen = left.selectbox("Example (or click a row)", list(order), key=CHOSEN_EXAMPLE)
    example = by_id[chosen]
    if middle.button("Open in Inspect", key="dataset.open_chosen"):
        open_in_inspect(example, source)
    _html_download(right, example, results, key="dataset.example_html")


def _safe_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in text)[:80] or "example"


# --- summaries and export -----------------------------------------------------------------


def show_summaries(examples: Sequence[Example], results, methods: Sequence[str]) -> None:
    titles = {m: title(m) for m in methods}
    topics = table.topic_summary(examples, results, methods)
    st.markdown("**Per topic**: which topics most often hold hallucinations or coverage errors")
    if topics["labelled"].sum():
        st.plotly_chart(figures.topic_figure(topics), key="dataset.topic_figure")
    st.dataframe(topics, column_config=_rate_columns(topics), key="dataset.topics")
    perspectives = table.perspective_summary(examples, results, methods)
    st.markdown("**Per perspective**: whose arguments the responses drop")
    if not perspectives.empty:
        if perspectives["labelled"].sum():
            st.plotly_chart(figures.perspective_figure(perspectives, methods, titles), key="dataset.persp_figure")
        st.dataframe(perspectives, column_config=_rate_columns(perspectives), key="dataset.perspectives")


def _rate_columns(frame: pd.DataFrame) -> dict:
    config = {}
    for column in frame.columns:
        if column.endswith("rate"):
            config[column] = st.column_config.ProgressColumn(column, min_value=0.0, max_value=1.0, format="percent")
        elif column.startswith("mean "):
            config[column] = st.column_config.NumberColumn(
                f"mean {_column_title(column.removeprefix('mean '))}", format="%.3f"
            )
    return config


def show_export(source: str, frame: pd.DataFrame, examples: Sequence[Example], results, methods) -> None:
    """Downloads: the filtered table, the eval report of the filtered examples, one example's report."""
    stem = _safe_name(source.removeprefix(links.UPLOAD_PREFIX).removesuffix(".jsonl"))
    st.markdown(f"**Scores table**: the {len(frame)} filtered example(s), one row each, indexed by id")
    left, right, _ = st.columns([1, 1, 3])
    _download(left, "CSV", lambda: export.table_csv(frame), f"{stem}-scores.csv", "text/csv", "dataset.csv")
    _download(
        right,
        "Parquet",
        lambda: export.table_parquet(frame),
        f"{stem}-scores.parquet",
        "application/vnd.apache.parquet",
        "dataset.parquet",
    )
    st.markdown(
        "**Evaluation report** of the filtered examples: every error type and slice, significance, word level "
        "(1000 bootstrap resamples, as `explorer eval`)"
    )

    def full_report() -> auc.Evaluation:
        return auc.evaluate(examples, results, methods)

    description = f"Data: `{source.removeprefix(links.UPLOAD_PREFIX)}`, {len(examples)} filtered example(s)."
    left, right, _ = st.columns([1, 1, 3])
    _download(
        left,
        "Markdown",
        lambda: report.markdown(full_report(), title=f"Evaluation of {stem}", description=description),
        f"{stem}-eval.md",
        "text/markdown",
        "dataset.report_md",
    )
    _download(
        right,
        "JSON",
        lambda: json.dumps(
            report.to_json(full_report(), meta={"data": source, "examples": [e.id for e in examples]}), indent=2
        ),
        f"{stem}-eval.json",
        "application/json",
        "dataset.report_json",
    )
    if examples:
        st.markdown("**One example** as a self-contained HTML page to share (opens offline)")
        pick, button = st.columns([3, 1], vertical_alignment="bottom")
        by_id = {e.id: e for e in examples}
        chosen = pick.selectbox("Example", list(by_id), key="dataset.export_example")
        _html_download(button, by_id[chosen], results, key="dataset.export_html")


def _html_download(where, example: Example, results, *, key: str) -> None:
    _download(
        where,
        "HTML report",
        lambda: export.example_html(example, results.get(example.id, {})),
        f"{_safe_name(example.id)}.html",
        "text/html",
        key,
        help="A self-contained page (highlights with gold spans, scores, heatmaps) that opens offline.",
    )


def _download(where, label: str, data, file_name: str, mime: str, key: str, help: str | None = None) -> None:
    """A download button whose data is built only when clicked."""
    where.download_button(
        label,
        data=data,
        file_name=file_name,
        mime=mime,
        key=key,
        on_click="ignore",  # a rerun would replace the other buttons' deferred data mid-download
        icon=":material/download:",
        help=help,
    )
