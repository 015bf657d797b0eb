"""The lab's synthetic errors chosen to demonstrate, and whether the verdict caught them.

The paper's procedure (Chang et al. 2024, §4.2; `explorer.data.synthetic`) removes or adds an
argument at random. For a dataset that is right; for a demonstration it is not: a random
removal often takes an argument whose words other arguments also give (the response's sentence
stays supported), and a random addition one the response half states. So the lab chooses by a
rule that says what it demonstrates, from the text alone (never by trying the detectors):

- a hallucination removes the argument the response states most distinctly: of the arguments
  that may go (`synthetic.removable_arguments`), the one whose statement in the response (the
  recorded `verbalizations`, else the response sentence sharing most of its words) has the
  largest share of content words no other argument gives, once the query's words are left out.
  After the edit, that statement is the response's least supported text;
- a coverage error adds the unused argument of the topic (`synthetic.addable_arguments`) whose
  content words the response and the example's arguments use least: content no argument gives.

Ties go to the argument with more such words, then to the first. `caught` then reads the
verdict on the edited example against its new gold labels: caught (likely, and pointing at the
edit), likely but pointing elsewhere, unclear, or missed, with the facts for why not. The rule
does not change when the detectors do, so the lab keeps saying honestly whether the verdict's
detector finds its own synthetic error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from explorer.data import synthetic
from explorer.data.example import Example
from explorer.data.labels import overlaps
from explorer.detectors.base import DetectorResult
from explorer.evaluation.calibration import LIKELY, UNCLEAR
from explorer.evaluation.verdict import Verdict
from explorer.text.claims import sentence_spans
from explorer.text.words import DEFAULT_SEGMENTER

CAUGHT, ELSEWHERE, UNSURE, MISSED = "caught", "elsewhere", "unclear", "missed"


@dataclass(frozen=True)
class Choice:
    """What a synthetic edit removes or adds, and the rule's measure: `distinct` of `words` content
    words are the ones the rule counts (no other argument gives them; the response and the
    arguments do not use them)."""

    error_type: str
    perspective: int
    text: str
    distinct: int
    words: int
    argument: int | None = None  # the argument removed (a hallucination)

    @property
    def share(self) -> float:
        return self.distinct / self.words if self.words else 0.0


def _stems(text: str, leave_out: frozenset[str] = frozenset()) -> frozenset[str]:
    return frozenset(DEFAULT_SEGMENTER.content_stems(text)) - leave_out


def _statement(example: Example, perspective: int, argument: int, stems: frozenset[str]) -> str:
    """Where the response states the argument: its recorded spans, else the sentence sharing most of its words."""
    spans = synthetic.verbalizations(example).get((perspective, argument))
    if spans:
        return " ".join(example.response[start:end] for start, end in spans)
    sentences = [example.response[start:end] for start, end in sentence_spans(example.response)]
    return max(sentences, key=lambda sentence: len(_stems(sentence) & stems), default="")


def removal(example: Example) -> Choice | None:
    """The argument a demonstration removes for a hallucination (see the module doc); None when none may go."""
    query = _stems(example.query)
    best = None
    for p, a in synthetic.removable_arguments(example):
        others = frozenset().union(*(_stems(text) for q, b, text in example.arguments() if (q, b) != (p, a)), query)
        said = _stems(_statement(example, p, a, _stems(example.perspectives[p].arguments[a], query)), query)
        choice = Choice("hallucination", p, example.perspectives[p].arguments[a], len(said - others), len(said), a)
        if best is None or (choice.share, choice.distinct) > (best.share, best.distinct):
            best = choice
    return best


def addition(example: Example, pool: synthetic.SparePool) -> Choice | None:
    """The unused argument a demonstration adds for a coverage error (see the module doc); None without one."""
    query = _stems(example.query)
    used = frozenset().union(_stems(example.response), *(_stems(text) for _, _, text in example.arguments()))
    best = None
    for p, text in synthetic.addable_arguments(example, pool):
        stems = _stems(text, query)
        choice = Choice("coverage", p, text, len(stems - used), len(stems))
        if best is None or (choice.share, choice.distinct) > (best.share, best.distinct):
            best = choice
    return best


@dataclass(frozen=True)
class Catch:
    """Whether the verdict on an edited example found the error its gold labels now record.

    `outcome`: `CAUGHT` (likely, pointing at the gold sentence or argument, or likely where the
    gold marks no span), `ELSEWHERE` (likely, pointing at other text), `UNSURE` (unclear) or
    `MISSED` (unlikely, or no calibrated verdict). `before` is the verdict on the example before
    the edits; `gold_words` the detector's highest word score inside the gold text (None where
    the gold marks none or the detector scores none of its words).
    """

    error_type: str
    outcome: str
    verdict: Verdict
    before: Verdict | None
    gold_text: str
    gold_words: float | None


def _gold(example: Example, result: DetectorResult, error_type: str) -> tuple[list[tuple[int, int]], str, list[float]]:
    """The gold spans (response offsets) or arguments (perspective, argument), their text, and
    the detector's word scores there."""
    labels = example.labels
    if error_type == "hallucination":
        spans = list(labels.hallucinated_spans)
        text = " ".join(example.response[start:end] for start, end in spans)
        scores = [w.score for w in result.response_words if any(s <= w.start and w.end <= e for s, e in spans)]
        return spans, text, scores
    refs = [(u.perspective, u.argument) for u in labels.uncovered]
    text = " ".join(example.perspectives[p].arguments[a] for p, a in refs)
    scores = [w.score for p, a in refs for w in result.argument_word_scores(p, a)]
    return refs, text, scores


def caught(
    example: Example,
    verdicts: Mapping[str, Verdict],
    result: DetectorResult,
    before: Mapping[str, Verdict] | None = None,
) -> dict[str, Catch]:
    """Per error type the gold labels of `example` record, whether `verdicts` (made from `result`) found it."""
    labels = example.labels
    found = {}
    for error_type, present in (("hallucination", labels.hallucination), ("coverage", labels.coverage_error)):
        if not present:
            continue
        verdict = verdicts[error_type]
        where, text, scores = _gold(example, result, error_type)
        piece = verdict.piece
        if verdict.verdict == LIKELY:
            if not where or piece is None:
                outcome = CAUGHT
            elif error_type == "hallucination":
                outcome = CAUGHT if overlaps((piece.start, piece.end), where) else ELSEWHERE
            else:
                outcome = CAUGHT if (piece.perspective, piece.argument) in where else ELSEWHERE
        else:
            outcome = UNSURE if verdict.verdict == UNCLEAR else MISSED
        found[error_type] = Catch(
            error_type,
            outcome,
            verdict,
            (before or {}).get(error_type),
            text,
            max(scores) if scores else None,
        )
    return found
