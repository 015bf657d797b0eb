"""Named datasets and deep links: `?dataset=<name>&example=<id>` reopens an example, and
`?shared=<token>` reopens a pasted or edited one.

A dataset is named by its file in the shipped samples (`explorer/resources/samples/`, e.g.
`examples.jsonl`) or, for a file the user uploaded in this session, `upload:<file name>`.
Uploads live in the session only, so a link to one works in the session that uploaded it;
links to sample files work anywhere. An example that is in no named dataset as shown (pasted,
or edited) travels in the link itself (`explorer.data.share_links`: compressed JSON), so a reload or
a link sent to someone restores it.
"""

from __future__ import annotations

from typing import NoReturn

import streamlit as st

from explorer.data import share_links
from explorer.data.example import Example
from explorer.data.jsonl import LoadResult, parse_jsonl
from explorer.data.samples import SAMPLE_DIR, SAMPLE_EXAMPLES
from explorer.ui import editor, state
from explorer.ui.dataset import scroll
from explorer.ui.text import literal

UPLOAD_PREFIX = "upload:"
INSPECT_PAGE = "app_pages/inspect.py"
DATASET_PAGE = "app_pages/dataset.py"
# Query parameters of the Inspect page.
DATASET_PARAM, EXAMPLE_PARAM, SHARED_PARAM = "dataset", "example", "shared"


# A resource, not data: Inspect looks the shown example up in the samples on every run, and
# copying the whole file out of a data cache each time was half of a warm run's work. The
# examples are frozen; no caller changes the lists.
@st.cache_resource(show_spinner=False)
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
    st.switch_page(INSPECT_PAGE, query_params={DATASET_PARAM: dataset, EXAMPLE_PARAM: example.id})


def _show(example: Example, dataset: str | None) -> None:
    st.session_state[state.CURRENT_EXAMPLE] = example
    st.session_state[state.SHOW_GOLD] = not example.labels.is_empty()
    st.session_state[state.LINKED_DATASET] = dataset
    editor.load_into_editor(state.INSPECT_PREFIX, example)


def apply_example_link() -> None:
    """On the Inspect page, before the editor is drawn: load the example the URL names or holds, once."""
    params = st.query_params
    token = params.get(SHARED_PARAM)
    if token:
        if st.session_state.get(state.APPLIED_LINK) == (SHARED_PARAM, token):
            return
        st.session_state[state.APPLIED_LINK] = (SHARED_PARAM, token)
        try:
            _show(share_links.decode(token), None)
        except share_links.BadToken as error:
            st.warning(f"The link's example cannot be read: {literal(str(error))}")
        return
    dataset, example_id = params.get(DATASET_PARAM), params.get(EXAMPLE_PARAM)
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
    _show(example, dataset)


def back_to_dataset(example: Example) -> None:
    """On Inspect, a link back to the failures list `example` was opened from, while it is shown unedited."""
    opened = st.session_state.get(state.DATASET_RETURN)
    if opened is None or opened[1] != example.id or named_original(example) != opened[0]:
        return
    scroll.top_on_arrival()
    # Only the dataset's name: the dataset page brings back the rest of its view (`restore_view`).
    st.page_link(
        DATASET_PAGE,
        label=f"Back to the failures in {opened[0].removeprefix(UPLOAD_PREFIX)}",
        icon=":material/arrow_back:",
        query_params={DATASET_PARAM: opened[0]},
    )


def named_original(example: Example) -> str | None:
    """The dataset holding `example` unedited (the linked one first, then the samples), or None."""
    for dataset in dict.fromkeys([st.session_state.get(state.LINKED_DATASET), SAMPLE_EXAMPLES.name]):
        loaded = load_dataset(dataset) if dataset else None
        original = next((e for e in loaded.examples if e.id == example.id), None) if loaded else None
        if original is not None and original.content_hash() == example.content_hash():
            return dataset
    return None


def sync_example_link(example: Example) -> bool:
    """Point the URL at `example`: by name while it is unedited from a named dataset, else the
    example itself (`?shared=`). False when it is too long for a link (the URL then names nothing)."""
    params = st.query_params
    dataset = named_original(example)
    if dataset is not None:
        wanted = {DATASET_PARAM: dataset, EXAMPLE_PARAM: example.id}
        applied = (dataset, example.id)
    else:
        token = share_links.encode(example)
        wanted = {SHARED_PARAM: token} if len(token) <= share_links.MAX_TOKEN_LENGTH else {}
        applied = (SHARED_PARAM, token)
    for key in (DATASET_PARAM, EXAMPLE_PARAM, SHARED_PARAM):
        if key in params and key not in wanted:
            del params[key]
    if any(params.get(key) != value for key, value in wanted.items()):
        params.update(wanted)
    st.session_state[state.APPLIED_LINK] = applied
    return bool(wanted)
