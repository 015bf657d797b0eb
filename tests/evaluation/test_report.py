"""The eval report (Markdown like Table 1, JSON with every number) and `explorer eval`."""

import json

import pytest

from explorer.cli import main
from explorer.evaluation import auc, report
from explorer.evaluation.auc import Settings
from tests.evaluation.test_evaluation import labelled, result
from tests.helpers import jsonl
from tests.scripted import register, scripted

SLICE_COLUMNS = [
    f"{error} · {slice_title}"
    for error in ("Hallucination", "Coverage error")
    for slice_title in ("full organic", "unparaphrased synthetic", "paraphrased synthetic", "ambiguous organic")
]


@pytest.fixture
def evaluated():
    examples = [
        labelled("clean1", h=False, c=False, kind="organic"),
        labelled("clean2", h=False, c=False, kind="organic"),
        labelled("h1", h=True, c=False, kind="organic"),
        labelled("h2", h=True, c=False, kind="organic"),
    ]
    results = {
        "clean1": {"rouge": result(0.1, 0.2), "other": result(0.6, 0.2)},
        "clean2": {"rouge": result(0.3, 0.1), "other": result(0.2, 0.1)},
        "h1": {"rouge": result(0.9, 0.1), "other": result(0.5, 0.1)},
        "h2": {"rouge": result(0.8, 0.1), "other": result(0.7, 0.1)},
    }
    return auc.evaluate(examples, results, ["rouge", "other"], Settings(n_bootstrap=200))


def table_rows(markdown: str, heading: str) -> list[list[str]]:
    section = markdown.split(f"## {heading}")[1].split("\n## ")[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]


def test_markdown_table_is_laid_out_like_table_1(evaluated):
    text = report.markdown(evaluated, title="Eval", description="Data: `x.jsonl`.")
    header, rule, rouge, other, counts = table_rows(text, "Example-level ROC AUC")
    assert header == ["Method", *SLICE_COLUMNS]
    assert rule[0] == "---"
    cell = evaluated.cell("example", "hallucination", "full_organic", "rouge")
    assert rouge[:2] == ["ROUGE-1", f"**100.0 ({100 * cell.ci[0]:.1f}–{100 * cell.ci[1]:.1f})**"]
    # Unregistered detectors keep their name; 75.0 is not significantly worse on 4 examples: bold too.
    assert other[0] == "other" and other[1].startswith("**75.0 (")
    assert rouge[2] == "*no positives*" and rouge[3] == "*no examples*"
    assert counts[:3] == ["*examples (errors / no error)*", "2 / 2", "0 / 2"]
    assert "Slices with no examples in this data: hallucination · paraphrased synthetic" in text
    significance = table_rows(text, "Significance")
    assert significance[2][1] == "best" and significance[3][1].replace(" *", "").replace(".", "").isdigit()
    words = table_rows(text, "Word-level ROC AUC")
    assert words[4][0] == "*words (errors / no error)*"


def test_json_holds_every_number(evaluated):
    record = json.loads(json.dumps(report.to_json(evaluated, meta={"data": "x.jsonl"})))
    assert record["data"] == "x.jsonl" and record["method_titles"] == {"rouge": "ROUGE-1", "other": "other"}
    cells = {(c["error_type"], c["slice"], c["method"]): c for c in record["example_level"]}
    assert len(cells) == 2 * 4 * 2
    other = cells[("hallucination", "full_organic", "other")]
    assert other["auc"] == pytest.approx(0.75)
    assert {"ci_low", "ci_high", "p_value_vs_best", "p_value_vs_best_uncorrected", "positives"} <= set(other)
    assert cells[("coverage", "full_organic", "rouge")]["note"] == "no positives"
    assert record["settings"]["bootstrap_resamples"] == 200
    assert "coverage error only" in json.dumps(record["left_out"]) or record["left_out"]["hallucination"] == {}


@pytest.fixture
def data_file(tmp_path):
    records = []
    for i, (h, c, split) in enumerate(
        [(False, False, "test"), (True, False, "test"), (False, True, "test"), (True, False, "dev")] * 2
    ):
        example = labelled(f"e{i}", h=h, c=c, kind="organic", extra=scripted(scripted=(0.2 + 0.6 * h, 0.3)))
        records.append(example.replace(split=split).to_dict())
    path = tmp_path / "data.jsonl"
    path.write_text(jsonl(*records), encoding="utf-8")
    return path


def test_eval_command_writes_markdown_and_json(data_file, tmp_path, monkeypatch, capsys):
    register(monkeypatch, "scripted")
    out = tmp_path / "report"
    code = main(["eval", str(data_file), "--detectors", "rouge,scripted", "--out", str(out), "--split", "test"])
    assert code == 0
    record = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert record["n_examples"] == 6 and record["split"] == "test"
    cells = {(c["error_type"], c["slice"], c["method"]): c for c in record["example_level"]}
    assert cells[("hallucination", "full_organic", "scripted")]["auc"] == 1.0
    assert cells[("hallucination", "full_organic", "scripted")]["positives"] == 2
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "| Scripted |" in markdown and "| ROUGE-1 |" in markdown
    assert markdown in capsys.readouterr().out


def test_eval_uses_given_scores_and_computes_the_missing_ones(data_file, tmp_path, monkeypatch):
    register(monkeypatch, "scripted")
    scores = tmp_path / "scores.jsonl"
    assert main(["score", str(data_file), "--detectors", "scripted", "--out", str(scores), "--quiet"]) == 0
    # Given scores win over the detector: rewrite one score and see it in the report.
    lines = [json.loads(line) for line in scores.read_text(encoding="utf-8").splitlines()]
    lines[0]["scores"]["scripted"]["hallucination"] = 0.99  # e0 is error-free: now a false alarm
    scores.write_text(jsonl(*lines), encoding="utf-8")
    out = tmp_path / "r.md"
    command = ["eval", str(data_file), "--scores", str(scores), "--detectors", "rouge,scripted", "--out", str(out)]
    assert main([*command, "--quiet"]) == 0
    record = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert record["methods"] == ["rouge", "scripted"]
    cells = {(c["error_type"], c["slice"], c["method"]): c for c in record["example_level"]}
    # 4 hallucinations x 2 error-free examples; e0 now outranks all 4: 4 of 8 pairs wrong.
    assert cells[("hallucination", "full_organic", "scripted")]["auc"] == pytest.approx(1 - 4 / 8)
    assert cells[("hallucination", "full_organic", "rouge")]["auc"] is not None  # computed: not in the file


def test_eval_reports_unreadable_scores_with_the_line_and_computes_them_instead(data_file, tmp_path, capsys):
    scores = tmp_path / "bad.jsonl"
    scores.write_text('{"id": "e0", "scores": {"rouge": {"hallucination": 0.1}}}\n', encoding="utf-8")
    command = ["eval", str(data_file), "--scores", str(scores), "--detectors", "rouge", "--out", str(tmp_path / "r")]
    assert main([*command, "--quiet"]) == 1
    assert "bad.jsonl: line 1: not a record of `explorer score` output" in capsys.readouterr().err
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["methods"] == ["rouge"]
