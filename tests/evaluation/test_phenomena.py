from explorer.evaluation.phenomena import phenomena, phenomena_frame, phenomena_table, source_of
from explorer.text.syntax import OBJECT, SUBJECT
from tests.helpers import make_example


def test_length_form_and_pronouns_counted_by_hand():
    # 11 words; two sentences; "They" subject, "them" object.
    found = phenomena("Taxes reduce sugar consumption. They also fund clinics that need them.")
    assert (found.words, found.sentences, found.form) == (11, 2, "long")
    assert [(p.text, p.role) for p in found.pronouns] == [("They", SUBJECT), ("them", OBJECT)]
    assert (found.subject_pronouns, found.object_pronouns) == (1, 1)


def test_single_sentences_are_short_or_fragments():
    assert phenomena("Sugar taxes reduce consumption.").form == "short"
    assert phenomena("Less sugar, more revenue.").form == "fragment"
    assert phenomena("").form == "fragment" and phenomena("").words == 0


def test_source_prefers_the_generating_model_then_the_label_kind():
    generated = make_example("x.", ("pro", ["a"]), extra={"model": "SmolLM2"})
    assert source_of(generated) == "SmolLM2"
    assert source_of(make_example("x.", ("pro", ["a"]))) == "unlabelled"


def test_table_per_source_with_trust_trap_share():
    query = "Should sugary drinks be taxed?"
    examples = [
        # Repeats the query, adds an unprovided claim: a trust trap.
        make_example(
            "Sugary drinks should be taxed because dentists are expensive.",
            ("pro", ["Taxes cut sugar use."]),
            example_id="a",
            extra={"model": "m1"},
            query=query,
        ),
        make_example(
            "Taxes cut sugar use.",
            ("pro", ["Taxes cut sugar use."]),
            example_id="b",
            extra={"model": "m1"},
            query=query,
        ),
        make_example(
            "Less sugar.", ("pro", ["Taxes cut sugar use."]), example_id="c", extra={"model": "m2"}, query=query
        ),
    ]
    frame = phenomena_frame(examples)
    assert list(frame.index) == ["a", "b", "c"] and frame.loc["a", "trust trap"]
    table = phenomena_table(examples)
    assert list(table.index) == ["m1", "m2"]
    assert table.loc["m1", "responses"] == 2 and table.loc["m1", "% trust trap"] == 50.0
    assert table.loc["m1", "% short"] == 100.0 and table.loc["m2", "% fragment"] == 100.0
    assert table.loc["m2", "words"] == 2


def test_empty_input_gives_an_empty_table():
    assert phenomena_table([]).empty
