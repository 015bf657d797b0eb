import pytest
import torch

from explorer.generation.backends import Backend, load_generator
from explorer.generation.coverage_guard import NUDGE
from explorer.generation.restatement import QuestionRestatement, fronted_auxiliary, likeliest_statement

QUESTION = "Is the D.A.R.E. program good for K-12 kids in America?"
PROMPT = "Answer:\n"


@pytest.fixture(scope="module")
def generator():
    return load_generator(Backend())  # the packaged adapter: the model whose clauses are mended


def test_the_fronted_auxiliary_is_found_only_where_a_statement_keeps_it():
    assert fronted_auxiliary("Are gender quotas good?") == ("are", ["gender", "quotas", "good"])
    assert fronted_auxiliary("Does homework help students?") is None  # "whether homework helps": an inflection
    assert fronted_auxiliary("What do both sides say?") is None


@pytest.mark.parametrize(
    "question, statement",
    [
        (QUESTION, "the D.A.R.E. program is good for K-12 kids in America"),
        ("Are gender quotas in the EU good for the economies of member states?", "gender quotas in the EU are good"),
        ("Should there be a limit on homework?", "there should be a limit on homework"),
    ],
)
def test_the_model_places_the_auxiliary_where_the_subject_ends(generator, question, statement):
    words, at = likeliest_statement(generator.model, generator.language_model.tokenizer, *fronted_auxiliary(question))
    assert " ".join(words).startswith(statement)
    assert words[at] == fronted_auxiliary(question)[0]


@pytest.fixture(scope="module")
def scores_after(generator):
    """What the rule for a question (building it costs a forward pass: once each) does to the
    logits of " is" and " good" after a text (0: nothing)."""
    tokenizer = generator.language_model.tokenizer
    rules = {}

    def scores(text: str, question: str = QUESTION) -> dict[str, float]:
        if question not in rules:
            rules[question] = QuestionRestatement(
                generator.model, tokenizer, question, len(tokenizer(PROMPT)["input_ids"])
            )
        ids = torch.tensor([tokenizer(PROMPT + text)["input_ids"]])
        after = rules[question](ids, torch.zeros(1, len(tokenizer)))
        return {w: float(after[0, tokenizer(w, add_special_tokens=False)["input_ids"][0]]) for w in (" is", " good")}

    return scores


def test_whether_is_never_followed_by_the_questions_auxiliary(scores_after):
    assert scores_after("The question of whether")[" is"] == float("-inf")
    assert scores_after("**Is it good?**\n\nPeople ask whether")[" is"] == float("-inf")


def test_at_the_end_of_the_subject_the_clause_goes_on_as_the_statement(scores_after):
    at_the_end = scores_after("The question of whether the D.A.R.E. program")
    assert at_the_end == {" is": NUDGE, " good": float("-inf")}  # not "whether the D.A.R.E. program good"
    # Before it, after it, off the question, and without a "whether": nothing.
    nothing = {" is": 0.0, " good": 0.0}
    assert scores_after("The question of whether the D.A.R.E.") == nothing
    assert scores_after("The question of whether the D.A.R.E. program is") == nothing
    assert scores_after("The question of whether schools") == nothing
    assert scores_after("The D.A.R.E. program") == nothing
    assert scores_after("The question of whether", "Does homework help students?") == nothing
