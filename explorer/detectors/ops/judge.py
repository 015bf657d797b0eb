"""The meaning judge: an argument and a piece of an answer read together, three ways.

all-MiniLM-L6-v2 reads `[CLS] argument [SEP] piece [SEP]` and a three-way head (with LoRA
adapters, trained by `explorer.training.judge`) gives P(*states*), P(*misstates*) and P(*absent*):
whether the piece states the argument with its meaning, states it with its meaning turned
(negated, an opposite word, a comparison or quantity flipped, roles or cause and effect
swapped), or does not state it. RefChecker's entailment / contradiction / neutral, read per
argument rather than per claim against all the evidence, so a contradiction names the argument
it turns.

Which words turn the meaning comes from occlusion (Captum's `FeatureAblation`): each content word
of the pair is replaced by `[MASK]` in turn, and a word's score is how far that lowers the
log-probability of *misstates*; the words that carry the misstatement are the ones without
which the pair reads as faithful.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from explorer.data.labels import JUDGE_LABELS, JUDGE_TASK
from explorer.models.encoder import default_model_path, encoder_identity, load_pair_classifier
from explorer.models.identity import folder_digest
from explorer.models.loading import LoadedOnce, merged_adapter
from explorer.text.words import DEFAULT_SEGMENTER

TASK = JUDGE_TASK
LABELS = JUDGE_LABELS
STATES, MISSTATES, ABSENT = range(3)
Span = tuple[int, int]


class PairTooLongError(ValueError):
    def __init__(self, tokens: int, limit: int):
        super().__init__(
            f"an argument and a piece of the response are {tokens} word pieces together, more than the judge's "
            f"{limit}; they are not truncated: shorten the argument"
        )


def encode_pair(tokenizer, argument: str, text: str, limit: int, **options) -> dict[str, list[int]]:
    """The tokenizer's encoding of one pair; `PairTooLongError` rather than a cut. `options` go to
    the tokenizer."""
    encoded = dict(tokenizer(argument, text, truncation=False, **options))
    if len(encoded["input_ids"]) > limit:
        raise PairTooLongError(len(encoded["input_ids"]), limit)
    return encoded


def pair_logits(model, tokenizer, encoded: Sequence[dict[str, list[int]]]):
    """(len(encoded), 3) logits; right padding, which BERT's absolute positions are indifferent to."""
    return model(**tokenizer.pad(list(encoded), return_tensors="pt")).logits


class Judge:
    """The encoder with the judge's adapter and head; `probabilities` of many pairs at once."""

    def __init__(self, adapter_dir: Path, model_path: Path | None = None, *, batch_size: int = 32, threads: int = 1):
        self.adapter_dir = Path(adapter_dir)
        self.model_path = Path(model_path) if model_path else default_model_path()
        self.identity = encoder_identity(self.model_path)
        self.digest = folder_digest(self.adapter_dir)
        self.batch_size = batch_size
        # One thread, as for the sentence encoder: two were slower on the shared 2-core machines.
        self.threads = threads
        self._lock = threading.Lock()
        # The verdict over results that are all cached (the shipped sample's, an eval or rates run
        # scored before) needs only the judge's identity, and loading took about 4 s.
        self._load = LoadedOnce(self._loaded_model)

    def _loaded_model(self):
        """The tokenizer, the model and its position limit."""
        tokenizer, base = load_pair_classifier(self.model_path, len(LABELS))
        return tokenizer, merged_adapter(base, self.adapter_dir), int(base.config.max_position_embeddings)

    @property
    def tokenizer(self):
        return self._load()[0]

    @property
    def model(self):
        return self._load()[1]

    @property
    def limit(self) -> int:
        return self._load()[2]

    def _run(self, function):
        import torch

        with self._lock, torch.no_grad():
            previous = torch.get_num_threads()
            torch.set_num_threads(self.threads)
            try:
                return function()
            finally:
                torch.set_num_threads(previous)

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """P(states, misstates, absent) of each `(argument, piece)`, shape (len(pairs), 3)."""
        if not pairs:
            return np.zeros((0, len(LABELS)))
        import torch

        tokenizer, model, limit = self._load()
        encoded = [encode_pair(tokenizer, a, t, limit) for a, t in pairs]
        # Batches of similar length: less padding, which costs CPU time.
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]["input_ids"]))
        found = np.zeros((len(pairs), len(LABELS)))

        def run():
            for i in range(0, len(order), self.batch_size):
                batch = order[i : i + self.batch_size]
                logits = pair_logits(model, tokenizer, [encoded[j] for j in batch])
                found[batch] = torch.softmax(logits.double(), dim=-1).numpy()
            return found

        return self._run(run)

    def turning_words(self, argument: str, text: str) -> tuple[list[tuple[int, int, float]], ...]:
        """The content words of the argument and of the piece, each `(start, end, score)` with score
        in [0, 1]: how far masking the word lowers log P(misstates), relative to the word that
        lowers it most (0 for a word that raises it)."""
        import torch
        from captum.attr import FeatureAblation

        tokenizer, model, limit = self._load()
        encoded = tokenizer(argument, text, truncation=False, return_offsets_mapping=True)
        if len(encoded["input_ids"]) > limit:
            raise PairTooLongError(len(encoded["input_ids"]), limit)
        sides = (
            DEFAULT_SEGMENTER.content_words(argument),
            DEFAULT_SEGMENTER.content_words(text),
        )
        groups, words = [], [(0, None)]  # group 0: special tokens and stop words, never read
        index = {}
        for (start, _), side in zip(encoded["offset_mapping"], encoded.sequence_ids()):
            group = 0
            if side is not None:
                for w, word in enumerate(sides[side]):
                    if word.start <= start < word.end:
                        key = (side, w)
                        if key not in index:
                            index[key] = len(words)
                            words.append((side, word))
                        group = index[key]
                        break
            groups.append(group)
        ids = torch.tensor([encoded["input_ids"]])
        types = torch.tensor([encoded["token_type_ids"]])

        def log_misstates(input_ids, token_type_ids):
            logits = model(input_ids=input_ids, token_type_ids=token_type_ids).logits
            return torch.log_softmax(logits.double(), dim=-1)[:, MISSTATES]

        def run():
            ablation = FeatureAblation(log_misstates)
            return ablation.attribute(
                ids,
                baselines=tokenizer.mask_token_id,
                additional_forward_args=(types,),
                feature_mask=torch.tensor([groups]),
                perturbations_per_eval=16,
            )[0].numpy()

        attribution = self._run(run)
        per_group = {g: float(attribution[groups.index(g)]) for g in set(groups) if g}
        top = max([v for v in per_group.values() if v > 0], default=0.0)
        found: tuple[list, list] = ([], [])
        for g, value in sorted(per_group.items()):
            side, word = words[g]
            found[side].append((word.start, word.end, max(0.0, value) / top if top else 0.0))
        return found


def shipped_judge() -> Judge:
    """The process's judge on the meaning check's shipped weights: the meaning and invention
    checks read the same one, so its weights are loaded once. Raises `TrainedNotFoundError`."""
    from explorer.detectors import weights

    return _judge_at(weights("meaning").find(encoder_identity(default_model_path()), TASK).resolve())


@functools.cache
def _judge_at(folder: Path) -> Judge:
    return Judge(folder)


def judge_identity(judge: Judge) -> str:
    return f"{judge.identity}+judge({judge.digest[:16]})"
