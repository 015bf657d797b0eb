import json
from pathlib import Path

import pytest

from explorer.text.syntax import FRAGMENT, OBJECT, SHORT, SUBJECT, analyse_sentence, finite_verbs, tokens

# 40 sentences labelled by hand before the rules were written: form ("short": the root would be S
# or SINV; "fragment": anything else, questions included) and each pronoun in subject or direct-
# object position. On first run the rules got 38/40 forms and every pronoun; "They also save"
# (an adverb between subject and verb) then led to skipping adverbs: 39/40. The miss left is
# "Taxing sugary drinks to fund ...", where "drinks" reads as a verb. A held-out check on 24
# sentences of the sample train responses: 24/24 forms, 10/12 pronouns found (none wrong); both
# misses were "keeping them", so "-ing" forms now take objects too.
LABELLED = Path(__file__).parent / "data" / "hand_labelled_sentences.jsonl"


def labelled():
    return [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines()]


def test_form_accuracy_on_hand_labelled_sentences():
    rows = labelled()
    assert len(rows) == 40
    correct = sum(analyse_sentence(row["sentence"]).form == row["form"] for row in rows)
    assert correct / len(rows) >= 0.95


def test_pronoun_precision_and_recall_on_hand_labelled_sentences():
    found = want = hits = 0
    for row in labelled():
        got = {(p.text, p.role) for p in analyse_sentence(row["sentence"]).pronouns}
        gold = {tuple(pair) for pair in row["pronouns"]}
        found, want, hits = found + len(got), want + len(gold), hits + len(got & gold)
    assert want == 18
    assert hits / found >= 0.95 and hits / want >= 0.95


@pytest.mark.parametrize(
    "sentence, form",
    [
        ("Uniforms reduce bullying.", SHORT),
        ("Lower costs and less bullying.", FRAGMENT),
        ("Because it limits self-expression.", FRAGMENT),  # a subordinate clause alone: SBAR
        ("Drivers who cannot afford the fee.", FRAGMENT),  # the verb is in the relative clause
        ("The money raised by the charge.", FRAGMENT),  # a participle before "by"
        ("Does the charge work?", FRAGMENT),  # SQ is neither S nor SINV
        ("They also save families money.", SHORT),
        ("", FRAGMENT),
    ],
)
def test_sentence_form(sentence, form):
    assert analyse_sentence(sentence).form == form


def test_pronoun_roles_and_offsets():
    sentence = "Critics say it hurts them, but afford it are those least able."
    uses = analyse_sentence(sentence).pronouns
    assert [(p.text, p.role) for p in uses] == [("it", SUBJECT), ("them", OBJECT), ("it", OBJECT)]
    assert all(sentence[p.start : p.end] == p.text for p in uses)


def test_an_ing_form_takes_an_object_pronoun():
    uses = analyse_sentence("Supporters argue that keeping them perpetuates an injustice.").pronouns
    assert [(p.text, p.role) for p in uses] == [("them", OBJECT)]


def test_determiners_and_possessives_are_not_pronouns():
    assert analyse_sentence("Opponents reject this idea and her plan.").pronouns == ()
    assert [p.role for p in analyse_sentence("Opponents reject this.").pronouns] == [OBJECT]


def test_contractions_split_into_a_finite_auxiliary():
    found = tokens("It's cheap and they don't pay.")
    assert [t.text for t in found][:3] == ["It", "'s", "cheap"]
    assert {found[i].text for i in finite_verbs(found)} == {"'s", "do"}
