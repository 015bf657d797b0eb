"""User text shown through Streamlit's markdown comes out as typed."""

import html
import re

import pytest

from explorer.ui.text import JOINER, code, literal

TEXTS = [
    "Is a $15 minimum wage better than $12?",
    "Should *all* schools ban __junk__ food?",
    "[click me](javascript:alert(1)) ![x](http://example.com/x.png)",
    "<script>alert(1)</script> &lt;b&gt; &amp;",
    "C:\\Users\\me\\ and a `tick` and ~~gone~~ | a | table |",
    "# not a heading\n- not a list\n+ nor this\n1. nor this\n2) nor this\n> not a quote\n===",
    "Is C# better? Use #hashtags, 3 - 2 = 1.",
    "税金 🙂 مرحبا שלום \u200b",
]


def rendered_text(markdown: str) -> str:
    """What a CommonMark renderer shows for `markdown`, tags stripped."""
    markdown_it = pytest.importorskip("markdown_it")
    shown = markdown_it.MarkdownIt("commonmark").enable("strikethrough").enable("table").render(markdown)
    return html.unescape(re.sub(r"<[^>]+>", "", shown)).strip()


@pytest.mark.parametrize("text", TEXTS)
def test_literal_text_renders_as_typed(text):
    assert rendered_text(literal(text)).replace(JOINER, "") == text.strip()


def test_math_delimiters_are_escaped():
    assert literal("Is a $15 wage better than $12?") == r"Is a \$15 wage better than \$12?"


def test_plain_sentences_are_left_alone():
    assert literal("Should cities ban cars from their centres?") == "Should cities ban cars from their centres?"


@pytest.mark.parametrize("text", ["plain-id", "has `one` tick", "has ``two`` ticks", "<b>$x$</b>"])
def test_code_spans_hold_any_backticks(text):
    markdown_it = pytest.importorskip("markdown_it")
    shown = markdown_it.MarkdownIt("commonmark").render(code(text))
    assert re.fullmatch(r"<p><code>(.*)</code></p>\n", shown)
    assert html.unescape(shown.removeprefix("<p><code>").removesuffix("</code></p>\n")) == text


# Issue 14, problem 7: constructs Streamlit finds in the parsed text, where escapes no longer
# count. The patterns are those of the renderer: mdast-util-gfm-autolink-literal's (links),
# Streamlit's StreamlitMarkdown.tsx (icons, logo) and remark-emoji's (shortcodes); JavaScript's
# `\w` is ASCII.
PARSED_TEXT_PATTERNS = {
    "link": re.compile(r"(https?://|www(?=\.))([-.\w]+)([^ \t\r\n]*)", re.IGNORECASE | re.ASCII),
    "e-mail link": re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)", re.ASCII),
    "icon": re.compile(r":material_(\w+):", re.ASCII),
    "logo": re.compile(r":streamlit:"),
    "emoji": re.compile(r":\+1:|:-1:|:[\w-]+:", re.ASCII),
}
HOSTILE_TEXTS = [
    "see www.example.com or WWW.EXAMPLE.COM",
    "read https://evil.example/x?a=1 and http://evil.example",
    "write to someone@example.com",
    "press :material/delete: now",
    "a :material_home: icon, the :streamlit: logo, a :smile: and a :+1:",
]


@pytest.mark.parametrize("text", HOSTILE_TEXTS)
def test_links_icons_and_shortcodes_in_user_text_stay_text(text):
    source = literal(text)
    assert ":material/" not in source  # Streamlit turns it into :material_ before parsing
    assert not re.search(r"(?<!\\):[A-Za-z]", source)  # a text directive (:red[...], :name{...})
    shown = rendered_text(source)
    for name, pattern in PARSED_TEXT_PATTERNS.items():
        assert not pattern.search(shown.replace(":material/", ":material_")), name
    assert shown.replace(JOINER, "") == text
