"""Session-state keys, cached resources and the sidebar that every page shares.

Values that must survive a page change live under these keys, not only in widget keys
(Streamlit drops a widget's value when its page is left). Models load once per process through
`st.cache_resource` and are shared by all sessions, so they are treated as read-only.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from explorer import detectors
from explorer.config import cache_dir
from explorer.data.example import Example
from explorer.data.samples import load_samples
from explorer.detectors import Detector
from explorer.detectors.ops import attribution
from explorer.scoring.cache import ResultCache
from explorer.scoring.jobs import JobRunner

CURRENT_EXAMPLE = "current_example"
METHODS = "methods"
MODEL = "model"
SALIENCE_METHOD = "salience_method"
SHOW_GOLD = "show_gold"
INSPECT_PREFIX = "inspect"  # the Inspect page's editor keys; other pages load examples into it

# The detectors that answer in well under a second per example; model-based ones are opt-in
# because they compute in the background.
DEFAULT_METHODS = ["rouge", "semantic"]


def get_detector(name: str, model: str = "") -> Detector:
    """The detector with the sidebar's settings (the salience method), loaded once per process."""
    method = st.session_state.get(SALIENCE_METHOD, attribution.DEFAULT_METHOD) if name == "salience" else ""
    return _detector(name, model, method)


@st.cache_resource(show_spinner="Loading detector…")
def _detector(name: str, model: str, salience_method: str) -> Detector:
    options = {"model": model} if model and detectors.spec(name).uses_model else {}
    if salience_method:
        options["method"] = salience_method
    return detectors.create(name, **options)


def get_result_cache() -> ResultCache:
    """The cache in the configured folder (`EXPLORER_CACHE_DIR`), one per folder per process."""
    return _result_cache(cache_dir())


@st.cache_resource
def _result_cache(directory: Path) -> ResultCache:
    return ResultCache(directory)


@st.cache_resource
def get_jobs() -> JobRunner:
    return JobRunner()


@st.cache_data(show_spinner=False)
def sample_examples() -> list[Example]:
    return load_samples()


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
        salience_method_picker()


def salience_method_picker() -> None:
    """The salience detector's attribution method, shown while salience is among the detectors."""
    state = st.session_state
    state.setdefault(SALIENCE_METHOD, attribution.DEFAULT_METHOD)
    if "salience" not in state[METHODS]:
        return
    st.selectbox(
        "Salience method",
        list(attribution.METHODS),
        index=list(attribution.METHODS).index(state[SALIENCE_METHOD]),
        format_func=lambda name: attribution.METHODS[name].title,
        key="sidebar.salience_method",
        on_change=lambda: state.__setitem__(SALIENCE_METHOD, state["sidebar.salience_method"]),
        help="\n\n".join(f"**{m.title}** (Captum `{m.captum}`): {m.summary}" for m in attribution.METHODS.values())
        + "\n\nOnly the paper's method has precomputed results for the sample data; the others compute "
        "in the background.",
    )


def chosen_methods() -> list[str]:
    return list(st.session_state.get(METHODS, DEFAULT_METHODS))
