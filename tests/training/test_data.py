"""The Perspectrum training sets of the foreign-trained detectors (`explorer.training.data`)."""

from __future__ import annotations

from explorer.data.samples import SAMPLE_DIR, load_samples
from explorer.training import data


def _train_set(path, *options):
    return data.foreign_training("", path.parent, ["--data", str(path), *options]).train_set


def test_the_component_and_head_halves_split_perspectrum_train_by_claim(perspectrum_file):
    everything = _train_set(perspectrum_file, "--no-sample")
    components = _train_set(perspectrum_file, "--part", "components", "--no-sample")
    head = _train_set(perspectrum_file, "--part", "head")
    assert sorted(e.id for e in components + head) == sorted(e.id for e in everything)
    assert not {e.topic for e in components} & {e.topic for e in head}
    assert 0.4 < len(head) / len(everything) < 0.6


def test_the_sample_train_split_goes_with_the_components_never_the_head(perspectrum_file):
    sample_ids = {e.id for e in data.training_examples(load_samples(SAMPLE_DIR / "synthetic.jsonl"), ["train"])}
    components = {e.id for e in _train_set(perspectrum_file, "--part", "components")}
    head = {e.id for e in _train_set(perspectrum_file, "--part", "head")}
    assert sample_ids <= components and not sample_ids & head


def test_reordered_arguments_keep_the_labels_true():
    from explorer.data.example import Labels, UncoveredArgument
    from tests.helpers import make_example

    labels = Labels(True, True, hallucinated_spans=((0, 4),), uncovered=(UncoveredArgument(0, 2, ((0, 3),)),))
    sides = ("pro", ["A a", "B b", "C c"]), ("con", ["D d", "E e"])
    example = make_example("Text of the answer.", *sides, labels=labels)
    variants = [data.reordered(example, seed) for seed in range(6)]
    assert data.reordered(example, 0) == variants[0]  # seeded
    assert any(v.perspectives != example.perspectives for v in variants)
    for variant in variants:
        assert [sorted(p.arguments) for p in variant.perspectives] == [sorted(arguments) for _, arguments in sides]
        [dropped] = variant.labels.uncovered
        assert variant.perspectives[0].arguments[dropped.argument] == "C c" and dropped.spans == ((0, 3),)
        assert variant.response == example.response and variant.labels.hallucinated_spans == ((0, 4),)


def test_a_share_of_the_examples_is_reordered_in_place():
    from tests.helpers import make_example

    examples = [make_example(f"Answer {i}.", ("pro", ["A a", "B b", "C c"]), example_id=f"e{i}") for i in range(200)]
    half = data.partly_reordered(examples, 0.5, seed=0)
    assert [e.id for e in half] == [e.id for e in examples]  # in place: same size, same order
    assert half == data.partly_reordered(examples, 0.5, seed=0)  # seeded
    moved = sum(h.perspectives != e.perspectives for h, e in zip(half, examples, strict=True))
    assert 60 < moved < 100  # half drawn, and a shuffle keeps the given order 1 time in 6
    assert data.partly_reordered(examples, 0.0, seed=0) == examples


def test_the_reorder_share_parses_as_a_number():
    from explorer.training import tagger
    from explorer.training.checkpoints import parsed_settings

    parser = tagger.build_parser()
    given = ["--data", "in.jsonl", "--work", "w", "--out", "o"]
    assert parsed_settings(parser.parse_args(given), tagger.TrainingSettings).reorder == 0.0
    assert parsed_settings(parser.parse_args([*given, "--reorder", "0.5"]), tagger.TrainingSettings).reorder == 0.5
