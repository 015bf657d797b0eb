"""Inspect's Generate button: write the answer to the current query and perspectives with the
chosen generator, stream it into the page, then score it like any other response.

The response is written on a worker thread (`explorer.generation.background`); a fragment shows
the text so far twice a second. When the work ends, the next run of the page puts the answer
into the editor, before the editor is drawn, as the example's response (with `generated_by`),
and the page scores it with the chosen detectors. One generation runs per session: the button is
disabled while it runs and its callback refuses a second start (a double click reaches it before
the page is redrawn). Cancel drops the answer and leaves the response as it was.

Servers: a visitor picks one the operator lists (`explorer.generation.servers`, from
`st.secrets`), whose key the operator configured; a visitor never names an environment variable.
Where the operator allows it, a visitor may instead type an address and paste their own key,
which stays in this session's memory: not in the URL, a share link, a log, the cache or a report.
"""

from __future__ import annotations

import html
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future

import streamlit as st

from explorer.config import preload_generator
from explorer.data.example import Example
from explorer.data.records import FormatError
from explorer.generation import background
from explorer.generation.backends import Backend, load_generator
from explorer.generation.background import BackgroundGeneration
from explorer.generation.base import GENERATED_BY, GenerationSettings
from explorer.generation.npov import ContextTooLongError
from explorer.generation.server import ServerError, public_url
from explorer.generation.servers import SECTION, ServerConfigError, free_form_allowed, operator_servers
from explorer.models.language_model import InvalidModelError
from explorer.render import markdown
from explorer.ui import editor, state
from explorer.ui.text import literal

PACKAGED, FOLDER, SERVER = "Packaged model", "Local model", "Server"
ANOTHER_SERVER = "Another server…"  # a visitor's own address and key, where the operator allows it
NO_OWN_SERVER = "Typing a server's address of your own is off on an app served beyond its machine."
NO_SERVER = (
    "No generation server is set up for this app: its operator lists the servers visitors may use "
    f"(docs/guide/servers.md). {NO_OWN_SERVER}"
)
DEFAULTS = {
    state.GENERATOR_SOURCE: PACKAGED,
    state.GENERATOR_FOLDER: "",
    state.GENERATOR_URL: "http://127.0.0.1:8000/v1",
    state.GENERATOR_SERVER_MODEL: "",
    state.GENERATOR_KEY: "",
    state.GENERATOR_MAX_TOKENS: GenerationSettings().max_new_tokens,
    state.GENERATOR_GUARD: Backend().guard,
}


def _kept(widget, label: str, key: str, **options):
    """A sidebar widget whose value is kept under `key` across pages."""
    session = st.session_state
    widget_key = state.SIDEBAR_WIDGET + key

    def keep() -> None:
        session[key] = session[widget_key]

    if widget in (st.radio, st.selectbox):
        options["index"] = options["options"].index(session[key])
    else:
        options["value"] = session[key]
    return widget(label, key=widget_key, on_change=keep, **options)


def sidebar_settings() -> tuple[Backend | None, GenerationSettings]:
    """The generator and its settings, chosen in the sidebar (no generator: a server was asked
    for and there is none to choose)."""
    session = st.session_state
    for key, value in DEFAULTS.items():
        session.setdefault(key, value)
    with st.sidebar, st.expander("Generator", expanded=False):
        source = _kept(
            st.radio,
            "Writes the answer",
            state.GENERATOR_SOURCE,
            options=[PACKAGED, FOLDER, SERVER],
            help="**Generate** on this page writes the answer to the query from the perspectives with: the "
            "packaged SmolLM2-135M-Instruct and its adapter (small: it restates the arguments it is given, and "
            "now and then drops, repeats or misplaces one), a model folder or .gguf file on this machine, or a "
            "model on an OpenAI-compatible server (vLLM, Ollama, llama.cpp, TGI, `transformers serve`).",
        )
        guard = True
        if source != SERVER:
            guard = _kept(
                st.checkbox,
                "Coverage guard",
                state.GENERATOR_GUARD,
                help="With an adapter, a side's section stays open until it states each of that side's "
                "arguments: the model may not start the other side or end its answer before. Untick it to "
                "see what the model writes on its own.",
            )
        backend = Backend(guard=guard)
        if source == FOLDER:
            folder = _kept(st.text_input, "Model folder or .gguf file", state.GENERATOR_FOLDER)
            backend = Backend(model=folder.strip(), guard=guard)
        elif source == SERVER:
            backend = _server()
        tokens = _kept(st.number_input, "Most tokens to write", state.GENERATOR_MAX_TOKENS, min_value=1, step=50)
    return backend, GenerationSettings(max_new_tokens=int(tokens))


def _operator_config() -> dict:
    """The `[generation]` table of the app's secrets, empty without a secrets file."""
    if not st.secrets.load_if_toml_exists():
        return {}
    config = st.secrets.get(SECTION, {})
    return dict(config) if isinstance(config, Mapping) else {"servers": config}


def _server() -> Backend | None:
    """The server chosen: one the operator lists, or (where allowed) the visitor's own; None when
    there is none to choose (the sidebar says why)."""
    session = st.session_state
    config = _operator_config()
    try:
        listed = operator_servers(config)
        free = free_form_allowed(config, st.get_option("server.address"))
    except ServerConfigError as error:  # the operator's to fix: named, never with a key
        st.error(literal(f"The app's list of generation servers cannot be used: {error}"))
        listed, free = (), False
    names = [server.name for server in listed] + ([ANOTHER_SERVER] if free else [])
    if not names:
        st.info(NO_SERVER)
        return None
    if session.get(state.GENERATOR_SERVER_NAME) not in names:
        session[state.GENERATOR_SERVER_NAME] = names[0]
    chosen = _kept(
        st.selectbox,
        "Server",
        state.GENERATOR_SERVER_NAME,
        options=names,
        help="The OpenAI-compatible servers this app's operator set up, each with its model and key"
        + (f"; *{ANOTHER_SERVER}* takes an address and a key of your own." if free else "."),
    )
    if chosen != ANOTHER_SERVER:
        server = next(server for server in listed if server.name == chosen)
        st.caption(literal(server.shown))
        if not free:
            st.caption(NO_OWN_SERVER)
        return server.backend()
    url = _kept(st.text_input, "Server URL", state.GENERATOR_URL, help="Its OpenAI-compatible API address.")
    model = _kept(st.text_input, "Model name", state.GENERATOR_SERVER_MODEL, help="The server's name for it.")
    key = _kept(
        st.text_input,
        "Your API key",
        state.GENERATOR_KEY,
        type="password",
        placeholder="none",
        help="Your own key for that server, if it needs one: kept in this session's memory only, sent to that "
        "address only, and never put in the page's link, a share link, a report, the cache or a log.",
    )
    backend = Backend(model=model.strip(), base_url=url.strip(), api_key=key.strip())
    st.caption(literal(own_server_caption(backend)))
    return backend


def own_server_caption(backend: Backend) -> str:
    """Where Generate sends and whether a key goes with it (never a character of the key): a pasted
    key is applied on Enter or leaving the box, and a reader should see that it was."""
    if not backend.base_url:
        return "Generate needs the server's URL."
    key = "with the key you pasted" if backend.api_key else "without a key"
    return f"Generate sends to {public_url(backend.base_url)} as model {backend.model or '(none named)'}, {key}."


def take_finished(prefix: str) -> None:
    """A finished generation's answer into the editor under `prefix`; call before the editor is drawn."""
    session = st.session_state
    run: BackgroundGeneration | None = session.get(state.GENERATION)
    if run is None or not run.finished:
        return
    del session[state.GENERATION]
    try:
        made = run.outcome()
    except (ServerError, ContextTooLongError, InvalidModelError, ValueError) as error:  # says what to fix
        session[state.GENERATION_OUTCOME] = ("error", f"{run.example.id}: {error}")
        return
    except Exception as error:  # unforeseen: named, not a traceback over the page
        session[state.GENERATION_OUTCOME] = ("error", f"{run.example.id}: {type(error).__name__}: {error}")
        return
    if made is None:
        session[state.GENERATION_OUTCOME] = ("info", "Cancelled: the response is as it was.")
        return
    editor.load_into_editor(prefix, made)
    by = ", ".join(f"{k} {v}" for k, v in made.extra[GENERATED_BY].items())
    seconds = time.monotonic() - run.started
    echoed = " The server sent the API key back in its answer: it is masked as ***." if run.echoed_key else ""
    session[state.GENERATION_OUTCOME] = ("success", f"Written by {by} in {seconds:.0f} s, and scored below.{echoed}")


def _start(example: Example, backend: Backend, settings: GenerationSettings) -> None:
    session = st.session_state
    running = session.get(state.GENERATION)
    session[state.GENERATION] = background.start(running, example, backend, settings, state.get_generation_threads())
    if session[state.GENERATION] is not running:
        session.pop(state.GENERATION_OUTCOME, None)


def _cancel() -> None:
    running = st.session_state.get(state.GENERATION)
    if running is not None:
        running.cancel()


def buttons(
    example: Example, problems: Sequence[FormatError], backend: Backend | None, settings: GenerationSettings
) -> None:
    """Generate and Cancel."""
    run: BackgroundGeneration | None = st.session_state.get(state.GENERATION)
    running = run is not None and not run.finished
    # The response is what gets written: only the query and perspectives must be valid.
    blocking = [p for p in problems if not p.field.startswith("response")]
    go, stop = st.columns(2)
    go.button(
        "Generate",
        key=state.INSPECT_GENERATE,
        on_click=_start,
        args=(example, backend, settings),
        disabled=running or bool(blocking) or backend is None,
        help="Write the answer to this query from these perspectives with the generator chosen in the sidebar "
        "(*Generator*), then score it. The current response is replaced.",
    )
    stop.button("Cancel", key=state.INSPECT_CANCEL, on_click=_cancel, disabled=not running)


def show_progress() -> None:
    """The text streaming in while a generation runs, else how the last one ended."""
    session = st.session_state
    run: BackgroundGeneration | None = session.get(state.GENERATION)
    if run is not None:
        # Finished since `take_finished` looked, earlier in this run (a fast server, a busy
        # machine): no fragment would be left to take it, and the page would wait for ever.
        if run.finished:
            st.rerun()
        _stream(run)
        return
    outcome = session.get(state.GENERATION_OUTCOME)
    if outcome is not None:
        kind, message = outcome
        {"error": st.error, "info": st.info, "success": st.success}[kind](literal(message))


@st.cache_resource(show_spinner=False)
def _loading(backend: Backend) -> Future:
    return state.get_generation_threads().submit(load_generator, backend)


def preload(backend: Backend | None) -> None:
    """Load the chosen in-process generator on a generation thread, once per process, so that
    Generate writes its first words at once instead of after the model's load (seconds; on a
    busy machine a minute). A load that fails is not reported here: Generate reports it. Off
    with `EXPLORER_PRELOAD_GENERATOR=0`."""
    if backend is not None and not backend.on_server and preload_generator():
        _loading(backend)


@st.fragment(run_every=0.5)
def _stream(run: BackgroundGeneration) -> None:
    """The text so far as markdown (the answer's headers and bullets as they will show), redrawn
    twice a second; the whole page reruns once the work is done."""
    if run.finished:
        st.rerun()
    now = time.monotonic()
    with st.container(key=state.INSPECT_STREAM, border=True):
        if run.writing_since is None:
            st.caption(f"Loading the model (once per server)… {now - run.started:.0f} s")
            return
        st.caption(f"Writing the answer… {now - run.writing_since:.0f} s")
        # A bold phrase still being written ("**Short") is closed for the moment, not shown as typed.
        text = run.text.rstrip()
        text += "**" if text.count("**") % 2 else ""
        shown = markdown.render(text, lambda start, end: html.escape(text[start:end])) if text else "…"
        st.html(f'<div data-stream style="line-height:1.6">{shown}</div>')
