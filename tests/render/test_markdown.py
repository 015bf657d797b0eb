"""A markdown response drawn as markdown with its words still shaded (`explorer.render.markdown`)."""

import re

from explorer.render.highlights import highlight
from explorer.render.markdown import is_markdown, render

ANSWER = (
    "**Short version:** it depends.\n\n### Arguments for\nSupporters say it helps.\nThey add more.\n\n"
    "- one **two** three\n- <script>alert(1)</script> [site](https://example.org)\n\n"
    "| side | point |\n|:--|--:|\n| con | It costs |\n"
)


def scored(text: str, *words: str) -> list[tuple[int, int, float]]:
    return [(text.index(word), text.index(word) + len(word), 0.8) for word in words]


def test_plain_prose_is_not_markdown_and_keeps_its_line_breaks():
    text = "Supporters say it helps.\nCritics disagree, 3 to 1.\n\n1 in 4 agree."
    assert not is_markdown(text)
    drawn = highlight(text, scored(text, "helps"), as_markdown=True)
    assert drawn.startswith('<div style="white-space:pre-wrap') and "data-markdown" not in drawn


def test_headers_lists_tables_and_bold_are_drawn_and_every_scored_word_keeps_its_score():
    assert is_markdown(ANSWER)
    drawn = highlight(
        ANSWER, scored(ANSWER, "version", "Arguments", "helps", "two", "three", "side", "costs"), as_markdown=True
    )
    assert 'data-md="heading"' in drawn and ">Arguments</span> for</div>" in drawn
    assert "<ul" in drawn and "<table" in drawn and "text-align:right" in drawn
    assert re.search(r"<b>.*two.*</b>", drawn)
    assert drawn.count('data-score="0.8000"') == 7  # each scored word found at its offsets
    assert "**" not in drawn and "###" not in drawn and "|:--|" not in drawn


def test_user_text_stays_text_inside_markdown():
    drawn = highlight(ANSWER, [], as_markdown=True)
    assert "<script>" not in drawn and "&lt;script&gt;alert(1)&lt;/script&gt;" in drawn
    assert "<a" not in drawn and "example.org" not in drawn and "site" in drawn  # a link draws its text only


def test_a_mark_across_blocks_outlines_each_part_and_names_one_target():
    text = "### Title\nFirst sentence here.\n\n- second part"
    start, end = text.index("First"), len(text)
    drawn = highlight(text, [], mark=(start, end, "target"), as_markdown=True)
    assert drawn.count('id="target"') == 1 and drawn.count("outline:2px") == 2


def test_an_escape_the_source_does_not_hold_verbatim_is_drawn_without_scores():
    text = "- four \\* five &amp; six\n- seven"
    drawn = render(text, lambda start, end: f"[{text[start:end]}]")
    assert "four * five &amp; six" in drawn and "[seven]" in drawn
