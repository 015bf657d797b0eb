"""Claim reports (`explorer claims`) in RefChecker's JSON format (Hu et al. 2024).

RefChecker's command line (`refchecker/cli.py`) reads and writes one JSON array of items
`{"question", "response", "reference", ...}`; extraction adds `claims` (a triplet is
`[subject, predicate, object]`, a sentence claim a string) and checking adds `ys`, one label
per claim (`Entailment`, `Neutral`, `Contradiction`), and `Y`, the response's label by the
chosen aggregator (strict, soft or major). This file writes exactly those fields, so
RefChecker's own tools read it, plus the explorer's: the example's `id`, `topic` and
`perspectives` (RefChecker's `reference` is the flat list of their arguments), `aggregated`
(all three rules), and `claim_details` (per claim: sentence, similarity, evidence span in an
argument, the perspective the response voices it for, and why). `read_reports` reads it back.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.data.example import Example, Perspective
from explorer.detectors.ops.alignment import DEFAULT_SETTINGS, Settings
from explorer.detectors.ops.assessment import AGGREGATION_RULES, aggregate
from explorer.detectors.ops.claim_check import REFCHECKER_LABELS, CheckedClaim, check_claims
from explorer.text.claims import split_sentences

GRANULARITIES = ("triplet", "sentence")
_VERDICT_OF = {label: verdict for verdict, label in REFCHECKER_LABELS.items()}


@dataclass(frozen=True)
class ClaimReport:
    """One example's claims and their verdicts. A claim is a `(subject, predicate, object)`
    tuple (triplet granularity) or the sentence's text."""

    example: Example
    granularity: str
    claims: tuple[tuple[str, str, str] | str, ...]
    checks: tuple[CheckedClaim, ...]
    extractor: str | None
    checker: str

    def aggregated(self, rule: str) -> str | dict[str, float]:
        """The response's verdict by one of RefChecker's rules, in RefChecker's labels."""
        value = aggregate([c.verdict for c in self.checks], rule, three_way=True)
        if isinstance(value, dict):
            return {REFCHECKER_LABELS[verdict]: share for verdict, share in value.items()}
        return REFCHECKER_LABELS[value]

    def to_refchecker(self, aggregator: str = "soft") -> dict[str, Any]:
        example = self.example
        names = [p.name for p in example.perspectives]
        record: dict[str, Any] = {"id": example.id}
        if example.topic is not None:
            record["topic"] = example.topic
        record.update(
            question=example.query,
            response=example.response,
            reference=[text for _, _, text in example.arguments()],
            perspectives=[{"name": p.name, "arguments": list(p.arguments)} for p in example.perspectives],
            granularity=self.granularity,
            claims=[list(claim) if isinstance(claim, tuple) else claim for claim in self.claims],
            ys=[REFCHECKER_LABELS[check.verdict] for check in self.checks],
            Y=self.aggregated(aggregator),
            aggregator=aggregator,
            aggregated={rule: self.aggregated(rule) for rule in AGGREGATION_RULES},
            claim_details=[
                {
                    "sentence": check.sentence,
                    "similarity": float(check.similarity),
                    "evidence": None
                    if check.argument is None
                    else {
                        "perspective": check.argument[0],
                        "argument": check.argument[1],
                        "span": list(check.evidence),
                    },
                    "attributed_to": None if check.attributed_to is None else names[check.attributed_to],
                    "reason": check.reason,
                }
                for check in self.checks
            ],
            extractor=self.extractor,
            checker=self.checker,
        )
        return record

    @classmethod
    def from_refchecker(cls, record: Mapping[str, Any]) -> ClaimReport:
        perspectives = tuple(Perspective(p["name"], tuple(p["arguments"])) for p in record["perspectives"])
        example = Example(
            id=record["id"],
            query=record["question"],
            perspectives=perspectives,
            response=record["response"],
            topic=record.get("topic"),
        )
        names = [p.name for p in perspectives]
        claims = tuple(tuple(c) if isinstance(c, list) else c for c in record["claims"])
        if len(record["ys"]) != len(claims) or len(record["claim_details"]) != len(claims):
            raise ValueError("claims, ys and claim_details differ in length")
        checks = []
        for claim, label, detail in zip(claims, record["ys"], record["claim_details"]):
            evidence = detail["evidence"]
            checks.append(
                CheckedClaim(
                    text=" ".join(claim) if isinstance(claim, tuple) else claim,
                    sentence=detail["sentence"],
                    verdict=_VERDICT_OF[label],
                    similarity=detail["similarity"],
                    argument=None if evidence is None else (evidence["perspective"], evidence["argument"]),
                    evidence=None if evidence is None else tuple(evidence["span"]),
                    attributed_to=None if detail["attributed_to"] is None else names.index(detail["attributed_to"]),
                    reason=detail["reason"],
                )
            )
        return cls(example, record["granularity"], claims, tuple(checks), record.get("extractor"), record["checker"])


def claim_report(
    example: Example, granularity: str, encoder, extractor=None, settings: Settings = DEFAULT_SETTINGS
) -> ClaimReport:
    """Extract `example`'s claims (triplets need `extractor`, a `TripletExtractor`) and check them
    (a claim matches an argument unit at cosine >= `settings.match`)."""
    if granularity == "triplet":
        if extractor is None:
            raise ValueError("triplet claims need a triplet extractor")
        triplets = extractor.extract(example.response)
        claims: tuple = tuple(t.parts for t in triplets)
        located = [(t.text, t.sentence) for t in triplets]
    elif granularity == "sentence":
        sentences = split_sentences(example.response)
        claims = tuple(s.text for s in sentences)
        located = [(s.text, s.sentence) for s in sentences]
    else:
        raise ValueError(f"unknown granularity {granularity!r}; choose one of {', '.join(GRANULARITIES)}")
    checks = tuple(check_claims(example, located, encoder, settings))
    return ClaimReport(
        example,
        granularity,
        claims,
        checks,
        extractor.identity if granularity == "triplet" else None,
        f"{encoder.identity()} cosine \u2265 {settings.match:.2f} + rules",
    )


def dumps_reports(reports: Sequence[ClaimReport], aggregator: str = "soft") -> str:
    """The reports as one RefChecker JSON array."""
    return json.dumps([r.to_refchecker(aggregator) for r in reports], indent=2, ensure_ascii=False) + "\n"


def read_reports(path: Path) -> list[ClaimReport]:
    """Reports written by `dumps_reports`; a bad item raises ValueError naming its index and field."""
    items = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(items, list):
        raise ValueError(f"{path}: expected a JSON array of RefChecker items")
    reports = []
    for index, item in enumerate(items):
        try:
            reports.append(ClaimReport.from_refchecker(item))
        except KeyError as error:
            raise ValueError(f"{path}: item {index}: missing field {error}") from error
        except (TypeError, ValueError) as error:
            raise ValueError(f"{path}: item {index}: {error}") from error
    return reports
