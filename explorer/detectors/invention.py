"""Invented content: a piece of the answer that says something and states no given argument.

A background fact, a rebuttal, a consensus claim or a conclusion that takes a side is a piece of
the answer no argument is stated in, as is a lead-in or a closing line; what tells them apart is
whether the piece says something. Two readings, both per piece of the answer (cut at every
comma, semicolon and colon: `explorer.text.claims.piece_spans`):

1. *content*: P(the piece says something rather than framing the answer), a logistic head on
   the piece's all-MiniLM-L6-v2 embedding trained on the team-written corpus's invented spans
   against its framing pieces (`explorer.training.invention`);
2. *unstated*: 1 - the meaning judge's highest P(states) over the given arguments, each read
   beside the piece (`explorer.detectors.ops.judge`): high where no argument is stated there
   faithfully, so a piece that turns an argument counts as one that states none (version 1 read
   the least P(absent), which a turned argument keeps low).

A piece's score is content x unstated; the answer's hallucination score is its highest piece's.
The judge reads the `READ` pieces with the most content: a piece left out scores at most its
content, less than every piece read, so it could only come first where the judge finds the
read ones stated. Response words take their piece's score (0 in a piece the judge did not read).
No coverage signal: every argument scores 0.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from explorer.data.example import Example
from explorer.data.labels import CONTENT_TASK as TASK
from explorer.detectors.base import Detector, DetectorError, DetectorResult, Progress
from explorer.detectors.ops.alignment import TooLongError, fitted
from explorer.detectors.ops.judge import ABSENT, LABELS, STATES, Judge, PairTooLongError, judge_identity, shipped_judge
from explorer.detectors.ops.logistic_head import MODEL_FILE, LogisticHead
from explorer.detectors.ops.recent import RecentResults
from explorer.models.encoder import SentenceEncoder, shared_encoder
from explorer.models.trained import TrainedNotFoundError
from explorer.text.claims import Span, piece_spans

READ = 8  # pieces the judge reads beside every argument, most content first


def judged(judge: Judge, texts: Sequence[str], arguments: Sequence[str]) -> np.ndarray:
    """The judge's probabilities for every argument read beside every text: (texts, arguments, labels)."""
    pairs = [(argument, text) for text in texts for argument in arguments]
    return judge.probabilities(pairs).reshape(len(texts), len(arguments), len(LABELS))


def unstated(probabilities: np.ndarray) -> np.ndarray:
    """Each text's 1 - highest P(states) over the arguments (1 where there are none)."""
    if not probabilities.shape[1]:
        return np.ones(probabilities.shape[0])
    return 1 - probabilities[:, :, STATES].max(axis=1)


def least_absent(probabilities: np.ndarray) -> np.ndarray:
    """Each text's least P(absent) over the arguments (1 where there are none): version 1's reading."""
    if not probabilities.shape[1]:
        return np.ones(probabilities.shape[0])
    return probabilities[:, :, ABSENT].min(axis=1)


class InventionDetector(Detector):
    name = "invention"
    title = "Invented content (judge + content head)"
    version = "2"
    remembered = 256

    def __init__(self, *, encoder: SentenceEncoder | None = None, judge: Judge | None = None):
        from explorer.detectors import weights

        self.encoder = encoder or shared_encoder()
        try:
            folder = weights(self.name).find(self.encoder.identity(), TASK)
            judge = judge or shipped_judge()
        except TrainedNotFoundError as error:
            raise DetectorError(str(error)) from error
        self.head = LogisticHead.load(folder)
        # The weights alone key the results: a training record's wording does not change a score.
        self.digest = hashlib.sha256((folder / MODEL_FILE).read_bytes()).hexdigest()
        self.judge = judge
        self._recent = RecentResults(self.remembered)

    def model_identity(self) -> str:
        return f"{judge_identity(self.judge)}; encoder {self.encoder.identity()}"

    def config(self) -> dict:
        return {"head": self.digest, "read": READ}

    def _pieces(self, example: Example) -> list[Span]:
        try:
            return fitted(self.encoder, example.response, piece_spans(example.response))
        except TooLongError as error:
            raise DetectorError(str(error)) from error

    def prepare(self, examples: Sequence[Example]) -> None:
        texts: list[str] = []
        for example in examples:
            try:
                texts += [example.response[s:e] for s, e in self._pieces(example)]
            except DetectorError:
                continue  # refused again, with its reason, when scored
        self.encoder.encode(texts)

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        return self._recent.get(example, self._score)

    def _score(self, example: Example) -> DetectorResult:
        pieces = self._pieces(example)
        texts = [example.response[s:e] for s, e in pieces]
        content = self.head.p_error(self.encoder.encode(texts)) if texts else np.zeros(0)
        read = [int(i) for i in np.argsort(-content, kind="stable")[:READ]]
        arguments = [text for _, _, text in example.arguments()]
        try:
            probabilities = judged(self.judge, [texts[i] for i in read], arguments)
        except PairTooLongError as error:
            raise DetectorError(str(error)) from error
        scores = np.zeros(len(pieces))
        scores[read] = content[read] * unstated(probabilities)
        return DetectorResult.from_units(
            self,
            example,
            [(start, end, float(s)) for (start, end), s in zip(pieces, scores)],
            {(p, a): 0.0 for p, a, _ in example.arguments()},
        )
