"""The content head's pieces: an invented span is content, a piece that touches no statement and no
marked span is framing, statements and distortions are left out; the head is fitted on one half
of the claims and measured on the other, on the real sentence encoder."""

import json

import pytest

from explorer.data.example import Example, Labels, Perspective
from explorer.models.encoder import SentenceEncoder
from explorer.training import invention
from explorer.training.data import topic_half

BULLYING = "School uniforms reduce bullying over clothing."
EXPRESSION = "Uniforms stifle the self-expression of students."
FRAME = "Here is how the two sides compare; "
STATED = "supporters say uniforms cut teasing about clothes, "
TURNED = "while critics say uniforms help students express themselves. "
FACT = "The first school uniform law was passed in 1552. "
CLOSING = "Where you land depends on what you value."
RESPONSE = FRAME + STATED + TURNED + FACT + CLOSING


def span_of(text: str) -> list[int]:
    start = RESPONSE.index(text.strip())
    return [start, start + len(text.strip())]


def answer(topic: str = "Schools should require uniforms", **extra) -> Example:
    fact, turned = span_of(FACT), span_of(TURNED)
    return Example(
        id=f"written-{topic}",
        query="Should schools require uniforms?",
        perspectives=(Perspective("pro", (BULLYING,)), Perspective("con", (EXPRESSION,))),
        response=RESPONSE,
        topic=topic,
        labels=Labels(
            hallucination=True,
            coverage_error=True,
            kind="organic",
            ambiguous=False,
            hallucinated_spans=(tuple(turned), tuple(fact)),
        ),
        split="train",
        extra={
            "argument_spans": [[[span_of(STATED)]], [[]]],
            "distortions": [{"perspective": 1, "argument": 0, "span": turned, "how": "antonym"}],
            **extra,
        },
    )


def test_an_invented_span_is_content_framing_is_framing_and_statements_and_distortions_are_left_out():
    pieces = {p.text: p.label for p in invention.labelled_pieces(answer())}
    assert pieces == {
        "Here is how the two sides compare": invention.FRAMING,
        FACT.strip(): invention.CONTENT,
        CLOSING: invention.FRAMING,
    }


def test_an_answer_that_does_not_mark_its_statements_gives_no_pieces():
    unmarked = answer(argument_spans=[])
    assert list(invention.labelled_pieces(unmarked)) == []


def topics_in_each_half() -> dict[str, str]:
    found = {}
    for n in range(100):
        found.setdefault(topic_half(f"topic {n}"), f"topic {n}")
    return found


CONTENT = [
    "The first school uniform law was passed in 1552",
    "Most education researchers now agree that uniforms raise attendance",
    "A 2019 survey found that two thirds of parents oppose the rule",
    "On balance the critics have the stronger case",
    "Supporters rebut this by noting that uniforms are cheap",
    "The policy was introduced in France after a court ruling",
]
FRAMING = [
    "Here is how the two sides compare",
    "Both sides raise points worth weighing",
    "Where you land depends on what you value",
    "The arguments fall into two groups",
    "Let us look at each side in turn",
    "This summary sets out the main positions",
]


@pytest.fixture(scope="module")
def encoder():
    return SentenceEncoder()


def pieces_of(texts, label, half):
    return [invention.Piece("x", (0, len(t)), t, label, half) for t in texts]


def test_the_head_fitted_on_one_half_ranks_the_other_halfs_content_above_its_framing(encoder):
    train = pieces_of(CONTENT[::2], invention.CONTENT, "components") + pieces_of(
        FRAMING[::2], invention.FRAMING, "components"
    )
    held = pieces_of(CONTENT[1::2], invention.CONTENT, "head") + pieces_of(FRAMING[1::2], invention.FRAMING, "head")
    head, record = invention.fit(train + held, encoder)
    assert record["pieces"] == {"components": {"content": 3, "framing": 3}, "head": {"content": 3, "framing": 3}}
    aucs = dict(record["dev_roc_auc"])
    assert set(aucs) == set(invention.STRENGTHS)
    assert aucs[record["kept_C"]] == max(aucs.values()) > 0.5
    assert len(head.features) == encoder.dimension


def test_a_half_with_one_kind_of_piece_is_refused(encoder):
    with pytest.raises(ValueError, match="both content and framing"):
        invention.fit(pieces_of(CONTENT, invention.CONTENT, "components"), encoder)


def test_the_command_keeps_the_good_lines_names_the_bad_one_and_writes_the_head_and_its_record(tmp_path, capsys):
    halves = topics_in_each_half()
    lines = [json.dumps(answer(halves[half]).to_dict()) for half in ("components", "head")]
    written = tmp_path / "written.jsonl"
    written.write_text("\n".join([*lines, "{not json"]) + "\n", encoding="utf-8")
    out = tmp_path / "head"
    assert invention.main(["--written", str(written), "--out", str(out)]) == 1
    assert f"{written}: line 3" in capsys.readouterr().err
    record = json.loads((out / "training.json").read_text(encoding="utf-8"))
    assert record["pieces"]["components"] == {"content": 1, "framing": 2}
    assert record["task"] == invention.TASK and (out / "model.json").is_file()


def test_explorer_train_fits_the_head_from_the_corpus_and_refuses_answers_that_mark_nothing(tmp_path, capsys):
    from explorer.cli import main

    halves = topics_in_each_half()
    written = tmp_path / "written.jsonl"
    written.write_text("".join(json.dumps(answer(halves[h]).to_dict()) + "\n" for h in ("components", "head")))
    out = tmp_path / "trained"
    assert main(["train", "--detector", "invention", "--data", str(written), "--out", str(out)]) == 0
    record = json.loads((out / "training.json").read_text(encoding="utf-8"))
    assert record["task"] == invention.TASK and record["kept_C"] in invention.STRENGTHS
    assert (out / "model.json").is_file()
    unmarked = tmp_path / "unmarked.jsonl"
    unmarked.write_text(json.dumps(answer(halves["components"], argument_spans=[]).to_dict()) + "\n")
    assert main(["train", "--detector", "invention", "--data", str(unmarked), "--out", str(tmp_path / "none")]) == 2
    assert "argument_spans" in capsys.readouterr().err
