"""The meaning judge's pairs: labelled from the answer's own spans, rule-built misstatements with
their changed words, Perspectrum's clusters as paraphrases, the team-written twins, deterministic."""

import json

import pytest

from explorer.data.example import Example, Labels, Perspective
from explorer.data.perspectrum_claims import Cluster, PerspectrumClaim, load_claims
from explorer.detectors.ops.judge import ABSENT, MISSTATES, STATES
from explorer.detectors.semantic_tuned import tuned_encoder
from explorer.training import judge_data

BULLYING = "School uniforms reduce bullying over clothing."
MONEY = "Uniforms save parents money."
EXPRESSION = "Uniforms stifle the self-expression of students."
RESPONSE = (
    "Supporters say uniforms cut bullying about clothes, and they note that uniforms cost families more. "
    "Critics answer that a uniform keeps students from expressing themselves. It depends on what you value."
)
TURNED = "uniforms cost families more"


def _answer():
    stated = [RESPONSE.index(t) for t in ("uniforms cut bullying about clothes", "a uniform keeps students")]
    return Example(
        id="written-hand-x-1-distortion",
        query="Should schools require uniforms?",
        perspectives=(Perspective("pro", (BULLYING, MONEY)), Perspective("con", (EXPRESSION,))),
        response=RESPONSE,
        topic="Schools should require uniforms",
        labels=Labels(hallucination=True, coverage_error=True, kind="organic", ambiguous=False),
        split="train",
        extra={
            "argument_spans": [
                [[[stated[0], stated[0] + 35]], []],
                [[[stated[1], RESPONSE.index(" It depends")]]],
            ],
            "distortions": [
                {
                    "perspective": 0,
                    "argument": 1,
                    "span": [RESPONSE.index(TURNED), RESPONSE.index(TURNED) + len(TURNED)],
                    "changed": [RESPONSE.index("more"), RESPONSE.index("more") + 4],
                    "how": "comparative",
                }
            ],
        },
    )


@pytest.fixture(scope="module")
def builder():
    return judge_data.Builder(tuned_encoder())


def test_pairs_are_labelled_from_the_answers_own_spans(builder):
    example = _answer()
    pairs = list(builder.answer_pairs(example, *judge_data._spans_of(example), "written-2"))
    by = {(p.argument, p.text): p for p in pairs}
    assert by[(BULLYING, "Supporters say uniforms cut bullying about clothes")].label == STATES
    [misstating] = [p for p in pairs if p.argument == MONEY and p.label == MISSTATES and p.text.startswith("and")]
    assert misstating.text[slice(*misstating.changed)] == "more"
    closing = [p for p in pairs if p.text == "It depends on what you value."]
    assert closing and all(p.label == ABSENT for p in closing)
    assert not [p for p in pairs if p.argument == EXPRESSION and "bullying" in p.text and p.label != ABSENT]
    assert pairs == list(builder.answer_pairs(example, *judge_data._spans_of(example), "written-2"))


def test_a_piece_stating_no_argument_is_kept_beside_one_argument(builder, monkeypatch):
    monkeypatch.setattr(builder, "_absent_kept", lambda *_: set())  # no closest or random absent pieces
    example = _answer()
    pairs = list(builder.answer_pairs(example, *judge_data._spans_of(example), "written-2"))
    closing = [p for p in pairs if p.text == "It depends on what you value."]
    assert len(closing) == 1 and closing[0].label == ABSENT
    # a piece stating another argument is absent for this one, but not kept on that ground
    assert not [p for p in pairs if p.label == ABSENT and "bullying" in p.text]


def test_framed_copies_state_their_argument_once_each(builder):
    stated = [judge_data.Pair(f"Argument number {i} holds.", f"piece {i}", STATES, "s", "t") for i in range(40)]
    framed = list(builder.framings(stated + stated))
    assert 0 < len(framed) < 40 and all(p.label == STATES and p.source == "s+framed" for p in framed)
    assert all(p.argument.rstrip(".").lower() in p.text.lower() for p in framed)
    assert len({p.argument for p in framed}) == len(framed) and framed == list(builder.framings(stated))


def test_rule_built_misstatements_keep_the_changed_words_and_clusters_are_paraphrases(builder):
    claim = PerspectrumClaim(
        1,
        "train",
        "Schools should require uniforms",
        (
            Cluster("pro", ((1, BULLYING), (2, "Uniforms mean fewer children are teased for what they wear."))),
            Cluster("pro", ((3, MONEY),)),
        ),
    )
    pairs = list(builder.cluster_pairs([claim]))
    assert (
        judge_data.Pair(
            BULLYING, "Uniforms mean fewer children are teased for what they wear.", STATES, "perspectrum", claim.text
        )
        in pairs
    )
    assert any(p.label == ABSENT and {p.argument, p.text} == {BULLYING, MONEY} for p in pairs)
    statements = [
        judge_data.Pair(
            f"Uniforms reduce bullying in {n} schools.",
            f"uniforms cut bullying in {n} schools",
            STATES,
            "perspectrum",
            claim.text,
        )
        for n in range(10)
    ]
    turned = [m for p in statements for m in builder.misstatements(p)]
    assert len(turned) >= 3, "most states pairs give a misstatement"
    for m in turned:
        assert m.label == MISSTATES and m.source.startswith("perspectrum+")
        span, text = (m.changed, m.text) if m.changed else (m.changed_in_argument, m.argument)
        assert text[slice(*span)].strip()


def test_a_negation_said_another_way_is_still_a_statement(builder):
    pair = judge_data.Pair("Arming police will not help.", "they say it does not help", STATES, "perspectrum", "t")
    restated = list(builder.restatements(pair))
    assert {(p.argument, p.text) for p in restated} == {
        ("Arming police will not help.", "they say it fails to help"),
        ("Arming police will do nothing to help.", "they say it does not help"),
    }
    assert all(p.label == STATES and p.source == "perspectrum+restated" for p in restated)


def test_a_rewording_is_a_statement_and_its_turned_twin_a_misstatement_with_the_changed_words(builder):
    made = []
    for n in range(40):  # a share of the states pairs is reworded, the piece's or the argument's words
        pair = judge_data.Pair(f"Gun control would reduce crime ({n}).", "it would reduce crime", STATES, "p", "t")
        made += builder.rewordings(pair)
    kept = [p for p in made if p.label == STATES]
    turned = [p for p in made if p.label == MISSTATES]
    assert kept and turned and all(p.source == "p+reworded" for p in made)
    assert {p.text for p in kept} | {p.argument for p in kept} >= {"it would lower crime"}
    for p in turned:
        span, text = (p.changed, p.text) if p.changed else (p.changed_in_argument, p.argument)
        assert text[slice(*span)].lower() in {"increase", "raise", "worsen"}  # the lexicon's opposites


def test_main_takes_the_twins_on_train_claims_and_never_opens_the_foreign_dev_sets(
    fake_perspectrum, opened_files, tmp_path, capsys
):
    folder, _, _ = fake_perspectrum
    claims = load_claims(["train"], folder)
    zoo = next(c for c in claims if c.id == 1)
    pid, argument = zoo.clusters[0].members[0]
    twin = {"claim": 1, "pid": pid, "twin": "a", "how": "restated-negation", "frame": "plain"}
    twins = tmp_path / "hand-x.jsonl"
    lines = [
        twin | {"label": "states", "text": "The animals point is far from false, for every zoo."},
        twin | {"label": "misstates", "text": "The animals point is far from true, for every zoo.", "changed": "true"},
        twin | {"claim": 4, "label": "states", "text": "A dev claim's line, refused and never read."},
    ]
    twins.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    written = tmp_path / "written.jsonl"
    written.write_text("")
    out = tmp_path / "pairs.jsonl"
    argv = ["--written", str(written), "--twins", str(twins), "--perspectrum", str(folder), "--out", str(out)]
    assert judge_data.main(argv) == 1  # the bad line is named; the good ones are built
    assert "hand-x.jsonl:3: claim:" in capsys.readouterr().err
    assert not [path for path in opened_files if "npov_foreign" in path]
    from_twins = [p for p in judge_data.read_pairs(out) if p.source == "twins"]
    assert {p.argument for p in from_twins} == {text for _, text in zoo.clusters[0].members}
    assert {p.label for p in from_twins} == {STATES, MISSTATES}
    assert all(p.text[slice(*p.changed)] == "true" for p in from_twins if p.label == MISSTATES)
