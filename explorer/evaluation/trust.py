"""Faithfulness and trust metrics after Chiesurin et al. 2023, "The Dangers of trusting
Stochastic Parrots: Faithfulness and Trust in Open-domain Conversational Question Answering"
(Findings of ACL 2023, https://aclanthology.org/2023.findings-acl.60).

The paper finds that users trust answers that repeat their question's words (lexical
alignment) even when the answer is not grounded in the knowledge it was given. Per example:

- query alignment: unigram precision (share of the response's words found in the query),
  recall (share of the query's words the response repeats) and F1;
- Knowledge-F1 (K-F1): unigram F1 between the response and the knowledge, here every argument
  of every perspective taken together;
- K-F1++: K-F1 "after subtracting any tokens appearing in the question from the response",
  so only what the response adds beyond the question counts as grounding;
- trust trap: the response repeats the query (query recall at or above a threshold) while
  its novel content is poorly grounded (K-F1++ below a threshold). Both thresholds are
  chosen on answers written outside the team, the Perspectrum dev build (`bench/tune_trust.py`),
  and shown with the flag: query recall the median answer's, K-F1++ below 95% of the faithful
  answers'. (Chosen on the sample's own answers, K-F1++ 0.64 flagged half of the faithful
  human paraphrases there, as often as the hallucinations.)

Unigrams are the project's content words (`explorer.text.words`: stop words dropped, Porter stems),
with clipped counts as in ROUGE-1, so these numbers use the same words as every highlight.
Departure: the paper's K-F1 counts every token; dropping stop words keeps "the", "of" and
"is" from passing for grounding or for alignment. A response with no word left after the
query's words are removed has K-F1++ = 0 (it adds nothing grounded).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pandas as pd

from explorer.data.example import Example
from explorer.text.words import DEFAULT_SEGMENTER, Segmenter

# Chosen on the Perspectrum dev build by bench/tune_trust.py; see that script's output.
QUERY_RECALL_THRESHOLD = 0.83
KF1_PLUS_THRESHOLD = 0.04


@dataclass(frozen=True)
class Overlap:
    """Unigram precision, recall and F1 of a candidate text against a reference text."""

    precision: float
    recall: float
    f1: float


def unigram_overlap(candidate: Counter, reference: Counter) -> Overlap:
    """Clipped unigram overlap: P = |c ∩ r| / |c|, R = |c ∩ r| / |r|, F1 their harmonic mean.

    An empty candidate or reference gives 0 for the ratio it would divide.
    """
    matched = sum(min(count, reference[stem]) for stem, count in candidate.items())
    precision = matched / sum(candidate.values()) if candidate else 0.0
    recall = matched / sum(reference.values()) if reference else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return Overlap(precision, recall, f1)


@dataclass(frozen=True)
class TrustThresholds:
    query_recall: float = QUERY_RECALL_THRESHOLD
    kf1_plus: float = KF1_PLUS_THRESHOLD


def choose_thresholds(examples: Sequence[Example], false_alarms: float = 0.05) -> TrustThresholds:
    """The thresholds `bench/tune_trust.py` ships, from labelled answers written outside the team:
    query recall the median answer's; K-F1++ the `false_alarms` quantile of the error-free
    answers'. Each rounded down to two decimals."""
    frame = trust_frame(examples)
    faithful = [e.id for e in examples if e.labels.hallucination is False and e.labels.coverage_error is False]
    return TrustThresholds(
        query_recall=math.floor(frame["query recall"].median() * 100) / 100,
        kf1_plus=math.floor(frame.loc[faithful, "K-F1++"].quantile(false_alarms) * 100) / 100,
    )


@dataclass(frozen=True)
class TrustMetrics:
    query_alignment: Overlap
    knowledge_f1: float
    knowledge_f1_plus: float
    thresholds: TrustThresholds

    @property
    def trust_trap(self) -> bool:
        """Aligned with the query, poorly grounded in the arguments."""
        return (
            self.query_alignment.recall >= self.thresholds.query_recall
            and self.knowledge_f1_plus < self.thresholds.kf1_plus
        )

    def as_row(self) -> dict[str, float | bool]:
        return {
            "query precision": self.query_alignment.precision,
            "query recall": self.query_alignment.recall,
            "query F1": self.query_alignment.f1,
            "K-F1": self.knowledge_f1,
            "K-F1++": self.knowledge_f1_plus,
            "trust trap": self.trust_trap,
        }


def trust_metrics(
    example: Example, thresholds: TrustThresholds | None = None, segmenter: Segmenter = DEFAULT_SEGMENTER
) -> TrustMetrics:
    response = segmenter.content_stems(example.response)
    query = segmenter.content_stems(example.query)
    knowledge = Counter()
    for _, _, argument in example.arguments():
        knowledge += segmenter.content_stems(argument)
    novel = Counter({stem: count for stem, count in response.items() if stem not in query})
    return TrustMetrics(
        query_alignment=unigram_overlap(response, query),
        knowledge_f1=unigram_overlap(response, knowledge).f1,
        knowledge_f1_plus=unigram_overlap(novel, knowledge).f1,
        thresholds=thresholds or TrustThresholds(),
    )


def trust_frame(examples: Iterable[Example], thresholds: TrustThresholds | None = None) -> pd.DataFrame:
    """One row per example id: query precision / recall / F1, K-F1, K-F1++, trust trap."""
    rows = {example.id: trust_metrics(example, thresholds).as_row() for example in examples}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "id"
    return frame
