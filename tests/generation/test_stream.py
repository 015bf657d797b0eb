"""The key kept out of answers (`KeyMask`, `MaskedText`): masked wherever it is cut, and nothing
shown while streaming that the rest of the answer could turn into part of the key."""

from explorer.generation.stream import KeyMask, MaskedText

KEY = "sk-live-4f9a1c7e2b8d"
ANSWER = f"Here it is: {KEY}. And again {KEY[:9]}, and {KEY[-8:]}! Short bits stay: {KEY[:7]}."
MASKED = "Here it is: ***. And again ***, and ***! Short bits stay: sk-live."


def test_the_key_and_any_run_of_eight_of_its_characters_are_masked():
    assert KeyMask(KEY)(ANSWER) == MASKED
    assert KeyMask("abc")("the key abc, and ab") == "the key ***, and ab"  # a short key whole
    assert KeyMask(None)(ANSWER) == ANSWER


def test_cut_anywhere_the_streamed_pieces_join_to_the_masked_answer_and_never_show_the_key():
    for cut in range(1, len(ANSWER)):
        for second in range(cut, len(ANSWER)):
            text = MaskedText(KeyMask(KEY))
            pieces = [text.add(ANSWER[:cut]), text.add(ANSWER[cut:second]), text.add(ANSWER[second:]), text.finish()]
            assert "".join(pieces) == MASKED, (cut, second)
            assert text.echoed and not any(KEY[i : i + 8] in "".join(pieces[:k]) for k in range(4) for i in range(13))


def test_without_a_key_nothing_is_held_back():
    text = MaskedText(KeyMask(None))
    assert text.add("Every ") == "Every " and text.add("word.") == "word." and text.finish() == ""
    assert not text.echoed
