"""HTML highlights of word-level scores, free of Streamlit.

The same functions draw the app's views and the exported HTML report. Every piece of user
text goes through `html.escape` and styles are inline, so an example holding `<script>` or
`<img onerror=...>` shows as text wherever the HTML is shown.
"""

from __future__ import annotations

import bisect
import html
from collections.abc import Mapping, Sequence
from functools import lru_cache

from plotly.colors import sample_colorscale, unlabel_rgb

from explorer.data.example import Example, Span
from explorer.detectors.base import DetectorResult
from explorer.render import markdown

# One sequential scale for every detector and both error types, so highlights compare at a
# glance. It stops at red-orange (YlOrRd's darkest reds hide dark text).
COLORSCALE = [[0.0, "rgb(255,237,160)"], [0.5, "rgb(253,141,60)"], [1.0, "rgb(227,26,28)"]]
_DARK_TEXT_FROM = 0.3

WordSpan = tuple[int, int, float]
Mark = tuple[int, int, str]  # (start, end, HTML id): a stretch of text a link points at
MARK_STYLE = "outline:2px solid #2563eb;outline-offset:2px;border-radius:3px;scroll-margin-top:5rem"


@lru_cache(maxsize=1024)
def _color(score: float, alpha: float) -> str:
    red, green, blue = unlabel_rgb(sample_colorscale(COLORSCALE, [score])[0])
    return f"rgba({int(red)},{int(green)},{int(blue)},{alpha * score:.3f})"


def score_color(score: float, alpha: float = 0.9) -> str:
    """Background for an error score in [0, 1]: transparent at 0, red-orange at 1."""
    return _color(round(min(max(score, 0.0), 1.0), 3), alpha)


def _cuts(text: str, words: Sequence[WordSpan], gold: Sequence[Span], mark: Mark | None) -> list[int]:
    points = {0, len(text)}
    if mark is not None:
        points.update(mark[:2])
    for start, end, _ in words:
        points.update((start, end))
    for start, end in gold:
        points.update((start, end))
    return sorted(p for p in points if 0 <= p <= len(text))


def _stretch_html(
    text: str,
    start: int,
    end: int,
    ordered: Sequence[WordSpan],
    cuts: Sequence[int],
    gold: Sequence[Span],
    meaning: str,
    mark: Mark | None,
) -> str:
    """`text[start:end]` as escaped HTML: scored words shaded, gold spans underlined, and the part
    inside `mark` outlined (its HTML id where the mark starts)."""
    starts = [word_start for word_start, _, _ in ordered]
    inside = [start] + [cut for cut in cuts[bisect.bisect_right(cuts, start) :] if cut < end] + [end]
    parts = []
    for left, right in zip(inside, inside[1:]):
        if mark is not None and left == max(mark[0], start) and left < mark[1]:
            anchor = f' id="{html.escape(mark[2])}"' if left == mark[0] else ""
            parts.append(f'<span{anchor} style="{MARK_STYLE}">')
        piece = html.escape(text[left:right])
        index = bisect.bisect_right(starts, left) - 1
        word = ordered[index] if index >= 0 and right <= ordered[index][1] else None
        in_gold = any(s <= left and right <= e for s, e in gold)
        style = []
        attributes = ""
        if word is not None:
            word_start, word_end, score = word
            style.append(f"background:{score_color(score)}")
            style.append("border-bottom:1px dotted rgba(128,128,128,0.8)")
            if score >= _DARK_TEXT_FROM:
                style.append("color:#111")
            tip = f"{text[word_start:word_end]}: {score:.2f}" + (f" ({meaning})" if meaning else "")
            attributes = f' title="{html.escape(tip)}" data-score="{score:.4f}"'
        if in_gold:
            style.append("text-decoration:underline 2px #2563eb")
            style.append("text-underline-offset:3px")
            attributes += ' data-gold="1"'
        if style or attributes:
            parts.append(f'<span style="{";".join(style)}"{attributes}>{piece}</span>')
        else:
            parts.append(piece)
        if mark is not None and right == min(mark[1], end) and right > mark[0]:
            parts.append("</span>")
    return "".join(parts)


def highlight(
    text: str,
    words: Sequence[WordSpan],
    *,
    gold: Sequence[Span] = (),
    meaning: str = "",
    mark: Mark | None = None,
    as_markdown: bool = False,
) -> str:
    """`text` as escaped HTML, each scored word shaded by its score, gold spans underlined.

    `words` are `(start, end, score)` character spans; hovering a word shows its score and
    `meaning` (what a score of 1 says for this detector and side). `mark` outlines a stretch
    and gives it an HTML id, the target of a link (e.g. from the verdict). With `as_markdown`, a
    text written in markdown is drawn as such (`explorer.render.markdown`), its words shaded alike.
    """
    ordered = sorted(words)
    cuts = _cuts(text, words, gold, mark)

    def stretch(start: int, end: int) -> str:
        return _stretch_html(text, start, end, ordered, cuts, gold, meaning, mark)

    if as_markdown and markdown.is_markdown(text):
        return f'<div data-markdown="1" style="line-height:1.9">{markdown.render(text, stretch)}</div>'
    return f'<div style="white-space:pre-wrap;line-height:1.9">{stretch(0, len(text))}</div>'


def response_html(
    example: Example, result: DetectorResult, meaning: str, *, show_gold: bool = False, mark: Mark | None = None
) -> str:
    words = [(w.start, w.end, w.score) for w in result.response_words]
    gold = example.labels.hallucinated_spans if show_gold else ()
    return highlight(example.response, words, gold=gold, meaning=meaning, mark=mark, as_markdown=True)


def _gold_argument_spans(example: Example, perspective: int, argument: int) -> tuple[Span, ...]:
    spans: list[Span] = []
    for uncovered in example.labels.uncovered:
        if (uncovered.perspective, uncovered.argument) == (perspective, argument):
            text = example.perspectives[perspective].arguments[argument]
            spans.extend(uncovered.spans if uncovered.spans is not None else [(0, len(text))])
    return tuple(spans)


def arguments_html(
    example: Example,
    result: DetectorResult,
    meaning: str,
    *,
    show_gold: bool = False,
    mark: tuple[int, int, str] | None = None,
    tags: Mapping[tuple[int, int], tuple[str, str]] | None = None,
) -> str:
    """Each perspective with its coverage error score, then its arguments highlighted;
    `mark = (perspective, argument, HTML id)` outlines one argument, the target of a link;
    `tags[(perspective, argument)] = (label, color)` frames an argument and names it (e.g. the
    lab's "removed" and "added")."""
    blocks = []
    for p, perspective in enumerate(example.perspectives):
        score = result.per_perspective.get(perspective.name)
        badge = "" if score is None else f' <span style="opacity:0.75">coverage error {score:.2f}</span>'
        items = []
        for a, argument in enumerate(perspective.arguments):
            words = [(w.start, w.end, w.score) for w in result.argument_word_scores(p, a)]
            gold = _gold_argument_spans(example, p, a) if show_gold else ()
            styles, attributes, tag = [], "", ""
            if mark is not None and mark[:2] == (p, a):
                styles.append(MARK_STYLE)
                attributes += f' id="{html.escape(mark[2])}"'
            if tags and (p, a) in tags:
                label, color = tags[(p, a)]
                styles.append(f"border-left:4px solid {color};padding-left:0.4em")
                attributes += f' data-tag="{html.escape(label)}"'
                tag = f'<span style="color:{color};font-weight:600;font-size:0.85em">{html.escape(label)}: </span>'
            if styles:
                attributes += f' style="{";".join(styles)}"'
            items.append(f"<li{attributes}>{tag}{highlight(argument, words, gold=gold, meaning=meaning)}</li>")
        blocks.append(
            f'<div style="margin-bottom:0.6em"><b>{html.escape(perspective.name)}</b>{badge}'
            f'<ol style="margin:0.2em 0 0 0">{"".join(items)}</ol></div>'
        )
    return "".join(blocks)


def legend_html(*, with_gold: bool = False) -> str:
    stops = ", ".join(score_color(x / 10) for x in range(11))
    gold = (
        '<span style="margin-left:1.5em;text-decoration:underline 2px #2563eb;'
        'text-underline-offset:3px">gold error span</span>'
        if with_gold
        else ""
    )
    return (
        '<div style="display:flex;align-items:center;gap:0.5em;font-size:0.85em">'
        "<span>0 = no sign of error</span>"
        f'<span style="display:inline-block;width:12em;height:0.9em;background:linear-gradient(to right, {stops});'
        'border:1px solid rgba(128,128,128,0.5)"></span>'
        "<span>1 = likely error</span>"
        '<span style="margin-left:1.5em;border-bottom:1px dotted rgba(128,128,128,0.8)">scored word</span>'
        '<span style="opacity:0.75">(stop words are not scored)</span>'
        f"{gold}</div>"
    )
