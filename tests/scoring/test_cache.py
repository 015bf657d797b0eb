import json

from explorer.detectors.base import DetectorResult
from explorer.detectors.rouge import RougeDetector
from explorer.scoring.cache import ResultCache, result_key, write_seed_bundle
from explorer.scoring.runner import score_example


class CountingRouge(RougeDetector):
    """ROUGE made cacheable and counting its calls, to observe the cache."""

    name = "counting-rouge"
    cache_results = True

    def __init__(self, variant: str = "a"):
        super().__init__()
        self.calls = 0
        self.variant = variant

    def config(self):
        return {"variant": self.variant}

    def score(self, example, progress=None):
        self.calls += 1
        return super().score(example)


def test_a_cached_result_is_returned_without_recomputing(tmp_path, sugar_example):
    cache = ResultCache(tmp_path, seeds=[])
    detector = CountingRouge()
    first = score_example(sugar_example, [detector], cache)
    second = score_example(sugar_example, [detector], cache)
    assert detector.calls == 1
    assert first.computed == {"counting-rouge"} and second.computed == set()
    assert second.results["counting-rouge"] == first.results["counting-rouge"]


def test_changing_the_example_or_the_config_misses(tmp_path, sugar_example):
    cache = ResultCache(tmp_path, seeds=[])
    detector = CountingRouge()
    score_example(sugar_example, [detector], cache)
    assert cache.get(detector, sugar_example.replace(response="Different.")) is None
    assert cache.get(CountingRouge(variant="b"), sugar_example) is None
    assert cache.get(detector, sugar_example.replace(topic="labels and topic do not matter")) is not None


def test_a_corrupt_entry_is_dropped_and_recomputed(tmp_path, sugar_example):
    cache = ResultCache(tmp_path, seeds=[])
    detector = CountingRouge()
    score_example(sugar_example, [detector], cache)
    (entry,) = (tmp_path / "results").rglob("*.json")
    entry.write_text("{truncated", encoding="utf-8")
    assert cache.get(detector, sugar_example) is None
    score_example(sugar_example, [detector], cache)
    assert detector.calls == 2


def test_seed_bundles_serve_shipped_results(tmp_path, sugar_example):
    detector = CountingRouge()
    result = detector.score(sugar_example)
    bundle = tmp_path / "seed.jsonl"
    assert write_seed_bundle([(detector, sugar_example, result)], bundle) == 1
    assert json.loads(bundle.read_text())["key"] == result_key(detector, sugar_example)
    cache = ResultCache(tmp_path / "empty", seeds=[bundle])
    assert cache.get(detector, sugar_example) == result


def test_results_survive_serialization(sugar_example):
    result = RougeDetector().score(sugar_example)
    assert DetectorResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result
