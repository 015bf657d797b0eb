import re

from explorer.detectors.rouge import RougeDetector
from explorer.render.highlights import arguments_html, highlight, legend_html, response_html
from tests.helpers import make_example

HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)> & "quotes"'


def test_user_text_is_escaped_everywhere():
    example = make_example(HOSTILE, (HOSTILE, [HOSTILE]), query=HOSTILE)
    result = RougeDetector().score(example)
    page = response_html(example, result, "m") + arguments_html(example, result, "m")
    assert "<script" not in page and "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "onerror=alert(2)&gt;" in page


def test_highlight_keeps_every_character_and_shades_only_scored_words():
    text = "Taxes cut <sugar>."
    html = highlight(text, [(0, 5, 1.0), (11, 16, 0.0)])
    assert html.count("data-score=") == 2
    assert 'data-score="1.0000"' in html and 'title="Taxes: 1.00"' in html
    assert ">Taxes</span> cut &lt;<span" in html


def test_gold_spans_are_marked_even_across_word_boundaries():
    html = highlight("one two three", [(0, 3, 0.0), (4, 7, 1.0), (8, 13, 0.0)], gold=[(2, 9)])
    gold_pieces = re.findall(r'data-gold="1">([^<]*)</span>', html)
    assert "".join(gold_pieces) == "e two t"


def test_hover_text_says_what_the_score_means():
    html = highlight("tax", [(0, 3, 0.25)], meaning="1 = not in any argument")
    assert 'title="tax: 0.25 (1 = not in any argument)"' in html


def test_legend_mentions_gold_only_when_asked():
    assert "gold" not in legend_html() and "gold error span" in legend_html(with_gold=True)


def test_many_words_render_quickly():
    text = "word " * 5000
    words = [(i * 5, i * 5 + 4, (i % 10) / 10) for i in range(5000)]
    html = highlight(text, words)
    assert html.count("data-score=") == 5000
