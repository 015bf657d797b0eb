"""Session-state keys, cached resources and the sidebar that every page shares.

Values that must survive a page change live under these keys, not only in widget keys
(Streamlit drops a widget's value when its page is left). Models load once per process through
`st.cache_resource` and are shared by all sessions, so they are treated as read-only.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import streamlit as st

from explorer import detectors
from explorer.config import cache_dir
from explorer.data.example import Example
from explorer.data.samples import load_samples
from explorer.detectors import Detector
from explorer.detectors.options import Option
from explorer.docs import cards
from explorer.scoring.cache import ResultCache
from explorer.scoring.jobs import JobRunner

CURRENT_EXAMPLE = "current_example"
DETECTORS = "detectors"
MODEL = "model"
SHOW_GOLD = "show_gold"
INSPECT_PREFIX = "inspect"  # the Inspect page's editor keys; other pages load examples into it
INSPECT_REPORT = "inspect.report"
INSPECT_TAB = "detector"  # bound to the URL: the query parameter naming the open detector tab
VERDICT_SHOWN_FOR = "inspect.verdict_for"  # content hash of the example whose verdict the page shows
# The sample Inspect opens on: a gold hallucination the verdict calls likely, so a first-time
# user sees at once what the tool finds (an error-free sample showed "unlikely / unlikely").
FIRST_SAMPLE = "school-uniforms-hallucination2"

# Browse a test set
DATASET_SOURCE = "dataset.source"
DATASET_SOURCE_WIDGET = "dataset.source_widget"
DATASET_UPLOADER = "dataset.uploader"
DATASET_THRESHOLDS = "dataset.thresholds"  # {(dataset fingerprint, detector, error type, slice): threshold}
DATASET_THRESHOLD = "dataset.threshold"  # + "." + dataset fingerprint, detector, error type, slice: the slider
# Widgets bound to the URL (`bind="query-params"`): the key is the query parameter's name, so
# the view and filters survive a trip to Inspect and back, a reload and a shared link.
DATASET_ERROR_TYPE = "error"
DATASET_SLICE = "slice"
DATASET_FAILURE_DETECTOR = "failures"
DATASET_TAB = "tab"
DATASET_FILTER_SPLIT = "split"
DATASET_FILTER_TOPIC = "topic"
DATASET_FILTER_KIND = "kind"
DATASET_FILTER_GOLD = "gold"
DATASET_FILTER_AMBIGUOUS = "ambiguous"
DATASET_FILTER_SCORE_COLUMN = "score_of"
DATASET_FILTER_SCORE_RANGE = "score_range"
DATASET_FILTER_TRUST_TRAPS = "traps"
DATASET_SORT = "sort"
DATASET_SORT_DESCENDING = "descending"
# Every widget above: the view, remembered per dataset (DATASET_VIEW) for an address without it.
DATASET_VIEW_KEYS = (
    DATASET_ERROR_TYPE,
    DATASET_SLICE,
    DATASET_FAILURE_DETECTOR,
    DATASET_TAB,
    DATASET_FILTER_SPLIT,
    DATASET_FILTER_TOPIC,
    DATASET_FILTER_KIND,
    DATASET_FILTER_GOLD,
    DATASET_FILTER_AMBIGUOUS,
    DATASET_FILTER_SCORE_COLUMN,
    DATASET_FILTER_SCORE_RANGE,
    DATASET_FILTER_TRUST_TRAPS,
    DATASET_SORT,
    DATASET_SORT_DESCENDING,
)
DATASET_VIEW = "dataset.view"  # {dataset name: {view key: value}}: the view as last shown
DATASET_FAILURE_CHOSEN = "dataset.failure_chosen"  # the user picked whose failures: stop following the ranking
DATASET_RETURN = "dataset.return"  # (dataset, example id) opened from its failures: Inspect links back
DATASET_STARTED_JOBS = "dataset.started_jobs"
DATASET_PAUSED_JOBS = "dataset.paused_jobs"
DATASET_TABLE = "dataset.table"
DATASET_TABLE_ORDER = "dataset.table_order"
DATASET_CHOSEN_EXAMPLE = "dataset.example"
DATASET_LINK_SEEN = "dataset.link_seen"
DATASET_GIVEN_SCORES = "dataset.given_scores"
DATASET_SCORES_PROBLEM = "dataset.scores_problem"
DATASET_EXAMPLE_HTML = "dataset.example_html"
DATASET_EXPORT_EXAMPLE = "dataset.export_example"
DATASET_EXPORT_HTML = "dataset.export_html"
DATASET_OPEN_CHOSEN = "dataset.open_chosen"
DATASET_PERSP_FIGURE = "dataset.persp_figure"
DATASET_PERSPECTIVES = "dataset.perspectives"
DATASET_ROC = "dataset.roc"
DATASET_TOPIC_FIGURE = "dataset.topic_figure"
DATASET_TOPICS = "dataset.topics"
DATASET_OPEN = "dataset.open"  # + "." + detector or id
DATASET_RESUME = "dataset.resume"  # + "." + detector or id
DATASET_SPREAD = "dataset.spread"  # + "." + detector or id
DATASET_STOP = "dataset.stop"  # + "." + detector or id

# Inspect: Generate. Each generator setting is kept under its key; its sidebar widget is
# SIDEBAR_WIDGET + key (Streamlit drops a widget's own value when the page is left).
GENERATOR_SOURCE = "generator.source"
GENERATOR_FOLDER = "generator.folder"
GENERATOR_URL = "generator.url"
GENERATOR_SERVER_MODEL = "generator.server_model"
GENERATOR_SERVER_NAME = "generator.server_name"  # one of the operator's servers, or ANOTHER_SERVER
GENERATOR_KEY = "generator.key"  # the visitor's own key for a server they name: this session's memory only
GENERATOR_MAX_TOKENS = "generator.max_tokens"
GENERATOR_GUARD = "generator.guard"
GENERATION = "inspect.generation"  # the BackgroundGeneration running for this session
GENERATION_OUTCOME = "inspect.generation_outcome"  # (kind, message) of the last one, shown once
INSPECT_GENERATE = "inspect.generate"
INSPECT_CANCEL = "inspect.cancel"
INSPECT_STREAM = "inspect-stream"  # the container of the streamed text (CSS class st-key-inspect-stream)

# Error-injection lab
LAB_BEFORE = "lab.before"
LAB_AFTER = "lab.after"
LAB_EDITS = "lab.edits"
LAB_PROBLEM = "lab.problem"
LAB_SOURCE = "lab.source"
LAB_SAMPLE = "lab.sample"
LAB_PASTE = "lab.paste"
LAB_SEED = "lab.seed"
LAB_RULE = "lab.rule"  # which argument a synthetic error takes: the demonstration's or a random one
LAB_RESPONSE = "lab.response"
LAB_SHOW_GOLD = "lab.show_gold"
LAB_ADD = "lab.add"
LAB_ADD_PERSPECTIVE = "lab.add_perspective"
LAB_ADD_TEXT = "lab.add_text"
LAB_DROP = "lab.drop"
LAB_DROP_CHOICE = "lab.drop_choice"
LAB_EDIT = "lab.edit"
LAB_EDIT_CHOICE = "lab.edit_choice"
LAB_EDIT_TEXT = "lab.edit_text"
LAB_MOVE = "lab.move"
LAB_MOVE_CHOICE = "lab.move_choice"
LAB_MOVE_TO = "lab.move_to"
LAB_PASTE_LOAD = "lab.paste_load"
LAB_RESET = "lab.reset"
LAB_RESPOND = "lab.respond"
LAB_SYNTHETIC_COVERAGE = "lab.synthetic_coverage"
LAB_SYNTHETIC_HALLUCINATION = "lab.synthetic_hallucination"
LAB_USE_CURRENT = "lab.use_current"
LAB_REPORT = "lab.report"
LAB_TAB = "lab.tab"

# Which page the previous run drew (`frame.page_frame`): a page tells a rerun from an entry.
PAGE_NOW = "page.now"
PAGE_BEFORE = "page.before"
DATASET_PAGE = "dataset"

# Links and uploads
UPLOADS = "uploaded_datasets"
LINKED_DATASET = "linked_dataset"
APPLIED_LINK = "applied_link"

# Sidebar
SIDEBAR_WIDGET = "sidebar."
SIDEBAR_DETECTORS = "sidebar.detectors"
SIDEBAR_MODEL = "sidebar.model"

# Labelling (explorer.ui.labelling), calibrating on the labels and error rates (explorer.ui.dataset.labels)
LABELS = "labels.store"  # {content hash: the example with the user's labels}
LABELS_FILE = "labels.file"  # the labels file the user named, written after every move
LABELS_PROBLEM = "labels.problem"
LABEL_QUEUE = "labels.queue"  # (what it was ordered for, [example ids]): the dataset's queue, least sure first
LABEL_AT = "labels.at"  # {dataset key: the id of the example shown}
OWN_CALIBRATION = "labels.calibration"  # the Refit this session calibrated on (or loaded), in force on every page
OWN_CALIBRATION_PROBLEM = "labels.calibration_problem"
RATES_BY = "rates_by"  # bound to the URL: the field the error rates are grouped by

# Claim view
CLAIMS_MATRIX = "claims.matrix"
CLAIMS_MATRIX_OPEN = "claims.matrix_open"  # the expander the matrix is built in when opened
CLAIMS_CARDS = "claims.cards"

# A detector's word map on Inspect: WORD_MAP + "." + page prefix and detector + "." + part.
WORD_MAP = "word_map"
WORD_MAP_PARTS = ("cell", "response_word", "argument_word", "block")

# The detectors that answer in well under a second per example; model-based ones are opt-in
# because they compute in the background.
DEFAULT_DETECTORS = ["rouge", detectors.VERDICT_DETECTOR]


def get_detector(name: str, model: str = "") -> Detector:
    """The detector with the sidebar's settings (its options with choices), loaded once per process."""
    chosen = tuple(
        (option.name, st.session_state.get(option_key(name, option), option.default))
        for option in sidebar_options(name)
    )
    return _detector(name, model, chosen)


@st.cache_resource(show_spinner="Loading detector…")
def _detector(name: str, model: str, options: tuple[tuple[str, str], ...]) -> Detector:
    return detectors.create(name, model=model, **dict(options))


def get_result_cache() -> ResultCache:
    """The cache in the configured folder (`EXPLORER_CACHE_DIR`), one per folder per process."""
    return _result_cache(cache_dir())


@st.cache_resource
def _result_cache(directory: Path) -> ResultCache:
    return ResultCache(directory)


@st.cache_resource
def get_jobs() -> JobRunner:
    return JobRunner()


@st.cache_resource
def get_generation_threads() -> ThreadPoolExecutor:
    """The threads that write responses for every session, apart from scoring's, so a generation
    never waits behind a salience job. Several, because a cancelled generation may hold its
    thread until its server answers or times out; an in-process model writes one at a time anyway."""
    return ThreadPoolExecutor(max_workers=4, thread_name_prefix="explorer-generate")


@st.cache_resource(show_spinner=False)  # shared read-only, not copied on every run (see `links._read_sample`)
def sample_examples() -> tuple[Example, ...]:
    return tuple(load_samples())


def sidebar() -> None:
    """Widgets every page shares: which detectors, which language model."""
    state = st.session_state
    state.setdefault(DETECTORS, list(DEFAULT_DETECTORS))
    state.setdefault(MODEL, "")
    with st.sidebar:
        st.multiselect(
            "Detectors",
            detectors.names(),
            default=state[DETECTORS],
            format_func=lambda name: detectors.spec(name).title,
            key=SIDEBAR_DETECTORS,
            on_change=lambda: state.__setitem__(DETECTORS, state[SIDEBAR_DETECTORS]),
            help="Which detectors score the example. What each one reads: *About the detectors* below.",
        )
        # A tooltip with every summary ran past the bottom of a 800 px screen.
        with st.expander("About the detectors"):
            st.markdown("\n\n".join(detector_about(name) for name in detectors.names()))
        if any(detectors.spec(name).uses_model for name in detectors.names()):
            st.text_input(
                "Language model",
                value=state[MODEL],
                key=SIDEBAR_MODEL,
                placeholder="default: SmolLM2-135M-Instruct (packaged)",
                help="A local Hugging Face model folder or a .gguf file, used by model-based detectors.",
                on_change=lambda: state.__setitem__(MODEL, state[SIDEBAR_MODEL].strip()),
            )
        detector_option_pickers()


def detector_about(name: str) -> str:
    """A detector's title and summary, then its dev ROC AUC and speed read from the records, as its
    card and `explorer detectors` show them (`explorer.docs.cards.about`): summaries hold no
    figures, so none goes stale when a detector is refitted."""
    return cards.about(name)


def option_key(detector_name: str, option: Option) -> str:
    """The session key of a detector option the sidebar sets (e.g. `salience_attribution`)."""
    return option.dest(detector_name)


def sidebar_options(detector_name: str) -> tuple[Option, ...]:
    """The options of a detector's spec the sidebar offers: those with choices."""
    return tuple(option for option in detectors.spec(detector_name).options if option.choices)


def detector_option_pickers() -> None:
    """A select box per sidebar option of each chosen detector, declared on its spec."""
    state = st.session_state
    for name in detectors.names():
        for option in sidebar_options(name):
            key = option_key(name, option)
            state.setdefault(key, option.default)
            if name not in state[DETECTORS]:
                continue
            st.selectbox(
                f"{detectors.spec(name).title} {option.name}",
                list(option.choices),
                index=list(option.choices).index(state[key]),
                format_func=option.choices.__getitem__,
                key=f"sidebar.{key}",
                on_change=lambda key=key: state.__setitem__(key, state[f"sidebar.{key}"]),
                help=option.about,
            )


def forget_unless(key: str, allowed: list[str]) -> None:
    """Drop the value under `key` unless it is one of `allowed`: a bound tab left on a detector
    since removed put a dead value in the URL, and an entry in the browser's history."""
    if st.session_state.get(key) not in allowed:
        st.session_state.pop(key, None)


def chosen_detectors() -> list[str]:
    return list(st.session_state.get(DETECTORS, DEFAULT_DETECTORS))
