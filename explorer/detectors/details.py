"""What a detector may keep in `DetectorResult.details`, declared once.

Each `Detail` names its key and what it holds; a detector's `DetectorSpec.details` lists those it
emits (the contract test checks that it emits no other), and readers take one through
`Detail.of(result)`, never by a bare key. The values are JSON, so results cache as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from explorer.detectors.base import DetectorResult

T = TypeVar("T")


@dataclass(frozen=True)
class Detail(Generic[T]):
    key: str
    holds: str

    def of(self, result: DetectorResult) -> T | None:
        """This detail of `result`, or None when it keeps none."""
        return result.details.get(self.key)


HEATMAP: Detail[Mapping[str, Any]] = Detail(
    "heatmap", "the word map: z ([argument words, response words]), x (response words), y (argument words), title"
)
TOKENS: Detail[Mapping[str, int]] = Detail("tokens", "how many prompt and response tokens the language model read")
CONVERGENCE: Detail[Mapping[str, Any]] = Detail(
    "convergence", "integrated gradients' steps, baseline and median / max relative convergence delta"
)
ARGUMENT_SENTENCE: Detail[Mapping[str, Any] | None] = Detail(
    "argument_sentence", "an attribution's argument x response-sentence matrix: z, x, y, sentences, colorbar, title"
)
ALIGNMENT: Detail[Mapping[str, Any]] = Detail("alignment", "the argument x claim alignment (`Alignment.to_dict`)")
EVIDENCE: Detail[Mapping[str, Any]] = Detail(
    "evidence",
    "per error type, what each feature added to the stacked head's log-odds (`stacked.evidence`), and the floor "
    "a sure misstatement set (`stacked.SURE`)",
)
LEFT_OUT: Detail[Mapping[str, str]] = Detail("left_out", "the optional components that could not read it, and why")
FINDINGS: Detail[list] = Detail(
    "findings",
    "per argument, what the meaning check found: states / misstates / absent, its piece of the response, "
    "P(stated), P(misstated), the judge's three probabilities and, for a misstatement, the turning words; the "
    "polarity check's: each turned argument's piece, its closeness as `misstated`, the kinds of turn (`how`) "
    "and the turning words",
)


def misstatements(result: DetectorResult | None) -> list[Mapping]:
    """The misstated arguments `result` keeps (`FINDINGS`: a meaning or polarity check's result, or
    the verdict's, which keeps the meaning check's), surest first; any other keeps none."""
    found = (FINDINGS.of(result) if result is not None else None) or []
    return sorted((f for f in found if f["finding"] == "misstates"), key=lambda f: -f["misstated"])
