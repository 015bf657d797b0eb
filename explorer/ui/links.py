"""Named datasets and deep links: `?dataset=<name>&example=<id>` reopens an example.

A dataset is named by its file in the shipped samples (`explorer/resources/samples/`, e.g.
`examples.jsonl`) or, for a file the user uploaded in this session, `upload:<file name>`.
Uploads live in the session only, so a link to one works in the session that uploaded it;
links to sample files work anywhere.
"""

from __future__ import annotations

from typing import NoReturn

import streamlit as st

from explorer.data.example import Example
from explorer.data.jsonl import LoadResult, parse_jsonl
from explorer.data.samples import SAMPLE_DIR, SAMPLE_EXAMPLES
from explorer.ui import editor, state
from explorer.ui.text import literal

UPLOAD_PREFIX = "upload:"
INSPECT_PAGE = "pages/inspect.py"


@st.cache_data(show_spinner=False)
def _read_sample(name: str, modified: float) -> LoadResult:
    return parse_jsonl(SAMPLE_DIR / name)


def sample_datasets() -> list[str]:
    """Files among the shipped samples holding examples (other JSON Lines there, e.g. spare arguments, are not)."""
    names = []
    for path in sorted(SAMPLE_DIR.glob("*.jsonl")):
        if _read_sample(path.name, path.stat().st_mtime).examples:
            names.append(path.name)
    return names


def load_dataset(name: str) -> LoadResult | None:
    """The dataset called `name`, or None when there is none by that name."""
    if name.startswith(UPLOAD_PREFIX):
        return st.session_state.get(state.UPLOADS, {}).get(name)
    path = SAMPLE_DIR / name
    if path.parent != SAMPLE_DIR or path.suffix != ".jsonl" or not path.is_file():
        return None  # a link names a sample file, never an arbitrary path
    return _read_sample(name, path.stat().st_mtime)


def add_upload(file_name: str, data: bytes) -> str:
    """Keep an uploaded file in the session under a dataset name, which is returned."""
    name = f"{UPLOAD_PREFIX}{file_name}"
    st.session_state.setdefault(state.UPLOADS, {})[name] = parse_jsonl(data)
    return name


def open_in_inspect(example: Example, dataset: str) -> NoReturn:
    """Show `example` on the Inspect page with its gold labels overlaid."""
    session = st.session_state
    session[state.CURRENT_EXAMPLE] = example
    editor.load_into_editor(state.INSPECT_PREFIX, example)
    session[state.SHOW_GOLD] = True
    session[state.LINKED_DATASET] = dataset
    session[state.APPLIED_LINK] = (dataset, example.id)
    st.switch_page(INSPECT_PAGE, query_params={"dataset": dataset, "example": example.id})


def apply_example_link() -> None:
    """On the Inspect page, before the editor is drawn: load the example the URL names, once."""
    dataset, example_id = st.query_params.get("dataset"), st.query_params.get("example")
    if not dataset or not example_id or st.session_state.get(state.APPLIED_LINK) == (dataset, example_id):
        return
    st.session_state[state.APPLIED_LINK] = (dataset, example_id)
    loaded = load_dataset(dataset)
    if loaded is None:
        st.warning(f"The link names a dataset {literal(repr(dataset))} that is not here (uploads last one session).")
        return
    example = next((e for e in loaded.examples if e.id == example_id), None)
    if example is None:
        st.warning(f"There is no example {literal(repr(example_id))} in {literal(dataset)}.")
        return
    st.session_state[state.CURRENT_EXAMPLE] = example
    st.session_state[state.SHOW_GOLD] = not example.labels.is_empty()
    st.session_state[state.LINKED_DATASET] = dataset
    editor.load_into_editor(state.INSPECT_PREFIX, example)


def sync_example_link(example: Example) -> None:
    """Point the URL at `example` while it is unedited from a named dataset, else drop the link."""
    for dataset in dict.fromkeys([st.session_state.get(state.LINKED_DATASET), SAMPLE_EXAMPLES.name]):
        loaded = load_dataset(dataset) if dataset else None
        original = next((e for e in loaded.examples if e.id == example.id), None) if loaded else None
        if original is not None and original.content_hash() == example.content_hash():
            if st.query_params.get("dataset") != dataset or st.query_params.get("example") != example.id:
                st.query_params.update({"dataset": dataset, "example": example.id})
            st.session_state[state.APPLIED_LINK] = (dataset, example.id)
            return
    for key in ("dataset", "example"):
        if key in st.query_params:
            del st.query_params[key]
