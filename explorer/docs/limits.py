"""The known failure modes and the verdict's bands, as Markdown written from the records.

The failure modes come from `resources/records/failure_modes.json` (`python bench/failure_modes.py`),
the bands and the verdict's dev figures from `resources/calibration.json`; `explorer.docs.site`
puts these into the detector cards, the README and the limits page.
"""

from __future__ import annotations

from pathlib import Path

from explorer import detectors
from explorer.data.labels import ERROR_TYPES
from explorer.docs.probes import CAUGHT, FALSE_ALARM, MISSED, NO_VERDICT, PARTLY, PASSED, outcome
from explorer.docs.records import EVALUATION_SETS, Records
from explorer.evaluation.calibration import NEAR_CHANCE_AUC

_RECORD = "`explorer/resources/records/failure_modes.json`, written by `python bench/failure_modes.py`"


def _judged(found: dict) -> str:
    if found["p"] is None:
        return f"no verdict (score {found['score']:.2f})"
    return f"{found['verdict']} (P {found['p']:.2f})"


def _expected(expected: dict) -> str:
    return " and ".join(t for t in ERROR_TYPES if expected[t]) or "none"


def failure_rows(name: str, records: Records) -> list[tuple[dict, dict, str]]:
    """Each probe with detector `name`'s judgement and its outcome (empty when not measured)."""
    measured = records.failure_modes.get("detectors", {}).get(name)
    if not measured:
        return []
    return [
        (probe, measured[probe["id"]], outcome(probe["expected"], measured[probe["id"]]))
        for probe in records.failure_modes["probes"]
        if probe["id"] in measured
    ]


def failure_table(name: str, records: Records) -> list[str]:
    rows = failure_rows(name, records)
    if not rows:
        return [f"Not measured yet: `python bench/failure_modes.py --detectors {name}` adds it to the record."]
    lines = ["| probe | errors it has | hallucination | coverage | outcome |", "|---|---|---|---|---|"]
    for probe, judged, result in rows:
        shown = " | ".join(_judged(judged[t]) for t in ERROR_TYPES)
        lines.append(f"| {probe['mode']}: {probe['what']} | {_expected(probe['expected'])} | {shown} | **{result}** |")
    return lines


def _quoted(text: str) -> list[str]:
    return [f"> {line}" if line else ">" for line in text.splitlines()]


def failure_examples(records: Records, name: str = detectors.VERDICT_DETECTOR) -> list[str]:
    """Each probe in full, collapsed: its arguments, its answer and the verdicts with the pieces quoted."""
    lines: list[str] = []
    for probe, judged, result in failure_rows(name, records):
        style = "success" if result in (CAUGHT, PASSED) else "failure" if result in (MISSED, FALSE_ALARM) else "warning"
        lines += ["", f'??? {style} "{probe["mode"]}: {result}"', ""]
        body = [f"{probe['what'].capitalize()}. Errors it has: {_expected(probe['expected'])}.", "", "Arguments:", ""]
        body += [f"- {side}: {argument}" for side, arguments in probe["perspectives"].items() for argument in arguments]
        body += ["", f"Answer to *{probe['query']}*:", "", *_quoted(probe["response"]), ""]
        for error_type in ERROR_TYPES:
            piece = judged[error_type]["piece"]
            body.append(f"- {error_type}: {_judged(judged[error_type])}" + (f", quoting “{piece}”" if piece else ""))
        lines += [f"    {line}" if line else "" for line in body]
    return lines


def detector_failures(name: str, records: Records) -> list[str]:
    """A card's *Known failures*: the probes it misses or raises a false alarm on, then the table."""
    rows = failure_rows(name, records)
    lines = []
    wrong = [probe["mode"] for probe, _, result in rows if result in (MISSED, FALSE_ALARM)]
    if rows:
        lines += [
            (f"Misjudged probes: {', '.join(wrong)}." if wrong else "It misjudges none of the probes.")
            + f" One topic's faithful answer and its variants, each judged through the calibration ({_RECORD}; "
            "the answers are in `explorer/resources/probes.jsonl`):",
            "",
        ]
    return lines + failure_table(name, records)


def summary(records: Records, name: str = detectors.VERDICT_DETECTOR) -> list[str]:
    """The verdict detector's probes grouped by outcome, one bullet each: the README's limits."""
    rows = failure_rows(name, records)
    if not rows:
        return [f"- Not measured yet: `python bench/failure_modes.py --detectors {name}`."]
    groups = (
        (CAUGHT, "Caught"),
        (MISSED, "**Missed** (judged unlikely)"),
        (FALSE_ALARM, "**False alarm** on a faithful answer"),
        (PARTLY, "Left unclear"),
        (NO_VERDICT, "No verdict"),
        (PASSED, "Faithful and judged so"),
    )
    lines = []
    for key, title in groups:
        found = [f"{probe['what']}" for probe, _, result in rows if result == key]
        if found:
            lines.append(f"- {title}: " + "; ".join(found) + ".")
    return lines


def bands(records: Records, name: str = detectors.VERDICT_DETECTOR) -> list[str]:
    """How a verdict is read: the verdict detector's calibration and dev figures, the bands of
    P(error), and the bound under which a detector gives none."""
    found = records.calibration.get("bands", {})
    entry = records.calibration.get("detectors", {}).get(name, {})
    lines = []
    if entry:
        figures = " / ".join(f"{entry[t]['auc']:.2f}" for t in ERROR_TYPES)
        lines.append(
            f"- **P(error)** is the `{name}` detector's score, calibrated on "
            f"{data_name(entry['data'])}, where it ranks errors above faithful answers with ROC AUC {figures} "
            f"({' / '.join(ERROR_TYPES)})."
        )
    lines += [
        f"- **likely**: P(error) ≥ {found.get('likely_from')}; **unlikely**: P(error) < {found.get('unlikely_below')}; "
        "**unclear** in between.",
        f"- A detector whose dev ROC AUC for an error type is under {NEAR_CHANCE_AUC} gives no verdict for it: "
        'the app says "near chance" beside its score.',
    ]
    return lines


def data_name(described: str) -> str:
    """A calibration's data ("dev.jsonl, dev split, ...") named by the evaluation set it is, when it is one."""
    for about in EVALUATION_SETS.values():
        if described.startswith(Path(about.file.split(" ")[0]).name):
            return f"the {about.title} set ({described})"
    return described
