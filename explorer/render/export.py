"""Downloads: the scores table (CSV, Parquet) and a self-contained HTML report of one example.

The HTML report is one small file to mail to stakeholders: the verdict (with links to the
sentence or argument responsible), every detector's scores against its threshold, the claims
view, every detector's word highlights (gold spans underlined), a sentence-level map for a
detector that gives a word map, and each detector's model and settings in words. Bars and maps
are plain HTML, so there is no script at all (a sample example's report is ~60 KB, not the
5 MB of an inlined plotly.js); a Content-Security-Policy forbids loading anything from
elsewhere. All user text is escaped (`render` and `html.escape`). The app, the lab and
`explorer.inspect` (notebooks) draw the same report.
"""

from __future__ import annotations

import csv
import html
import io
import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

import pandas as pd

from explorer import detectors
from explorer.data.example import Example
from explorer.detectors.base import DetectorResult
from explorer.detectors.details import ALIGNMENT, EVIDENCE
from explorer.detectors.ops import word_links
from explorer.detectors.ops.assessment import Assessment
from explorer.detectors.semantic import assessment_of
from explorer.evaluation import verdict
from explorer.evaluation.accounts import account
from explorer.evaluation.calibration import active
from explorer.evaluation.claim_level import aligned_by, claim_view_assessment, claim_view_choice
from explorer.evaluation.report import detector_title
from explorer.render import claims, highlights
from explorer.render.accounts import accounts_html
from explorer.render.evidence import EXPLANATION, verdict_evidence_html
from explorer.render.findings import misstatements_among, misstatements_html
from explorer.render.verdict import highlight_marks, scores_html, verdict_html
from explorer.text.claims import mean_word_scores

# Nothing may load from elsewhere, and no script runs: the report works offline and cannot leak that it was opened.
CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

# Scoped to the report's own element, so the same fragment can sit inside a notebook page.
_STYLE = """
.rag-report { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; max-width: 72rem;
              color: #1f2937; line-height: 1.45; }
.rag-report h1 { font-size: 1.5rem; }
.rag-report h2 { margin-top: 2rem; border-bottom: 1px solid #e5e7eb; padding-bottom: .3rem; font-size: 1.25rem; }
.rag-report h3 { font-size: 1.05rem; }
.rag-report .facts { color: #4b5563; }
.rag-report .facts code { background: #f3f4f6; padding: 0 .3em; border-radius: 3px; }
.rag-report .columns { display: grid; grid-template-columns: 1fr 1fr; gap: 1.5rem; }
.rag-report .meta { color: #6b7280; font-size: .85rem; }
.rag-report table.map { border-collapse: collapse; font-size: .8rem; }
.rag-report table.map td, .rag-report table.map th { border: 1px solid #fff; padding: .15rem .35rem; }
.rag-report table.map th { font-weight: normal; text-align: left; max-width: 22rem; }
@media (max-width: 50rem) { .rag-report .columns { grid-template-columns: 1fr; } }
"""
_PAGE_STYLE = "body { margin: 2rem auto; max-width: 72rem; padding: 0 1.5rem; }"


def file_name(example: Example) -> str:
    """A safe file name for `example`'s report: its id with anything but letters, digits, `-_.` replaced."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", example.id).strip("-.")
    return f"{safe[:80] or 'example'}.html"


def file_names(examples: Sequence[Example]) -> list[str]:
    """One report file name per example, no two alike even ignoring case (as macOS and Windows
    compare names). `file_name` maps ids that differ only in whitespace, punctuation or Unicode
    normal form to one name; the second and later get `-2`, `-3`... in order."""
    taken: set[str] = set()
    names = []
    for example in examples:
        stem = file_name(example).removesuffix(".html")
        name, number = stem, 2
        while name.casefold() in taken:
            name, number = f"{stem}-{number}", number + 1
        taken.add(name.casefold())
        names.append(f"{name}.html")
    return names


# A spreadsheet runs a cell that starts with one of these as a formula (`=HYPERLINK(...)`,
# `@SUM(...)`, `-2+3`, DDE payloads): OWASP's "CSV Injection" page.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def defused(cell: object) -> object:
    """A text cell that a spreadsheet would read as a formula, prefixed with `'` so that it
    shows as text (OWASP's rule); numbers and other text pass unchanged."""
    return f"'{cell}" if isinstance(cell, str) and cell.startswith(FORMULA_STARTS) else cell


def table_csv(frame: pd.DataFrame) -> bytes:
    """The scores table as UTF-8 CSV, the `id` index as the first column. As OWASP advises,
    text cells that start like a formula (ids, topics, perspective names) are neutralized
    (`defused`) and every cell is quoted, so a line break inside a cell stays inside it."""
    safe = frame.map(defused)
    safe.index = safe.index.map(defused).rename(defused(frame.index.name))
    safe.columns = [defused(column) for column in frame.columns]
    return safe.to_csv(index=True, quoting=csv.QUOTE_ALL).encode("utf-8")


def table_parquet(frame: pd.DataFrame) -> bytes:
    """The scores table as Parquet (pyarrow), index and dtypes kept."""
    buffer = io.BytesIO()
    frame.to_parquet(buffer, engine="pyarrow", index=True)
    return buffer.getvalue()


def _word_meanings(detector_name: str) -> tuple[str, str]:
    try:
        spec = detectors.spec(detector_name)
    except detectors.UnknownDetectorError:
        return "", ""
    return spec.response_word_meaning, spec.argument_word_meaning


def _setting_words(config: Mapping[str, Any], prefix: str = "") -> list[str]:
    words = []
    for key, value in config.items():
        name = f"{prefix}{key}".replace("_", " ")
        if isinstance(value, Mapping):
            words += _setting_words(value, "" if key == "settings" else f"{name} ")  # "settings" names nothing
        elif isinstance(value, bool):
            words.append(f"{name} {'on' if value else 'off'}")
        elif isinstance(value, (list, tuple)):
            words.append(f"{name}: {len(value)} learned values")
        elif isinstance(value, float):
            words.append(f"{name} {value:.3g}")
        else:
            words.append(f"{name} {value}")
    return words


def settings_in_words(info: Mapping[str, Any]) -> str:
    """What made a result, in a sentence: code version, model, settings."""
    parts = [f"code version {info['version']}" if info.get("version") else "code version unknown"]
    parts.append(f"model {info['model']}" if info.get("model") else "no model")
    settings = _setting_words(info.get("config") or {})
    parts.append("settings: " + ", ".join(settings) if settings else "no settings")
    return "; ".join(parts) + "."


def _sentence_map_html(example: Example, result: DetectorResult) -> str:
    """The detector's word map by sentences (argument sentences x response sentences) as an HTML table."""
    found = word_links.sentence_map(result, example)
    if found is None or not found.values.size:
        return ""
    head = "".join(
        f'<th title="{html.escape(example.response[s:e])}">S{j + 1}</th>' for j, (s, e) in enumerate(found.columns)
    )
    rows = []
    top = float(found.values.max()) or 1.0
    for (p, a, start, end), values in zip(found.rows, found.values):
        text = example.perspectives[p].arguments[a][start:end]
        label = f"{example.perspectives[p].name} {a + 1}: {text[:70]}{'…' if len(text) > 70 else ''}"
        cells = "".join(
            f'<td style="background:{highlights.score_color(v / top)}" title="{v:.3f}">{v:.2f}</td>' for v in values
        )
        rows.append(f'<tr><th title="{html.escape(text)}">{html.escape(label)}</th>{cells}</tr>')
    sentences = "".join(f"<li>{html.escape(example.response[s:e])}</li>" for s, e in found.columns)
    return (
        "<h3>Where each response sentence draws from</h3>"
        '<p class="meta">Largest share of a response word\'s salience held by a word of the argument sentence '
        "(rows) for the response sentence (columns S1, S2, …); darker = a stronger link.</p>"
        f'<table class="map"><thead><tr><th></th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
        f'<details><summary class="meta">Response sentences</summary><ol>{sentences}</ol></details>'
    )


def _claims_section(
    example: Example,
    results: Mapping[str, DetectorResult],
    assessment: Assessment | None,
    misstated: Sequence[Mapping],
    differ: str = "",
) -> list[str]:
    """The claim view as on Inspect (`assessment`: `claim_view_assessment`'s), when a result keeps
    its alignment; else a shown detector's alignment read with the settings it was scored with.
    `misstated`: the meaning and polarity checks' findings; `differ`: where the claim view and the verdict differ."""
    source = claim_view_choice().detector
    if assessment is None:
        aligned = [r for r in results.values() if ALIGNMENT.of(r) is not None]
        if not aligned:
            return []
        assessment, source = assessment_of(aligned[0], example), aligned_by(aligned[0])
    agreement = {
        detector_title(name): mean_word_scores(
            assessment.alignment.claims, [(w.start, w.end, w.score) for w in other.response_words]
        )
        for name, other in results.items()
        if aligned_by(other) != source
    }
    return [
        "<h2>Claims</h2>",
        differ,
        claims.claim_verdict_html(assessment, misstated),
        '<div class="columns"><div><h3>Response by claim</h3>',
        claims.response_claims_html(example, assessment),
        "</div><div><h3>Flags</h3>",
        claims.flags_html(example, assessment),
        "</div></div>",
        "<h3>Claim by claim</h3>",
        claims.claim_cards_html(example, assessment, agreement, misstated),
    ]


def example_fragment(
    example: Example,
    results: Mapping[str, DetectorResult],
    *,
    show_gold: bool = True,
    heading: str = "",
    changes: Sequence[str] = (),
) -> str:
    """The report of `example` and every detector result in `results`, as one `<div>` with its
    own scoped style: the body of `example_html`, and what a notebook shows.

    The verdict comes from `detectors.VERDICT_DETECTOR`'s result when `results` holds it.
    `heading` and `changes` describe where the example came from (e.g. the lab's edits).
    """
    titles = {detector_name: detector_title(detector_name) for detector_name in results}
    has_gold = show_gold and not example.labels.is_empty()
    facts = [f"<code>{html.escape(example.id)}</code>"]
    if example.topic:
        facts.append(f"topic: {html.escape(example.topic)}")
    if not example.labels.is_empty():
        facts.append(f"gold labels: <b>{html.escape(example.labels.summary())}</b>")
    parts = [f"<h1>{html.escape(example.query)}</h1>", f'<p class="facts">{" · ".join(facts)}</p>']
    if heading:
        parts.append(f"<p>{html.escape(heading)}</p>")
    if changes:
        parts.append("<ol>" + "".join(f"<li>{html.escape(change)}</li>" for change in changes) + "</ol>")
    judge = results.get(detectors.VERDICT_DETECTOR)
    found = verdict.verdicts(example, judge) if judge is not None else None
    assessment = claim_view_assessment(example, results)
    misstated = misstatements_among(results)
    read = account(example, found, judge, assessment) if found is not None and assessment is not None else None
    if found is not None:
        parts += ["<h2>Verdict</h2>", verdict_html(example, found, titles[judge.detector], accounts=read)]
        parts.append(misstatements_html(example, misstated))
        if (evidence := EVIDENCE.of(judge)) is not None:
            parts += [
                "<h3>What the verdict rests on</h3>",
                f"<p>{html.escape(EXPLANATION)}</p>",
                verdict_evidence_html(
                    evidence,
                    {name: detector_title(name) for name in detectors.names()},
                    {error_type: v.probability for error_type, v in found.items()},
                ),
            ]
    if results:
        parts += ["<h2>Scores</h2>", scores_html(results, verdict.thresholds(results), titles)]
    else:
        parts.append("<p>No detector results.</p>")
    parts += _claims_section(
        example, results, assessment, misstated, accounts_html(example, read, titles[judge.detector]) if read else ""
    )
    marks = highlight_marks(found)
    for detector_name, result in results.items():
        response_meaning, argument_meaning = _word_meanings(detector_name)
        response_mark, argument_mark = marks if detector_name == detectors.VERDICT_DETECTOR else (None, None)
        parts += [
            f"<h2>{html.escape(titles[detector_name])}</h2>",
            f'<p class="meta">{html.escape(settings_in_words(result.info))}</p>',
            highlights.legend_html(with_gold=has_gold),
            '<div class="columns"><div>',
            f"<h3>Response · hallucination {result.hallucination:.2f}</h3>",
            highlights.response_html(example, result, response_meaning, show_gold=has_gold, mark=response_mark),
            "</div><div>",
            f"<h3>Arguments · coverage error {result.coverage:.2f}</h3>",
            highlights.arguments_html(example, result, argument_meaning, show_gold=has_gold, mark=argument_mark),
            "</div></div>",
            _sentence_map_html(example, result),
        ]
    fitted_on = active().data_of_all(results)
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts.append(
        f'<p class="meta">Made with the RAG Error Explorer on {generated}. Scores in [0, 1]: higher means more '
        "likely an error (Chang et al. 2024, arXiv 2403.08904). Thresholds and verdicts: each detector's score "
        f"calibrated on {html.escape('; '.join(fitted_on) or 'no data')} (Platt scaling).</p>"
    )
    return f'<div class="rag-report"><style>{_STYLE}</style>{"".join(parts)}</div>'


def example_html(example: Example, results: Mapping[str, DetectorResult], **options) -> str:
    """A standalone HTML page (`example_fragment` in a document that loads nothing from elsewhere)."""
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(example.id)} · RAG Error Explorer</title><style>{_PAGE_STYLE}</style></head>"
        f"<body>{example_fragment(example, results, **options)}</body></html>\n"
    )
