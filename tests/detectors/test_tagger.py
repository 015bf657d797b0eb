"""The token tagger: windows that never truncate, gold tags on the right tokens, the shipped
adapter matching its record, and what it was trained for (invented clauses and closers flagged)."""

import dataclasses
import hashlib
import json

import numpy as np
import pytest

from explorer import detectors
from explorer.data.example import Labels, UncoveredArgument
from explorer.detectors import DetectorError
from explorer.detectors.tagger import (
    IGNORED,
    TASK,
    CoverageTaggerDetector,
    TaggerDetector,
    load_token_classifier,
    result_from_words,
    token_probabilities,
    windows,
    word_scores,
)
from explorer.models.encoder import default_model_path
from explorer.models.trained import ADAPTER_FILE, TRAINING_FILE
from explorer.training import tagger as training
from tests.helpers import make_example

SUPPORTED = "Supporters say a sugar tax cuts consumption"
CLAUSE = ", since a 2018 Oxford study found soda sales fell 38 percent in Mexico"
TAGGERS = ("tagger", "tagger_coverage")  # the registry's taggers: the same code, their own weights


@pytest.fixture(scope="module")
def tokenizer():
    return load_token_classifier(default_model_path())[0]


@pytest.fixture(scope="module")
def detector():
    return TaggerDetector()


@pytest.fixture(scope="module")
def coverage_tagger():
    return CoverageTaggerDetector()


def _sugar(response):
    return make_example(
        response,
        ("pro", ["A sugar tax cuts consumption."]),
        ("con", ["Sugar taxes hurt poor families the most."]),
    )


def test_a_long_response_is_read_in_windows_that_cover_every_word_once(tokenizer):
    sentence = "Critics add that the levy weighs on households with the least money to spare. "
    example = _sugar(sentence * 120)
    found = windows(tokenizer, example, 512)
    assert len(found) > 1 and all(len(w.input_ids) <= 512 for w in found)
    covered = [place[1:] for w in found for place in w.places if place and place[0] == "response"]
    assert len(covered) == len(set(covered))
    text = "".join(example.response[s:e] for s, e in covered)
    assert text == example.response.replace(" ", "")


def test_a_sentence_without_spaces_is_read_in_full_windows_not_a_word_piece_each(tokenizer):
    # Runs of dots as long as an example may hold: no word starts inside a window to cut at. Cut
    # after one word piece each (issue 51), 20,000 dots were 20,000 windows, 5 to 8 minutes a tagger.
    example = _sugar(" ".join(["." * 1_000] * 5))
    found = windows(tokenizer, example, 512)
    room = 512 - (len(found[0].input_ids) - sum(1 for p in found[0].places if p and p[0] == "response"))
    assert len(found) <= 5 * -(-1_000 // room) and all(len(w.input_ids) <= 512 for w in found)  # full windows
    covered = [place[1:] for w in found for place in w.places if place and place[0] == "response"]
    assert sorted(covered) == sorted(set(covered)) and len(covered) == 5_000


def test_arguments_leaving_no_room_are_refused_not_cut(tokenizer):
    example = make_example("A short answer.", ("pro", ["word " * 600]))
    with pytest.raises(DetectorError, match="not truncated"):
        windows(tokenizer, example, 512)


def test_gold_tags_mark_the_invented_words_and_the_dropped_argument(tokenizer):
    response = SUPPORTED + CLAUSE + "."
    start = response.index(CLAUSE) + 2
    example = _sugar(response).replace(
        labels=Labels(
            hallucination=True,
            coverage_error=True,
            hallucinated_spans=((start, len(response) - 1),),
            uncovered=(UncoveredArgument(1, 0),),
        )
    )
    [window] = windows(tokenizer, example, 512)
    tags = training.token_tags(example, window)
    tagged = {tokenizer.convert_ids_to_tokens(i) for i, t in zip(window.input_ids, tags) if t == 1}
    assert {"2018", "oxford", "mexico", "poor", "families"} <= tagged
    assert not {"supporters", "consumption"} & {
        tokenizer.convert_ids_to_tokens(i)
        for i, t, p in zip(window.input_ids, tags, window.places)
        if t == 1 and p[0] == "response"
    }
    assert all(t == IGNORED for t, p in zip(tags, window.places) if p is None)


@pytest.mark.parametrize("name", TAGGERS)
def test_the_shipped_adapter_matches_its_record(name):
    folder = detectors.weights(name).shipped / TASK
    record = json.loads((folder / TRAINING_FILE).read_text())
    weights = (folder / ADAPTER_FILE).read_bytes()
    assert record["weights_sha256"] == hashlib.sha256(weights).hexdigest()
    built = detectors.create(name)
    assert record["model"] == built.identity and built.model_identity().startswith(f"{built.identity}+{name}(")
    assert not built._model.loaded  # the identity needs no model: it loads at the first example


@pytest.mark.slow
def test_an_invented_clause_inside_a_supported_sentence_outscores_the_words_beside_it(detector):
    clean = _sugar(SUPPORTED + ". Critics answer that such taxes hurt poor families the most.")
    woven = _sugar(SUPPORTED + CLAUSE + ". Critics answer that such taxes hurt poor families the most.")
    words = {woven.response[w.start : w.end]: w.score for w in detector.score(woven).response_words}
    assert min(words[w] for w in ("Oxford", "Mexico", "percent")) > max(words[w] for w in ("Supporters", "consumption"))
    assert detector.score(woven).hallucination > detector.score(clean).hallucination


@pytest.mark.slow
def test_an_invented_closing_line_on_the_topic_is_flagged_and_a_content_free_one_is_not(detector):
    body = "Supporters say a sugar tax cuts consumption. Critics answer that it hurts poor families the most. "
    framed = _sugar(body + "In the end, how you weigh these points depends on your values.")
    invented = _sugar(body + "Notably, the World Health Organization has urged every country to tax sugary drinks.")
    assert detector.score(invented).hallucination > 0.5 > detector.score(framed).hallucination


@pytest.mark.slow
@pytest.mark.parametrize("tagger", ["detector", "coverage_tagger"])
def test_a_dropped_argument_raises_its_perspectives_coverage_score(tagger, request):
    tagger = request.getfixturevalue(tagger)
    full = _sugar("Supporters say a sugar tax cuts consumption. Critics answer that it hurts poor families the most.")
    dropped = _sugar("Supporters say a sugar tax cuts consumption. It is a debated policy.")
    assert tagger.score(dropped).per_perspective["con"] > 0.5 > tagger.score(full).per_perspective["con"]


@pytest.mark.slow
@pytest.mark.parametrize("name", TAGGERS)
def test_a_tagger_scores_an_answer_the_same_whatever_the_order_of_its_arguments(name, detector, coverage_tagger):
    from explorer.data.edits import reversed_arguments

    tagger = {"tagger": detector, "tagger_coverage": coverage_tagger}[name]
    example = make_example(
        "Supporters say a sugar tax cuts consumption and funds school sports. Critics answer that it hurts poor "
        "families the most.",
        ("pro", ["A sugar tax cuts consumption.", "The revenue can fund sports programmes in schools."]),
        ("con", ["Sugar taxes hurt poor families the most.", "Shoppers just buy their soda across the border."]),
    )
    turned = reversed_arguments(example)
    given, reversed_ = tagger.score(example), tagger.score(turned)
    assert (given.hallucination, given.coverage) == (reversed_.hallucination, reversed_.coverage)
    assert given.per_perspective == reversed_.per_perspective

    def one_reading(read):
        return result_from_words(name, {}, read, *word_scores(read, tagger.probabilities(read)))

    # one reading of each order does not agree: the test can tell order-free scores from the model's
    assert one_reading(example).per_perspective != one_reading(turned).per_perspective
    for result, read in ((given, example), (reversed_, turned)):  # words numbered as the example gives them
        for w in result.argument_words:
            text = read.perspectives[w.perspective].arguments[w.argument]
            assert w.end <= len(text) and text[w.start : w.end].isalpha()
    dropped = {(w.perspective, w.argument) for w in given.argument_words if w.score > 0.5}
    assert (1, 1) in dropped and (0, 0) not in dropped  # the border argument is left out; the tax cut is not


@pytest.mark.slow
def test_a_few_steps_train_save_reload_and_score_identically(tmp_path, monkeypatch):
    import torch

    from explorer.training.data import save_peft

    response = SUPPORTED + CLAUSE + ". Critics answer that it hurts poor families the most."
    start = response.index(CLAUSE) + 2
    examples = [
        _sugar(response).replace(labels=Labels(False, False), split="train", id="clean"),
        _sugar(response).replace(
            labels=Labels(True, False, hallucinated_spans=((start, response.index(".")),)), split="train", id="bad"
        ),
    ]
    settings = training.TrainingSettings(steps=3, batch_size=2, eval_every=3, rank=2)
    model, record = training.train(examples, {"dev": examples}, settings, tmp_path / "work", log=lambda _: None)
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))  # the user's weights come first
    save_peft(model, record, detectors.weights("tagger").user_dir(record["model"], TASK))
    [(window, reloaded)] = TaggerDetector().probabilities(examples[1])
    tokenizer = load_token_classifier(default_model_path())[0]
    with torch.no_grad():
        [direct] = token_probabilities(model.eval(), tokenizer, [window])
    np.testing.assert_allclose(reloaded, direct, atol=1e-5)  # the detector merges the adapter: float rounding
    assert record["kept_step"] == 3 and [step for step, _ in record["loss"]] == [1, 2, 3]


def test_a_step_is_chosen_by_each_dev_files_worst_slice(monkeypatch):
    """Two dev files (two topics of the sample's dev split): each error type's figure is the mean
    over the files of each file's worst slice, the rule the stacked heads are chosen by."""
    from sklearn.metrics import roc_auc_score

    from explorer.config import SAMPLE_DIR
    from explorer.data.jsonl import parse_jsonl
    from explorer.training.stacked import selection_slices

    dev = [e for e in parse_jsonl(SAMPLE_DIR / "synthetic.jsonl").examples if e.split == "dev"]
    topics = sorted({e.topic for e in dev})[:2]
    sets = {topic: [e for e in dev if e.topic == topic] for topic in topics}
    results, scored = {}, training._result
    monkeypatch.setattr(training, "_result", lambda *a: results.setdefault(a[2].id, scored(*a)))
    tokenizer, model, limit = TaggerDetector()._model()
    chosen = training.dev_aucs(model, tokenizer, sets, limit)
    for error_type in ("hallucination", "coverage"):
        worst = []
        for examples in sets.values():
            slices = selection_slices(examples, error_type)
            assert len(slices) >= 2  # the rule has slices to choose the worst of
            score = {e.id: results[e.id].score(error_type) for e in examples}
            worst.append(min(roc_auc_score([y for _, y in m], [score[e.id] for e, _ in m]) for m in slices.values()))
        assert chosen[error_type] == pytest.approx(np.mean(worst))


@pytest.mark.parametrize("name", TAGGERS)
def test_the_shipped_adapter_was_trained_on_todays_builds(name, perspectrum_file, written_file, answers_file):
    """The record's data hash is that of the set its recorded command assembles from today's
    Perspectrum build, team-written corpus build and answers build (their spans included)."""
    import shlex
    from pathlib import Path

    from explorer.training.data import claim_half, data_digest, partly_reordered
    from tests.helpers import ROOT

    record = json.loads((detectors.weights(name).shipped / TASK / TRAINING_FILE).read_text())
    options = shlex.split(record["command"])[3:]
    start = options.index("--data") + 1
    files = options[start : next(i for i in range(start, len(options)) if options[i].startswith("--"))]
    built = {"written.jsonl": written_file, "perspectrum.jsonl": perspectrum_file, answers_file.name: answers_file}
    paths = [built.get(Path(f).name, ROOT / f) for f in files]
    part = options[options.index("--part") + 1]
    train_set = [e for e in training.labelled_train(paths) if claim_half(e) == part]
    train_set = partly_reordered(train_set, record["settings"].get("reorder", 0.0), record["settings"]["seed"])
    assert record["train_data_sha256"] == data_digest(train_set, TASK)


@pytest.mark.slow
def test_an_interrupted_run_resumes_from_its_last_checkpoint(tmp_path):
    response = SUPPORTED + CLAUSE + ". Critics answer that it hurts poor families the most."
    start = response.index(CLAUSE) + 2
    examples = [
        _sugar(response).replace(labels=Labels(False, False), split="train", id="clean"),
        _sugar(response).replace(
            labels=Labels(True, False, hallucinated_spans=((start, response.index(".")),)), split="train", id="bad"
        ),
    ]
    work, quiet = tmp_path / "work", lambda _: None
    first = training.TrainingSettings(steps=2, batch_size=2, eval_every=1, rank=2)
    training.train(examples, {"dev": examples}, first, work, log=quiet)
    assert sorted(p.name for p in work.glob("step-*")) <= ["step-1", "step-2"]
    lines = []
    _, record = training.train(examples, {"dev": examples}, dataclasses.replace(first, steps=3), work, log=lines.append)
    assert "resumed at step 2" in lines
    assert [step for step, _ in record["loss"]] == [1, 2, 3] and [s for s, _ in record["dev_roc_auc"]] == [1, 2, 3]
