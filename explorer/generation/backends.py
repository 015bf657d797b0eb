"""Which generator writes, as the command line and the Inspect page name it, and building it.

A `Backend` with a `base_url` is a model behind an OpenAI-compatible server (`model` is the
server's name for it); without one it is a causal LM run in this process (`model` a local
folder or `.gguf` file, empty for the packaged SmolLM2). An in-process model is loaded once per
process and shared, as the detectors' models are: the app's sessions all use one copy.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from explorer.generation.base import Generator
from explorer.generation.server import DEFAULT_DEADLINE, DEFAULT_RETRIES, DEFAULT_TIMEOUT, ServerGenerator

AUTO, NONE = "auto", "none"  # adapter: the one trained for the model if any; none


@dataclass(frozen=True)
class Backend:
    model: str = ""
    base_url: str = ""
    api_key_env: str = ""  # the command line: the name of the variable holding the key
    # The app: the key itself (the operator's for a server they list, or the visitor's own);
    # left out of the repr, so that no message or log that shows a Backend shows it.
    api_key: str = field(default="", repr=False)
    timeout: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    deadline: float = DEFAULT_DEADLINE
    adapter: str = AUTO  # in-process only: auto, none, or a trained folder
    guard: bool = True  # in-process with an adapter only: `explorer.generation.coverage_guard`

    @property
    def on_server(self) -> bool:
        return bool(self.base_url.strip())


_LOADED: dict[tuple[str, str, bool], Generator] = {}
_LOCK = threading.Lock()


def load_generator(backend: Backend) -> Generator:
    """The generator `backend` names. Raises `ValueError` for options that cannot work together
    or an adapter that is not a folder, `explorer.models.language_model.InvalidModelError`
    for a local model that cannot be used."""
    if backend.on_server:
        if backend.adapter != AUTO:
            raise ValueError("an adapter applies to a model run here, not to one on a server")
        return ServerGenerator(
            backend.base_url,
            backend.model,
            backend.api_key_env or None,
            api_key=backend.api_key or None,
            timeout=backend.timeout,
            retries=backend.retries,
            deadline=backend.deadline,
        )
    key = (backend.model.strip(), backend.adapter, backend.guard)
    with _LOCK:  # two sessions asking at once would load the model twice
        if key not in _LOADED:
            _LOADED[key] = _in_process(*key)
        return _LOADED[key]


def _in_process(model: str, adapter: str, guard: bool) -> Generator:
    from explorer.generation.npov import NpovGenerator, find_adapter
    from explorer.models.language_model import load_language_model
    from explorer.models.trained import ADAPTER_FILE

    given = None if adapter in (AUTO, NONE) else Path(adapter)
    if given is not None and not given.is_dir():
        raise ValueError(f"adapter {given} is not a folder")
    if given is not None and not (given / ADAPTER_FILE).is_file():  # checked before the model loads
        raise ValueError(
            f"adapter {given} holds no {ADAPTER_FILE}: adapters are read as safetensors only "
            "(a pickled adapter_model.bin could run code when loaded)"
        )
    language_model = load_language_model(model or None)
    chosen = find_adapter(language_model.identity) if adapter == AUTO else given
    # The adapters restate their input, which is what the guard's test of "stated" relies on.
    return NpovGenerator(language_model, chosen, guard=guard and chosen is not None)
