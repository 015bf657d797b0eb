"""Claim splitting: sentences and candidate clauses with exact character offsets."""

import pytest

from explorer.text.claims import (
    candidate_spans,
    clause_spans,
    conjunct_spans,
    is_heading,
    mean_word_scores,
    piece_spans,
    sentence_spans,
    split_sentences,
)


def sentences(text: str) -> list[str]:
    spans = sentence_spans(text)
    return [text[start:end] for start, end in spans]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Taxes work. They cut intake! Do they? Yes.", ["Taxes work.", "They cut intake!", "Do they?", "Yes."]),
        (
            "Dr. Smith met Mr. Jones at 3.5 p.m. today. It rained.",
            ["Dr. Smith met Mr. Jones at 3.5 p.m. today.", "It rained."],
        ),
        ("See e.g. the report, etc. Then act.", ["See e.g. the report, etc.", "Then act."]),
        (
            "J. R. R. Tolkien wrote it. No. 5 won. I said no. Fine.",
            ["J. R. R. Tolkien wrote it.", "No. 5 won.", "I said no.", "Fine."],
        ),
        (
            "Sold in the U.S. and abroad. Made in the U.S. The end.",
            ["Sold in the U.S. and abroad.", "Made in the U.S.", "The end."],
        ),
        (
            'He said "Stop." Then he left. (It was late.) Next.',
            ['He said "Stop."', "Then he left.", "(It was late.)", "Next."],
        ),
        (
            "Wait... what? Prices rose 2.5% in 2024\u2026 Then fell.",
            ["Wait... what?", "Prices rose 2.5% in 2024\u2026", "Then fell."],
        ),
        ("税金は高い。消費は減る。 Ok.", ["税金は高い。", "消費は減る。", "Ok."]),
        ("कर अच्छा है। यह सही है।", ["कर अच्छा है।", "यह सही है।"]),
        ("هل الضريبة عادلة؟ نعم.", ["هل الضريبة عادلة؟", "نعم."]),
        ("Zürich taxes «sugar». Élan follows.", ["Zürich taxes «sugar».", "Élan follows."]),
    ],
)
def test_sentence_rules(text, expected):
    assert sentences(text) == expected


def test_line_breaks_lists_and_soft_wraps():
    text = "Supporters say\nthat it works.\nCritics disagree:\n- it is costly\n- it is unfair\n\n2. Last point"
    assert sentences(text) == [
        "Supporters say\nthat it works.",
        "Critics disagree:",
        "it is costly",
        "it is unfair",
        "Last point",
    ]


def test_offsets_map_back_and_whitespace_is_left_out():
    text = "  First one.\r\n\r\n  Second one!  "
    claims = split_sentences(text)
    assert [(c.text, text[c.start : c.end]) for c in claims] == [
        ("First one.", "First one."),
        ("Second one!", "Second one!"),
    ]
    assert [c.index for c in claims] == [0, 1] and all(c.clause is None for c in claims)


def test_empty_and_blank_text_have_no_sentences():
    assert sentence_spans("") == () and sentence_spans(" \n\t") == ()


def test_text_without_end_punctuation_is_one_sentence():
    assert sentences("no punctuation at all here") == ["no punctuation at all here"]


def test_clauses_cut_at_semicolons_and_conjunctions_but_keep_lists_whole():
    text = "Sugar taxes are regressive; they hurt poor families, but the revenue funds school sports, meals, and water."
    pieces = [text[s:e] for s, e in clause_spans(text, sentence_spans(text)[0])]
    assert pieces == [
        "Sugar taxes are regressive",
        "they hurt poor families",
        "but the revenue funds school sports, meals, and water.",
    ]


def test_short_pieces_stay_with_their_neighbour():
    text = "Cities tax drinks, and sweets."
    assert clause_spans(text, (0, len(text))) == ((0, len(text)),)


def test_mean_word_scores_per_claim():
    claims = split_sentences("One two. Three four.")
    words = [(0, 3, 1.0), (4, 7, 0.0), (9, 14, 0.5)]
    assert mean_word_scores(claims, words) == [0.5, 0.5]
    assert mean_word_scores(claims, []) == [None, None]


def test_pieces_cut_a_list_of_that_clauses_and_drop_one_word_headers():
    text = (
        "**For:**\n\nThose who want homework capped note that it does little for young children, that it puts "
        "low-income students at a disadvantage, and that kids need time for pubs, clubs and sport."
    )
    assert [text[s:e] for s, e in piece_spans(text)] == [
        "Those who want homework capped note that it does little for young children",
        "that it puts low-income students at a disadvantage",
        "and that kids need time for pubs, clubs and sport.",
    ]


def test_a_markdown_heading_is_a_sentence_of_its_own_and_no_claim():
    """Issue 48: "### Arguments for" glued to the next line made the claim "Arguments for Supporters say ..."."""
    text = (
        "**Is it fair?**\n\n### Arguments for\nSupporters say it is fair.\n**The case against**\n- It costs a lot.\n"
        "| side | point |\n|---|---|\n| con | It costs a lot. |\n**Pro:** it is **fair** here."
    )
    spans = sentence_spans(text)
    sentences = [text[s:e] for s, e in spans]
    assert sentences == [
        "**Is it fair?**",
        "Arguments for",
        "Supporters say it is fair.",
        "**The case against**",
        "It costs a lot.",
        "side",
        "point",
        "con",
        "It costs a lot.",
        "**Pro:** it is **fair** here.",
    ]
    assert [is_heading(text, span) for span in spans] == [
        True,
        True,
        False,
        True,
        False,
        True,
        True,
        False,
        False,
        False,
    ]


def test_plain_prose_has_no_heading():
    text = "Supporters say it is fair.\nCritics disagree: it costs | a lot."
    assert not any(is_heading(text, span) for span in sentence_spans(text))


def test_a_markdown_table_row_is_a_line_and_each_cell_a_sentence():
    text = "Both sides:\n\n| For | Against |\n|---|---|\n| Uniforms cut bullying | Uniforms limit expression |\nDone."
    cells = [text[s:e] for s, e in sentence_spans(text)]
    assert cells == ["Both sides:", "For", "Against", "Uniforms cut bullying", "Uniforms limit expression", "Done."]


def test_candidates_are_the_pieces_and_every_sentence_of_several_pieces():
    text = "Supporters say uniforms cut bullying at school, and they save parents money. It depends."
    found = [text[s:e] for s, e in candidate_spans(text)]
    assert found == [
        "Supporters say uniforms cut bullying at school",
        "Supporters say uniforms cut bullying at school, and they save parents money.",
        "and they save parents money.",
    ]


def test_a_piece_joining_statements_with_and_has_them_as_conjuncts_but_a_list_of_nouns_has_none():
    text = "Open primaries increase voter engagement and give independents a voice. Costs and benefits differ."
    first, second = sentence_spans(text)
    assert [text[s:e] for s, e in conjunct_spans(text, first)] == [
        "Open primaries increase voter engagement",
        "give independents a voice.",
    ]
    assert conjunct_spans(text, second) == ()
