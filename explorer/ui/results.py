"""Scores and highlights of the chosen detectors for one example."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import streamlit as st

from explorer import detectors
from explorer.data.example import Example
from explorer.detectors import DetectorResult
from explorer.render import highlights
from explorer.scoring.jobs import Job
from explorer.scoring.runner import cached_result, score_example
from explorer.ui.state import MODEL, get_detector, get_jobs, get_result_cache
from explorer.ui.text import code, literal


def results_for(
    example: Example, detector_names: Sequence[str]
) -> tuple[dict[str, DetectorResult], dict[str, Job | str]]:
    """Results available now, and for the rest either a running job or an error message.

    Fast detectors are computed at once, through the result cache: the verdict's detector is
    then read, not recomputed, on every rerun, and a shipped sample's seeded result needs no
    model loaded. Slow ones come from the cache or are started in the background, so the page
    stays usable while they run.
    """
    results: dict[str, DetectorResult] = {}
    pending: dict[str, Job | str] = {}
    cache = get_result_cache()
    model = st.session_state.get(MODEL, "")
    for name in detector_names:
        try:
            detector = get_detector(name, model)
        except Exception as error:  # a bad model path must show as a message, not a traceback
            pending[name] = f"cannot load: {error}"
            continue
        if not detectors.spec(name).background_for_one():
            scored = score_example(example, [detector], cache)
        else:
            result = cached_result(detector, example, cache)
            if result is not None:
                results[name] = result
                continue
            # the settings too: the same example with another salience attribution is another job
            key = f"{name}:{model}:{json.dumps(detector.config(), sort_keys=True)}:{example.content_hash()}"
            job = get_jobs().submit(
                key,
                f"{detectors.spec(name).title} on {example.id}",
                lambda progress, d=detector: score_example(example, [d], cache, progress),
            )
            if not job.finished:
                pending[name] = job
                continue
            scored = job.result()
        if name in scored.errors:
            pending[name] = scored.errors[name]
        else:
            results[name] = scored.results[name]
    return results, pending


def show_example_header(example: Example, beside: Callable[[], None] | None = None) -> None:
    """The query and what the gold labels say, above the scores; `beside` draws controls to the
    right of the facts line (on their own line they would push the verdict off a laptop screen)."""
    st.subheader(literal(example.query), anchor=False)
    facts = [code(example.id)]
    if example.topic:
        facts.append(f"topic: {literal(example.topic)}")
    arguments = sum(len(p.arguments) for p in example.perspectives)
    facts.append(f"{counted(len(example.perspectives), 'perspective')}, {counted(arguments, 'argument')}")
    if not example.labels.is_empty():
        facts.append(f"gold: **{example.labels.summary()}**")
    if beside is None:
        st.markdown(" · ".join(facts))
        return
    left, right = st.columns([3, 1], vertical_alignment="center")
    left.markdown(" · ".join(facts))
    with right:
        beside()


def counted(count: int, noun: str) -> str:
    """E.g. "1 perspective", "3 arguments"."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def show_pending(pending: dict[str, Job | str]) -> None:
    """Why a detector has no result: its error, or its running job's progress (polled)."""
    for name, state in pending.items():
        if isinstance(state, str):
            st.warning(f"{detectors.spec(name).title}: {state}")
    jobs = {name: state for name, state in pending.items() if not isinstance(state, str)}
    if jobs:
        _job_progress(jobs)


def show_waiting(name: str, state: Job | str) -> None:
    """A detector's tab while it has no result: why, in a line."""
    title = detectors.spec(name).title
    if isinstance(state, str):
        st.caption(f"{title} has no result for this example: {literal(state)}")
    else:
        st.caption(f"{title} is computing in the background (progress above); this tab fills in when it is done.")


@st.fragment(run_every=1.0)
def _job_progress(jobs: dict[str, Job]) -> None:
    """Redraws only the progress bars each second; the whole page reruns once a job is done."""
    if any(job.finished for job in jobs.values()):
        st.rerun()
    for name, job in jobs.items():
        left = job.seconds_left()
        eta = f", about {left:.0f} s left" if left is not None else ""
        st.progress(job.fraction, text=f"{detectors.spec(name).title}: computing ({job.done}/{job.total or '?'}{eta})")


def show_highlights(
    example: Example, name: str, result: DetectorResult, *, show_gold: bool, marks=(None, None)
) -> None:
    """Response and arguments side by side, words shaded; `marks` outline the verdict's pieces
    (`render.verdict.highlight_marks`) so that its links land on them."""
    spec = detectors.spec(name)
    response_mark, argument_mark = marks
    left, right = st.columns(2)
    with left:
        st.markdown(f"**Response** · hallucination {result.hallucination:.2f}")
        st.html(
            highlights.response_html(
                example, result, spec.response_word_meaning, show_gold=show_gold, mark=response_mark
            )
        )
    with right:
        st.markdown(f"**Arguments** · coverage error {result.coverage:.2f}")
        st.html(
            highlights.arguments_html(
                example, result, spec.argument_word_meaning, show_gold=show_gold, mark=argument_mark
            )
        )


def show_legend(*, with_gold: bool) -> None:
    st.html(highlights.legend_html(with_gold=with_gold))


def show_side_by_side(example: Example, results: dict[str, DetectorResult], *, show_gold: bool) -> None:
    """Every detector's highlights on the same words, one column each: response, then arguments."""
    sides = (
        ("hallucination", "hallucination", "response_word_meaning", highlights.response_html),
        ("coverage", "coverage error", "argument_word_meaning", highlights.arguments_html),
    )
    for error_type, score_name, meaning, draw in sides:
        for column, (name, result) in zip(st.columns(len(results)), results.items()):
            score = result.score(error_type)
            with column:
                st.markdown(f"**{detectors.spec(name).title}** · {score_name} {score:.2f}")
                word_meaning = getattr(detectors.spec(name), meaning)
                st.html(draw(example, result, word_meaning, show_gold=show_gold))
