"""Downloads: the scores table (CSV, Parquet) and a self-contained HTML report of one example.

The HTML report is one file to mail to stakeholders: the example with each detector's word
highlights (gold spans underlined), its scores as a table and a chart, and any heatmap a
detector provides (`DetectorResult.details["heatmap"]`, see `figures.heatmap_figure`). It makes
no network request: plotly.js is inlined once (`include_plotlyjs=True`, about 4.6 MB), styles
are inline, and a Content-Security-Policy forbids loading anything from elsewhere. All user
text is escaped (`render` and `html.escape`).
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Mapping
from datetime import datetime, timezone

import pandas as pd
import plotly.graph_objects as go

from explorer import detectors
from explorer.data.example import Example
from explorer.detectors.base import DetectorResult
from explorer.evaluation.report import method_title
from explorer.render import figures, highlights

# Inline scripts and styles only: the report works offline and cannot leak that it was opened.
CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2rem auto;
       max-width: 72rem; padding: 0 1.5rem; color: #1f2937; }
h1 { font-size: 1.5rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #e5e7eb; padding-bottom: .3rem; }
.facts { color: #4b5563; } .facts code { background: #f3f4f6; padding: 0 .3em; border-radius: 3px; }
table.scores { border-collapse: collapse; margin: .5rem 0; }
table.scores th, table.scores td { border: 1px solid #e5e7eb; padding: .3rem .7rem; text-align: right; }
table.scores th:first-child, table.scores td:first-child { text-align: left; }
.columns { display: grid; grid-template-columns: 1fr 1fr; gap: 1.5rem; }
.meta { color: #6b7280; font-size: .85rem; }
@media (max-width: 50rem) { .columns { grid-template-columns: 1fr; } }
"""


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


def _word_meanings(method: str) -> tuple[str, str]:
    try:
        spec = detectors.spec(method)
    except detectors.UnknownDetectorError:
        return "", ""
    return spec.response_word_meaning, spec.argument_word_meaning


def _scores_table(results: Mapping[str, DetectorResult]) -> str:
    perspectives = list(dict.fromkeys(p for r in results.values() for p in r.per_perspective))
    header = ["detector", "hallucination", "coverage error"] + [f"coverage · {p}" for p in perspectives]
    rows = []
    for method, result in results.items():
        values = [result.hallucination, result.coverage] + [result.per_perspective.get(p) for p in perspectives]
        cells = "".join(f"<td>{'' if v is None else f'{v:.3f}'}</td>" for v in values)
        rows.append(f"<tr><td>{html.escape(method_title(method))}</td>{cells}</tr>")
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    return f'<table class="scores"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _info_line(result: DetectorResult) -> str:
    info = result.info
    parts = [f"version {info['version']}"] if info.get("version") else []
    if info.get("model"):
        parts.append(f"model {info['model']}")
    if info.get("config"):
        parts.append("config " + ", ".join(f"{k}={v}" for k, v in info["config"].items()))
    return html.escape("; ".join(parts))


class _Figures:
    """Figures as HTML snippets; plotly.js goes into the first one only."""

    def __init__(self) -> None:
        self.first = True

    def html(self, figure: go.Figure) -> str:
        snippet = figure.to_html(
            full_html=False,
            include_plotlyjs=self.first,
            config={"displaylogo": False, "responsive": True},
        )
        self.first = False
        return snippet


def example_html(example: Example, results: Mapping[str, DetectorResult], *, show_gold: bool = True) -> str:
    """A standalone HTML page reporting `example` and every detector result in `results`."""
    titles = {method: method_title(method) for method in results}
    has_gold = show_gold and not example.labels.is_empty()
    plots = _Figures()
    facts = [f"<code>{html.escape(example.id)}</code>"]
    if example.topic:
        facts.append(f"topic: {html.escape(example.topic)}")
    if not example.labels.is_empty():
        facts.append(f"gold labels: <b>{html.escape(example.labels.summary())}</b>")
    parts = [
        f"<h1>{html.escape(example.query)}</h1>",
        f'<p class="facts">{" · ".join(facts)}</p>',
    ]
    if results:
        parts += [
            "<h2>Scores</h2>",
            _scores_table(results),
            plots.html(figures.example_scores_figure(results, titles)),
        ]
    else:
        parts.append("<p>No detector results.</p>")
    for method, result in results.items():
        response_meaning, argument_meaning = _word_meanings(method)
        parts += [
            f"<h2>{html.escape(titles[method])}</h2>",
            f'<p class="meta">{_info_line(result)}</p>',
            highlights.legend_html(with_gold=has_gold),
            '<div class="columns"><div>',
            f"<h3>Response · hallucination {result.hallucination:.2f}</h3>",
            highlights.response_html(example, result, response_meaning, show_gold=has_gold),
            "</div><div>",
            f"<h3>Arguments · coverage error {result.coverage:.2f}</h3>",
            highlights.arguments_html(example, result, argument_meaning, show_gold=has_gold),
            "</div></div>",
        ]
        heatmap = result.details.get("heatmap")
        if heatmap:
            parts.append(plots.html(figures.heatmap_figure(heatmap)))
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts.append(
        f'<p class="meta">Made with the RAG Error Explorer on {generated}. Scores in [0, 1]: '
        "higher means more likely an error (Chang et al. 2024, arXiv 2403.08904).</p>"
    )
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(example.id)} · RAG Error Explorer</title><style>{_STYLE}</style></head>"
        f"<body>{''.join(parts)}</body></html>\n"
    )
