"""Salience on the real packaged SmolLM2-135M: exactness, aggregation, cache, long inputs."""

import numpy as np
import pytest
import torch

from explorer.detectors import DetectorError
from explorer.detectors.ops import aggregate
from explorer.detectors.ops.salience_map import token_salience, used_targets
from explorer.detectors.salience import SalienceDetector, token_offsets
from explorer.scoring.cache import ResultCache
from explorer.scoring.runner import score_example
from explorer.text import prompts
from tests.helpers import make_example

pytestmark = pytest.mark.slow

TINY = make_example(
    "Taxes cut consumption, but critics say they hurt poor families.",
    ("pro", ["Taxes cut consumption."]),
    ("con", ["Taxes hurt poor families."]),
    query="Tax soda?",
)
ATTRIBUTIONS = ("grad_x_input", "grad_norm")


@pytest.fixture(scope="module")
def detector():
    return SalienceDetector()


@pytest.fixture(scope="module")
def model(detector):
    return detector.language_model


@pytest.fixture(scope="module")
def tiny_ids(model):
    prompt = prompts.npov_prompt(TINY, model.tokenizer)
    prompt_ids, _ = token_offsets(model.tokenizer, prompt.text)
    response_ids, _ = token_offsets(model.tokenizer, TINY.response)
    return prompt_ids, response_ids


@pytest.fixture(scope="module")
def full_map(model, tiny_ids) -> np.ndarray:
    """The default attribution over every response token, computed once for the tests that read it."""
    return token_salience(model, *tiny_ids)


@pytest.fixture(scope="module")
def direct_maps(model, tiny_ids) -> dict[str, np.ndarray]:
    """The definition of each attribution, computed the plain way: one full forward, one backward per
    target logit. Both attributions read the same gradients, so the backward passes run once for all
    four cases that compare against them."""
    prompt_ids, response_ids = tiny_ids
    ids = torch.tensor([prompt_ids + response_ids])
    inputs = model.model.get_input_embeddings()(ids).detach().requires_grad_(True)
    expected = {m: np.zeros((len(prompt_ids) + len(response_ids), len(response_ids)), np.float32) for m in ATTRIBUTIONS}
    with torch.enable_grad():
        logits = model.model(inputs_embeds=inputs).logits[0]
        for t, token in enumerate(response_ids):
            position = len(prompt_ids) + t
            (gradient,) = torch.autograd.grad(logits[position - 1, token], inputs, retain_graph=True)
            expected["grad_x_input"][:position, t] = (gradient[0] * inputs[0]).sum(-1)[:position].detach().numpy()
            expected["grad_norm"][:position, t] = gradient[0].norm(dim=-1)[:position].detach().numpy()
    return expected


@pytest.mark.parametrize("batched", [False, True], ids=["shared-forward", "batched-copies"])
@pytest.mark.parametrize("attribution", ATTRIBUTIONS)
def test_token_map_matches_a_direct_autograd_computation(model, tiny_ids, direct_maps, attribution, batched):
    prompt_ids, response_ids = tiny_ids
    fast = token_salience(model, prompt_ids, response_ids, attribution=attribution, chunk=5, batched=batched)
    assert fast.shape == (len(prompt_ids) + len(response_ids), len(response_ids))
    np.testing.assert_allclose(fast, direct_maps[attribution], atol=1e-4)
    # a response token attributes nothing to its own target or to earlier targets
    assert not np.tril(fast[len(prompt_ids) :]).any()


def test_log_prob_target_matches_captum(model, tiny_ids):
    from captum.attr import LayerGradientXActivation, LLMGradientAttribution, TextTokenInput

    prompt_ids, response_ids = tiny_ids
    response_ids = response_ids[:4]
    captum = LLMGradientAttribution(
        LayerGradientXActivation(model.model, model.model.get_input_embeddings()), model.tokenizer
    )
    text = prompts.npov_prompt(TINY, model.tokenizer).text
    expected = captum.attribute(TextTokenInput(text, model.tokenizer), target=torch.tensor(response_ids)).token_attr
    ours = token_salience(model, prompt_ids, response_ids, target="log_prob")
    np.testing.assert_allclose(ours[: len(prompt_ids)].T, expected.numpy(), atol=1e-4)


def test_only_the_kept_targets_are_computed_and_the_scores_are_those_of_all_targets(detector, model, full_map):
    prompt = prompts.npov_prompt(TINY, model.tokenizer)
    prompt_ids, prompt_spans = token_offsets(model.tokenizer, prompt.text)
    response_ids, response_spans = token_offsets(model.tokenizer, TINY.response)
    words = detector.segmenter.content_words(TINY.response)
    kept = used_targets(response_spans, [(w.start, w.end) for w in words])
    assert 0 < len(kept) < len(response_ids)  # "but", "they", the comma and the period are dropped
    steps = []
    fast = token_salience(model, prompt_ids, response_ids, targets=kept, chunk=4, progress=lambda *a: steps.append(a))
    full = full_map
    assert steps[-1] == (len(kept), len(kept))  # progress counts the kept targets
    np.testing.assert_array_equal(fast[:, kept], full[:, kept])  # the same forward passes
    assert not np.delete(fast, kept, axis=1).any()
    word_map, full_word_map = (
        detector.word_map(TINY, prompt, prompt_spans, response_spans, m)[2] for m in (fast, full)
    )
    assert np.abs(word_map - full_word_map).max() < 1e-6
    ours, everything = (detector.result_from_map(TINY, prompt, prompt_spans, response_spans, m) for m in (fast, full))
    assert (ours.hallucination, ours.coverage) == pytest.approx(
        (everything.hallucination, everything.coverage), abs=1e-6
    )
    assert ours.per_perspective == pytest.approx(everything.per_perspective, abs=1e-6)
    assert [w.score for w in ours.response_words] == pytest.approx(
        [w.score for w in everything.response_words], abs=1e-6
    )
    assert [w.score for w in ours.argument_words] == pytest.approx(
        [w.score for w in everything.argument_words], abs=1e-6
    )


def test_columns_sum_to_one_before_word_merging(full_map):
    normalized = aggregate.normalize_columns(np.square(full_map, dtype=np.float64))
    np.testing.assert_allclose(normalized.sum(axis=0), 1.0)


def test_multi_token_words_and_punctuation_merge_to_the_right_words(model):
    text = "Antidisestablishmentarianism, surely."
    _, spans = token_offsets(model.tokenizer, text)
    long_word, comma = (0, len("Antidisestablishmentarianism")), text.index(",")
    groups = aggregate.token_groups(spans, [long_word, (comma + 2, len(text) - 1)])
    assert len(groups[0]) > 1  # the tokenizer splits it, and every piece joins the word
    assert "".join(text[spans[i][0] : spans[i][1]] for i in groups[0]).strip() == text[slice(*long_word)]
    assert all(text[spans[i][0] : spans[i][1]].strip() != "," for group in groups for i in group)
    token_map = np.arange(len(spans) * 2, dtype=float).reshape(len(spans), 2)
    merged = aggregate.merge_to_words(token_map, groups, [[0], [1]])
    assert merged[0].tolist() == token_map[groups[0]].max(axis=0).tolist()


def test_result_scores_follow_the_paper_from_the_word_map(detector):
    result = detector.score(TINY)
    word_map = np.asarray(result.details["heatmap"]["z"])
    assert word_map.shape == (len(result.argument_words), len(result.response_words))
    attribution = word_map.max(axis=0)
    assert result.hallucination == pytest.approx(1 - np.exp(np.log(attribution).mean()), abs=1e-3)
    assert [w.score for w in result.response_words] == pytest.approx(1 - attribution, abs=1e-3)
    pro_words = [i for i, w in enumerate(result.argument_words) if w.perspective == 0]
    pro_gmean = np.exp(np.log(word_map[pro_words].max(axis=1)).mean())
    assert result.per_perspective["pro"] == pytest.approx(1 - pro_gmean, abs=1e-3)
    assert result.coverage == max(result.per_perspective.values())


def test_cache_returns_the_same_result_without_recomputing(detector, tmp_path):
    cache = ResultCache(tmp_path, seeds=[])
    first = score_example(TINY, [detector], cache)
    again = score_example(TINY, [detector], cache)
    assert first.computed == {"salience"} and again.computed == set()
    assert again.results["salience"] == first.results["salience"]


def test_too_long_input_is_refused_with_the_token_counts(detector):
    long_example = TINY.replace(response="Taxes cut consumption. " * 3000)
    with pytest.raises(DetectorError, match=r"too long for the model: prompt \d+ \+ response \d+ = \d+ tokens"):
        detector.score(long_example)
