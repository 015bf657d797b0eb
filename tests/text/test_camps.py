"""Which camp each sentence speaks for (explorer.text.camps), on small answers worked out by hand."""

from explorer.text.camps import OPPOSE, SUPPORT, camps


def spoken(response: str) -> list[tuple[str, str | None]]:
    return [(response[start:end], camp) for (start, end), camp in camps(response)]


def test_subjects_name_the_camp_and_pronouns_carry_it_on():
    response = (
        "People disagree about sugar taxes. Supporters argue that it cuts sugar intake. They also say the revenue "
        "helps schools. Critics reply that it hurts poor households."
    )
    assert [camp for _, camp in spoken(response)] == [None, SUPPORT, SUPPORT, OPPOSE]


def test_headers_set_the_camp_of_the_bullets_under_them():
    response = (
        "**Arguments for**\n- It cuts sugar intake.\n- It funds schools.\n\n### Arguments against\n- It is regressive."
    )
    assert [camp for _, camp in spoken(response)] == [SUPPORT, SUPPORT, SUPPORT, OPPOSE, OPPOSE]


def test_a_bold_label_opening_a_sentence_names_its_camp():
    response = "**For:** It cuts sugar intake.\n**Against:** It is regressive."
    assert [camp for _, camp in spoken(response)] == [SUPPORT, OPPOSE]


def test_a_turn_without_a_side_noun_passes_to_the_other_camp_but_not_right_after_a_header():
    turned = "Supporters say it cuts sugar intake. On the other hand, it hits poor households hardest."
    assert [camp for _, camp in spoken(turned)] == [SUPPORT, OPPOSE]
    after_header = "**The case against**\nOn the other side, it hits poor households hardest."
    assert [camp for _, camp in spoken(after_header)][-1] == OPPOSE


def test_the_same_side_noun_after_a_contrast_is_the_other_camp():
    # Both name supporters, of different things: the contrast says the second is the other camp.
    response = "Those who favour scrapping it say it stifles creativity. Defenders, however, stress its benchmarks."
    assert [camp for _, camp in spoken(response)] == [SUPPORT, OPPOSE]


def test_a_closing_line_and_a_sentence_naming_both_camps_speak_for_none():
    response = (
        "Critics say it is regressive. Supporters say it works, while critics doubt it. Overall, it depends on values."
    )
    assert [camp for _, camp in spoken(response)] == [OPPOSE, None, None]


def test_an_answer_without_cues_has_no_camps():
    response = "A sugar tax cuts sugar intake. Its revenue funds schools. It hits poor households hardest."
    assert all(camp is None for _, camp in spoken(response))


def test_side_words_deep_inside_a_sentence_do_not_name_its_camp():
    response = (
        "Supporters argue that a tax on sugary drinks would cut intake across the country, as many critics of the "
        "soda industry have long said."
    )
    assert [camp for _, camp in spoken(response)] == [SUPPORT]


def test_a_subject_no_cue_names_speaks_for_its_section_only():
    prose = "Critics say it is regressive. Those who back the tax say it cuts intake. They add that it funds schools."
    assert [camp for _, camp in spoken(prose)] == [OPPOSE, SUPPORT, SUPPORT]
    unnamed = "Critics say it is regressive. People who drink soda every day will pay more. They add that it is unfair."
    assert [camp for _, camp in spoken(unnamed)] == [OPPOSE, None, None]
    sectioned = "### Against\n- Critics say it is regressive.\n- People who drink soda every day will pay more."
    assert [camp for _, camp in spoken(sectioned)][-1] == OPPOSE


def test_a_restated_question_is_no_header_and_yes_and_no_sides_are_camps():
    response = (
        "**Is a sugar tax good for public health?**\n\n"
        "On the yes side, it cuts intake. On the no side, it is regressive."
    )
    assert [camp for _, camp in spoken(response)] == [None, SUPPORT, OPPOSE]
