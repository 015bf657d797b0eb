"""The commands that write the records the detector cards read (issue 49): each measures what it
says, keeps the entries of detectors it was not asked to measure, and the cards read the result."""

import json

from bench import dev_sets, failure_modes, speed
from explorer.docs import cards, probes, records


def test_dev_sets_records_explorer_evals_figures_and_keeps_other_detectors(tmp_path):
    path = tmp_path / "records" / "dev_sets.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"sets": {}, "detectors": {"semantic": {"foreign": {"kept": True}}}}))
    assert dev_sets.main(["--detectors", "rouge", "--sets", "sample", "--record", str(path), "--bootstrap", "50"]) == 0
    record = json.loads(path.read_text())
    assert record["detectors"]["semantic"] == {"foreign": {"kept": True}}
    assert record["sets"]["sample"]["examples"] == 112 and record["sets"]["sample"]["split"] == "test"
    rouge = record["detectors"]["rouge"]["sample"]
    cell = rouge["example"]["hallucination"]["full_organic"]
    assert cell["ci"][0] <= cell["auc"] <= cell["ci"][1]
    assert rouge["version"] == "2"
    # the same figure `explorer eval` reports
    from explorer.cli import main

    assert main(["eval", str(dev_sets.set_file("sample", tmp_path)), "--split", "test", "--detectors", "rouge",
                 "--bootstrap", "0", "--out", str(tmp_path / "report"), "--quiet"]) == 0  # fmt: skip
    report = json.loads((tmp_path / "report.json").read_text())
    (expected,) = (
        c["auc"]
        for c in report["example_level"]
        if (c["error_type"], c["slice"], c["method"]) == ("hallucination", "full_organic", "rouge")
    )
    assert cell["auc"] == expected
    shown = cards.card("rouge", records.load(tmp_path))
    assert f"| hallucination | {100 * expected:.1f} [" in shown


def test_the_speed_record_keeps_other_detectors_in_registry_order(tmp_path):
    path = tmp_path / "speed.json"
    figures = {"device": "cpu", "threads": 1, "load_seconds": 1.0, "median_seconds": 0.5, "p90_seconds": 0.7}
    speed.write_record(path, {"stacked": figures}, 1.0, 2.0)
    speed.write_record(path, {"rouge": {**figures, "median_seconds": 0.001}}, 0.5, 0.5)
    record = json.loads(path.read_text())
    assert list(record["detectors"]) == ["rouge", "stacked"]
    assert record["detectors"]["stacked"]["median_seconds"] == 0.5
    assert record["detectors"]["stacked"]["run"]["load_average"] == [1.0, 2.0]
    assert record["detectors"]["rouge"]["run"]["load_average"] == [0.5, 0.5]


def test_the_probe_record_holds_each_detectors_calibrated_verdicts(tmp_path):
    path = tmp_path / "failure_modes.json"
    assert failure_modes.main(["--detectors", "rouge", "--record", str(path)]) == 0
    record = json.loads(path.read_text())
    judged = record["detectors"]["rouge"]
    assert set(judged) - {"version", "commit"} == {p["id"] for p in record["probes"]}
    # ROUGE-1 reads words only: the dropped argument's words are missing from the answer
    dropped = judged["probe-dropped-argument"]["coverage"]
    faithful = judged["probe-faithful"]["coverage"]
    assert dropped["score"] > faithful["score"]
    assert dropped["piece"] == probes.load_probes()[0].example.perspectives[1].arguments[1]
