"""The meaning check and its judge on the real MiniLM, tuned matcher and shipped judge adapter
(packaged, offline): a turned argument is told from a faithful paraphrase, both ways."""

import hashlib
import json

import pytest

from explorer import detectors
from explorer.data.labels import JUDGE_TASK
from explorer.detectors.meaning import MeaningDetector
from explorer.detectors.ops.judge import ABSENT, MISSTATES, STATES
from explorer.models.trained import TRAINING_FILE
from tests.helpers import make_example

PRO = ("pro", ["Open primaries increase voter engagement.", "Open primaries give independents a voice."])
CON = ("con", ["Open primaries weaken party loyalty."])
FAITHFUL = (
    "Supporters say open primaries increase voter engagement and give independents a voice. Critics warn that "
    "open primaries weaken party loyalty. It depends on what you value."
)
# Pairs on topics of Perspectrum train claims, in the team's own words: the argument, a faithful
# paraphrase, and the same statement turned.
TURNS = {
    "negation": (
        "School uniforms reduce bullying.",
        "uniforms cut down on bullying at school",
        "uniforms do not reduce bullying at school",
    ),
    "antonym": (
        "A sugar tax would improve public health.",
        "taxing sugar would make people healthier",
        "a sugar tax would damage public health",
    ),
    "comparative": (
        "Nuclear power is cheaper than solar energy.",
        "nuclear energy costs less than solar power",
        "nuclear power is more expensive than solar energy",
    ),
    "role": (
        "Parents should supervise their children's screen time.",
        "parents ought to keep an eye on how long their kids spend on screens",
        "children should supervise their parents' screen time",
    ),
}


@pytest.fixture(scope="module")
def detector():
    return MeaningDetector()


# Known failures of the shipped judge (its card says so): it reads a flipped comparison and swapped
# roles as a faithful statement (the rank-64 judge of stacked v17 learned the opposite word); the
# polarity check's lexicon covers comparisons in the verdict. Strict: a judge that learns them makes
# these pass and must lose the mark.
JUDGE_MISSES = {"comparative", "role"}


@pytest.mark.parametrize(
    "how",
    [
        pytest.param(how, marks=pytest.mark.xfail(strict=True, reason="a known failure of the shipped judge"))
        if how in JUDGE_MISSES
        else how
        for how in sorted(TURNS)
    ],
)
def test_the_judge_tells_a_turned_argument_from_a_faithful_paraphrase(detector, how):
    argument, faithful, turned = TURNS[how]
    kept, misstated = detector.judge.probabilities([(argument, faithful), (argument, turned)])
    assert kept[STATES] > misstated[STATES]
    assert misstated[MISSTATES] > kept[MISSTATES]
    assert kept.argmax() == STATES


def test_a_misstated_argument_raises_both_error_scores_and_marks_the_changed_words(detector):
    reversed_ = FAITHFUL.replace("increase voter engagement", "decrease voter engagement")
    clean = detector.score(make_example(FAITHFUL, PRO, CON))
    result = detector.score(make_example(reversed_, PRO, CON))
    assert result.hallucination > clean.hallucination + 0.3
    assert result.per_perspective["pro"] > clean.per_perspective["pro"] + 0.3
    top = max(result.response_words, key=lambda w: w.score)
    assert reversed_[top.start : top.end] == "decrease"
    misstated = [f for f in result.details["findings"] if f["finding"] == "misstates"]
    assert [0, 0] in [list(f["argument"]) for f in misstated]
    assert all(f["argument"][0] == 0 and "decrease" in reversed_[slice(*f["piece"])] for f in misstated)
    assert [f["finding"] for f in clean.details["findings"]] == ["states"] * 3


def test_only_the_turned_argument_of_a_sentence_stating_two_is_named(detector):
    """The sentence states both pro arguments; read whole, it misstated both (judge run five).
    A piece misstating two arguments is read again conjunct by conjunct
    (`explorer.text.claims.conjunct_spans`): one conjunct states the other argument."""
    reversed_ = FAITHFUL.replace("increase voter engagement", "decrease voter engagement")
    result = detector.score(make_example(reversed_, PRO, CON))
    named = [list(f["argument"]) for f in result.details["findings"] if f["finding"] == "misstates"]
    assert named == [[0, 0]]


def test_a_content_free_closing_line_is_never_a_statement(detector):
    result = detector.score(make_example(FAITHFUL, PRO, CON))
    closing = FAITHFUL.index("It depends")
    assert all(f["piece"][0] < closing for f in result.details["findings"])
    assert all(w.score == 0.0 for w in result.response_words if w.start >= closing)


def test_the_shipped_adapter_matches_its_record():
    folder = detectors.weights("meaning").shipped / JUDGE_TASK
    record = json.loads((folder / TRAINING_FILE).read_text())
    [weights] = folder.glob("*.safetensors")
    assert record["weights_sha256"] == hashlib.sha256(weights.read_bytes()).hexdigest()
    assert record["command"].startswith("python -m explorer.training.judge ")
    assert record["kept_step"] in [step for step, _ in record["dev_roc_auc"]]


def test_a_far_piece_can_misstate_an_argument_but_not_cover_it():
    """Findings from given judge probabilities (no model): a statement beyond the `COVERING`
    closest pieces leaves the argument uncovered (until it is read further, next test) yet still
    clears a misstatement; a misstatement there is found when no piece of the shortlist states
    the argument."""
    from explorer.detectors.meaning import COVERING, _findings

    example = make_example("One. Two. Three. Four. Five.", ("pro", ["An argument."]))
    pieces = [(0, 4), (5, 9), (10, 16), (17, 22), (23, 28)]
    key, columns = (0, 0), list(range(COVERING + 1))
    far = columns[-1]

    def findings(far_row):
        rows = {(key, c): (0.05, 0.05, 0.9) for c in columns} | {(key, far): far_row}
        probabilities = {}
        for pair, (states, misstates, absent) in rows.items():
            row = [0.0] * 3
            row[STATES], row[MISSTATES], row[ABSENT] = states, misstates, absent
            probabilities[pair] = row
        [found] = _findings(example, pieces, {key: columns}, {key: columns[:COVERING]}, probabilities)
        return found

    stated_far = findings((0.95, 0.0, 0.05))
    assert stated_far["stated"] == pytest.approx(0.05) and stated_far["finding"] == "absent"
    assert stated_far["misstated"] < 0.01
    misstated_far = findings((0.0, 0.95, 0.05))
    assert misstated_far["finding"] == "misstates" and misstated_far["piece"] == list(pieces[far])


def test_an_argument_its_closest_pieces_do_not_state_is_read_beside_every_piece(detector, monkeypatch):
    """Each argument shortlisted the closing line alone, which states none: every argument is
    read beside every piece and found stated where the answer states it. Without the further
    reading (`FURTHER` 0) all three stay absent."""
    import explorer.detectors.meaning as meaning

    example = make_example(FAITHFUL, PRO, CON)
    closing = FAITHFUL.index("It depends")

    def closing_line_only(self, example, pieces, units):
        [column] = [c for c, (start, _) in enumerate(pieces) if start == closing]
        return {(p, a): [column] for p, a, _ in example.arguments()}

    monkeypatch.setattr(MeaningDetector, "shortlist", closing_line_only)
    # Detectors of their own: each remembers its recent results.
    further = MeaningDetector(judge=detector.judge).score(example).details["findings"]
    assert [f["finding"] for f in further] == ["states"] * 3
    assert all(f["piece"][1] <= closing for f in further)
    monkeypatch.setattr(meaning, "FURTHER", 0.0)
    near = MeaningDetector(judge=detector.judge).score(example).details["findings"]
    assert [f["finding"] for f in near] == ["absent"] * 3


def test_the_judge_loads_at_first_use_and_names_itself_before():
    """The verdict over cached results (the shipped sample's) needs the judge's identity only."""
    from explorer.detectors.ops.judge import Judge, shipped_judge

    # A judge of its own: the process's shared one may have been loaded by an earlier test.
    fresh = MeaningDetector(judge=Judge(shipped_judge().adapter_dir))
    identity = fresh.model_identity()
    assert not fresh.judge._load.loaded
    fresh.judge.probabilities([(PRO[1][0], FAITHFUL)])
    assert fresh.judge._load.loaded and fresh.model_identity() == identity
