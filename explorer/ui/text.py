"""User text inside Streamlit's markdown elements: headers, markdown, alerts, help tooltips.

Streamlit renders those strings as GitHub-flavoured markdown with LaTeX (`$...$`) and colour
directives (`:red[...]`), so a query such as "Is a $15 wage better than $12?" would show as a
formula and "[x](url)" as a link. Text from examples, files and links goes through `literal`
(or `code`) so that it shows as typed.
"""

from __future__ import annotations

import re

# Characters that open or close an inline construct anywhere in a line...
_INLINE = re.compile(r"([\\`*_~\[\]<>&$|#])")
# ...and block markers that count only at the start of a line (lists, quotes, setext headings).
_LINE_START_MARK = re.compile(r"^([ \t]*)([-+=])", re.MULTILINE)
_LINE_START_NUMBER = re.compile(r"^([ \t]*\d+)([.)])", re.MULTILINE)


def literal(text: str) -> str:
    """`text` backslash-escaped so that Streamlit's markdown shows it character for character."""
    escaped = _INLINE.sub(r"\\\1", text)
    escaped = _LINE_START_MARK.sub(r"\1\\\2", escaped)
    return _LINE_START_NUMBER.sub(r"\1\\\2", escaped)


def code(text: str) -> str:
    """`text` as an inline code span, fenced by more backticks than it holds in a row."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    return f"{fence} {text} {fence}"
