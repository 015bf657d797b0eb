"""The reversal check: fourteen faithful answers on Perspectrum train claims, written by the team,
each beside its twin with one argument's meaning turned (negated, an opposite word, a comparison
or a quantity flipped, roles or cause and effect swapped, scope or modality changed). The verdict
must flag every reversal ("likely" or "unclear") and clear every faithful twin ("unlikely").

The answers and the turned words are in `tests/fixtures/reversals.jsonl`; the arguments are
Perspectrum ids, read from `../shared/data/perspectrum` (skipped without it)."""

import json
from pathlib import Path

import pytest

from explorer import detectors
from explorer.data.example import Example, Perspective
from explorer.data.perspectrum_claims import load_claims
from explorer.data.shared_data import SharedDataNotFoundError, shared_data_dir
from explorer.evaluation.verdict import verdicts

FIXTURE = Path(__file__).parent.parent / "fixtures" / "reversals.jsonl"
RECORDS = [json.loads(line) for line in FIXTURE.read_text("utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def twins():
    try:
        folder = shared_data_dir("perspectrum") / "perspectrum"
    except SharedDataNotFoundError as error:
        pytest.skip(str(error))
    texts = {pid: text for claim in load_claims(["train"], folder) for c in claim.clusters for pid, text in c.members}
    made = []
    for n, record in enumerate(RECORDS):
        sides = {"pro": [], "con": []}
        for ref, pid in sorted(record["pids"].items(), key=lambda item: (item[0].split("-")[0], int(item[0][4:]))):
            sides[ref.split("-")[0]].append(texts[pid])
        perspectives = tuple(Perspective(side, tuple(arguments)) for side, arguments in sides.items() if arguments)
        faithful = Example(f"twin-{n}", record["query"], perspectives, record["response"])
        turned = record["reversed"]
        reversed_ = faithful.replace(
            id=f"twin-{n}-reversed", response=record["response"].replace(turned["text"], turned["turned"])
        )
        made.append((turned["how"], faithful, reversed_))
    return made


@pytest.fixture(scope="module")
def judge():
    return detectors.create(detectors.VERDICT_DETECTOR)


def test_there_are_fourteen_twins_of_every_kind_of_turn():
    assert len(RECORDS) == 14
    assert {r["reversed"]["how"] for r in RECORDS} == {
        "negation",
        "antonym",
        "comparative",
        "quantity",
        "role",
        "cause",
        "scope",
        "modality",
    }
    for record in RECORDS:
        assert record["response"].count(record["reversed"]["text"]) == 1


# Issue 47's target, not met by stacked v13 (docs/development/models.md: 2 of 14 reversals raised,
# 12 of 14 faithful twins cleared; at a floor of 0.70 instead of 0.85, 4 raised; the polarity
# check scores most negations, comparatives and quantities turned, but the head gives it little
# weight and it also fires on faithful twins; the meaning check's judge misses antonyms, roles and
# causes). Strict: meeting it removes this.
@pytest.mark.xfail(strict=True, reason="the verdict does not yet flag every reversal (issue 47)")
def test_every_reversal_is_flagged_and_every_faithful_twin_is_cleared(twins, judge):
    missed, false_alarms = [], []
    for how, faithful, reversed_ in twins:
        before = verdicts(faithful, judge.score(faithful))
        after = verdicts(reversed_, judge.score(reversed_))
        if any(v.verdict != "unlikely" for v in before.values()):
            false_alarms.append((faithful.id, {t: v.verdict for t, v in before.items()}))
        if all(v.verdict == "unlikely" for v in after.values()):
            missed.append((reversed_.id, how))
    assert not missed and not false_alarms, (missed, false_alarms)


def test_the_polarity_checks_new_cards_name_the_turned_argument(twins):
    """The polarity check's cards (under the verdict when the check is chosen): each card a
    reversal adds over its faithful twin names the argument turned; five of the fourteen get one
    (negations, flipped comparisons and quantities; not roles, causes, scope or opposite words
    outside its list)."""
    from explorer.detectors.polarity import PolarityDetector

    polarity, named = PolarityDetector(), []
    for (how, faithful, reversed_), record in zip(twins, RECORDS):
        before = {tuple(f["argument"]) for f in polarity.score(faithful).details["findings"]}
        added = {tuple(f["argument"]) for f in polarity.score(reversed_).details["findings"]} - before
        side, number = record["reversed"]["argument"].split("-")
        turned = ([p.name for p in faithful.perspectives].index(side), int(number) - 1)
        assert added <= {turned}, (reversed_.id, how, added)
        named += [how] * len(added)
    assert sorted(named) == ["comparative", "comparative", "modality", "negation", "quantity"]
