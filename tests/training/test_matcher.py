"""The shipped argument matcher: weights match their training record; paraphrases beat other arguments."""

import hashlib
import json
import random

import numpy as np
import pytest

from explorer.models import matcher as matcher_model
from explorer.models.trained import ADAPTER_FILE, MATCHER, TRAINING_FILE
from explorer.training import matcher as matcher_training

RECORD = json.loads((MATCHER.shipped / TRAINING_FILE).read_text(encoding="utf-8"))

# Written for this test (no third-party text): (argument, a paraphrase of it, another argument on the same claim).
CASES = [
    (
        "School uniforms reduce bullying because nobody can be mocked for wearing cheap clothes.",
        "When every pupil dresses the same, children are teased less about what they wear.",
        "Buying a full set of uniform every year is expensive for families.",
    ),
    (
        "A sugar tax makes sweet drinks dearer, so people buy fewer of them.",
        "Raising the price of fizzy drinks through tax cuts how much of them shoppers purchase.",
        "Such taxes take a larger share of the income of poor households.",
    ),
    (
        "Nuclear plants produce almost no carbon dioxide while generating electricity.",
        "Power from reactors comes with very low greenhouse gas emissions.",
        "Storing radioactive waste safely for thousands of years is an unsolved problem.",
    ),
    (
        "Banning zoos would stop wild animals from being kept in small enclosures.",
        "Without zoos, wild creatures would no longer be confined to cramped cages.",
        "Zoos fund breeding programmes that save endangered species from extinction.",
    ),
]


def test_shipped_weights_match_their_training_record():
    adapter = MATCHER.shipped / ADAPTER_FILE
    assert hashlib.sha256(adapter.read_bytes()).hexdigest() == RECORD["weights_sha256"]
    assert adapter.stat().st_size < 5_000_000  # an adapter, not the 88 MB model
    kept = next(h for h in RECORD["dev"] if h["epoch"] == RECORD["kept_epoch"])
    assert kept["argkp_dev_strict_map"] == max(h["argkp_dev_strict_map"] for h in RECORD["dev"][1:])
    assert kept["argkp_dev_strict_map"] > RECORD["dev"][0]["argkp_dev_strict_map"]  # better than plain MiniLM


def test_the_training_data_hash_is_reproducible_from_the_shared_data():
    from explorer.data.shared_data import SharedDataNotFoundError

    try:
        triplets = matcher_training.argkp_triplets(RECORD["settings"]["seed"])
        if "perspectrum_train" in RECORD["data"]["sources"]:
            triplets += matcher_training.perspectrum_triplets(RECORD["settings"]["seed"])
    except SharedDataNotFoundError as error:
        pytest.skip(str(error))
    assert len(triplets) == RECORD["data"]["triplets"]
    assert matcher_training.data_sha256(triplets) == RECORD["data"]["sha256"]


def test_no_duplicate_positive_in_a_batch():
    triplets = [(f"argument {i}", f"key point {i % 5}", "other") for i in range(40)]
    for batch in matcher_training.batches(triplets, 8, random.Random(0)):
        assert len({t[1] for t in batch}) == len(batch)
    assert sorted(t for b in matcher_training.batches(triplets, 8, random.Random(0)) for t in b) == sorted(triplets)


@pytest.fixture(scope="module")
def encoder():
    return matcher_model.shared_matcher_encoder()


@pytest.mark.parametrize("argument, paraphrase, other", CASES)
def test_a_paraphrase_scores_above_another_argument_of_the_same_claim(encoder, argument, paraphrase, other):
    vectors = encoder.encode([argument, paraphrase, other])
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


def test_the_adapter_changes_the_embedding_and_the_identity(encoder):
    from explorer.models.encoder import shared_encoder

    plain = shared_encoder()
    text = [CASES[0][0]]
    assert not np.allclose(plain.encode(text), encoder.encode(text), atol=1e-4)
    assert encoder.identity() != plain.identity() and encoder.identity().startswith(plain.identity())
