import json
import pickle

import pytest

from explorer.cli import main
from explorer.detectors.ops.alignment import DEFAULT_SETTINGS
from explorer.detectors.ops.assessment import CONTRADICTED, SUPPORTED, UNSUPPORTED
from explorer.detectors.ops.claim_check import CheckedClaim
from explorer.evaluation.claim_level import claim_view_choice
from explorer.models.encoder import default_model_path, shared_encoder
from explorer.scoring.refchecker import ClaimReport, claim_report, dumps_reports, read_reports
from tests.helpers import jsonl, make_example

PRO = ("pro", ["School uniforms reduce bullying between students."])
CON = ("con", ["Uniforms limit the self-expression of students."])
EXAMPLE = make_example(
    "Supporters say uniforms reduce bullying between students. They also say uniforms limit the self-expression "
    "of students. Critics add that uniforms improve exam grades in maths.",
    PRO,
    CON,
    example_id="u1",
    topic="Uniforms",
    query="Should schools require uniforms?",
)


def report(granularity="triplet"):
    checks = (
        CheckedClaim("uniforms reduce bullying", 0, SUPPORTED, 0.81, (0, 0), (0, 50), 0, "states a pro argument"),
        CheckedClaim(
            "uniforms limit self-expression", 1, CONTRADICTED, 0.9, (1, 0), (0, 48), 0, "states a con argument as pro's"
        ),
        CheckedClaim("uniforms improve exam grades", 2, UNSUPPORTED, 0.41, None, None, 1, "matches no argument"),
    )
    claims = (
        ("uniforms", "reduce", "bullying"),
        ("uniforms", "limit", "self-expression"),
        ("uniforms", "improve", "exam grades"),
    )
    return ClaimReport(
        EXAMPLE, granularity, claims, checks, "SmolLM2 (constrained triplet prompt)", "MiniLM cosine + rules"
    )


def test_refchecker_fields_and_aggregation():
    record = report().to_refchecker("strict")
    assert record["question"] == EXAMPLE.query and record["response"] == EXAMPLE.response
    assert record["reference"] == [PRO[1][0], CON[1][0]]
    assert record["claims"][0] == ["uniforms", "reduce", "bullying"]
    assert record["ys"] == ["Entailment", "Contradiction", "Neutral"]
    assert record["Y"] == "Contradiction"  # strict: any contradiction
    third = pytest.approx(1 / 3)
    assert record["aggregated"]["soft"] == {
        "Entailment": third,
        "Neutral": third,
        "Contradiction": third,
        "Abstain": 0.0,
    }
    assert record["aggregated"]["major"] == "Entailment"  # a three-way tie goes to the first met
    assert record["claim_details"][1]["attributed_to"] == "pro"


def test_json_round_trip(tmp_path):
    path = tmp_path / "claims.json"
    path.write_text(dumps_reports([report(), report("sentence")], "soft"), encoding="utf-8")
    assert read_reports(path) == [report(), report("sentence")]
    assert isinstance(json.loads(path.read_text(encoding="utf-8")), list)  # RefChecker's file is one JSON array


def test_a_bad_item_names_its_index_and_field(tmp_path):
    record = report().to_refchecker()
    del record["ys"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([report().to_refchecker(), record]), encoding="utf-8")
    with pytest.raises(ValueError, match="item 1: missing field 'ys'"):
        read_reports(path)


def test_sentence_claims_are_checked_end_to_end():
    checked = claim_report(EXAMPLE, "sentence", shared_encoder())
    assert checked.claims == (
        "Supporters say uniforms reduce bullying between students.",
        "They also say uniforms limit the self-expression of students.",
        "Critics add that uniforms improve exam grades in maths.",
    )
    assert [c.verdict for c in checked.checks] == [SUPPORTED, CONTRADICTED, UNSUPPORTED]
    assert checked.to_refchecker()["Y"] == {
        "Entailment": pytest.approx(1 / 3),
        "Neutral": pytest.approx(1 / 3),
        "Contradiction": pytest.approx(1 / 3),
        "Abstain": 0.0,
    }


def test_claims_command_writes_refchecker_json(tmp_path, capsys):
    source = tmp_path / "in.jsonl"
    source.write_text(jsonl(EXAMPLE.to_dict()), encoding="utf-8")
    out = tmp_path / "claims.json"
    assert (
        main(
            ["claims", str(source), "--granularity", "sentence", "--aggregator", "major", "--out", str(out), "--quiet"]
        )
        == 0
    )
    [written] = read_reports(out)
    assert written.granularity == "sentence" and len(written.checks) == 3
    assert json.loads(out.read_text(encoding="utf-8"))[0]["aggregator"] == "major"
    assert "1 Contradiction, 1 Entailment, 1 Neutral" in capsys.readouterr().err
    # By default claims are checked as the Inspect claim view reads them: the encoder and
    # threshold chosen on Perspectrum dev; a given encoder is read at the default threshold.
    choice = claim_view_choice()
    assert "matcher LoRA" in written.checker and f"\u2265 {choice.match:.2f}" in written.checker
    assert (
        main(
            [
                "claims",
                str(source),
                "--granularity",
                "sentence",
                "--encoder",
                str(default_model_path()),
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    [plain] = read_reports(out)
    assert "matcher" not in plain.checker and f"\u2265 {DEFAULT_SETTINGS.match:.2f}" in plain.checker


def test_an_encoder_folder_holding_a_pickle_is_a_usage_error_not_a_traceback(tmp_path, capsys):
    """Issue 28: torch refuses the pickle, which the old code let through as a traceback."""
    folder = tmp_path / "encoder"
    folder.mkdir()
    (folder / "config.json").write_text(
        json.dumps({"model_type": "bert", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 1}),
        encoding="utf-8",
    )
    (folder / "pytorch_model.bin").write_bytes(pickle.dumps(Payload()))
    source, out = tmp_path / "in.jsonl", tmp_path / "claims.json"
    source.write_text(jsonl(EXAMPLE.to_dict()), encoding="utf-8")
    command = ["claims", str(source), "--granularity", "sentence", "--encoder", str(folder), "--out", str(out)]
    assert main([*command, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"explorer: cannot load the model at {folder}: UnpicklingError" in err and "Traceback" not in err
    assert not out.exists()


class Payload:
    """A pickle that would call a function when loaded (a harmless one)."""

    def __reduce__(self):
        return (print, ("unpickled",))


@pytest.mark.parametrize(
    "files, said",
    [
        (
            {"config.json": {"model_type": "bert", "auto_map": {"AutoModel": "evil.EvilModel"}}},
            "needs custom code (auto_map in config.json), which the explorer never runs",
        ),
        (
            {"adapter_config.json": {"peft_type": "LORA", "base_model_name_or_path": "org/remote-model"}},
            "is a PEFT adapter on the base model 'org/remote-model', which is not a local folder",
        ),
        (
            {"adapter_config.json": {"peft_type": "LORA", "base_model_name_or_path": None}},
            "is a PEFT adapter on the base model None, which is not a local folder",
        ),
    ],
)
def test_an_encoder_that_needs_its_own_code_or_a_hub_is_refused_plainly(tmp_path, files, said, capsys):
    """Issue 52: the library's own words advised trust_remote_code=True, or said "Repo id must be a string"."""
    folder = tmp_path / "encoder"
    folder.mkdir()
    for name, content in files.items():
        (folder / name).write_text(json.dumps(content), encoding="utf-8")
    source, out = tmp_path / "in.jsonl", tmp_path / "claims.json"
    source.write_text(jsonl(EXAMPLE.to_dict()), encoding="utf-8")
    command = ["claims", str(source), "--granularity", "sentence", "--encoder", str(folder), "--out", str(out)]
    assert main([*command, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"explorer: {folder} {said}" in err and "trust_remote_code" not in err and "Repo id" not in err
    assert not out.exists()
