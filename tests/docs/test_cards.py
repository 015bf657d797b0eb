"""Every figure of a detector card comes from a record (issue 49): change a record, the card
changes. Each test writes its own small records into a copy of the resources layout, so the
figures checked are the ones the test put there, not today's."""

import json
import shutil
from pathlib import Path

import pytest

from explorer import detectors
from explorer.cli import main
from explorer.config import RESOURCES
from explorer.docs import cards, records
from explorer.docs.probes import load_probes


def _write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture
def root(tmp_path):
    """The package's calibration and training records (not the weights), and no measured records."""
    shutil.copy(RESOURCES / "calibration.json", tmp_path / "calibration.json")
    for found in RESOURCES.glob("*/**/training.json"):
        target = tmp_path / found.relative_to(RESOURCES)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(found, target)
    return tmp_path


def test_the_calibration_figures_come_from_calibration_json(root):
    data = json.loads((root / "calibration.json").read_text())
    data["detectors"]["stacked"]["hallucination"]["auc"] = 0.4321
    data["detectors"]["stacked"]["hallucination"]["threshold"] = 0.87654
    _write(root / "calibration.json", data)
    shown = cards.card("stacked", records.load(root))
    assert "| hallucination | 0.43 |" in shown
    assert "0.877" in shown
    assert "Dev ROC AUC 0.43 / " in cards.about("stacked", records.load(root))


def test_a_calibration_near_chance_gives_no_verdict_on_the_card(root):
    data = json.loads((root / "calibration.json").read_text())
    entry = data["detectors"]["rouge"]["coverage"]
    entry["auc"] = 0.55
    for key in ("threshold", "unlikely_below", "likely_from"):
        entry.pop(key, None)
    _write(root / "calibration.json", data)
    assert "| coverage | 0.55 | 94 / 108 | no verdict (near chance) |" in cards.card("rouge", records.load(root))


def test_the_training_figures_come_from_the_training_record(root):
    path = root / "tagger" / "tokens" / "training.json"
    data = json.loads(path.read_text())
    data["kept_step"] = 400
    data["dev_roc_auc"] = [[400, {"hallucination": 0.6111, "coverage": 0.7222}]]
    data["train_examples"] = 12345
    data["command"] = "python -m explorer.training.tagger --made-up-flag"
    _write(path, data)
    shown = cards.card("tagger", records.load(root))
    assert "kept step 400, dev ROC AUC 0.61 / 0.72 (hallucination / coverage)" in shown
    assert "(12,345 examples)" in shown
    assert "python -m explorer.training.tagger --made-up-flag" in shown


def test_the_evaluation_figures_come_from_the_dev_sets_record(root):
    cell = {"auc": 0.9123, "ci": [0.8456, 0.9789], "positives": 10, "negatives": 12}
    _write(
        root / "records" / "dev_sets.json",
        {
            "sets": {"foreign": {"examples": 226}},
            "detectors": {
                "matching": {
                    "foreign": {
                        "example": {"coverage": {"full_organic": cell}},
                        "word": {"coverage": {"full_organic": 0.8}},
                        "spans": {},
                        "version": "1",
                        "commit": "abc1234",
                    }
                }
            },
        },
    )
    shown = cards.card("matching", records.load(root))
    assert "| coverage | 91.2 [84.6, 97.9] |" in shown
    assert "| coverage, word level | 80.0 |" in shown
    assert "commit `abc1234`" in shown
    assert "Not measured yet: `python bench/dev_sets.py --detectors rouge`" in cards.card("rouge", records.load(root))


def test_a_sets_variants_get_their_own_table(root):
    cell = {"auc": 0.5555, "ci": [0.4, 0.7], "positives": 24, "negatives": 24}
    measured = {"example": {}, "variants": {"hallucination": {"R": cell}}, "word": {}, "spans": {}}
    _write(
        root / "records" / "dev_sets.json",
        {
            "sets": {"foreign_v3": {"examples": 151}},
            "detectors": {"stacked": {"foreign_v3": {**measured, "version": "10", "commit": "abc1234"}}},
        },
    )
    shown = cards.card("stacked", records.load(root))
    assert "| error type | R: an argument's meaning changed |" in shown
    assert "| hallucination | 55.5 [40.0, 70.0] |" in shown
    assert "| coverage | – |" in shown


def test_the_speed_comes_from_the_speed_record(root):
    run = {"commit": "abc1234", "date": "2026-11-29", "cpus": 2, "machine": "x86_64", "load_average": [1.0, 2.0]}
    entry = {
        "device": "cpu",
        "threads": 1,
        "load_seconds": 3.5,
        "median_seconds": 0.9999,
        "median_cpu_seconds": 0.4567,
        "p90_seconds": 0.9,
        "peak_rss_mib": 777,
        "examples": 20,
        "refused": 0,
        "run": run,
    }
    _write(
        root / "records" / "speed.json", {"command": "python bench/speed.py --record", "detectors": {"rouge": entry}}
    )
    loaded = records.load(root)
    assert "0.46 s an example of the sample (median CPU time, CPU, 1 thread(s))" in cards.card("rouge", loaded)
    assert "Wall-clock median 1.00 s" in cards.card("rouge", loaded)
    assert "peak memory 777 MiB" in cards.card("rouge", loaded)
    assert "0.46 s" in cards.index(loaded)
    assert "0.46 s an example" in cards.about("rouge", loaded)


def test_the_known_failures_come_from_the_failure_mode_record(root):
    probes = load_probes()
    faithful, reversed_ = probes[0], next(p for p in probes if p.mode == "reversed argument")

    def judged(p_hallucination, p_coverage):
        verdict = lambda p: "likely" if p >= 0.7 else "unlikely" if p < 0.3 else "unclear"  # noqa: E731
        return {
            "hallucination": {
                "score": p_hallucination,
                "p": p_hallucination,
                "verdict": verdict(p_hallucination),
                "piece": None,
            },
            "coverage": {"score": p_coverage, "p": p_coverage, "verdict": verdict(p_coverage), "piece": None},
        }

    record = {
        "probes": [
            {"id": p.example.id, "mode": p.mode, "what": p.what, "expected": p.expected} for p in (faithful, reversed_)
        ],
        "detectors": {"stacked": {faithful.example.id: judged(0.1, 0.2), reversed_.example.id: judged(0.12, 0.1)}},
    }
    _write(root / "records" / "failure_modes.json", record)
    shown = cards.card("stacked", records.load(root))
    assert "Misjudged probes: reversed argument." in shown
    assert "unlikely (P 0.12) | unlikely (P 0.10) | **missed** |" in shown
    record["detectors"]["stacked"][reversed_.example.id] = judged(0.93, 0.1)
    _write(root / "records" / "failure_modes.json", record)
    shown = cards.card("stacked", records.load(root))
    assert "It misjudges none of the probes." in shown
    assert "likely (P 0.93) | unlikely (P 0.10) | **caught** |" in shown


@pytest.mark.parametrize("name", detectors.names())
def test_every_detector_has_a_card_naming_its_origin_and_what_its_words_mean(name):
    shown = cards.card(name)
    spec = detectors.spec(name)
    assert shown.startswith(f"# {spec.title}\n")
    assert spec.origin and spec.origin in shown
    assert spec.response_word_meaning in shown


def test_explorer_detectors_prints_the_cards_and_the_descriptions(capsys):
    assert main(["detectors", "--describe", "rouge,stacked"]) == 0
    assert capsys.readouterr().out == cards.card("rouge") + "\n" + cards.card("stacked")
    assert main(["detectors"]) == 0
    listed = capsys.readouterr().out
    for name in detectors.names():
        assert f"{name} ({detectors.spec(name).cost}): {cards.about(name)}" in listed


def test_explorer_detectors_refuses_an_unknown_detector(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["detectors", "--describe", "rouge,nope"])
    assert stopped.value.code == 2
    assert "unknown detector 'nope'" in capsys.readouterr().err
