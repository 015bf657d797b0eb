"""Every learned detector in the registry names a trainer that `explorer train` can use."""

import inspect

import pytest

from explorer import detectors
from explorer.training import Trainer


def test_the_learned_detectors_are_the_ones_with_trainers():
    assert detectors.trainable() == [
        "classifier",
        "classifier_prompt",
        "alignment_classifier",
        "cross_encoder",
        "semantic_tuned",
        "invention",
        "meaning",
        "alignment_classifier_tuned",
        "cross_encoder_tuned",
        "tagger",
        "tagger_coverage",
        "stacked",
    ]
    assert detectors.trainable() == [name for name in detectors.names() if detectors.spec(name).weights]


@pytest.mark.parametrize("name", detectors.trainable())
def test_each_trainer_follows_the_protocol(name):
    trainer = detectors.trainer(name)
    for detector_name in ("train", "save"):
        assert (
            list(inspect.signature(getattr(trainer, detector_name)).parameters)
            == list(inspect.signature(getattr(Trainer, detector_name)).parameters)[1:]
        )
    assert trainer.no_step_options is None or "dev" in trainer.no_step_options
    assert (trainer.settings is None) == (trainer.no_step_options is not None)
    assert isinstance(trainer.reads_organic_errors, bool)


def test_a_detector_without_a_trainer_is_refused_with_the_trainable_ones():
    with pytest.raises(
        detectors.UnknownDetectorError,
        match="available: classifier, classifier_prompt, alignment_classifier, cross_encoder",
    ):
        detectors.trainer("rouge")
