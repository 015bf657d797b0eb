"""The scores shipped for the bundled sample (`explorer/resources/samples/scores/`, written by
`sample_data/precompute.py`) for the detectors the dataset page scores by default in the
background: they cover every example under today's identities, they are what the detectors
compute now, and they are never served once a detector, or a detector it is made of, changes."""

import functools
import math

import pytest

from explorer import detectors
from explorer.config import SAMPLE_EXAMPLES, SHIPPED_SCORES
from explorer.data.jsonl import parse_jsonl
from explorer.detectors.semantic import SemanticDetector
from explorer.detectors.stacked import StackedDetector
from explorer.scoring.cache import ResultCache
from explorer.scoring.runner import score_example
from explorer.ui.state import DEFAULT_DETECTORS

# What the page waits for on a first visit: the instant detectors are computed while it draws.
WAITED_FOR = [m for m in DEFAULT_DETECTORS if detectors.spec(m).background_for_many()]
PRECOMPUTE = "OMP_NUM_THREADS=1 python sample_data/precompute.py --detectors " + ",".join(WAITED_FOR)
# Loading the stacked detector's five components takes seconds: once per module.
made = functools.cache(detectors.create)


@pytest.fixture(scope="module")
def sample():
    return parse_jsonl(SAMPLE_EXAMPLES).examples


@pytest.fixture(scope="module")
def stacked():
    return made("stacked")


def shipped(tmp_path, detector_name: str) -> ResultCache:
    """A cache holding nothing but `detector_name`'s shipped bundle for the sample."""
    bundle = SHIPPED_SCORES / f"{detector_name}.jsonl.gz"
    assert bundle.is_file(), f"no shipped scores of {detector_name} for the sample: run {PRECOMPUTE}"
    return ResultCache(tmp_path, seeds=[bundle])


def numbers(value) -> list:
    """The result's numbers and strings in order, to compare within float tolerance."""
    if isinstance(value, dict):
        return [x for key in sorted(value) for x in [key, *numbers(value[key])]]
    if isinstance(value, (list, tuple)):
        return [x for item in value for x in numbers(item)]
    return [value]


@pytest.mark.parametrize("detector_name", WAITED_FOR)
def test_the_page_s_default_detectors_ship_a_score_for_every_sample_example(tmp_path, sample, detector_name):
    detector = made(detector_name)
    cache = shipped(tmp_path, detector_name)
    stale = [e.id for e in sample if cache.get(detector, e) is None]
    assert not stale, f"{len(stale)} sample examples lack a shipped {detector_name} score (stale?): run {PRECOMPUTE}"
    assert (SHIPPED_SCORES / f"{detector_name}.jsonl.gz").stat().st_size < 1 << 20  # the wheel carries it


def test_the_shipped_scores_are_what_the_detector_computes_now(tmp_path, sample, stacked):
    cache = shipped(tmp_path, "stacked")
    for example in (sample[0], next(e for e in sample if not e.labels.is_empty())):
        given, computed = cache.get(stacked, example).to_dict(), stacked.score(example).to_dict()
        for a, b in zip(numbers(given), numbers(computed), strict=True):
            assert a == b or (isinstance(a, float) and math.isclose(a, b, abs_tol=1e-5)), example.id


def test_a_new_version_is_computed_again(tmp_path, sample, stacked):
    cache = shipped(tmp_path, "stacked")
    newer = StackedDetector(components=stacked.components, models=stacked.models, arguments=stacked.arguments)
    newer.version = f"{stacked.version}-changed"
    assert cache.get(stacked, sample[0]) is not None
    assert score_example(sample[0], [newer], cache).computed == {"stacked"}


def test_a_part_with_other_settings_is_computed_again(tmp_path, sample, stacked):
    cache = shipped(tmp_path, "stacked")
    semantic = stacked.components["semantic"]
    components = {**stacked.components, "semantic": SemanticDetector(encoder=semantic.encoder, argument_pool="mean")}
    changed = StackedDetector(components=components, models=stacked.models, arguments=stacked.arguments)
    # The stacked detector's own info names its parts' versions and models, not their settings.
    assert changed.info() == stacked.info()
    assert score_example(sample[0], [changed], cache).computed == {"stacked"}
