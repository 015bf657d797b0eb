"""The stacked detector: its shipped head, how it combines its components, and its trainer."""

import hashlib
import json
from dataclasses import replace

import numpy as np
import pytest

from bench.floor import head_p
from explorer import detectors
from explorer.cli.stacked import feature_options, scored_once
from explorer.config import SAMPLE_DIR
from explorer.data.jsonl import parse_jsonl
from explorer.data.labels import ERROR_TYPES
from explorer.detectors.base import DetectorError
from explorer.detectors.ops import argument_head
from explorer.detectors.ops.explained import joined, unfloored
from explorer.detectors.ops.logistic_head import MODEL_FILE, LogisticHead
from explorer.detectors.semantic import assessment_of
from explorer.detectors.stacked import (
    ALIGNMENT,
    ARGUMENT_WEIGHT,
    ARGUMENT_WORDS,
    COMPONENTS,
    DOUBT,
    DOUBTED_BY,
    FEATURES,
    FINDINGS,
    MISSTATED_WEIGHT,
    OPTIONAL,
    RESPONSE_WORDS,
    SURE,
    StackedDetector,
    feature_row,
    load,
    p_error,
)
from explorer.models.trained import TRAINING_FILE
from explorer.render.findings import misstatements
from explorer.scoring.runner import all_results
from explorer.training import TrainingInputError, TrainingRequest
from explorer.training import data as training_data
from explorer.training import stacked as training
from tests.helpers import make_example, recorded_train_set
from tests.scripted import ScriptedDetector, scripted

SHIPPED = detectors.weights("stacked").shipped


@pytest.fixture(scope="module")
def detector():
    return StackedDetector()


@pytest.mark.parametrize("error_type", ERROR_TYPES)
def test_shipped_head_matches_its_training_record(detector, error_type):
    record = json.loads((SHIPPED / error_type / TRAINING_FILE).read_text(encoding="utf-8"))
    assert hashlib.sha256((SHIPPED / error_type / MODEL_FILE).read_bytes()).hexdigest() == record["weights_sha256"]
    assert record["model"] == detector.model_identity()  # the shipped components, the tuned matcher included
    assert record["dev_is_held_out"] and record["dev_data"].startswith("dev.jsonl")  # the foreign NPOV dev set
    kept = [
        auc
        for features, strength, auc in record["dev_roc_auc"]
        if (features, strength) == (record["kept_features"], record["kept_C"])
    ]
    assert kept == [max(auc for *_, auc in record["dev_roc_auc"])]
    assert (
        load(SHIPPED / error_type) == detector.models[error_type]
        and detector.models[error_type].error_type == error_type
    )
    assert (SHIPPED / error_type / MODEL_FILE).stat().st_size < 4096
    if error_type == "coverage":  # the argument head beside it, fitted by the same command
        kept = SHIPPED / error_type / argument_head.FILE
        assert hashlib.sha256(kept.read_bytes()).hexdigest() == record["arguments"]["weights_sha256"]
        assert argument_head.load(SHIPPED / error_type) == detector.arguments
        assert record["arguments"]["train_arguments"] > record["arguments"]["dropped"] > 0


def test_a_head_reads_its_named_features_from_rows_of_all_features():
    rng = np.random.default_rng(0)
    rows = rng.normal(size=(200, len(FEATURES)))
    gold = (rows[:, 1] - rows[:, 3] + rng.normal(scale=0.5, size=200) > 0).astype(int)
    chosen = (FEATURES[3], FEATURES[1])
    model = training.fit("coverage", chosen, rows, gold, 1.0)
    assert model.features == chosen
    reference = LogisticHead.fit("coverage", chosen, rows[:, [3, 1]], gold, 1.0)
    assert [p_error(model, row) for row in rows] == pytest.approx(list(reference.p_error(rows[:, [3, 1]])), abs=1e-12)


def test_a_dropped_argument_raises_coverage_and_words_come_from_the_named_component(detector):
    kept = make_example(
        "Sugar taxes cut consumption. They also hurt poor families.",
        ("pro", ["Sugar taxes cut consumption."]),
        ("con", ["They hurt poor families."]),
    )
    dropped = make_example(
        "Sugar taxes cut consumption.",
        ("pro", ["Sugar taxes cut consumption."]),
        ("con", ["They hurt poor families."]),
    )
    full, partial = detector.score(kept), detector.score(dropped)
    assert partial.coverage > full.coverage
    assert partial.per_perspective["con"] > partial.per_perspective["pro"]
    components = {name: c.score(dropped) for name, c in detector.components.items()}
    assert partial.response_words == components[RESPONSE_WORDS].response_words
    assert partial.argument_words == components[ARGUMENT_WORDS].argument_words
    # The claims behind the word scores travel with the result (the claim view and reports read them).
    assert (
        assessment_of(partial, dropped).alignment.claims
        == assessment_of(components[ALIGNMENT], dropped).alignment.claims
    )
    head = p_error(detector.models["hallucination"], feature_row(components))
    assert partial.hallucination == joined(head, components[DOUBTED_BY].hallucination, MISSTATED_WEIGHT)


def test_the_verdict_runs_only_the_components_it_reads_and_scores_as_with_all_of_them(detector, monkeypatch):
    example = make_example(
        "Sugar taxes cut consumption, and critics say nothing else matters.",
        ("pro", ["Sugar taxes cut consumption."]),
        ("con", ["They hurt poor families."]),
    )
    every = {name: c.score(example) for name, c in detector.components.items()}
    heads = {feature.split()[0] for head in detector.models.values() for feature in head.features}
    assert heads <= set(detector.read) and set(detector.read) < set(COMPONENTS)
    unread = [name for name in COMPONENTS if name not in detector.read]
    for name in unread:  # a component the verdict does not read is never asked to score
        monkeypatch.setattr(detector.components[name], "score", lambda *_, name=name: pytest.fail(f"{name} was run"))
    assert detector.score(example) == detector.combine(example, every)


def turned_primaries():
    """An answer stating its pro argument turned ("decrease" for "increase") and its con argument faithfully."""
    return make_example(
        "Supporters say open primaries decrease voter engagement. Critics warn that open primaries weaken "
        "party loyalty.",
        ("pro", ["Open primaries increase voter engagement."]),
        ("con", ["Open primaries weaken party loyalty."]),
    )


def test_the_verdict_keeps_the_meaning_checks_findings_so_its_cards_need_no_other_detector(detector):
    """Inspect shows a card per misstated argument from the results it holds; by default the
    verdict's alone (with ROUGE-1): it carries the findings of the check its coverage head reads."""
    turned = turned_primaries()
    assert FINDINGS in detector.read
    result = detector.score(turned)
    assert result.details["findings"] == detector.components[FINDINGS].score(turned).details["findings"]
    assert [f["argument"] for f in misstatements(result)] == [[0, 0]]


def test_a_sure_misstatement_sets_a_floor_under_the_verdict_and_points_it_at_the_turned_statement(detector):
    """Issue 47: a turned argument keeps the argument's words, so the heads call it supported; a
    misstatement the meaning check is sure of (SURE) raises both P(error)s, its perspective's,
    the turning words and the argument's words to its P(misstated), and says so in the evidence."""
    turned = turned_primaries()
    results = {name: detector.components[name].score(turned) for name in detector.read}
    plain = detector.combine(turned, results)
    meaning = results[FINDINGS]
    [finding] = [f for f in meaning.details["findings"] if f["finding"] == "misstates"]
    assert finding["misstated"] < SURE and plain.hallucination < SURE  # as shipped: a card, no floor
    assert plain.details["evidence"]["hallucination"].get("floor") is None

    sure = {**finding, "misstated": 0.99}
    findings = [sure if f is finding else f for f in meaning.details["findings"]]
    raised = detector.combine(turned, {**results, FINDINGS: replace(meaning, details={"findings": findings})})
    assert raised.hallucination == raised.coverage == raised.per_perspective["pro"] == 0.99
    assert raised.per_perspective["con"] == plain.per_perspective["con"]
    assert raised.details["evidence"]["coverage"]["floor"] == {"misstated": 0.99, "argument": [0, 0], "by": FINDINGS}
    top = max(raised.response_words, key=lambda w: w.score)
    assert turned.response[top.start : top.end] == "decrease"
    assert {w.score for w in raised.argument_word_scores(0, 0)} == {0.99}
    assert raised.argument_word_scores(1, 0) == plain.argument_word_scores(1, 0)
    # bench/floor.py reads the P(error) before the floor back from the evidence, under any floor
    assert [head_p(raised, t) for t in ERROR_TYPES] == pytest.approx([plain.hallucination, plain.coverage])


def test_the_meaning_checks_doubt_joins_p_coverage_error_and_is_explained(detector):
    """The meaning check's coverage score (its doubt that an argument is stated) joins the coverage
    head's P(error) by noisy-or at `DOUBT`, per perspective too; the evidence says so, and an
    argument it finds stated leaves the head's P(error) nearly as it was."""
    dropped = make_example(
        "Supporters say open primaries increase voter engagement.",
        ("pro", ["Open primaries increase voter engagement."]),
        ("con", ["Open primaries weaken party loyalty."]),
    )
    results = {name: detector.components[name].score(dropped) for name in detector.read}
    meaning = results[DOUBTED_BY]
    assert meaning.per_perspective["con"] > 0.5 > meaning.per_perspective["pro"]
    # Without the argument head (heads given, none beside them), the doubt alone joins.
    result = StackedDetector(components=detector.components, models=detector.models).combine(dropped, results)
    assert "argument" not in result.details["evidence"]["coverage"]
    head = p_error(detector.models["coverage"], feature_row(results))
    assert result.coverage == pytest.approx(1 - (1 - head) * (1 - DOUBT * meaning.coverage))
    assert result.coverage > head
    con = p_error(detector.models["coverage"], feature_row(results, "con"))
    assert result.per_perspective["con"] - con > result.per_perspective["pro"] - p_error(
        detector.models["coverage"], feature_row(results, "pro")
    )
    doubt = result.details["evidence"]["coverage"]["doubt"]
    assert doubt == {"by": DOUBTED_BY, "doubt": meaning.coverage, "weight": DOUBT}
    assert "doubt" not in result.details["evidence"]["hallucination"]
    without = detector.combine(dropped, {k: v for k, v in results.items() if k != DOUBTED_BY}, {DOUBTED_BY: "refused"})
    assert "doubt" not in without.details["evidence"]["coverage"]


def test_the_meaning_checks_misstatement_joins_p_hallucination_and_is_explained(detector):
    """The meaning check's hallucination score (its misstatement) joins the hallucination head's
    P(error) by noisy-or at `MISSTATED_WEIGHT`: the turned answer's P(hallucination) rises over the
    head's own by that join, the evidence says so, and without the check the head's stands."""
    turned = turned_primaries()
    results = {name: detector.components[name].score(turned) for name in detector.read}
    meaning = results[DOUBTED_BY]
    assert meaning.hallucination > 0.5
    result = detector.combine(turned, results)
    head = p_error(detector.models["hallucination"], feature_row(results))
    assert result.hallucination == pytest.approx(1 - (1 - head) * (1 - MISSTATED_WEIGHT * meaning.hallucination))
    assert result.hallucination > head
    misstated = result.details["evidence"]["hallucination"]["misstated"]
    assert misstated == {"by": DOUBTED_BY, "misstated": meaning.hallucination, "weight": MISSTATED_WEIGHT}
    assert "misstated" not in result.details["evidence"]["coverage"]
    assert unfloored(result.details["evidence"]["hallucination"]) == pytest.approx(result.hallucination)
    without = detector.combine(turned, {k: v for k, v in results.items() if k != DOUBTED_BY}, {DOUBTED_BY: "refused"})
    assert without.hallucination == head
    assert "misstated" not in without.details["evidence"]["hallucination"]


def test_the_likeliest_dropped_argument_joins_p_coverage_error_and_is_named(detector):
    """The shipped argument head reads the dropped con argument as the likeliest dropped; its
    P(dropped) joins P(coverage error) after the doubt at `ARGUMENT_WEIGHT`, and a perspective's
    P(coverage error) joins its own likeliest dropped argument's."""
    dropped = make_example(
        "Supporters say open primaries increase voter engagement and give independents a voice.",
        ("pro", ["Open primaries increase voter engagement.", "Open primaries give independents a voice."]),
        ("con", ["Open primaries weaken party loyalty."]),
    )
    results = {name: detector.components[name].score(dropped) for name in detector.read}
    result = detector.combine(dropped, results)
    evidence = result.details["evidence"]["coverage"]
    read = argument_head.dropped(detector.arguments, dropped, results)
    assert max(read, key=read.get) == (1, 0) and read[(1, 0)] > 0.5 > max(read[(0, 0)], read[(0, 1)])
    assert evidence["argument"] == {
        "argument": [1, 0],
        "name": "con argument 1",
        "dropped": read[(1, 0)],
        "weight": ARGUMENT_WEIGHT,
    }
    doubted = joined(p_error(detector.models["coverage"], feature_row(results)), results[DOUBTED_BY].coverage, DOUBT)
    assert (
        result.coverage
        == pytest.approx(joined(doubted, read[(1, 0)], ARGUMENT_WEIGHT))
        == pytest.approx(unfloored(evidence))
    )
    pro = joined(
        p_error(detector.models["coverage"], feature_row(results, "pro")),
        results[DOUBTED_BY].per_perspective["pro"],
        DOUBT,
    )
    assert result.per_perspective["pro"] == pytest.approx(joined(pro, max(read[(0, 0)], read[(0, 1)]), ARGUMENT_WEIGHT))
    assert "argument" not in result.details["evidence"]["hallucination"]


def _a_few_of_each(examples, count):
    """The first `count` error-free, hallucination-only and coverage-only examples."""
    kinds = {}
    for example in examples:
        kinds.setdefault((example.labels.hallucination, example.labels.coverage_error), []).append(example)
    return [e for key in sorted(kinds) for e in kinds[key][:count]]


def test_its_command_scores_each_example_once_and_a_failure_names_the_example():
    scored = make_example("A.", ("pro", ["A."]), example_id="a", extra=scripted(scripted=(0.1, 0.2)))
    unscored = make_example("B.", ("pro", ["B."]), example_id="b")
    asked = []

    def score(examples, chosen):
        asked.append([e.id for e in examples])
        return all_results(examples, chosen)

    once = scored_once(score)
    assert once([scored], [ScriptedDetector()]) == once([scored], [ScriptedDetector()])
    assert asked == [["a"], []]  # the second error type's fit reads the first one's results
    with pytest.raises(DetectorError, match="example b could not be scored"):
        list(once([scored, unscored], [ScriptedDetector()]))


def test_the_trainer_refuses_a_request_without_a_way_to_score_its_components():
    request = TrainingRequest(task="coverage", train_set=[], dev_set=[], dev_is_held_out=True, log=lambda _: None)
    with pytest.raises(TrainingInputError, match="score_examples"):
        training.StackedTrainer().train(request)


def test_a_named_feature_set_is_the_only_one_fitted_and_an_unknown_one_is_refused_before_scoring():
    from explorer.data.example import Labels
    from explorer.detectors.base import DetectorResult
    from explorer.detectors.stacked import COMPONENTS

    rng = np.random.default_rng(0)
    examples = [
        make_example(f"R{i}.", ("pro", ["A."]), example_id=f"e{i}").replace(labels=Labels(False, i % 2 == 1))
        for i in range(12)
    ]

    def score(chosen_examples, _):
        return [
            {
                name: DetectorResult(name, rng.random(), rng.random() + e.labels.coverage_error, {}, (), (), {})
                for name in COMPONENTS
            }
            for e in chosen_examples
        ]

    def train_on(features: str):
        components = {n: ScriptedDetector() for n in COMPONENTS}
        return training.train(
            "coverage", examples, {"dev": examples}, components, score, features=features, log=lambda _: None
        )

    model, record = train_on("all")
    assert model.features == FEATURES and record["kept_features"] == "all"
    assert {set_name for set_name, _, _ in record["dev_roc_auc"]} == {"all"}

    def never(*_):
        raise AssertionError("scored before the feature set was checked")

    with pytest.raises(TrainingInputError, match="no coverage feature set 'everything'"):
        training.train("coverage", examples, {"dev": examples}, {}, never, features="everything", log=lambda _: None)
    with pytest.raises(TrainingInputError, match="no coverage feature set 'tagger \\+ tagger'"):
        training.train(
            "coverage", examples, {"dev": examples}, {}, never, features="tagger + tagger", log=lambda _: None
        )

    four = "rouge + semantic + tagger + meaning"  # joined components: a set the search does not try
    model, record = train_on(four)
    assert four not in training.feature_sets("coverage") and record["kept_features"] == four
    assert set(model.features) <= {f"{name} coverage" for name in four.split(" + ")}


@pytest.mark.slow
def test_trains_through_the_trainer_protocol_and_records_its_data(tmp_path):
    # Two training examples of each kind and one for dev: each is scored by every component (about
    # two seconds apiece on one thread), and three and two of each took 8 s more.
    samples = parse_jsonl(SAMPLE_DIR / "synthetic.jsonl").examples
    train_set = _a_few_of_each(training_data.training_examples(samples, ["train"]), 2)
    dev_set = _a_few_of_each(training_data.training_examples(samples, ["dev"]), 1)
    request = TrainingRequest(
        task="coverage",
        train_set=train_set,
        dev_set=dev_set,
        dev_is_held_out=True,
        log=lambda _: None,
        score_examples=all_results,
    )
    trainer = training.StackedTrainer()
    model, record = trainer.train(request)
    (tmp_path / argument_head.FILE).write_text("{}")  # an argument head fitted beside another coverage head
    trainer.save(model, record, tmp_path)
    assert not (tmp_path / argument_head.FILE).exists()
    written = json.loads((tmp_path / TRAINING_FILE).read_text())
    fitted = training.slice_examples(train_set, "coverage")
    assert written["train_examples"] == len(fitted) < len(train_set)  # no hallucination-only example
    assert written["train_data_sha256"] == training_data.data_digest(fitted, "coverage")
    assert written["weights_sha256"] == hashlib.sha256((tmp_path / MODEL_FILE).read_bytes()).hexdigest()
    assert load(tmp_path) == model
    assert len(written["dev_roc_auc"]) == len(training.feature_sets("coverage")) * len(training.REGULARIZATION)


@pytest.mark.parametrize("error_type", ERROR_TYPES)
def test_shipped_head_was_trained_on_todays_perspectrum_build(
    error_type, perspectrum_file, written_file, written_second_file
):
    """The record's data hash is that of the set its recorded command assembles from
    `explorer build-data` (seed 0) and the team-written corpora of both recipes: the head's half of
    their claims, the examples of the error type's slices."""
    record = json.loads((SHIPPED / error_type / TRAINING_FILE).read_text(encoding="utf-8"))
    recorded = recorded_train_set(record, perspectrum_file, (written_file, written_second_file), feature_options)
    train_set = training.slice_examples(recorded, error_type)
    assert record["train_data_sha256"] == training_data.data_digest(train_set, error_type)


def test_the_evidence_says_what_each_component_added_and_adds_up_to_the_score(detector):
    example = make_example(
        "Sugar taxes reduce consumption. Soda makers would move their factories abroad.",
        ("pro", ["A sugar tax lowers how much sugar people consume."]),
        ("con", ["Taxes on food hurt poor families most."]),
    )
    result = detector.score(example)
    for error_type in ERROR_TYPES:
        found = result.details["evidence"][error_type]
        pushes = [feature["push"] for feature in found["features"]]
        assert {feature["feature"] for feature in found["features"]} == set(detector.models[error_type].features)
        assert pushes == sorted(pushes, key=lambda push: -abs(push))
        head = 1 / (1 + np.exp(-(sum(pushes) + found["intercept"])))
        assert unfloored(found) == pytest.approx(getattr(result, error_type))  # no sure misstatement here
        assert unfloored(found) == pytest.approx(
            joined(head, found["misstated"]["misstated"], MISSTATED_WEIGHT)
            if error_type == "hallucination"
            else joined(joined(head, found["doubt"]["doubt"], DOUBT), found["argument"]["dropped"], ARGUMENT_WEIGHT)
        )


def test_arguments_too_long_for_the_tagger_are_scored_without_it(detector):
    long_argument = "Sugar taxes reduce consumption in every town we studied. " * 45
    example = make_example(
        "Sugar taxes reduce consumption. Critics say taxes hurt the poor.",
        ("pro", [long_argument]),
        ("con", ["Taxes hurt the poor."]),
    )
    result = detector.score(example)
    left_out = result.details["left_out"]  # the judge reads an argument beside a piece, not the answer: it fits
    assert set(left_out) == {"tagger", "tagger_coverage"} <= set(OPTIONAL)
    assert all("512" in reason for reason in left_out.values())
    assert 0 <= result.hallucination <= 1 and set(result.per_perspective) == {"pro", "con"}
    assert result.response_words == detector.components["semantic_tuned"].score(example).response_words
    unread = [f for f in result.details["evidence"]["hallucination"]["features"] if f["value"] is None]
    assert unread and {f["feature"].split()[0] for f in unread} <= set(left_out)
    assert len(unread) == sum(name.split()[0] in left_out for name in detector.models["hallucination"].features)
    assert all(f["push"] == 0 for f in unread)
    # A missing feature takes the head's training mean: it moves the logit neither way.
    head = detector.models["hallucination"]
    row = np.arange(len(FEATURES), dtype=float)
    missing = row.copy()
    missing[[FEATURES.index(name) for name in FEATURES if name.split()[0] in left_out]] = np.nan
    filled = row.copy()
    for name, mean in zip(head.features, head.mean):
        if name.split()[0] in left_out:
            filled[FEATURES.index(name)] = mean
    assert p_error(head, missing) == pytest.approx(p_error(head, filled))


def test_a_claim_voiced_by_the_wrong_side_raises_its_words_and_the_hallucination_score(detector):
    from tests.detectors.test_voice import CON, CONFUSED, FAITHFUL, PRO, QUERY

    confused = make_example(CONFUSED, PRO, CON, **QUERY)
    result = detector.score(confused)
    clean = detector.score(make_example(FAITHFUL, PRO, CON, **QUERY))
    voice = detector.components["voice"].score(confused)
    tagger = detector.components[RESPONSE_WORDS].score(confused)
    assert result.hallucination > clean.hallucination
    start, end = CONFUSED.index("They also suggest"), CONFUSED.index("On the other hand")
    inside = [w.score for w in result.response_words if start <= w.start < end]
    assert inside and min(inside) >= voice.hallucination > 0
    voiced = {(w.start, w.end): w.score for w in voice.response_words}
    assert [(w.start, w.end) for w in result.response_words] == [(w.start, w.end) for w in tagger.response_words]
    for word, tagged in zip(result.response_words, tagger.response_words):
        assert word.score == max(tagged.score, voiced.get((word.start, word.end), 0.0))


def test_a_feature_constant_on_the_training_rows_is_left_out_of_the_head():
    rng = np.random.default_rng(0)
    rows = rng.random((40, len(FEATURES)))
    rows[:, FEATURES.index("matching hallucination")] = 0.0
    gold = (rows[:, FEATURES.index("matching coverage")] > 0.5).astype(int)
    head = training.fit("coverage", ("matching hallucination", "matching coverage", "rouge coverage"), rows, gold, 1.0)
    assert head.features == ("matching coverage", "rouge coverage")


def test_a_choice_is_judged_by_each_dev_sets_worst_slice():
    from explorer.data.example import Labels

    def example(i, variant, error):
        labels = Labels(hallucination=error, coverage_error=False, kind="organic", ambiguous=False)
        return make_example("R.", ("pro", ["A."]), example_id=f"{variant}{i}").replace(
            labels=labels, extra={"variant": variant}
        )

    v3 = [example(i, "A", False) for i in range(3)] + [example(i, v, True) for i in range(3) for v in "RN"]
    slices = {"v3": training.selection_slices(v3, "hallucination")}
    assert set(slices["v3"]) == {"variant R", "variant N"}
    scores = {e.id: (0.9 if e.extra["variant"] == "N" else 0.5 if e.extra["variant"] == "R" else 0.1) for e in v3}
    scores["R0"] = 0.0  # one reversal below every faithful answer
    worst, aucs = training.worst_slices(slices, scores)
    assert aucs == {"v3: variant R": pytest.approx(2 / 3), "v3: variant N": 1.0} and worst == pytest.approx(2 / 3)
