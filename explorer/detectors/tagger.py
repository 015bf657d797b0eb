"""Token tagger: the packaged MiniLM reads the arguments and the response together and tags every
token, in the manner of LettuceDetect (Kovács and Recski, 2025), both ways at once.

One pass of a token classifier over `[CLS] arguments [SEP] response [SEP]` (the arguments as
the curly-braces text of `explorer.text.prompts.curly_braces_arguments`, query included):

- a **response** token is tagged 1 when no argument gives what it says (an invented statistic,
  reason or example, also inside a sentence that states a given argument, and also in an
  opener or a closing line: nothing is excused by its position);
- an **argument** token is tagged 1 when the response leaves it out (the whole argument, or
  the part a partial answer drops).

Not in the paper (Chang et al. 2024 score examples and align words; they tag no tokens), and
unlike LettuceDetect it also tags the context, which gives coverage its word scores. Word
scores: a word takes its highest word piece's P(error). Example scores: `hallucination` is the
response's highest word score; an argument's P(dropped) is the mean of its content words'
scores, a perspective's its worst argument's, `coverage` the worst perspective's.

A response too long for the encoder's 512 positions beside the arguments is read in windows of
whole sentences, each with all the arguments: a response word is scored in its window, an
argument word takes its lowest score over the windows (covered in any window is covered).
Nothing is truncated; arguments that leave no room for a sentence raise `DetectorError`.

The taggers learned from answers that mostly state a side's arguments in the input's order, and
read an argument the answer states out of that order as more likely dropped, and the answer as
more likely invented (`bench/argument_order.py`: read once, the tagger's mean scores on error-free
foreign dev answers rose from .186 to .254 for coverage and from .264 to .301 for hallucination
when each side's arguments were reversed). So both builds read each example twice, as given and
with each side's arguments reversed, at twice the cost, and no score of theirs, and so no
verdict, depends on the order of the arguments. How the two readings make one was chosen on the
foreign dev set (example-level ROC AUC × 100, hallucination / coverage, full organic,
paraphrased synthetic, ambiguous organic; `python bench/tagger_slices.py --merge M`):

- `tagger` (`merge = "mean"`) averages each word's score over the readings: 92.4 / 86.5,
  67.6 / 74.5, 53.7 / 70.1, against 92.3 / 86.5, 66.7 / 79.2, 54.2 / 69.4 read once and
  91.9 / 84.5, 67.6 / 75.5, 51.6 / 63.2 keeping the lower reading; its hallucination score is
  the verdict's.
- `tagger_coverage` (`merge = "lower"`) keeps for each error type the reading that scores it
  lower, with that reading's words (an answer found faithful in either order is found
  faithful): coverage 89.9, 81.8, 70.8, against 88.5, 77.8, 65.3 averaged; its coverage score is
  what the stacked detector reads.

Trained by `python -m explorer.training.tagger` (LoRA adapters and the tagging head through
PEFT, about 2 MB); `training.json` beside the weights says on what and how.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# torch is imported in the functions that run the model: building the detector (its identity,
# all a page of cached results needs) must not wait seconds for it.
from explorer.data.edits import reversed_arguments
from explorer.data.example import Example
from explorer.data.labels import ERROR_TYPES, SPAN_TASK
from explorer.detectors.base import (
    ArgumentWordScore,
    Detector,
    DetectorError,
    DetectorResult,
    Progress,
    ResponseWordScore,
)
from explorer.detectors.ops.recent import RecentResults
from explorer.models.encoder import default_model_path, encoder_identity, load_with_head
from explorer.models.identity import folder_digest
from explorer.models.loading import LoadedOnce, merged_adapter
from explorer.models.trained import TrainedNotFoundError
from explorer.text.claims import sentence_spans
from explorer.text.prompts import curly_braces_arguments
from explorer.text.words import DEFAULT_SEGMENTER

TASK = SPAN_TASK  # one model tags both error types: its folder is `<weights>/tokens`
IGNORED = -100  # a token with no label (query, braces, special tokens): no loss, no score


@dataclass(frozen=True)
class Window:
    """One encoder input: the arguments and a run of whole response sentences.

    `places[i]` says what token i covers: `("response", start, end)` in the response,
    `("argument", perspective, argument, start, end)` in that argument, or None.
    """

    input_ids: tuple[int, ...]
    token_type_ids: tuple[int, ...]
    places: tuple[tuple | None, ...]


def load_token_classifier(path: Path):
    """`path` as a two-way token classifier (`explorer.models.encoder.load_with_head`)."""
    from transformers import AutoModelForTokenClassification

    return load_with_head(path, AutoModelForTokenClassification)


def _argument_places(tokenizer, example: Example) -> tuple[list[int], list[tuple | None]]:
    prompt = curly_braces_arguments(example)
    encoded = tokenizer(prompt.text, add_special_tokens=False, return_offsets_mapping=True)
    places: list[tuple | None] = []
    for start, end in encoded["offset_mapping"]:
        place = None
        for span in prompt.arguments:
            if span.start <= start and end <= span.end and start < end:
                place = ("argument", span.perspective, span.argument, start - span.start, end - span.start)
                break
        places.append(place)
    return list(encoded["input_ids"]), places


def _response_runs(tokenizer, response: str, room: int) -> list[tuple[list[int], list[tuple]]]:
    """The response's tokens in runs of whole sentences of at most `room` tokens (a longer
    sentence is cut between its words)."""
    pieces = sentence_spans(response) or ((0, len(response)),)
    runs: list[tuple[list[int], list[tuple]]] = []
    ids: list[int] = []
    places: list[tuple] = []
    for start, end in pieces:
        encoded = tokenizer(response[start:end], add_special_tokens=False, return_offsets_mapping=True)
        piece_ids = list(encoded["input_ids"])
        piece_places = [("response", start + s, start + e) for s, e in encoded["offset_mapping"]]
        while piece_ids:
            if len(ids) + len(piece_ids) <= room:
                ids += piece_ids
                places += piece_places
                piece_ids = []
            elif ids:
                runs.append((ids, places))
                ids, places = [], []
            else:  # one sentence longer than the room: cut it where a word starts
                cut = room
                while cut > 1 and piece_places[cut][1] == piece_places[cut - 1][2]:
                    cut -= 1
                if cut == 1:  # no space in the room (a run of dots, one long word): a full window
                    cut = room
                runs.append((piece_ids[:cut], piece_places[:cut]))
                piece_ids, piece_places = piece_ids[cut:], piece_places[cut:]
    if ids or not runs:
        runs.append((ids, places))
    return runs


MIN_ROOM = 32  # response word pieces a window must hold beside the arguments


def windows(tokenizer, example: Example, limit: int) -> list[Window]:
    """The encoder inputs covering the whole example; never truncates (see the module docstring)."""
    argument_ids, argument_places = _argument_places(tokenizer, example)
    room = limit - len(argument_ids) - 3  # [CLS], [SEP], [SEP]
    if room < MIN_ROOM:
        raise DetectorError(
            f"the query and arguments are {len(argument_ids)} word pieces, leaving the tagger's {limit}-position "
            f"encoder no room for the response; they are not truncated: shorten the arguments"
        )
    cls, sep = tokenizer.cls_token_id, tokenizer.sep_token_id
    result = []
    for ids, places in _response_runs(tokenizer, example.response, room):
        result.append(
            Window(
                input_ids=(cls, *argument_ids, sep, *ids, sep),
                token_type_ids=(0,) * (len(argument_ids) + 2) + (1,) * (len(ids) + 1),
                places=(None, *argument_places, None, *places, None),
            )
        )
    return result


def token_probabilities(model, tokenizer, batch: Sequence[Window]) -> list[np.ndarray]:
    """P(error) of every token of each window (right padding; BERT positions are absolute)."""
    features = tokenizer.pad(
        [{"input_ids": list(w.input_ids), "token_type_ids": list(w.token_type_ids)} for w in batch],
        return_tensors="pt",
    )
    import torch

    logits = model(**features).logits
    probabilities = torch.softmax(logits.double(), dim=-1)[..., 1].detach().numpy()
    return [probabilities[i, : len(w.input_ids)] for i, w in enumerate(batch)]


def word_scores(example: Example, scored: Sequence[tuple[Window, np.ndarray]]):
    """Response words `(start, end, score)` and argument words `(p, a, start, end, score)`."""
    response_pieces: list[tuple[int, int, float]] = []
    argument_best: dict[tuple[int, int, int, int], float] = {}  # word -> its lowest score over windows
    for window, probabilities in scored:
        in_window: dict[tuple[int, int, int, int], float] = {}
        for place, probability in zip(window.places, probabilities):
            if place is None:
                continue
            if place[0] == "response":
                response_pieces.append((place[1], place[2], float(probability)))
            else:
                in_window[place[1:]] = float(probability)
        for key, value in _argument_words(example, in_window).items():
            argument_best[key] = min(value, argument_best.get(key, 1.0))
    response = _highest_overlap(DEFAULT_SEGMENTER.content_words(example.response), sorted(response_pieces))
    arguments = [(p, a, start, end, score) for (p, a, start, end), score in sorted(argument_best.items())]
    return response, arguments


def _highest_overlap(words, pieces: list[tuple[int, int, float]]) -> list[tuple[int, int, float]]:
    """Each word `(start, end, highest score of the pieces it overlaps)`; words and pieces in text
    order, pieces not overlapping each other (one sweep: a long response has thousands of both)."""
    scored, first = [], 0
    for word in words:
        while first < len(pieces) and pieces[first][1] <= word.start:
            first += 1
        best, i = 0.0, first
        while i < len(pieces) and pieces[i][0] < word.end:
            best = max(best, pieces[i][2])
            i += 1
        scored.append((word.start, word.end, best))
    return scored


def _argument_words(example: Example, pieces: dict[tuple[int, int, int, int], float]) -> dict:
    words = {}
    for p, a, text in example.arguments():
        for word in DEFAULT_SEGMENTER.content_words(text):
            inside = [
                s
                for (pp, aa, start, end), s in pieces.items()
                if (pp, aa) == (p, a) and start < word.end and word.start < end
            ]
            if inside:
                words[(p, a, word.start, word.end)] = max(inside)
    return words


class TaggerDetector(Detector):
    name = "tagger"
    version = "2"  # 2: reads both argument orders
    remembered = 256
    merge = "mean"  # how the two readings make one: "mean", "lower" or "given" (read once; see the module docstring)

    def __init__(self, *, encoder_path: str | Path | None = None, batch_size: int = 8, threads: int | None = 1):
        from explorer.detectors import weights

        self._path = Path(encoder_path) if encoder_path else default_model_path()
        self.identity = encoder_identity(self._path)
        try:
            self._adapter = weights(self.name).find(self.identity, TASK)
        except TrainedNotFoundError as error:
            raise DetectorError(str(error)) from error
        self.digest = folder_digest(self._adapter)
        self.batch_size = batch_size
        self.threads = threads  # one thread: two busy-waiting threads were slower on shared 2-core machines
        self._recent = RecentResults(self.remembered)
        # The identity needs no model: importing torch and PEFT takes seconds that a page of
        # cached results (the shipped samples' seeds) does not need to wait.
        self._model = LoadedOnce(self._loaded_model)

    def _loaded_model(self):
        """The tokenizer, the tagging model and its position limit."""
        tokenizer, base = load_token_classifier(self._path)
        return tokenizer, merged_adapter(base, self._adapter), int(base.config.max_position_embeddings)

    def config(self) -> dict:
        return {"adapter": self.digest, "merge": self.merge}  # results of other merges are not mixed up

    def model_identity(self) -> str:
        return f"{self.identity}+{self.name}({self.digest[:16]})"

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        return self._recent.get(example, self._score)

    def probabilities(self, example: Example) -> list[tuple[Window, np.ndarray]]:
        return self.readings([example])[0]

    def readings(self, examples: Sequence[Example]) -> list[list[tuple[Window, np.ndarray]]]:
        """Each example's windows with their tokens' P(error); the windows of all the examples
        share batches (an answer's two readings: one forward pass of two windows, not two)."""
        import torch

        tokenizer, model, limit = self._model()
        inputs = [windows(tokenizer, example, limit) for example in examples]
        previous = torch.get_num_threads()
        if self.threads:
            torch.set_num_threads(self.threads)
        try:
            scored = scored_windows(model, tokenizer, [w for read in inputs for w in read], self.batch_size)
        finally:
            torch.set_num_threads(previous)
        ends = np.cumsum([len(read) for read in inputs])
        return [scored[end - len(read) : end] for read, end in zip(inputs, ends)]

    def _score(self, example: Example) -> DetectorResult:
        if self.merge == "given" or all(len(p.arguments) < 2 for p in example.perspectives):
            read = word_scores(example, self.probabilities(example))
            return result_from_words(self.name, self.info(), example, *read)  # one argument a side: nothing to reverse
        turned = reversed_arguments(example)
        given_windows, turned_windows = self.readings([example, turned])
        read = word_scores(example, given_windows)
        response, arguments = word_scores(turned, turned_windows)
        sizes = [len(p.arguments) for p in example.perspectives]
        arguments = sorted((p, sizes[p] - 1 - a, s, e, x) for p, a, s, e, x in arguments)  # the given numbering
        if self.merge == "mean":
            return result_from_words(self.name, self.info(), example, *averaged(read, (response, arguments)))
        given, other = (result_from_words(self.name, self.info(), example, *r) for r in (read, (response, arguments)))
        low = {t: min((given, other), key=lambda r: r.score(t)) for t in ERROR_TYPES}
        return dataclasses.replace(
            low["coverage"],
            hallucination=low["hallucination"].hallucination,
            response_words=low["hallucination"].response_words,
        )


def averaged(first: tuple[list, list], second: tuple[list, list]) -> tuple[list, list]:
    """Each word's mean score over two readings of the same words (`word_scores`' response and
    argument words, the second reading's arguments numbered as the first's)."""
    merged = []
    for words, others in zip(first, second):
        other = {w[:-1]: w[-1] for w in others}
        merged.append([(*w[:-1], (w[-1] + other[w[:-1]]) / 2) for w in words])
    return merged[0], merged[1]


class CoverageTaggerDetector(TaggerDetector):
    """The same tagger trained with more answers that drop an argument or state one the input
    lacks (`python -m explorer.data.perspectrum_answers --invented arguments`) and without the
    invented facts and ambiguous answers: on the foreign dev set it ranks dropped arguments
    better and invented content worse than `tagger`, so the stacked detector reads its coverage
    scores and `tagger`'s hallucination scores."""

    name = "tagger_coverage"
    version = "2"
    merge = "lower"


def scored_windows(model, tokenizer, inputs: Sequence[Window], batch_size: int) -> list[tuple[Window, np.ndarray]]:
    """Each window with its tokens' P(error), in batches of `batch_size` windows."""
    import torch

    with torch.no_grad():
        scored: list[tuple[Window, np.ndarray]] = []
        for i in range(0, len(inputs), batch_size):
            batch = inputs[i : i + batch_size]
            scored += zip(batch, token_probabilities(model, tokenizer, batch))
        return scored


def result_from_words(name: str, info: dict, example: Example, response, arguments) -> DetectorResult:
    """The example scores from the word scores (see the module docstring); `name` and `info`
    say what made them (the trainer scores its dev set with the model it is training)."""
    by_argument: dict[tuple[int, int], list[float]] = {}
    for p, a, _, _, score in arguments:
        by_argument.setdefault((p, a), []).append(score)
    per_perspective = {
        perspective.name: max(
            (float(np.mean(by_argument.get((p, a), [0.0]))) for a in range(len(perspective.arguments))), default=0.0
        )
        for p, perspective in enumerate(example.perspectives)
    }
    return DetectorResult(
        detector=name,
        hallucination=max((score for _, _, score in response), default=0.0),
        coverage=max(per_perspective.values(), default=0.0),
        per_perspective=per_perspective,
        response_words=tuple(ResponseWordScore(*w) for w in response),
        argument_words=tuple(ArgumentWordScore(*w) for w in arguments),
        info=info,
    )
