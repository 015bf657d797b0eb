"""HTML for the verdict and for scores against their thresholds, free of Streamlit.

The app and the exported report draw the same HTML. Bars are plain HTML (no plotly), so a
report stays small; every piece of user text goes through `html.escape`, styles are inline.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from explorer.data.example import Example
from explorer.data.labels import ERROR_TITLES, ERROR_TYPES
from explorer.detectors.base import DetectorResult
from explorer.evaluation.accounts import Account
from explorer.evaluation.calibration import (
    LIKELY,
    LIKELY_FROM,
    UNCLEAR,
    UNLIKELY,
    UNLIKELY_BELOW,
    Calibration,
    active,
)
from explorer.evaluation.verdict import Piece, Verdict
from explorer.render.accounts import account_line_html

VERDICT_STYLES = {  # text color, background
    LIKELY: ("#991b1b", "rgba(239,68,68,0.16)"),
    UNCLEAR: ("#92400e", "rgba(245,158,11,0.18)"),
    UNLIKELY: ("#166534", "rgba(34,197,94,0.16)"),
    None: ("#374151", "rgba(156,163,175,0.18)"),
}
VERDICT_WORDS = {
    LIKELY: "likely",
    UNCLEAR: "unclear",
    UNLIKELY: "unlikely",
    None: "no calibrated verdict",
}
_PIECE_WORDS = {
    "hallucination": {
        LIKELY: "unsupported",
        UNCLEAR: "possibly unsupported",
        UNLIKELY: "least supported",
        None: "least supported",
    },
    "coverage": {LIKELY: "dropped", UNCLEAR: "possibly dropped", UNLIKELY: "least covered", None: "least covered"},
}
_SHORTEN = 160


def pill(verdict: str | None, words: str = "") -> str:
    """The verdict in a coloured pill; `words` replace the verdict's own (e.g. "scoring…")."""
    color, background = VERDICT_STYLES[verdict]
    return (
        f'<span data-verdict="{verdict or "none"}" style="display:inline-block;min-width:5.5em;text-align:center;'
        f"padding:0 0.5em;border-radius:0.8em;font-weight:600;color:{color};background:{background};"
        f'border:1px solid {color}44">{html.escape(words or VERDICT_WORDS[verdict])}</span>'
    )


def _cut_left(text: str, keep: int) -> str:
    """The last `keep` characters of `text` or fewer, from a word start, "…" first when cut."""
    if len(text) <= keep:
        return text
    tail = text[len(text) - keep :]
    return "…" + (tail.split(" ", 1)[1] if " " in tail else "")


def _cut_right(text: str, keep: int) -> str:
    """The first `keep` characters of `text` or fewer, to a word end, "…" last when cut."""
    if len(text) <= keep:
        return text
    head = text[:keep]
    return (head.rsplit(" ", 1)[0] if " " in head else "") + "…"


def quote_html(piece: Piece) -> str:
    """The piece, escaped; when longer than `_SHORTEN` characters, its focus (the least supported
    clause) in bold with as much of the text around it as fits, so a long sentence is quoted
    where its problem is, never cut off before it."""
    text = piece.text
    if len(text) <= _SHORTEN:
        return html.escape(text)
    left, right = piece.focus or (piece.start, piece.end)
    left, right = left - piece.start, right - piece.start  # offsets into `text`
    focus = _cut_right(text[left:right], _SHORTEN)
    room = max(_SHORTEN - len(focus), 0)
    before = _cut_left(text[:left], room // 2) if left else ""
    after = _cut_right(text[right:], room - len(before)) if right < len(text) and len(focus) == right - left else ""
    if not before.strip() and not after.strip():
        return html.escape(before + focus + after)
    return f"{html.escape(before)}<b data-focus>{html.escape(focus)}</b>{html.escape(after)}"


def _piece_name(example: Example, verdict: Verdict) -> str:
    piece = verdict.piece
    if piece.perspective is None:
        return "sentence"
    return example.argument_name(piece.perspective, piece.argument)


def band_words(probability: float) -> str:
    """Where a P(error) falls among the verdict's bands, e.g. "unclear: 0.30 to 0.70"."""
    if probability >= LIKELY_FROM:
        return f"likely: {LIKELY_FROM:.2f} or more"
    if probability < UNLIKELY_BELOW:
        return f"unlikely: below {UNLIKELY_BELOW:.2f}"
    return f"unclear: {UNLIKELY_BELOW:.2f} to {LIKELY_FROM:.2f}"


def calibrated_words(score: float, calibration: Calibration | None) -> str:
    """E.g. "score 0.57 · P(error) 0.56 (unclear: 0.30 to 0.70)": the score, its one calibrated
    P(error), and the band of the verdict that P(error) falls in. The threshold (P(error) = 0.5)
    is the bar's tick and the dataset page's starting point; written here beside an "unclear"
    verdict, "≥ threshold" read as a contradiction."""
    if calibration is None:
        return f"score {score:.2f} (no calibration for this model or version)"
    if calibration.near_chance:
        auc = calibration.auc
        return f"score {score:.2f} (near chance on its calibration data, dev ROC AUC {auc:.2f}: no P(error))"
    if not calibration.informative:
        return f"score {score:.2f} (did not rank dev errors higher: no P(error))"
    probability = calibration.probability(score)
    return f"score {score:.2f} · P(error) {probability:.2f} ({band_words(probability)})"


def verdict_html(
    example: Example,
    verdicts: Mapping[str, Verdict],
    detector_title: str,
    *,
    links: bool = True,
    accounts: Mapping[str, Account] | None = None,
) -> str:
    """One line per error type: the verdict, the piece responsible (a link to it when `links`),
    the detector's score and P(error), and what the claim view says of the same piece (`accounts`)."""
    rows = []
    for error_type in ERROR_TYPES:
        verdict = verdicts[error_type]
        piece = verdict.piece
        where = ""
        if piece is not None:
            label = f"{_PIECE_WORDS[error_type][verdict.verdict]} {_piece_name(example, verdict)}"
            quoted = f"“{quote_html(piece)}”"
            target = (
                f'<a href="#{piece.anchor}" style="color:inherit" title="show it in the highlights">{quoted}</a>'
                if links
                else quoted
            )
            where = f'<span style="opacity:0.75">{html.escape(label)}:</span> {target}'
        account = (accounts or {}).get(error_type)
        reading = f"<br>{account_line_html(example, account)}" if account is not None else ""
        rows.append(
            f'<div data-error-type="{error_type}" style="display:grid;grid-template-columns:10.5em 6.5em 1fr;'
            'gap:0.6em;align-items:baseline;margin:0.25em 0">'
            f"<b>{ERROR_TITLES[error_type]}</b>{pill(verdict.verdict)}"
            f"<span>{where}"
            f'<br><span style="opacity:0.7;font-size:0.85em">{html.escape(detector_title)} '
            f"{html.escape(calibrated_words(verdict.score, verdict.calibration))}</span>{reading}</span></div>"
        )
    return f'<div style="line-height:1.5">{"".join(rows)}</div>'


def _side(verdict: Verdict) -> str:
    probability = verdict.probability
    figure = f"P(error) {probability:.2f}" if probability is not None else f"score {verdict.score:.2f}"
    return f"{pill(verdict.verdict)} {figure}"


def verdict_change_html(before: Mapping[str, Verdict], after: Mapping[str, Verdict], detector_title: str) -> str:
    """The verdict on each error type before and after an edit: pill and P(error) on each side."""
    rows = "".join(
        f'<div data-verdict-change="{error_type}" style="display:grid;grid-template-columns:10.5em auto 2em auto;'
        'gap:0.5em;align-items:baseline;margin:0.2em 0">'
        f"<b>{ERROR_TITLES[error_type]}</b>"
        f'<span data-side="before">{_side(before[error_type])}</span>'
        '<span style="text-align:center">→</span>'
        f'<span data-side="after">{_side(after[error_type])}</span></div>'
        for error_type in ERROR_TYPES
    )
    note = f"the verdict of {html.escape(detector_title)}, before → after the edits"
    return f'<div style="line-height:1.5">{rows}<div style="font-size:0.8em;opacity:0.7">{note}</div></div>'


def pending_verdict_html(note: str) -> str:
    """Where the verdict goes while the example is scored: the same rows, each "scoring…", so the
    page neither jumps nor shows the previous example's verdict under a new question."""
    rows = "".join(
        f'<div data-error-type="{error_type}" data-pending style="display:grid;grid-template-columns:10.5em 6.5em 1fr;'
        'gap:0.6em;align-items:baseline;margin:0.25em 0">'
        f"<b>{ERROR_TITLES[error_type]}</b>{pill(None, 'scoring…')}"
        f'<span style="opacity:0.6">{html.escape(note)}</span></div>'
        for error_type in ERROR_TYPES
    )
    return f'<div data-verdict-pending style="line-height:1.5">{rows}</div>'


def _bar(score: float, verdict: str | None, calibration: Calibration | None) -> str:
    """A score bar (0 to 1): the score a solid fill in its verdict's colour, the threshold a thin
    dark line over it, the unclear band a light strip along the bottom edge."""
    marks = ""
    if calibration is not None and calibration.informative:
        low = min(max(calibration.unlikely_below, 0.0), 1.0)
        high = min(max(calibration.likely_from, 0.0), 1.0)
        tick = calibration.threshold
        marks = (
            f'<span data-part="unclear" style="position:absolute;left:{100 * low:.1f}%;width:{100 * (high - low):.1f}%;'
            'bottom:-4px;height:3px;background:rgba(245,158,11,0.55)"></span>'
        )
        if 0.0 <= tick <= 1.0:
            marks += (
                f'<span data-part="threshold" style="position:absolute;left:{100 * tick:.1f}%;top:-3px;bottom:-3px;'
                'width:1px;background:#111"></span>'
            )
    color = VERDICT_STYLES[verdict][0]
    # Even a score of 0.00 leaves a sliver of colour at the left edge, so the bar never reads as empty.
    return (
        '<span style="position:relative;display:inline-block;width:7em;height:0.9em;vertical-align:middle;'
        'background:rgba(128,128,128,0.15);border-radius:2px">'
        f'<span data-part="score" style="position:absolute;left:0;top:0;bottom:0;'
        f'width:max(2px, {100 * min(max(score, 0.0), 1.0):.1f}%);background:{color};border-radius:2px"></span>'
        f"{marks}</span>"
    )


def _near_chance(calibration: Calibration | None) -> str:
    """A visible warning beside a score whose detector ranked dev errors little better than chance."""
    if calibration is None or not calibration.near_chance:
        return ""
    return (
        f' <span data-near-chance="1" style="font-size:0.8em;color:#b45309">near chance '
        f"(dev ROC AUC {calibration.auc:.2f})</span>"
    )


def scores_html(
    results: Mapping[str, DetectorResult],
    calibrations: Mapping[str, Mapping[str, Calibration | None]],
    titles: Mapping[str, str],
) -> str:
    """Each detector's scores with its threshold and verdict; per-perspective coverage under each."""
    head = "".join(f'<th style="text-align:left;padding:0.2em 0.8em">{ERROR_TITLES[t]}</th>' for t in ERROR_TYPES)
    rows = []
    for name, result in results.items():
        cells = []
        for error_type in ERROR_TYPES:
            score = result.score(error_type)
            calibration = calibrations.get(name, {}).get(error_type)
            verdict = calibration.verdict(score) if calibration is not None else None
            detail = html.escape(calibrated_words(score, calibration))
            extra = ""
            if error_type == "coverage" and len(result.per_perspective) > 1:
                extra = "<br>" + " · ".join(f"{html.escape(p)} {v:.2f}" for p, v in result.per_perspective.items())
            cells.append(
                f'<td style="padding:0.2em 0.8em;vertical-align:top" title="{detail}" '
                f'data-score-of="{html.escape(name)}.{error_type}">'
                f"{_bar(score, verdict, calibration)} <b>{score:.2f}</b> {pill(verdict)}{_near_chance(calibration)}"
                f'<span style="opacity:0.65;font-size:0.8em">{extra}</span></td>'
            )
        title = f'<td style="padding:0.2em 0.8em 0.2em 0;vertical-align:top">{html.escape(titles[name])}</td>'
        rows.append(f"<tr>{title}{''.join(cells)}</tr>")
    legend = (
        '<div style="font-size:0.8em;opacity:0.75;margin-top:0.2em">Bar: the error score (0 to 1), coloured by '
        'its verdict; <span style="display:inline-block;width:1px;height:0.9em;background:#111;'
        "vertical-align:middle\"></span> the detector's threshold (P(error) = 0.5 on its calibration data: "
        f"{html.escape('; '.join(active().data_of_all(results)) or 'none')}); "
        '<span style="display:inline-block;width:1.2em;height:3px;background:rgba(245,158,11,0.55);'
        f'vertical-align:middle"></span> unclear (P(error) between {UNLIKELY_BELOW:.1f} and {LIKELY_FROM:.1f}). '
        "Hover a cell for its numbers.</div>"
    )
    return (
        '<table style="border-collapse:collapse;font-size:0.92em"><thead><tr>'
        f'<th style="text-align:left;padding:0.2em 0.8em 0.2em 0">detector</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>{legend}"
    )


def highlight_marks(found: Mapping[str, Verdict] | None):
    """(response mark, argument mark) for the verdict detector's highlights: where the verdict's links land."""
    if found is None:
        return None, None
    sentence, argument = found["hallucination"].piece, found["coverage"].piece
    return (
        (sentence.start, sentence.end, sentence.anchor) if sentence else None,
        (argument.perspective, argument.argument, argument.anchor) if argument else None,
    )
