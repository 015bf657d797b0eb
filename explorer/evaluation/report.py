"""The evaluation report: a Markdown table laid out like Table 1 of Chang et al. 2024, and JSON.

Rows are detectors; columns are error type x slice (hallucination, then coverage error; each over
full organic, unparaphrased synthetic, paraphrased synthetic, ambiguous organic). The paper
prints AUC in percent; so do we, with the bootstrap interval. The JSON holds every number
(AUCs, intervals, counts, raw and corrected p-values) plus what the run was.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from explorer import detectors
from explorer.data.labels import ERROR_TITLES, ERROR_TYPES
from explorer.evaluation.auc import AucCell, Evaluation
from explorer.evaluation.slices import SLICES


def detector_title(name: str) -> str:
    """The registry's title, or the name itself for detectors the registry does not list."""
    try:
        return detectors.spec(name).title
    except detectors.UnknownDetectorError:
        return name


def _percent(value: float) -> str:
    return f"{100 * value:.1f}"


def _auc_text(cell: AucCell, *, with_interval: bool) -> str:
    if cell.auc is None:
        return f"*{cell.note}*"
    text = _percent(cell.auc)
    if with_interval and cell.ci is not None:
        text += f" ({_percent(cell.ci[0])}–{_percent(cell.ci[1])})"
    if cell.best or cell.significantly_worse is False:
        text = f"**{text}**"
    return text


def _p_text(cell: AucCell) -> str:
    if cell.auc is None:
        return f"*{cell.note}*"
    if cell.best:
        return "best"
    if cell.p_value is None:
        return "–"
    mark = " *" if cell.significantly_worse else ""
    return f"{cell.p_value:.3g}{mark}"


def _header() -> list[str]:
    # REPORT.md's first column keeps its heading "Method" (a detector), as REPORT.json keeps its field names
    header = ["Method"] + [f"{ERROR_TITLES[t]} · {s.title.lower()}" for t in ERROR_TYPES for s in SLICES]
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]


def _table(evaluation: Evaluation, level: str, text) -> list[str]:
    lines = _header()
    for detector_name in evaluation.detectors:
        cells = [text(evaluation.cell(level, t, s.name, detector_name)) for t in ERROR_TYPES for s in SLICES]
        lines.append(f"| {detector_title(detector_name)} | " + " | ".join(cells) + " |")
    counts = []
    for error_type in ERROR_TYPES:
        for chosen in SLICES:
            cell = max(
                (evaluation.cell(level, error_type, chosen.name, m) for m in evaluation.detectors),
                key=lambda c: c.positives + c.negatives,
            )
            counts.append(f"{cell.positives} / {cell.negatives}")
    noun = "examples" if level == "example" else "words"
    lines.append(f"| *{noun} (errors / no error)* | " + " | ".join(counts) + " |")
    return lines


def _span_table(evaluation: Evaluation) -> list[str]:
    if not evaluation.span_cells:
        return []
    names = [s.name for s in SLICES if any(c.slice == s.name for c in evaluation.span_cells)]
    titles = {s.name: s.title.lower() for s in SLICES}
    lines = [
        "## Hallucinated spans: precision / recall / F1",
        "",
        "| Detector | " + " | ".join(titles[n] for n in names) + " |",
        "|" + "---|" * (len(names) + 1),
    ]
    by_key = {(c.slice, c.detector): c for c in evaluation.span_cells}

    def text(cell) -> str:
        if cell is None:
            return "–"
        return " / ".join("–" if v is None else _percent(v) for v in (cell.precision, cell.recall, cell.f1))

    for detector_name in evaluation.detectors:
        lines.append(
            f"| {detector_title(detector_name)} | "
            + " | ".join(text(by_key.get((n, detector_name))) for n in names)
            + " |"
        )
    threshold = evaluation.span_cells[0].threshold
    lines += [
        "",
        f"Character overlap (non-space characters), pooled over each hallucination slice's examples; a response word "
        f"scored ≥ {threshold:g} is predicted hallucinated and adjacent predicted words form one span (as "
        "LettuceDetect reports on RAGTruth). × 100.",
        "",
    ]
    return lines


def _variant_table(evaluation: Evaluation) -> list[str]:
    """Example-level ROC AUC per recipe variant, when the records name one (`slices.variant_slices`)."""
    if not evaluation.variant_cells:
        return []
    columns = list(dict.fromkeys((c.error_type, c.slice) for c in evaluation.variant_cells))
    by_key = {(c.error_type, c.slice, c.detector): c for c in evaluation.variant_cells}
    header = ["Method"] + [f"{ERROR_TITLES[t]} · {name.removeprefix('variant:')}" for t, name in columns]
    lines = [
        "## Example-level ROC AUC by variant",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for detector_name in evaluation.detectors:
        cells = [by_key.get((t, name, detector_name)) for t, name in columns]
        lines.append(
            f"| {detector_title(detector_name)} | "
            + " | ".join("–" if c is None else _auc_text(c, with_interval=True) for c in cells)
            + " |"
        )
    counts = [
        max((by_key[(t, name, m)] for m in evaluation.detectors if (t, name, m) in by_key), key=lambda c: c.positives)
        for t, name in columns
    ]
    lines.append(
        "| *examples (errors / no error)* | " + " | ".join(f"{c.positives} / {c.negatives}" for c in counts) + " |"
    )
    lines += [
        "",
        "Each variant's examples with the error against every error-free organic example (the records' "
        "`variant` field names the recipe's variants); intervals and bold as in the first table.",
        "",
    ]
    return lines


def markdown(evaluation: Evaluation, *, title: str = "Evaluation", description: str = "") -> str:
    """The whole report as Markdown: Table 1, significance, word-level table, notes."""
    settings = evaluation.settings
    confidence = f"{100 * settings.confidence:g}%"
    lines = [f"# {title}", ""]
    if description:
        lines += [description, ""]
    lines += [
        f"{evaluation.n_examples} examples; detectors: "
        + ", ".join(f"{detector_title(m)} (`{m}`)" for m in evaluation.detectors)
        + ".",
        "",
        "## Example-level ROC AUC (as in Table 1)",
        "",
        *_table(evaluation, "example", lambda c: _auc_text(c, with_interval=True)),
        "",
        f"ROC AUC × 100 with its {confidence} bootstrap interval ({settings.n_bootstrap} resamples, positives "
        f"and negatives resampled separately, seed {settings.seed}). **Bold**: the column's best detector and "
        f"every detector not significantly worse than it (DeLong's paired test, Bonferroni-corrected, "
        f"p ≥ {settings.alpha:g}). "
        "*No positives* / *no negatives* / *no examples*: the slice cannot give an AUC.",
        "",
        "## Significance: each detector against the column's best",
        "",
        *_table(evaluation, "example", _p_text),
        "",
        f"DeLong et al. (1988) test of equal AUC on the examples both detectors scored; p-values Bonferroni-corrected "
        f"for the comparisons in the column; * = p < {settings.alpha:g}. (The paper uses Hanley & McNeil's test "
        "with the same correction.)",
        "",
        "## Word-level ROC AUC (§5.3)",
        "",
        *_table(evaluation, "word", lambda c: _auc_text(c, with_interval=False)),
        "",
        "Hallucination: non-stop response words against the gold hallucinated spans; coverage: non-stop argument "
        "words against the gold uncovered arguments / spans; pooled over each slice's examples (error examples "
        "without spans skipped). **Bold**: best in the column. Words of one example are not independent, so no "
        "interval or test is given at this level.",
        "",
        *_span_table(evaluation),
        *_variant_table(evaluation),
        "## Slices",
        "",
    ]
    for error_type in ERROR_TYPES:
        lines.append(f"- {ERROR_TITLES[error_type]}:")
        lines += [f"  - {s.describe(error_type)}" for s in SLICES]
    lines += [
        "",
        "Error-free means no hallucination, no coverage error and not ambiguous; an example without a `kind` "
        "counts as organic. An example with an error of the other type only is left out of a type's slices.",
        "",
        "## Left out",
        "",
    ]
    for error_type in ERROR_TYPES:
        reasons = evaluation.left_out.get(error_type, {})
        listed = "; ".join(f"{count} {reason}" for reason, count in sorted(reasons.items())) or "none"
        lines.append(f"- {ERROR_TITLES[error_type]} slices: {listed}.")
    for note, meaning in (
        ("no examples", "Slices with no examples in this data"),
        ("no positives", "Slices with no error examples in this data (e.g. no synthetic examples yet)"),
        ("no negatives", "Slices with no error-free examples in this data"),
    ):
        found = [
            f"{ERROR_TITLES[t].lower()} · {s.title.lower()}"
            for t in ERROR_TYPES
            for s in SLICES
            if all(evaluation.cell("example", t, s.name, m).note == note for m in evaluation.detectors)
        ]
        if found:
            lines.append(f"- {meaning}: {', '.join(found)}.")
    for detector_name, count in evaluation.failures.items():
        lines.append(
            f"- {detector_title(detector_name)}: no score for {count} example(s) (the detector could not score them)."
        )
    return "\n".join(lines) + "\n"


def to_json(evaluation: Evaluation, *, meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Every number of the evaluation, with the detector titles and `meta` (data file, split, ...)."""
    record = dict(meta or {})
    record["method_titles"] = {m: detector_title(m) for m in evaluation.detectors}  # a saved field name, kept
    record.update(evaluation.to_dict())
    return record
