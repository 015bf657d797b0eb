import json

import pytest

from explorer.cli import main
from explorer.cli.extras import _earlier_stages
from explorer.config import SAMPLE_DIR
from explorer.data.jsonl import parse_jsonl
from explorer.evaluation.ablation import STAGES, StageResult, run_ablation, stage_record, stage_sets
from tests.helpers import SAMPLE_MINILM

TOPICS = {"train": ("Sugar tax",), "dev": ("Compulsory voting",), "test": ("Cashless shops",)}


def tiny_set():
    examples = parse_jsonl(SAMPLE_DIR / "synthetic.jsonl").examples
    return [e for e in examples if e.topic in TOPICS.get(e.split, ())]


def test_stages_grow_as_section_5_2_defines_them():
    examples = tiny_set()
    sets = {stage: (ids, held_out) for stage, ids, held_out in stage_sets(examples)}
    assert list(sets) == list(STAGES)
    kinds = {stage: {(e.split, e.labels.kind) for e in train} for stage, (train, _) in sets.items()}
    assert kinds["Synth"] == {("train", "organic"), ("train", "synthetic")}
    assert kinds["+Para"] - kinds["Synth"] == {("train", "paraphrased"), ("train", "synthetic_paraphrased")}
    assert {split for split, _ in kinds["+Dev"] - kinds["+Para"]} == {"dev"}
    synth = sets["Synth"][0]
    assert all(e.labels.kind == "synthetic" or not (e.labels.hallucination or e.labels.coverage_error) for e in synth)
    organic_errors = [e for e in sets["+Org"][0] if e not in sets["+Dev"][0]]
    assert organic_errors and all(e.labels.kind == "organic" and not e.labels.ambiguous for e in organic_errors)
    assert [held for _, held in sets.values()] == [True, True, False, False]
    assert all(e.split != "test" for train, _ in sets.values() for e in train)


@SAMPLE_MINILM
@pytest.mark.slow  # 8 trainings of the alignment classifier on one shared MiniLM: ~8 s
def test_ablation_command_prints_table_2_on_a_tiny_set(tmp_path, capsys):
    data = tmp_path / "tiny.jsonl"
    data.write_text("".join(json.dumps(e.to_dict()) + "\n" for e in tiny_set()), encoding="utf-8")
    out = tmp_path / "table2"
    assert main(["eval", str(data), "--ablation", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    rows = [line for line in printed.splitlines() if line.startswith(("| Synth", "| +"))]
    assert [row.split("|")[1].strip() for row in rows] == list(STAGES)
    record = json.loads((tmp_path / "table2.json").read_text(encoding="utf-8"))
    sizes = [stage["train_examples"] for stage in record["stages"]]
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]
    full = [
        cell["auc"]
        for stage in record["stages"]
        for cell in stage["roc_auc"]
        if (cell["error_type"], cell["slice"]) == ("hallucination", "full_organic")
    ]
    assert len(full) == 4 and all(0.0 <= auc <= 1.0 for auc in full)
    assert (tmp_path / "table2.md").read_text(encoding="utf-8").startswith("Training-data ablation")
    # the same command again goes on from the record: every stage is kept, none trained again
    assert main(["eval", str(data), "--ablation", "--out", str(out)]) == 0
    assert capsys.readouterr().err.count("kept from the earlier run") == len(STAGES)
    assert json.loads((tmp_path / "table2.json").read_text(encoding="utf-8")) == record
    # a record of other settings is not gone on from
    same = {key: value for key, value in record.items() if key != "stages"}
    assert [stage_record(r) for r in _earlier_stages(tmp_path / "table2.json", same)] == record["stages"]
    assert _earlier_stages(tmp_path / "table2.json", {**same, "seed": 1}) == []


@SAMPLE_MINILM
@pytest.mark.slow  # one tagger LoRA step on 24 examples, 16 test examples scored twice, in both orders: ~20 s
def test_a_stage_scores_the_weights_it_trained_when_the_task_is_not_an_error_type():
    """The tagger's one model serves both error types (its task is "tokens"): trained under an
    error type's name, its weights would not be found and the shipped ones scored instead."""
    from explorer import detectors
    from explorer.evaluation.auc import Settings, evaluate
    from explorer.scoring.runner import score_example

    examples = tiny_set()
    evaluated = [e for e in examples if e.split == "test"]
    earlier = [StageResult(stage, 0, {}, 0.0) for stage in STAGES[:-1]]
    steps = {"steps": 1, "eval_every": 1, "batch_size": 2}
    saved = []
    results = run_ablation(
        examples, evaluated, "tagger", steps=steps, done=earlier, save=saved.append, log=lambda _: None
    )
    assert results[:-1] == earlier and saved == [results]  # saved after the stage it trained
    assert results[-1].stage == "+Org" and results[-1].train_examples == 24
    shipped = detectors.create("tagger")
    scored = {e.id: score_example(e, [shipped], None).results for e in evaluated}
    table = evaluate(evaluated, scored, ["tagger"], Settings(n_bootstrap=0), word_level=False)
    assert results[-1].auc != {(c.error_type, c.slice): c.auc for c in table.example_cells}  # not the shipped weights


SAME = {"method": "alignment_classifier", "seed": 0}  # what the run asks of the record it goes on from
GOOD_STAGE = {"stage": "Synth", "train_examples": 10, "seconds": 1.5, "roc_auc": []}


@pytest.mark.parametrize(
    "text, problem",
    [
        ("[]", "is not an ablation record (not a JSON object)"),
        ('"x"', "is not an ablation record (not a JSON object)"),
        ("null", "is not an ablation record (not a JSON object)"),
        ("[" * 100_000, "is not an ablation record (arrays or objects nested too deeply"),
        ("{bad json", "is not an ablation record (Expecting property name"),
        (json.dumps({**SAME, "stages": "x"}), "its stages are not a list"),
        (json.dumps({**SAME, "stages": [7]}), "stages[0]: a stage must be a JSON object"),
        (json.dumps({**SAME, "stages": [{"stage": "Synth"}]}), "stages[0]: Synth: train_examples: None is not a count"),
        (json.dumps({**SAME, "stages": [{**GOOD_STAGE, "stage": "Nope"}]}), "stages[0]: stage: 'Nope' is not one of"),
        (json.dumps({**SAME, "stages": [{**GOOD_STAGE, "seconds": -1}]}), "stages[0]: Synth: seconds: -1"),
        (json.dumps({**SAME, "stages": [{**GOOD_STAGE, "roc_auc": {}}]}), "stages[0]: Synth: roc_auc must be a list"),
        (
            json.dumps({**SAME, "stages": [{**GOOD_STAGE, "roc_auc": [{"error_type": "x", "slice": "y"}]}]}),
            "stages[0]: Synth: roc_auc[0] must name an error type and a slice",
        ),
        (
            json.dumps(
                {
                    **SAME,
                    "stages": [
                        {**GOOD_STAGE, "roc_auc": [{"error_type": "coverage", "slice": "full_organic", "auc": 2}]}
                    ],
                }
            ).replace('"auc": 2', '"auc": 1e309'),  # forged: shown as "inf" in the table
            "stages[0]: Synth: roc_auc[0]: auc inf is not a ROC AUC in [0, 1]",
        ),
        (json.dumps({**SAME, "stages": [GOOD_STAGE, GOOD_STAGE]}), "it gives a stage twice"),
    ],
)
def test_an_ablation_record_of_the_wrong_shape_is_ignored_with_a_warning(tmp_path, text, problem, capsys):
    """Issue 52: each was an AttributeError, KeyError, TypeError, ValueError or RecursionError
    traceback of `explorer eval --ablation --out OUT` once OUT.json held it; a forged AUC was shown."""
    path = tmp_path / "ev.json"
    path.write_text(text, encoding="utf-8")
    assert _earlier_stages(path, SAME) == []
    assert f"explorer: warning: {path}: {problem}" in capsys.readouterr().err


def test_a_good_ablation_record_is_gone_on_from_and_a_missing_one_is_no_warning(tmp_path, capsys):
    path = tmp_path / "ev.json"
    assert _earlier_stages(path, SAME) == []
    cell = {"error_type": "coverage", "slice": "full_organic", "auc": 0.75}
    path.write_text(json.dumps({**SAME, "stages": [{**GOOD_STAGE, "roc_auc": [cell]}]}), encoding="utf-8")
    assert _earlier_stages(path, SAME) == [StageResult("Synth", 10, {("coverage", "full_organic"): 0.75}, 1.5)]
    assert capsys.readouterr().err == ""
