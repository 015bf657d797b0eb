"""The failure-mode probes and how a detector's verdicts on them are read (issue 49)."""

import pytest

from explorer.docs.probes import CAUGHT, FALSE_ALARM, MISSED, NO_VERDICT, PARTLY, PASSED, load_probes, outcome


def judged(hallucination=None, coverage=None):
    """Verdicts as the record keeps them; None: no informative calibration for that error type."""
    return {
        t: {"verdict": v, "p": None if v is None else 0.5, "score": 0.5}
        for t, v in (("hallucination", hallucination), ("coverage", coverage))
    }


ERROR = {"hallucination": True, "coverage": False}
BOTH = {"hallucination": True, "coverage": True}
FAITHFUL = {"hallucination": False, "coverage": False}


@pytest.mark.parametrize(
    ("expected", "found", "result"),
    [
        (ERROR, judged("likely", "unlikely"), CAUGHT),
        (ERROR, judged("unlikely", "likely"), MISSED),  # a likely verdict of the other type catches nothing
        (ERROR, judged("unclear", "unlikely"), PARTLY),
        (ERROR, judged(None, "likely"), NO_VERDICT),  # it cannot judge the type the probe has
        (BOTH, judged(None, "likely"), CAUGHT),
        (BOTH, judged("unlikely", "unclear"), PARTLY),
        (BOTH, judged("unlikely", "unlikely"), MISSED),
        (FAITHFUL, judged("unlikely", "unlikely"), PASSED),
        (FAITHFUL, judged("unlikely", "likely"), FALSE_ALARM),
        (FAITHFUL, judged("unclear", "unlikely"), PARTLY),
        (FAITHFUL, judged(None, "unlikely"), PASSED),
        (FAITHFUL, judged(None, None), NO_VERDICT),
    ],
)
def test_outcome(expected, found, result):
    assert outcome(expected, found) == result


def test_the_probes_are_one_topics_faithful_answer_and_labelled_variants():
    probes = load_probes()
    assert probes[0].mode == "faithful" and probes[0].expected == FAITHFUL
    assert len({p.example.id for p in probes}) == len(probes)
    assert {p.example.query for p in probes} == {probes[0].example.query}
    for probe in probes:
        labels = probe.example.labels
        for start, end in labels.hallucinated_spans:
            assert probe.example.response[start:end].strip(), probe.example.id
        if probe.expected["hallucination"]:
            assert labels.hallucinated_spans, probe.example.id
        for uncovered in labels.uncovered:
            assert uncovered.argument < len(probe.example.perspectives[uncovered.perspective].arguments)
    modes = {p.mode for p in probes}
    assert {"reversed argument", "dropped argument", "arguments in another order", "another language"} <= modes
