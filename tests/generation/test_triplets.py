import pytest

from explorer.generation.triplets import TripletExtractor, TripletGrammar, extraction_prompt, parse_triplets
from explorer.models.language_model import load_language_model, load_tokenizer


def test_parse_keeps_well_formed_distinct_triplets():
    text = (
        "(school uniforms | limit | self-expression)\n"
        "(school uniforms | limit | self-expression)\n"  # a repeat
        "(bullying | reduce | bullying)\n"  # subject == object
        "(a | b)\n"  # two parts
        "( | cost | money)\n"  # empty subject
        "(uniforms | cost | families money)"
    )
    assert parse_triplets(text) == [
        ("school uniforms", "limit", "self-expression"),
        ("uniforms", "cost", "families money"),
    ]


def test_prompt_ends_where_the_triplets_start():
    prompt = extraction_prompt("Uniforms reduce bullying.")
    assert prompt.endswith("Sentence: Uniforms reduce bullying.\nTriplets:\n")
    assert prompt.startswith("Extract (subject | predicate | object) triplets")


@pytest.fixture(scope="module")
def tokenizer():
    return load_tokenizer()


@pytest.mark.slow
def test_grammar_allows_only_the_sentences_words_and_well_formed_lines(tokenizer):
    grammar = TripletGrammar(tokenizer, "Uniforms reduce bullying.", prompt_length=0)
    words = {tokenizer.decode([t]).strip().lower() for t in grammar.words}
    assert {"uniforms", "reduce", "bullying"} <= words or {"reduce", "bullying"} <= words
    assert "tax" not in words and "(" not in words and "|" not in words
    assert grammar.allowed("") == grammar.open
    assert set(grammar.allowed("(uniforms")) == set(grammar.words) | set(grammar.pipe)
    assert grammar.pipe[0] not in grammar.allowed("(uniforms |")  # a part needs a word first
    assert set(grammar.allowed("(uniforms | reduce | bullying")) == set(grammar.words) | set(grammar.close)
    assert grammar.allowed("(uniforms | reduce | bullying)") == grammar.newline
    assert set(grammar.allowed("(uniforms | reduce | bullying)\n")) == set(grammar.open + grammar.newline + grammar.end)


@pytest.mark.slow
def test_extracted_triplets_use_only_the_sentences_words():
    extractor = TripletExtractor(load_language_model(), max_new_tokens=40)
    response = "Uniforms cost families money. Critics say uniforms limit self-expression."
    triplets = extractor.extract(response)
    assert triplets == extractor.extract(response)  # greedy: deterministic
    vocabulary = set(response.lower().replace(".", " ").split())
    for triplet in triplets:
        assert response[triplet.start : triplet.end] in (
            "Uniforms cost families money.",
            "Critics say uniforms limit self-expression.",
        )
        assert set(triplet.text.lower().split()) <= vocabulary
