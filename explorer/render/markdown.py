"""A response written in markdown (headers, bullets, tables, bold) drawn as such, its words still
shaded by their scores. Free of Streamlit: the app and the exported report draw the same HTML.

Chat models answer in markdown: shown as typed, an answer's "### Arguments for" and "**Short
version:**" read as noise. markdown-it-py (CommonMark, plus GFM tables) parses the text; this
module draws its structure itself and hands every stretch of the text between markup to
`inline(start, end)`, which draws `text[start:end]` (shaded words, gold spans, the verdict's
outline; or the claim view's claims). Offsets stay those of the text as typed, so word scores,
spans and links keep pointing at the right characters.

Safety: no HTML of the parser's is used. Raw HTML is off (`<script>` is text); links and images
draw their text only (no `href`, no `src`); table alignment comes from a fixed list; every
character of user text reaches the page through `inline` (which escapes) or `html.escape`.

A text is drawn as markdown only where it uses block or emphasis syntax (`is_markdown`); plain
prose keeps its line breaks as typed (`white-space: pre-wrap`). A text token that does not occur
verbatim in the source (it held a backslash escape or an entity, `\\*` or `&amp;`) is drawn
escaped without scores.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

Inline = Callable[[int, int], str]

_PARSER = MarkdownIt("commonmark", {"html": False}).enable("table")
# Token types that show a text is written in markdown (a plain paragraph, or a line indented by
# four spaces that CommonMark would read as code, does not).
_MARKDOWN = frozenset(
    {"heading_open", "bullet_list_open", "ordered_list_open", "table_open", "strong_open", "em_open", "blockquote_open"}
)
_ALIGN = {"text-align:left": "left", "text-align:right": "right", "text-align:center": "center"}
_HEADING_SIZE = {"h1": "1.25em", "h2": "1.15em", "h3": "1.05em"}
_CELL = "border:1px solid rgba(128,128,128,0.35);padding:0.15em 0.5em;vertical-align:top"
_BLOCK_TAGS = {
    "paragraph_open": '<p style="margin:0 0 0.55em">',
    "paragraph_close": "</p>",
    "bullet_list_open": '<ul style="margin:0 0 0.55em;padding-left:1.4em">',
    "bullet_list_close": "</ul>",
    "ordered_list_close": "</ol>",
    "list_item_open": "<li>",
    "list_item_close": "</li>",
    "blockquote_open": '<blockquote style="margin:0 0 0.55em;padding-left:0.7em;border-left:3px solid #d1d5db">',
    "blockquote_close": "</blockquote>",
    "table_open": '<table style="border-collapse:collapse;margin:0 0 0.55em">',
    "table_close": "</table>",
    "thead_open": "<thead>",
    "thead_close": "</thead>",
    "tbody_open": "<tbody>",
    "tbody_close": "</tbody>",
    "tr_open": "<tr>",
    "tr_close": "</tr>",
    "th_close": "</th>",
    "td_close": "</td>",
    "hr": '<hr style="margin:0.4em 0">',
}
_INLINE_TAGS = {
    "strong_open": "<b>",
    "strong_close": "</b>",
    "em_open": "<i>",
    "em_close": "</i>",
    "s_open": "<s>",
    "s_close": "</s>",
}


@lru_cache(maxsize=64)
def _tokens(text: str) -> tuple[Token, ...]:
    return tuple(_PARSER.parse(text))


def is_markdown(text: str) -> bool:
    """Whether `text` uses markdown's block or emphasis syntax (headers, lists, tables, bold)."""
    if not any(mark in text for mark in "#*_-+|>0123456789"):
        return False
    return any(
        token.type in _MARKDOWN or any(child.type in _MARKDOWN for child in token.children or ())
        for token in _tokens(text)
    )


class _Drawer:
    """Draws one text's tokens, keeping a cursor in the text: every stretch is found after the last."""

    def __init__(self, text: str, inline: Inline):
        self.text, self.inline, self.cursor = text, inline, 0
        lines = text.split("\n")
        self.line_starts = [0]
        for line in lines:
            self.line_starts.append(self.line_starts[-1] + len(line) + 1)

    def _line_start(self, line: int) -> int:
        return min(self.line_starts[min(line, len(self.line_starts) - 1)], len(self.text))

    def _skip(self, markup: str) -> None:
        """Move the cursor past the next `markup` (e.g. "**")."""
        if markup:
            found = self.text.find(markup, self.cursor)
            if found >= 0:
                self.cursor = found + len(markup)

    def _stretch(self, content: str, limit: int) -> str:
        """`content`, found at or after the cursor and before `limit`, drawn by `inline`."""
        if not content:
            return ""
        found = self.text.find(content, self.cursor, limit)
        if found < 0:  # an escape or an entity: not as typed
            return html.escape(content)
        self.cursor = found + len(content)
        return self.inline(found, self.cursor)

    def _children(self, token: Token) -> str:
        limit = self._line_start(token.map[1]) if token.map else len(self.text)
        if token.map:
            self.cursor = max(self.cursor, self._line_start(token.map[0]))
        parts = []
        for child in token.children or ():
            if child.type in ("text", "code_inline"):
                drawn = self._stretch(child.content, limit)
                parts.append(f"<code>{drawn}</code>" if child.type == "code_inline" else drawn)
            elif child.type in ("softbreak", "hardbreak"):
                self._skip("\n")
                parts.append("<br>")
            elif child.type == "image":  # its text only, never a request for its source
                parts.append(self._children(child))
            else:
                if child.type.endswith("_open"):
                    self._skip(child.markup)
                parts.append(_INLINE_TAGS.get(child.type, ""))
                if child.type.endswith("_close"):
                    self._skip(child.markup)
        return "".join(parts)

    def draw(self) -> str:
        parts = []
        for token in _tokens(self.text):
            if token.type == "inline":
                parts.append(self._children(token))
            elif token.type in ("code_block", "fence"):
                # Shown as typed: a line indented by four spaces is more often prose than code.
                start = self._line_start(token.map[0]) if token.map else self.cursor
                end = self._line_start(token.map[1]) if token.map else len(self.text)
                end = len(self.text[:end].rstrip("\n"))
                self.cursor = max(self.cursor, end)
                parts.append(f'<div style="white-space:pre-wrap;margin:0 0 0.55em">{self.inline(start, end)}</div>')
            elif token.type in ("paragraph_open", "paragraph_close") and token.hidden:
                continue  # a tight list's items hold no paragraphs
            elif token.type == "heading_open":
                size = _HEADING_SIZE.get(token.tag, "1em")
                level = token.tag[1:]
                parts.append(
                    f'<div role="heading" aria-level="{level}" data-md="heading" '
                    f'style="font-weight:700;font-size:{size};margin:0.5em 0 0.25em">'
                )
            elif token.type == "heading_close":
                parts.append("</div>")
            elif token.type == "ordered_list_open":
                start = token.attrs.get("start")
                first = f' start="{int(start)}"' if isinstance(start, (int, str)) and str(start).isdigit() else ""
                parts.append(f'<ol{first} style="margin:0 0 0.55em;padding-left:1.6em">')
            elif token.type in ("th_open", "td_open"):
                align = _ALIGN.get(str(token.attrs.get("style", "")), "left")
                parts.append(f'<{token.tag} style="{_CELL};text-align:{align}">')
            else:
                parts.append(_BLOCK_TAGS.get(token.type, ""))
        return "".join(parts)


def render(text: str, inline: Inline) -> str:
    """`text`'s markdown drawn as HTML (no outer element), each stretch of it by `inline(start, end)`."""
    return _Drawer(text, inline).draw()
