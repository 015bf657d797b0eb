"""Gold-label predicates shared by training, synthetic errors and evaluation.

An example is error-free when it has neither error and is not ambiguous; an example without
`labels.kind` counts as organic (see `explorer.evaluation.auc` for the slices built on these).
"""

from __future__ import annotations

from collections.abc import Sequence

from explorer.data.example import Labels, Span

ERROR_TYPES = ("hallucination", "coverage")
SPAN_TASK = "tokens"  # the token tagger's one task: both error types, token by token
JUDGE_TASK = "pairs"  # the meaning judge's one task: both error types, argument / piece pair by pair
CONTENT_TASK = "content"  # the invention check's head: whether a piece says something or frames the answer
JUDGE_LABELS = ("states", "misstates", "absent")  # what the judge reads of a pair, in its head's order
PAIR_TASK = "both"  # the fine-tuned LM classifier's one task: both error types, one answer each


ERROR_TITLES = {"hallucination": "Hallucination", "coverage": "Coverage error"}


def kind_of(labels: Labels) -> str:
    return labels.kind or "organic"


def is_ambiguous(labels: Labels) -> bool:
    return bool(labels.ambiguous) or labels.ambiguous_type is not None


def is_error_free(labels: Labels) -> bool:
    return labels.hallucination is False and labels.coverage_error is False and not is_ambiguous(labels)


def has_error(labels: Labels, error_type: str) -> bool:
    flag = labels.hallucination if error_type == "hallucination" else labels.coverage_error
    return flag is True


def contradictions(labels: Labels) -> list[str]:
    """Labels that say opposite things, e.g. `hallucination: false` with hallucinated spans.

    Reading keeps such an example and warns: which of the two is right is the annotator's call.
    """
    found = []
    if labels.hallucination is False and labels.hallucinated_spans:
        found.append(f"hallucination is false, but hallucinated_spans marks {len(labels.hallucinated_spans)} span(s)")
    if labels.coverage_error is False and labels.uncovered:
        found.append(f"coverage_error is false, but uncovered lists {len(labels.uncovered)} argument(s)")
    if labels.ambiguous is False and labels.ambiguous_type is not None:
        found.append(f"ambiguous is false, but ambiguous_type is {labels.ambiguous_type}")
    return found


def overlaps(span: Span, spans: Sequence[Span]) -> bool:
    """Whether the character span `span` shares a character with any of `spans` (e.g. gold spans)."""
    start, end = span
    return any(start < other_end and other_start < end for other_start, other_end in spans)
