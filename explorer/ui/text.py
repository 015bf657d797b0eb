"""User text inside Streamlit's markdown elements: headers, markdown, alerts, help tooltips.

Streamlit renders those strings as GitHub-flavoured markdown with LaTeX (`$...$`) and colour
directives (`:red[...]`), so a query such as "Is a $15 wage better than $12?" would show as a
formula and "[x](url)" as a link. Text from examples, files and links goes through `literal`
(or `code`) so that it shows as typed.

Some constructs are found in the parsed text, after backslash escapes are applied, so an escape
cannot stop them: GFM's bare links (`www.x.org`, `https://x.org`, `a@b.org`:
mdast-util-gfm-autolink-literal), Streamlit's icons (`:material/home:`), its logo
(`:streamlit:`) and emoji shortcodes (`:smile:`). `literal` breaks those patterns with an
invisible U+2060 WORD JOINER (after the `:` and the `@`, between `www` and `.`): the text reads
the same, but nothing in it becomes a link or an icon.
"""

from __future__ import annotations

import re

# Characters that open or close an inline construct anywhere in a line...
_INLINE = re.compile(r"([\\`*_~\[\]<>&$|#])")
# ...and block markers that count only at the start of a line (lists, quotes, setext headings).
_LINE_START_MARK = re.compile(r"^([ \t]*)([-+=])", re.MULTILINE)
_LINE_START_NUMBER = re.compile(r"^([ \t]*\d+)([.)])", re.MULTILINE)
JOINER = "\u2060"
# A colon that opens a name closed by a colon, a slash or a bracket (`:material/`, `:smile:`, `:+1:`,
# `:red[`) or a `//` (`https://`), an
# address's @, and `www.`: the starts of the constructs in the module doc.
_PARSED_TEXT_CONSTRUCT = re.compile(r"(:(?=//|[\w+\\-]+[:\[/])|@|www(?=\.))", re.IGNORECASE)


def literal(text: str) -> str:
    """`text` backslash-escaped so that Streamlit's markdown shows it character for character."""
    escaped = _INLINE.sub(r"\\\1", text)
    escaped = _LINE_START_MARK.sub(r"\1\\\2", escaped)
    escaped = _LINE_START_NUMBER.sub(r"\1\\\2", escaped)
    return _PARSED_TEXT_CONSTRUCT.sub(lambda found: found.group() + JOINER, escaped)


def code(text: str) -> str:
    """`text` as an inline code span, fenced by more backticks than it holds in a row."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    return f"{fence} {text} {fence}"
