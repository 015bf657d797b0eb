"""The salience detector's attribution methods (Captum) on the real SmolLM2-135M, and the cache key."""

import dataclasses

import numpy as np
import pytest
import torch

from explorer.data.samples import load_samples
from explorer.detectors.ops import attribution
from explorer.detectors.salience import SalienceDetector, salience_inputs
from explorer.scoring.cache import ResultCache, result_key
from tests.helpers import make_example

# The response copies the first argument word for word; the second is unrelated to it.
COPIED = make_example(
    "Taxes reduce sugar consumption.",
    ("pro", ["Taxes reduce sugar consumption."]),
    ("con", ["Museums open late on Fridays."]),
    query="Tax soda?",
)


@pytest.fixture(scope="module")
def model():
    return SalienceDetector().language_model


def inputs_for(model, example, **fields) -> attribution.SalienceInputs:
    """Every response position is a target unless `targets` says otherwise."""
    inputs = salience_inputs(example, model, **fields)
    return inputs if "targets" in fields else dataclasses.replace(inputs, targets=range(len(inputs.response_ids)))


@pytest.mark.slow
def test_gradient_norm_is_the_norm_of_captum_saliency_on_the_embeddings(model):
    from captum.attr import Saliency

    inputs = inputs_for(model, COPIED, targets=[1, 3])
    ours = attribution.gradient_norm(inputs).token_map
    ids = torch.tensor([[*inputs.prompt_ids, *inputs.response_ids]])
    embeddings = model.model.get_input_embeddings()(ids).detach()
    prompt_length = len(inputs.prompt_ids)
    for t in inputs.targets:
        visible = prompt_length + t

        def logit(embedded, token=int(ids[0, visible])):
            return model.model(inputs_embeds=embedded, logits_to_keep=1).logits[:, -1, token]

        with torch.enable_grad():
            gradient = Saliency(logit).attribute(embeddings[:, :visible].clone().requires_grad_(True))
        np.testing.assert_allclose(ours[:visible, t], gradient[0].norm(dim=-1).numpy(), atol=1e-4)
    assert not ours[:, [0, 2]].any()  # columns not asked for stay empty


@pytest.mark.slow
def test_integrated_gradients_attributions_add_up_to_the_score_change(model):
    inputs = inputs_for(model, COPIED, targets=[2])
    output = attribution.integrated_gradients(inputs, steps=64)
    assert output.token_map.shape == (len(inputs.prompt_ids) + len(inputs.response_ids), len(inputs.response_ids))
    convergence = output.details["convergence"]
    assert convergence["steps"] == 64
    assert convergence["max_relative_delta"] < 0.05  # completeness: the sum is the score's change
    # the baseline blanks the arguments alone: every other token is the same on both ends
    argument_tokens = {i for group in attribution._argument_token_groups(inputs) for i in group}
    assert output.token_map[:, 2].any() and not np.delete(output.token_map[:, 2], sorted(argument_tokens)).any()


@pytest.mark.slow
def test_ablating_the_copied_argument_costs_more_than_ablating_an_unrelated_one(model):
    inputs = inputs_for(model, COPIED, argument_labels=["pro 1", "con 1"])
    output = attribution.argument_ablation(inputs)
    matrix = output.details["argument_sentence"]
    assert matrix["y"] == ["pro 1", "con 1"] and matrix["sentences"] == [[0, len(COPIED.response)]]
    (copied,), (unrelated,) = matrix["z"]
    assert copied > unrelated + 1.0  # log-probability of the sentence
    token_map = output.token_map
    assert token_map.shape == (len(inputs.prompt_ids) + len(inputs.response_ids), len(inputs.response_ids))
    argument_rows = np.flatnonzero(token_map.any(axis=1))
    assert argument_rows.max() < len(inputs.prompt_ids)  # only prompt rows, each argument's tokens
    result = SalienceDetector(attribution="argument_ablation").score(COPIED)
    assert result.details["argument_sentence"]["z"] == matrix["z"]
    assert result.info["config"]["target"] == "log_prob"


@pytest.mark.slow
def test_argument_shapley_values_add_up_to_the_log_probability_all_arguments_give(model):
    inputs = inputs_for(model, COPIED)
    output = attribution.argument_shapley(inputs, samples=2)
    shares = np.asarray(output.details["argument_sentence"]["z"])
    assert shares.shape == (2, 1)

    def log_probability(prompt_text):
        prompt_ids = model.tokenizer(prompt_text, add_special_tokens=False)["input_ids"]
        ids = torch.tensor([[*prompt_ids, *inputs.response_ids]])
        with torch.no_grad():
            logits = model.model(input_ids=ids).logits[0, len(prompt_ids) - 1 : -1].log_softmax(-1)
        return float(logits.gather(-1, ids[0, len(prompt_ids) :, None]).sum())

    fill, values = attribution.argument_template(inputs.prompt)
    assert fill(*values) == inputs.prompt.text
    efficiency = log_probability(fill(*values)) - log_probability(fill(*["" for _ in values]))
    assert shares.sum() == pytest.approx(efficiency, abs=0.05)  # the Shapley values' efficiency


def test_the_attribution_its_settings_and_its_version_are_part_of_the_cache_key(monkeypatch):
    example = COPIED
    keys = {result_key(SalienceDetector(attribution=name), example) for name in attribution.ATTRIBUTIONS} | {
        result_key(SalienceDetector(attribution="integrated_gradients", steps=32), example)
    }
    assert len(keys) == len(attribution.ATTRIBUTIONS) + 1
    before = result_key(SalienceDetector(attribution="integrated_gradients"), example)
    bumped = dataclasses.replace(attribution.ATTRIBUTIONS["integrated_gradients"], version="2")
    monkeypatch.setitem(attribution.ATTRIBUTIONS, "integrated_gradients", bumped)
    assert result_key(SalienceDetector(attribution="integrated_gradients"), example) != before


def test_the_default_attribution_keeps_the_key_of_the_shipped_results(tmp_path):
    sample = load_samples()[0]
    assert ResultCache(tmp_path).get(SalienceDetector(), sample) is not None


def test_unknown_attributions_and_settings_are_refused_with_the_valid_ones():
    with pytest.raises(ValueError, match="choose from grad_x_input, grad_norm, integrated_gradients"):
        SalienceDetector(attribution="lime")
    with pytest.raises(ValueError, match=r"grad_x_input has no setting steps \(its settings: none\)"):
        SalienceDetector(steps=8)
    with pytest.raises(ValueError, match="target of argument_ablation must be one of log_prob"):
        SalienceDetector(attribution="argument_ablation", target="logit")
    with pytest.raises(ValueError, match="steps must be a whole number of at least 1"):
        SalienceDetector(attribution="integrated_gradients", steps=0)
