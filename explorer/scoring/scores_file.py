"""The scores file: what `explorer score` writes, one JSON line per example, and reading it back
(for `explorer eval --scores` and the dataset page's precomputed scores).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from explorer.data.jsonl import loads
from explorer.detectors.base import DetectorResult
from explorer.scoring.runner import ScoredExample


def _not_a_number(method: str, result: DetectorResult) -> str | None:
    """The first score of `result` that is not a finite number, named by its field."""
    values = [(f"scores.{method}.hallucination", result.hallucination), (f"scores.{method}.coverage", result.coverage)]
    values += [(f"scores.{method}.per_perspective.{p}", v) for p, v in result.per_perspective.items()]
    values += [(f"words.{method}.response[{i}]", w.score) for i, w in enumerate(result.response_words)]
    values += [(f"words.{method}.arguments[{i}]", w.score) for i, w in enumerate(result.argument_words)]
    for name, value in values:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return f"{name}: must be a finite number, got {json.dumps(value)}"
    return None


def read_scores(source: str | bytes | Path) -> tuple[dict[str, dict[str, DetectorResult]], dict[str, dict[str, str]]]:
    """Read `explorer score` output: results by example id and method, and recorded failures.

    Raises `ValueError` naming the line and field of the first malformed record.
    """
    data = Path(source).read_text(encoding="utf-8") if isinstance(source, Path) else source
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    results: dict[str, dict[str, DetectorResult]] = {}
    failures: dict[str, dict[str, str]] = {}
    for number, line in enumerate(data.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = loads(line)
            example_id = record["id"]
            words = record.get("words", {})
            for method, scores in record["scores"].items():
                if "error" in scores:
                    failures.setdefault(example_id, {})[method] = scores["error"]
                    continue
                result = DetectorResult.from_dict(
                    {
                        "detector": method,
                        "scores": scores,
                        "words": words.get(method, {"response": [], "arguments": []}),
                    }
                )
                # NaN, Infinity or text would break the ROC curves and tables much later.
                problem = _not_a_number(method, result)
                if problem:
                    raise ValueError(f"line {number}: {problem}")
                results.setdefault(example_id, {})[method] = result
        except json.JSONDecodeError as error:
            raise ValueError(f"line {number}: invalid JSON: {error.msg} (column {error.colno})") from error
        except (KeyError, TypeError, AttributeError) as error:
            raise ValueError(
                f"line {number}: not a record of `explorer score` output (expected id, scores{{method: "
                f"{{hallucination, coverage, per_perspective}}}}, words): {type(error).__name__} {error}"
            ) from error
    return results, failures


def output_record(scored: ScoredExample) -> dict[str, Any]:
    """One line of `explorer score`'s output."""
    scores: dict[str, Any] = {name: result.scores_dict() for name, result in scored.results.items()}
    scores.update({name: {"error": message} for name, message in scored.errors.items()})
    return {
        "id": scored.example.id,
        "scores": scores,
        "words": {name: result.words_dict() for name, result in scored.results.items()},
    }
