"""Knowledge triplets (subject, predicate, object) extracted from a response by a prompted local
LM, as RefChecker's extractor does (Hu et al. 2024, "RefChecker: Reference-based Fine-grained
Hallucination Checker and Benchmark for Large Language Models").

Each sentence of the response (`explorer.text.claims`) is given to the model after a few
worked examples, and the model writes one `(subject | predicate | object)` line per triplet.
RefChecker prompts GPT-4 or Claude; the packaged SmolLM2-135M, prompted the same way, copies
the examples' words and writes lines of any shape, so decoding is constrained
(`TripletGrammar`): every word piece comes from the sentence itself (the triplet can only
restate it, never import words), and the lines follow the grammar: "(", three non-empty
parts split by " |", ")", newline, until a blank line. Parsing then drops a triplet whose
subject and object are the same and repeated triplets. A better local model is given by path;
the constraints apply to it too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from explorer.models.language_model import LanguageModel
from explorer.text.claims import sentence_spans

EXAMPLES = """Extract (subject | predicate | object) triplets from each sentence.

Sentence: Critics say that school uniforms limit self-expression and cost families money.
Triplets:
(school uniforms | limit | self-expression)
(school uniforms | cost | families money)

Sentence: Supporters argue that a sugar tax raises revenue, which can fund health programmes.
Triplets:
(a sugar tax | raises | revenue)
(revenue | can fund | health programmes)

Sentence: They also warn that shops near the border lose customers to cheaper stores.
Triplets:
(shops near the border | lose | customers to cheaper stores)

"""
_LINE = re.compile(r"^\(\s*(.+?)\s*\|\s*(.+?)\s*\|\s*(.+?)\s*\)$")
_PIECES = re.compile(r"[^\s()|]+")


@dataclass(frozen=True)
class Triplet:
    """One triplet of sentence `sentence` of the response, which spans `[start, end)` there."""

    subject: str
    predicate: str
    object: str
    sentence: int
    start: int
    end: int

    @property
    def parts(self) -> tuple[str, str, str]:
        return (self.subject, self.predicate, self.object)

    @property
    def text(self) -> str:
        """The triplet read as a clause, e.g. "school uniforms limit self-expression"."""
        return " ".join(self.parts)


def extraction_prompt(sentence: str) -> str:
    return f"{EXAMPLES}Sentence: {sentence}\nTriplets:\n"


def parse_triplets(text: str) -> list[tuple[str, str, str]]:
    """The well-formed `(s | p | o)` lines of `text`, without repeats or subject == object."""
    found: list[tuple[str, str, str]] = []
    for line in text.splitlines():
        match = _LINE.match(line.strip())
        if match is None:
            continue
        parts = tuple(part.strip() for part in match.groups())
        if all(parts) and parts[0].lower() != parts[2].lower() and parts not in found:
            found.append(parts)
    return found


class TripletGrammar:
    """Token masks for constrained decoding (see the module docstring); a transformers LogitsProcessor."""

    def __init__(self, tokenizer, sentence: str, prompt_length: int):
        self.tokenizer = tokenizer
        self.prompt_length = prompt_length
        words: set[int] = set()
        for piece in {p for chunk in _PIECES.findall(sentence) for p in (chunk, *re.findall(r"\w+|[^\w\s]", chunk))}:
            for variant in {piece, piece.lower()}:
                words.update(tokenizer.encode(variant, add_special_tokens=False))
                words.update(tokenizer.encode(" " + variant, add_special_tokens=False))
        self.open, self.pipe, self.close, self.newline = (
            tokenizer.encode(mark, add_special_tokens=False) for mark in ("(", " |", ")", "\n")
        )
        for mark in (self.open, self.pipe, self.close, self.newline):
            words -= set(mark)
        self.words = sorted(words)
        self.end = [tokenizer.eos_token_id] if tokenizer.eos_token_id is not None else []

    def allowed(self, written: str) -> list[int]:
        line = written.split("\n")[-1]
        if not line:
            # A line starts with "("; an empty line after a triplet ends the list.
            return self.open + (self.newline + self.end if written else [])
        if line.endswith(")"):
            return self.newline
        pipes = line.count("|")
        part_has_word = bool(re.search(r"\w", line.split("|")[-1]))
        allowed = list(self.words)
        if part_has_word:
            allowed += self.pipe if pipes < 2 else self.close
        return allowed

    def __call__(self, input_ids, scores):
        import torch

        mask = torch.full_like(scores, float("-inf"))
        for row in range(input_ids.shape[0]):
            written = self.tokenizer.decode(input_ids[row, self.prompt_length :], skip_special_tokens=True)
            mask[row, self.allowed(written)] = 0.0
        return scores + mask


class TripletExtractor:
    """Triplets of a response's sentences from a prompted causal LM, greedy and constrained."""

    def __init__(self, language_model: LanguageModel, max_new_tokens: int = 60):
        self.language_model = language_model
        self.max_new_tokens = max_new_tokens

    @property
    def identity(self) -> str:
        return f"{self.language_model.identity} (constrained triplet prompt)"

    def sentence_triplets(self, sentence: str) -> list[tuple[str, str, str]]:
        import torch
        from transformers import LogitsProcessorList

        tokenizer = self.language_model.tokenizer
        ids = tokenizer(extraction_prompt(sentence), add_special_tokens=False, return_tensors="pt").input_ids
        ids = ids.to(self.language_model.device)
        budget = min(self.max_new_tokens, self.language_model.context_length - ids.shape[1])
        if budget <= 0:
            return []  # a sentence longer than the context has no room left for triplets
        with torch.no_grad():
            output = self.language_model.model.generate(
                input_ids=ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=budget,
                do_sample=False,
                temperature=None,
                top_p=None,
                top_k=None,
                logits_processor=LogitsProcessorList([TripletGrammar(tokenizer, sentence, ids.shape[1])]),
                stop_strings=["\n\n"],
                tokenizer=tokenizer,
                pad_token_id=tokenizer.eos_token_id,
            )
        return parse_triplets(tokenizer.decode(output[0, ids.shape[1] :], skip_special_tokens=True))

    def extract(self, response: str) -> list[Triplet]:
        """Every sentence's triplets, in order, each tied to its sentence's span."""
        found = []
        for index, (start, end) in enumerate(sentence_spans(response)):
            for parts in self.sentence_triplets(response[start:end]):
                found.append(Triplet(*parts, sentence=index, start=start, end=end))
        return found
