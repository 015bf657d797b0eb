"""HTML for one failure of a detector on a test set: what the gold labels say went wrong (the
hallucinated span, the dropped argument) or what the detector flagged instead, quoted inline,
with every detector's score beside it. Free of Streamlit; every piece of example text goes
through `html.escape`, styles are inline, no script.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from explorer.data.example import Example
from explorer.detectors.base import DetectorResult
from explorer.evaluation.verdict import worst_argument, worst_sentence
from explorer.render.verdict import quote_html

QUOTE_LIMIT = 220  # characters of a gold span shown; the rest is in Inspect, one click away
MISSED = "false negative"  # `explorer.evaluation.table.OUTCOMES`: the other kind listed is a false alarm


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT].rsplit(" ", 1)[0] + "…"


def gold_pieces(example: Example, error_type: str) -> list[tuple[str, str]]:
    """(what, text) for each piece the gold labels mark: hallucinated spans of the response, or
    the uncovered arguments (their uncovered spans where only part is left out)."""
    labels = example.labels
    if error_type == "hallucination":
        return [("hallucinated", example.response[start:end]) for start, end in labels.hallucinated_spans]
    found = []
    for uncovered in labels.uncovered:
        text = example.perspectives[uncovered.perspective].arguments[uncovered.argument]
        name = example.argument_name(uncovered.perspective, uncovered.argument)
        if uncovered.spans:
            found += [(f"dropped from {name}", text[start:end]) for start, end in uncovered.spans]
        else:
            found.append((f"dropped {name}", text))
    return found


def flagged_piece(example: Example, result: DetectorResult, error_type: str) -> tuple[str, str] | None:
    """(what, quote HTML) of the sentence or argument the detector scores worst, None without word scores."""
    if error_type == "hallucination":
        piece = worst_sentence(example, result)
        return ("flagged sentence", quote_html(piece)) if piece else None
    piece = worst_argument(example, result)
    if piece is None:
        return None
    return f"flagged {example.argument_name(piece.perspective, piece.argument)}", quote_html(piece)


def scores_line(
    results: Mapping[str, DetectorResult],
    error_type: str,
    detector_name: str,
    titles: Mapping[str, str],
    threshold: float,
) -> str:
    """Every detector's score of this example, the one whose failure it is first and in bold."""
    names = [detector_name] + [name for name in results if name != detector_name]
    parts = []
    for name in names:
        if name not in results:
            continue
        score = results[name].score(error_type)
        text = f"{html.escape(titles.get(name, name))} {score:.2f}"
        if name == detector_name:
            relation = "≥" if score >= threshold else "&lt;"
            text = f"<b>{text}</b> {relation} {threshold:.2f}"
        parts.append(f'<span data-score-for="{html.escape(name)}">{text}</span>')
    return " · ".join(parts)


def failure_html(
    example: Example,
    results: Mapping[str, DetectorResult],
    *,
    detector_name: str,
    error_type: str,
    kind: str,
    threshold: float,
    titles: Mapping[str, str],
) -> str:
    """One failure: the example's id, the text it is about (for a miss the gold span or dropped
    argument, for a false alarm the piece the detector flagged), then every detector's score."""
    if kind == MISSED:
        pieces = [(what, html.escape(_cut(text))) for what, text in gold_pieces(example, error_type)]
        if not pieces:
            pieces = [("gold", "<i>the labels mark no span: open it to read the whole response</i>")]
    else:
        flagged = flagged_piece(example, results[detector_name], error_type)
        pieces = [flagged] if flagged else []
    quotes = "".join(
        f'<div style="margin-top:0.15em"><span style="opacity:0.7">{html.escape(what)}:</span> “{quote}”</div>'
        for what, quote in pieces
    )
    scores = scores_line(results, error_type, detector_name, titles, threshold)
    return (
        f'<div data-failure="{html.escape(example.id)}" style="font-size:0.88em;line-height:1.4">'
        f'<code style="font-size:0.9em">{html.escape(example.id)}</code>{quotes}'
        f'<div style="opacity:0.8;font-size:0.92em;margin-top:0.15em">{scores}</div></div>'
    )
