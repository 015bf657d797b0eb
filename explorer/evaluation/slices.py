"""The paper's test slices (Chang et al. 2024, Table 1): which examples are positives and
negatives of an error type in each slice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from explorer.data.example import Example, Labels
from explorer.data.labels import ERROR_TITLES, ERROR_TYPES, has_error, is_ambiguous, is_error_free, kind_of


@dataclass(frozen=True)
class Slice:
    name: str
    title: str
    negative_kind: str
    positive_kind: str
    ambiguous_positives: bool

    def describe(self, error_type: str) -> str:
        error = "hallucination" if error_type == "hallucination" else "coverage error"
        which = "an ambiguous" if self.ambiguous_positives else "a full (not ambiguous)"
        return (
            f"{self.title}: error-free {self.negative_kind} examples vs "
            f"{self.positive_kind} examples with {which} {error}"
        )


SLICES = (
    Slice("full_organic", "Full organic", "organic", "organic", ambiguous_positives=False),
    Slice("unparaphrased_synthetic", "Unparaphrased synthetic", "organic", "synthetic", ambiguous_positives=False),
    Slice(
        "paraphrased_synthetic",
        "Paraphrased synthetic",
        "paraphrased",
        "synthetic_paraphrased",
        ambiguous_positives=False,
    ),
    Slice("ambiguous_organic", "Ambiguous organic", "organic", "organic", ambiguous_positives=True),
)


SLICES_BY_NAME = {s.name: s for s in SLICES}


def slice_label(labels: Labels, error_type: str, slice_name: str) -> bool | None:
    """True: a positive of the slice; False: a negative; None: not in the slice."""
    chosen = SLICES_BY_NAME[slice_name]
    kind = kind_of(labels)
    if is_error_free(labels):
        return False if kind == chosen.negative_kind else None
    if kind == chosen.positive_kind and is_ambiguous(labels) == chosen.ambiguous_positives:
        return True if has_error(labels, error_type) else None
    return None


def slice_members(examples: Sequence[Example], error_type: str, slice_name: str) -> list[tuple[Example, bool]]:
    """The slice's examples with their gold label (True = has the error), in input order."""
    members = []
    for example in examples:
        label = slice_label(example.labels, error_type, slice_name)
        if label is not None:
            members.append((example, label))
    return members


def rankable_slices(examples: Sequence[Example]) -> Iterator[tuple[str, Slice, list[tuple[Example, bool]]]]:
    """Each error type's slices that hold both examples with the error and examples without it,
    with their members (`slice_members`): the slices a ROC AUC can be computed on."""
    for error_type in ERROR_TYPES:
        for chosen in SLICES:
            members = slice_members(examples, error_type, chosen.name)
            if len({label for _, label in members}) == 2:
                yield error_type, chosen, members


def left_out_reasons(examples: Sequence[Example], error_type: str) -> dict[str, int]:
    """Why examples are in none of `error_type`'s slices, with counts (for the report)."""
    other = "coverage" if error_type == "hallucination" else "hallucination"
    reasons: Counter[str] = Counter()
    for example in examples:
        labels = example.labels
        if any(slice_label(labels, error_type, s.name) is not None for s in SLICES):
            continue
        if labels.hallucination is None or labels.coverage_error is None:
            reasons["unlabelled"] += 1
        elif has_error(labels, other) and not has_error(labels, error_type):
            reasons[f"{ERROR_TITLES[other].lower()} only"] += 1
        elif is_ambiguous(labels) and not has_error(labels, error_type):
            reasons["ambiguous without this error"] += 1
        else:
            reasons[f"error-free or error of kind {kind_of(labels)} (no slice for it)"] += 1
    return dict(reasons)


def variant_of(example: Example) -> str | None:
    """The recipe variant a record names in its top-level `variant` field (e.g. `R`, a distorted
    argument, in `../shared/data/npov_foreign/dev_v3.jsonl`), or None."""
    variant = example.extra.get("variant")
    return str(variant) if variant is not None else None


def variant_slices(examples: Sequence[Example], error_type: str) -> list[tuple[str, list[tuple[Example, bool]]]]:
    """Per variant with examples of the error, its members: those examples as positives against
    every error-free organic example (the `A` answers of a recipe) as negatives; none when the
    records name no variant. Reported beside the paper's slices, which pool the variants."""
    negatives = [
        (e, False)
        for e in examples
        if is_error_free(e.labels) and kind_of(e.labels) == "organic" and variant_of(e) is not None
    ]
    found = []
    for variant in sorted({v for e in examples if (v := variant_of(e)) is not None}):
        positives = [(e, True) for e in examples if variant_of(e) == variant and has_error(e.labels, error_type)]
        if positives and negatives:
            found.append((variant, negatives + positives))
    return found
