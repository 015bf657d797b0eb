"""The dataset's scores on the page: what the caches hold now, background jobs for the rest, their progress."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import streamlit as st

from explorer import detectors
from explorer.data.example import Example
from explorer.detectors import DetectorResult
from explorer.evaluation import report
from explorer.scoring import dataset as dataset_jobs
from explorer.scoring.runner import cached_result, score_example
from explorer.ui import links, state
from explorer.ui.dataset.source import given_scores
from explorer.ui.text import code, literal


# A resource, not data: the results are frozen and shared read-only, and copying hundreds of
# them out of a data cache on every run took longer than the rest of the page.
@st.cache_resource(show_spinner="Scoring the dataset…", max_entries=16)
def _model_free_scores(
    detector_name: str, dataset_key: str, _examples: Sequence[Example]
) -> tuple[dict[str, DetectorResult], dict[str, str]]:
    detector = state.get_detector(detector_name)
    results, failures = {}, {}
    for example in _examples:
        dataset_jobs.record(score_example(example, [detector]), detector_name, results, failures)
    return results, failures


def _pause_jobs(keep_dataset: str | None = None) -> None:
    """Stop this session's dataset jobs (but those on `keep_dataset`): the one job worker
    serves what is in view, e.g. the example just opened in Inspect.

    They resume by themselves when their dataset is viewed again (from the result cache).
    """
    for key in st.session_state.get(state.DATASET_STARTED_JOBS, set()):
        if keep_dataset is None or not key.endswith(f":{keep_dataset}"):
            dataset_jobs.STOPS[key].set()


def open_in_inspect(example: Example, source: str) -> None:
    _pause_jobs()
    st.session_state[state.DATASET_RETURN] = (source, example.id)  # Inspect offers the way back
    links.open_in_inspect(example, source)


def dataset_scores(
    source: str, examples: Sequence[Example], detector_names: Sequence[str]
) -> dataset_jobs.DatasetScores:
    """Every result available now; detectors whose results are cached (the model-based ones and
    the semantic detector) fill in through background jobs."""
    dataset_key = dataset_jobs.fingerprint(examples)
    _pause_jobs(keep_dataset=dataset_key)
    model = st.session_state.get(state.MODEL, "")
    given, given_failures = given_scores(source)
    scores = dataset_jobs.DatasetScores(results={e.id: dict(given.get(e.id, {})) for e in examples})
    for detector_name in detector_names:
        for example_id, by_detector in given_failures.items():
            if detector_name in by_detector and example_id in scores.results:
                scores.failures.setdefault(detector_name, {})[example_id] = by_detector[detector_name]
        missing = [e for e in examples if detector_name not in scores.results[e.id]]
        if not missing or detector_name not in detectors.names():
            continue
        try:
            detector = state.get_detector(detector_name, model)
        except Exception as error:  # a bad model path must show as a message, not a traceback
            scores.problems[detector_name] = f"cannot load: {error}"
            continue
        # Only what needs no cache is worth computing while the page waits: over a whole
        # dataset even the small MiniLM of the semantic detector takes a minute on two cores.
        if not detectors.spec(detector_name).background_for_many():
            results, failures = _model_free_scores(detector_name, dataset_key, examples)
        else:
            results, failures = _cached_or_started(
                detector_name, dataset_jobs.job_key(detector_name, model, dataset_key), detector, missing, scores
            )
        for example_id, result in results.items():
            scores.results[example_id].setdefault(detector_name, result)
        for example_id, message in failures.items():
            scores.failures.setdefault(detector_name, {})[example_id] = message
    return scores


def _cached_or_started(detector_name, key, detector, examples, scores):
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
            scores.problems[detector_name] = f"scoring failed: {job.future.exception()}"
            return results, failures
        done, failed = job.result()
        results.update({i: r for i, r in done.items() if i not in results})
        failures.update(failed)
        missing = [e for e in missing if e.id not in done and e.id not in failed]
        if missing and key in st.session_state.get(state.DATASET_PAUSED_JOBS, set()):
            scores.problems[detector_name] = f"stopped with {len(missing)} example(s) left"
            scores.keys[detector_name] = key
            return results, failures
        jobs.forget(key)  # stopped when another dataset was viewed: go on from the cache
    if missing:
        stop = dataset_jobs.STOPS.setdefault(key, threading.Event())
        if job is None or job.finished:
            stop.clear()
        st.session_state.setdefault(state.DATASET_STARTED_JOBS, set()).add(key)
        scores.jobs[detector_name] = jobs.submit(
            key,
            f"{detectors.spec(detector_name).title} on {len(missing)} examples",
            dataset_jobs.background_work(detector, missing, stop, state.get_result_cache()),
        )
        scores.keys[detector_name] = key
    return results, failures


def _stop(key: str) -> None:
    dataset_jobs.STOPS[key].set()
    st.session_state.setdefault(state.DATASET_PAUSED_JOBS, set()).add(key)


def _resume(key: str) -> None:
    st.session_state.setdefault(state.DATASET_PAUSED_JOBS, set()).discard(key)
    state.get_jobs().forget(key)


def scored_count(scores: dataset_jobs.DatasetScores, detector_name: str, total: int) -> int:
    """How many examples `detector_name` has scored, counted as its progress bar counts them (the AUC
    table says the same). A job's results reach the cache as it goes, and a page run finds them
    there, so the count is the total less what the job has left."""
    job = scores.jobs.get(detector_name)
    return total - (job.total - job.done) if job is not None and job.total else scores.scored(detector_name)


def show_scoring_status(scores: dataset_jobs.DatasetScores, total: int) -> None:
    """Progress of running jobs (polled every 2 s) and what could not be scored."""
    for detector_name, message in scores.problems.items():
        text, button = st.columns([5, 1])
        text.warning(
            f"{report.detector_title(detector_name)}: {message}. Examples without a score are left out of its numbers."
        )
        if detector_name in scores.keys:
            button.button(
                "Resume",
                key=f"{state.DATASET_RESUME}.{detector_name}",
                on_click=_resume,
                args=(scores.keys[detector_name],),
            )
    for detector_name, failed in scores.failures.items():
        with st.expander(f"{report.detector_title(detector_name)} could not score {len(failed)} example(s)"):
            st.markdown("\n".join(f"- {code(i)}: {literal(m)}" for i, m in list(failed.items())[:100]))
    if scores.jobs:
        _progress(scores, {m: scored_count(scores, m, total) for m in scores.jobs}, total)


@st.fragment(run_every=2)
def _progress(scores: dataset_jobs.DatasetScores, shown: dict[str, int], total: int) -> None:
    """The bars, redrawn every 2 s; the whole page reruns when the jobs are done, and each time
    a job has scored another tenth of the examples since the page counted `shown`, so the AUC
    table's numbers (and its "scoring, n of N") keep up with the bars."""
    running = behind = False
    for detector_name, job in scores.jobs.items():
        left = job.seconds_left()
        eta = f", about {left / 60:.0f} min left" if left is not None and left > 90 else ""
        eta = eta or (f", about {left:.0f} s left" if left is not None else "")
        done = scored_count(scores, detector_name, total)
        behind = behind or done - shown[detector_name] >= max(1, total // 10)
        text, button = st.columns([5, 1])
        text.progress(
            done / total if total else 0.0,
            text=f"{report.detector_title(detector_name)}: {done} of {total} examples scored, "
            f"the rest in the background{eta}",
        )
        if not job.finished:
            running = True
            button.button(
                "Stop", key=f"{state.DATASET_STOP}.{detector_name}", on_click=_stop, args=(scores.keys[detector_name],)
            )
    if behind or not running:
        st.rerun()
