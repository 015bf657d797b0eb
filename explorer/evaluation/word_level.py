"""Word-level gold (Chang et al. 2024, §5.3): which non-stop words overlap a gold span, and a
detector's word scores keyed the same way.
"""

from __future__ import annotations

from explorer.data.example import Example, Span
from explorer.data.labels import has_error, overlaps
from explorer.detectors.base import DetectorResult
from explorer.text.words import DEFAULT_SEGMENTER, Segmenter, Word


def response_word_labels(example: Example, segmenter: Segmenter = DEFAULT_SEGMENTER) -> list[tuple[Word, bool]]:
    """Each non-stop response word, True when it overlaps a gold hallucinated span."""
    spans = example.labels.hallucinated_spans
    return [(word, overlaps((word.start, word.end), spans)) for word in segmenter.content_words(example.response)]


def argument_word_labels(
    example: Example, segmenter: Segmenter = DEFAULT_SEGMENTER
) -> list[tuple[int, int, Word, bool]]:
    """Each non-stop argument word as `(perspective, argument, word, uncovered)`.

    An `uncovered` entry without spans marks every word of its argument.
    """
    gold: dict[tuple[int, int], list[Span] | None] = {}
    for uncovered in example.labels.uncovered:
        key = (uncovered.perspective, uncovered.argument)
        if uncovered.spans is None or gold.get(key, []) is None:
            gold[key] = None
        else:
            gold.setdefault(key, []).extend(uncovered.spans)
    labelled = []
    for p, a, text in example.arguments():
        spans = gold.get((p, a), [])
        for word in segmenter.content_words(text):
            labelled.append((p, a, word, spans is None or overlaps((word.start, word.end), spans)))
    return labelled


def has_word_labels(example: Example, error_type: str) -> bool:
    """Whether the gold labels say which words are wrong (error-free: none of them)."""
    if not has_error(example.labels, error_type):
        return True
    return bool(example.labels.hallucinated_spans if error_type == "hallucination" else example.labels.uncovered)


def word_units(
    example: Example, error_type: str, segmenter: Segmenter = DEFAULT_SEGMENTER
) -> dict[tuple, tuple[bool, tuple]]:
    """Word units of one example for `error_type`: unit key -> (gold label, score lookup key)."""
    if error_type == "hallucination":
        return {
            (example.id, "response", word.start, word.end): (label, (word.start, word.end))
            for word, label in response_word_labels(example, segmenter)
        }
    return {
        (example.id, "arguments", p, a, word.start, word.end): (label, (p, a, word.start, word.end))
        for p, a, word, label in argument_word_labels(example, segmenter)
    }


def word_scores(result: DetectorResult, error_type: str) -> dict[tuple, float]:
    if error_type == "hallucination":
        return {(w.start, w.end): w.score for w in result.response_words}
    return {(w.perspective, w.argument, w.start, w.end): w.score for w in result.argument_words}
