"""Framed copies of an argument: the argument's words unchanged inside a frame that fits it."""

import random

from explorer.data.framings import CLAUSE_FRAMES, FRAMES, PHRASE_FRAMES, framed


def _frame_of(text: str, argument: str) -> str:
    """The frame `text` was made from, or '' when none fits."""
    body = argument.rstrip(".")
    for frame in FRAMES + CLAUSE_FRAMES + PHRASE_FRAMES:
        if text in (frame.format(a=body[0].lower() + body[1:], A=body), frame.format(a=body, A=body)):
            return frame
    return ""


def test_a_frame_keeps_every_word_of_the_argument_and_fits_its_form():
    clause, phrase = "Taxes reduce sugar consumption.", "The ever-present threat of a crash."
    rng = random.Random(0)
    for argument, wrong in ((clause, PHRASE_FRAMES), (phrase, CLAUSE_FRAMES)):
        seen = set()
        for _ in range(60):
            text = framed(argument, rng)
            frame = _frame_of(text, argument)
            assert frame and frame not in wrong, text
            seen.add(frame)
        assert len(seen) > 8  # the frames vary


def test_an_acronym_keeps_its_capitals_and_the_draw_is_seeded():
    texts = [framed("EU quotas help women.", random.Random(3)) for _ in range(2)]
    assert texts[0] == texts[1] and "EU quotas help women" in texts[0]
