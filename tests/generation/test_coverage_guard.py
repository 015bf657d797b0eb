import pytest
import torch

from explorer.generation import coverage_guard
from explorer.generation.backends import Backend, load_generator
from explorer.generation.coverage_guard import CoverageGuard
from explorer.generation.npov import NpovGenerator
from explorer.models.language_model import load_language_model
from explorer.text.prompts import turn_token_ids
from tests.helpers import make_example

RAIL = make_example(
    "",
    ("pro", ["Rail travel is often faster.", "Trains run often and alert you to delays."]),
    ("con", ["Bicycles are the best mode of transport for the future.", "Trains bring a risk of crashes."]),
    query="Is rail travel the best mode of transport for the future?",
)
PROMPT = "Answer:\n"


@pytest.fixture(scope="module")
def tokenizer():
    return load_language_model().tokenizer


def banned(tokenizer, text: str, guard: CoverageGuard | None = None) -> dict[str, bool]:
    """Which of a blank line, the end of the turn and a new line the guard forbids after `text`."""
    guard = guard or CoverageGuard(tokenizer, RAIL, len(tokenizer(PROMPT)["input_ids"]), turn_token_ids(tokenizer))
    ids = torch.tensor([tokenizer(PROMPT + text)["input_ids"]])
    scores = guard(ids, torch.zeros(1, len(tokenizer)))
    token = {name: tokenizer(piece, add_special_tokens=False)["input_ids"][0] for name, piece in NEXT.items()}
    token["end of turn"] = turn_token_ids(tokenizer)[0]
    return {name: bool(scores[0, i] == float("-inf")) for name, i in token.items()}


NEXT = {"blank line": "\n\n", "new line": "\n", "tag": "</"}


def test_a_side_is_held_open_while_one_of_its_arguments_is_unstated(tokenizer):
    one = banned(tokenizer, "Supporters say rail travel is often faster.")
    assert one == {"blank line": True, "new line": False, "tag": True, "end of turn": True}
    both = "Supporters say rail travel is often faster. Trains run often and alert you to delays."
    # The pro side is complete: the model may move on, though not end before the con side.
    assert banned(tokenizer, both) == {"blank line": False, "new line": False, "tag": False, "end of turn": True}
    # In a list, a line of its own is allowed (the next bullet), a second one is not.
    assert banned(tokenizer, "**For**\n- Rail travel is often faster.\n")["new line"]


def test_a_restated_question_does_not_pass_for_an_argument_built_on_its_words(tokenizer):
    # "Bicycles are the best mode of transport for the future" shares all but one content word
    # with the query; restating the query states no argument, so nothing is held.
    restated = banned(tokenizer, "**Is rail travel the best mode of transport for the future?**")
    assert not any(restated[name] for name in NEXT)
    # The con side once started: "Bicycles" still to come.
    assert banned(tokenizer, "Critics fear that trains bring a risk of crashes.")["blank line"]


def test_a_section_stating_both_sides_is_not_held(tokenizer):
    # One paragraph for both sides (the terse style): which side it still owes is unclear.
    text = "Rail travel is often faster, yet bicycles are the best mode of transport for the future."
    assert not any(banned(tokenizer, text).values())


def test_the_guard_lets_go_when_no_new_argument_comes(tokenizer, monkeypatch):
    guard = CoverageGuard(tokenizer, RAIL, len(tokenizer(PROMPT)["input_ids"]), turn_token_ids(tokenizer))
    text = "Supporters say rail travel is often faster."
    assert banned(tokenizer, text, guard)["blank line"]
    monkeypatch.setattr(coverage_guard, "PATIENCE", 5)
    assert not any(banned(tokenizer, text + " It is also very, very, very comfortable to ride.", guard).values())


@pytest.mark.slow
def test_the_guarded_generator_names_itself():
    # The identity is recorded with every generated answer and keys the result cache.
    language_model = load_language_model()
    assert NpovGenerator(language_model, guard=True).identity == f"{language_model.identity}+coverage-guard"
    assert NpovGenerator(language_model).identity == language_model.identity
    # The packaged adapter decodes under the guard unless told not to (`explorer generate --no-guard`).
    assert load_generator(Backend()).identity.endswith("+coverage-guard")
    assert not load_generator(Backend(guard=False)).identity.endswith("+coverage-guard")
    assert not load_generator(Backend(adapter="none")).guard  # the base model paraphrases: no guard


def nudged(tokenizer, text: str) -> list[str]:
    """The tokens the guard raises after `text`, as text."""
    guard = CoverageGuard(tokenizer, RAIL, len(tokenizer(PROMPT)["input_ids"]), turn_token_ids(tokenizer))
    scores = guard(torch.tensor([tokenizer(PROMPT + text)["input_ids"]]), torch.zeros(1, len(tokenizer)))
    return sorted(tokenizer.decode([i]) for i in torch.nonzero(scores[0] == coverage_guard.NUDGE).flatten().tolist())


def test_a_held_side_is_nudged_towards_its_unstated_argument_where_one_may_start(tokenizer):
    # The pro side owes "Trains run often ...": its first token (" Tra" + "ins"), as the next
    # sentence or bullet; at a line's start, without the leading space.
    assert nudged(tokenizer, "Supporters say rail travel is often faster.") == [" Tra"]
    assert nudged(tokenizer, "**For**\n- Rail travel is often faster.\n") == ["Tra"]
    assert nudged(tokenizer, "**For**\n- Rail travel is often faster.\n-") == [" Tra"]
    # While a line copies it, its next token; a line that does not, nothing.
    assert nudged(tokenizer, "**For**\n- Rail travel is often faster.\n- Trains run") == [" often"]
    assert nudged(tokenizer, "**For**\n- Rail travel is often faster.\n- Rail travel is") == []
    # Once the side is complete, or in a section of both sides, nothing is held or nudged.
    assert nudged(tokenizer, "Rail travel is often faster. Trains run often and alert you to delays.") == []


def test_a_list_gets_no_further_item_once_its_side_is_stated(tokenizer):
    guard = CoverageGuard(tokenizer, RAIL, len(tokenizer(PROMPT)["input_ids"]), turn_token_ids(tokenizer))
    bullet, number = (tokenizer(piece, add_special_tokens=False)["input_ids"][0] for piece in ("-", "2"))

    def allowed(text: str) -> dict[str, bool]:
        scores = guard(torch.tensor([tokenizer(PROMPT + text)["input_ids"]]), torch.zeros(1, len(tokenizer)))
        return {"bullet": bool(scores[0, bullet] > float("-inf")), "number": bool(scores[0, number] > float("-inf"))}

    done = "**For**\n- Rail travel is often faster.\n- Trains run often and alert you to delays.\n"
    assert allowed(done) == {"bullet": False, "number": False}  # the next item could only repeat one
    assert allowed("**For**\n- Rail travel is often faster.\n") == {"bullet": True, "number": True}  # one to come
    assert allowed(done + "\n**Against**\n") == {"bullet": True, "number": True}  # a new section's list


def lowered(tokenizer, text: str) -> list[str]:
    """The tokens the guard lowers after `text`, as text."""
    guard = CoverageGuard(tokenizer, PHONES, len(tokenizer(PROMPT)["input_ids"]), turn_token_ids(tokenizer))
    scores = guard(torch.tensor([tokenizer(PROMPT + text)["input_ids"]]), torch.zeros(1, len(tokenizer)))
    return sorted(tokenizer.decode([i]) for i in torch.nonzero(scores[0] == -coverage_guard.NUDGE).flatten().tolist())


PHONES = make_example(
    "",
    ("pro", ["Yes, it should be allowed in case of emergency."]),
    ("con", ["No, the schools have phones, the students can use those.", "No, because students will be distracted."]),
    query="Should cell phones be allowed in schools?",
)


def test_a_line_that_starts_both_a_stated_and_an_unstated_argument_is_steered_off_the_stated_one(tokenizer):
    stated = "**Against**\n- No, the schools have phones, the students can use those.\n- No,"
    assert lowered(tokenizer, stated) == [" the"]  # " because" is raised instead
    # At a line's start, or once the line has left the stated argument, nothing is lowered.
    assert lowered(tokenizer, stated[: -len("No,")]) == []
    assert lowered(tokenizer, stated + " because") == []


def test_an_answer_may_not_end_before_each_side_has_begun(tokenizer):
    pro = "**For**\n- Rail travel is often faster.\n- Trains run often and alert you to delays."
    assert banned(tokenizer, pro)["end of turn"]
    con = "\n\n**Against**\n- Trains bring a risk of crashes.\n- Bicycles are the best mode of transport."
    assert not banned(tokenizer, pro + con)["end of turn"]
