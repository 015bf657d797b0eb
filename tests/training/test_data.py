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
