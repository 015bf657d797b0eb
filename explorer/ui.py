"""Streamlit glue shared by the pages: state keys, cached resources, widgets and views.

This is the only module of the package that imports Streamlit. Pages lay out what these
functions return; the scoring, rendering and data logic stays in the rest of the package.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from explorer import detectors, render
from explorer.cache import ResultCache
from explorer.detectors import Detector, DetectorResult
from explorer.example import Example, FormatError, InvalidExample, Labels, Perspective, parse_example, validate
from explorer.jobs import Job, JobRunner
from explorer.samples import load_samples, picker_label
from explorer.scoring import cached_result, score_example

# Session-state keys, in one place. Values that must survive a page change live here, not
# only in widget keys (Streamlit drops a widget's value when its page is left).
CURRENT_EXAMPLE = "current_example"
METHODS = "methods"
MODEL = "model"
SHOW_GOLD = "show_gold"

DEFAULT_METHODS = ["rouge"]


# ---- cached resources (shared by every session: read-only) ----


@st.cache_resource(show_spinner="Loading detector…")
def get_detector(name: str, model: str = "") -> Detector:
    options = {"model": model} if model and detectors.spec(name).uses_model else {}
    return detectors.create(name, **options)


@st.cache_resource
def get_result_cache() -> ResultCache:
    return ResultCache()


@st.cache_resource
def get_jobs() -> JobRunner:
    return JobRunner()


@st.cache_data(show_spinner=False)
def sample_examples() -> list[Example]:
    return load_samples()


# ---- shared sidebar ----


def sidebar() -> None:
    """Widgets every page shares: which detectors, which language model."""
    state = st.session_state
    state.setdefault(METHODS, list(DEFAULT_METHODS))
    state.setdefault(MODEL, "")
    with st.sidebar:
        st.multiselect(
            "Detectors",
            detectors.names(),
            default=state[METHODS],
            format_func=lambda name: detectors.spec(name).title,
            key="sidebar.methods",
            on_change=lambda: state.__setitem__(METHODS, state["sidebar.methods"]),
            help="\n\n".join(f"**{detectors.spec(n).title}**: {detectors.spec(n).summary}" for n in detectors.names()),
        )
        if any(detectors.spec(name).uses_model for name in detectors.names()):
            st.text_input(
                "Language model",
                value=state[MODEL],
                key="sidebar.model",
                placeholder="default: SmolLM2-135M-Instruct (packaged)",
                help="A local Hugging Face model folder or a .gguf file, used by model-based detectors.",
                on_change=lambda: state.__setitem__(MODEL, state["sidebar.model"].strip()),
            )


def chosen_methods() -> list[str]:
    return list(st.session_state.get(METHODS, DEFAULT_METHODS))


# ---- the example editor ----


def _k(prefix: str, name: str) -> str:
    return f"{prefix}.{name}"


def load_into_editor(prefix: str, example: Example) -> None:
    """Put `example` into the editor's widgets (call before they are drawn, e.g. in a callback)."""
    state = st.session_state
    state[_k(prefix, "base")] = example
    state[_k(prefix, "query")] = example.query
    state[_k(prefix, "response")] = example.response
    ids = list(range(len(example.perspectives)))
    state[_k(prefix, "perspective_ids")] = ids
    state[_k(prefix, "next_id")] = len(ids)
    for pid, perspective in zip(ids, example.perspectives):
        state[_k(prefix, f"p{pid}.name")] = perspective.name
        state[_k(prefix, f"p{pid}.arguments")] = "\n".join(perspective.arguments)


def _add_perspective(prefix: str) -> None:
    state = st.session_state
    pid = state[_k(prefix, "next_id")]
    state[_k(prefix, "next_id")] = pid + 1
    state[_k(prefix, "perspective_ids")].append(pid)
    state[_k(prefix, f"p{pid}.name")] = f"perspective {len(state[_k(prefix, 'perspective_ids')])}"
    state[_k(prefix, f"p{pid}.arguments")] = ""


def _remove_perspective(prefix: str, pid: int) -> None:
    st.session_state[_k(prefix, "perspective_ids")].remove(pid)


def example_editor(prefix: str, initial: Example) -> tuple[Example, list[FormatError]]:
    """Editable query, perspectives (add, remove, rename; one argument a line) and response.

    Returns the edited example and its problems. Gold labels are kept only while the text is
    unchanged: after an edit their spans no longer point at the right words.
    """
    state = st.session_state
    if _k(prefix, "query") not in state:
        load_into_editor(prefix, initial)
    base: Example = state[_k(prefix, "base")]

    st.text_area("Query", key=_k(prefix, "query"), height=68)
    perspectives = []
    ids = state[_k(prefix, "perspective_ids")]
    columns = st.columns(max(len(ids), 1))
    for column, pid in zip(columns, ids):
        with column:
            name = st.text_input("Perspective", key=_k(prefix, f"p{pid}.name"))
            arguments = st.text_area(
                "Arguments, one a line", key=_k(prefix, f"p{pid}.arguments"), height=220
            )
            st.button(
                "Remove perspective",
                key=_k(prefix, f"p{pid}.remove"),
                on_click=_remove_perspective,
                args=(prefix, pid),
                disabled=len(ids) == 1,
            )
            perspectives.append(
                Perspective(name.strip(), tuple(line.strip() for line in arguments.splitlines() if line.strip()))
            )
    st.button("Add perspective", key=_k(prefix, "add"), on_click=_add_perspective, args=(prefix,))
    st.text_area("Response", key=_k(prefix, "response"), height=220)

    edited = base.replace(
        query=state[_k(prefix, "query")], perspectives=tuple(perspectives), response=state[_k(prefix, "response")]
    )
    if edited.content_hash() != base.content_hash():
        edited = edited.replace(labels=Labels())
    return edited, validate(edited)


def paste_box(prefix: str) -> None:
    """A text box for one JSON record (native or RefChecker format) loaded into the editor."""
    state = st.session_state

    def load() -> None:
        text = state[_k(prefix, "paste")].strip()
        try:
            example = parse_example(json.loads(text))
        except json.JSONDecodeError as error:
            state[_k(prefix, "paste_errors")] = [f"invalid JSON: {error.msg} (line {error.lineno}, column {error.colno})"]
            return
        except InvalidExample as invalid:
            state[_k(prefix, "paste_errors")] = [str(e) for e in invalid.errors]
            return
        state[_k(prefix, "paste_errors")] = []
        load_into_editor(prefix, example)

    st.text_area(
        "One example as JSON",
        key=_k(prefix, "paste"),
        height=150,
        placeholder='{"id": "mine", "query": "...", "perspectives": [{"name": "pro", "arguments": ["..."]}], '
        '"response": "..."}   or   {"question": "...", "response": "...", "reference": ["..."]}',
    )
    st.button("Load JSON", key=_k(prefix, "paste_load"), on_click=load)
    for message in state.get(_k(prefix, "paste_errors"), []):
        st.error(message)


def sample_picker(prefix: str) -> None:
    """A select box over `sample_data/` that loads the chosen example into the editor."""
    samples = sample_examples()
    if not samples:
        st.info("No sample data found.")
        return
    by_id = {example.id: example for example in samples}
    st.selectbox(
        "Sample example",
        list(by_id),
        index=None,
        placeholder="Choose a sample…",
        format_func=lambda example_id: picker_label(by_id[example_id]),
        key=_k(prefix, "sample"),
        on_change=lambda: load_into_editor(prefix, by_id[st.session_state[_k(prefix, "sample")]]),
    )


# ---- results ----


def results_for(example: Example, methods: Sequence[str]) -> tuple[dict[str, DetectorResult], dict[str, Job | str]]:
    """Results available now, and for the rest either a running job or an error message.

    Model-free detectors are computed at once; model-based ones come from the cache or are
    started in the background, so the page stays usable while they run.
    """
    results: dict[str, DetectorResult] = {}
    pending: dict[str, Job | str] = {}
    cache = get_result_cache()
    model = st.session_state.get(MODEL, "")
    for name in methods:
        try:
            detector = get_detector(name, model)
        except Exception as error:  # a bad model path must show as a message, not a traceback
            pending[name] = f"cannot load: {error}"
            continue
        if not detectors.spec(name).uses_model:
            scored = score_example(example, [detector])
        else:
            result = cached_result(detector, example, cache)
            if result is not None:
                results[name] = result
                continue
            key = f"{name}:{model}:{example.content_hash()}"
            job = get_jobs().submit(
                key,
                f"{detector.title} on {example.id}",
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


def show_example_header(example: Example) -> None:
    """The query and what the gold labels say, above the scores."""
    st.subheader(example.query, anchor=False)
    facts = [f"`{example.id}`"]
    if example.topic:
        facts.append(f"topic: {example.topic}")
    facts.append(f"{len(example.perspectives)} perspectives, {sum(len(p.arguments) for p in example.perspectives)} arguments")
    if not example.labels.is_empty():
        facts.append(f"gold: **{example.labels.summary()}**")
    st.markdown(" · ".join(facts))


def show_pending(pending: dict[str, Job | str]) -> None:
    for name, state in pending.items():
        title = detectors.spec(name).title
        if isinstance(state, str):
            st.warning(f"{title}: {state}")
        else:
            left = state.seconds_left()
            eta = f", about {left:.0f} s left" if left is not None else ""
            st.progress(state.fraction, text=f"{title}: computing ({state.done}/{state.total or '?'}{eta})")


def scores_frame(example: Example, results: dict[str, DetectorResult]) -> pd.DataFrame:
    rows = []
    for name, result in results.items():
        row = {"detector": detectors.spec(name).title, "hallucination": result.hallucination, "coverage": result.coverage}
        row.update({f"coverage · {p}": v for p, v in result.per_perspective.items()})
        rows.append(row)
    return pd.DataFrame(rows).set_index("detector") if rows else pd.DataFrame()


def show_scores(example: Example, results: dict[str, DetectorResult]) -> None:
    frame = scores_frame(example, results)
    if frame.empty:
        return
    st.dataframe(
        frame,
        width="stretch",
        column_config={
            column: st.column_config.ProgressColumn(column, min_value=0.0, max_value=1.0, format="%.3f")
            for column in frame.columns
        },
    )
    st.caption("Error scores in [0, 1]: higher means more likely a hallucination / a dropped argument.")


def show_highlights(example: Example, name: str, result: DetectorResult, *, show_gold: bool) -> None:
    detector_class = detectors.detector_class(name)
    left, right = st.columns(2)
    with left:
        st.markdown(f"**Response** · hallucination {result.hallucination:.2f}")
        st.html(render.response_html(example, result, detector_class.response_word_meaning, show_gold=show_gold))
    with right:
        st.markdown(f"**Arguments** · coverage error {result.coverage:.2f}")
        st.html(render.arguments_html(example, result, detector_class.argument_word_meaning, show_gold=show_gold))


def show_legend(*, with_gold: bool) -> None:
    st.html(render.legend_html(with_gold=with_gold))
