"""The example editor: pick a sample, paste a record, or edit every field."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace

import streamlit as st

from explorer.data.example import Example, Labels, Perspective
from explorer.data.jsonl import FormatError, InvalidExample, loads, parse_example, parse_text, pasted_id, validate
from explorer.data.samples import picker_label
from explorer.ui.state import FIRST_SAMPLE, sample_examples
from explorer.ui.text import literal


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
            arguments = st.text_area("Arguments, one a line", key=_k(prefix, f"p{pid}.arguments"), height=220)
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
    """A text box for one JSON record (native or RefChecker format) loaded into the editor; several
    records (JSON Lines, an array, or one after another) load the first and offer the rest."""
    state = st.session_state

    def load() -> None:
        text = state[_k(prefix, "paste")].strip()
        state[_k(prefix, "paste_rest")] = []
        try:
            record = loads(text)
            if isinstance(record, dict):
                example = parse_example({"id": pasted_id(record), **record} if "id" not in record else record)
                state[_k(prefix, "paste_errors")] = []
                load_into_editor(prefix, example)
                return
        except json.JSONDecodeError as error:
            if error.msg != "Extra data":
                state[_k(prefix, "paste_errors")] = [
                    f"invalid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
                ]
                return
        except InvalidExample as invalid:
            state[_k(prefix, "paste_errors")] = [str(e) for e in invalid.errors]
            return
        several = parse_text(text)  # several records, or an array
        # Line numbers say which record; in a paste of one line they say nothing.
        state[_k(prefix, "paste_errors")] = [
            str(replace(e, line=None) if "\n" not in text else e) for e in several.errors
        ]
        if several.examples:
            load_into_editor(prefix, several.examples[0])
            state[_k(prefix, "paste_rest")] = several.examples[1:]

    st.text_area(
        "One example as JSON",
        key=_k(prefix, "paste"),
        height=150,
        placeholder='{"query": "...", "perspectives": [{"name": "pro", "arguments": ["..."]}], "response": "..."}'
        '   or   {"question": "...", "response": "...", "reference": ["..."]}   ("id" optional; several records: '
        "one a line)",
    )
    st.button("Load JSON", key=_k(prefix, "paste_load"), on_click=load)
    problems = state.get(_k(prefix, "paste_errors"), [])
    for message in problems:
        st.error(literal(message))
    rest: list[Example] = state.get(_k(prefix, "paste_rest"), [])
    if problems and not rest:
        st.caption("Nothing new was loaded: the example below is the one shown before.")
    if rest:
        by_id = {example.id: example for example in rest}
        st.selectbox(
            f"{len(rest)} more {'record' if len(rest) == 1 else 'records'} from the paste (the first is loaded)",
            list(by_id),
            index=None,
            placeholder="Load another record…",
            format_func=lambda example_id: f"{example_id} · {by_id[example_id].query[:80]}",
            key=_k(prefix, "paste_more"),
            on_change=lambda: (
                load_into_editor(prefix, by_id[state[_k(prefix, "paste_more")]])
                if state[_k(prefix, "paste_more")]
                else None
            ),
        )


def first_sample(samples: Sequence[Example]) -> Example | None:
    """The sample a first visit opens on (`FIRST_SAMPLE`), else the first one."""
    return next((e for e in samples if e.id == FIRST_SAMPLE), samples[0] if samples else None)


def sample_picker(prefix: str, shown: Example | None = None) -> None:
    """A select box over the shipped samples that loads the chosen example into the editor; it
    names `shown` when that is an unedited sample, and nothing otherwise."""
    sample_select(_k(prefix, "sample"), lambda example: load_into_editor(prefix, example), shown)


def sample_select(key: str, on_pick: Callable[[Example], None], shown: Example | None = None) -> None:
    """A select box over the shipped samples that hands the chosen example to `on_pick` (a callback:
    it runs before the page reruns); clearing the box picks nothing. It names `shown` when that
    is an unedited sample, and nothing otherwise (never "pick a sample" while one is shown)."""
    samples = sample_examples()
    if not samples:
        st.info("No sample data found.")
        return
    by_id = {example.id: example for example in samples}
    if shown is not None:
        same = by_id.get(shown.id)
        st.session_state[key] = shown.id if same is not None and same.content_hash() == shown.content_hash() else None
    st.selectbox(
        "Sample example",
        list(by_id),
        index=None,
        placeholder="Pick a sample example…",
        format_func=lambda example_id: picker_label(by_id[example_id]),
        key=key,
        on_change=lambda: on_pick(by_id[st.session_state[key]]) if st.session_state[key] else None,
    )
