"""Decoding that restates a yes/no question as the statement it asks about.

The packaged generator opens many answers by restating the question in a "whether" clause, as
its training answers do ("The question of whether school uniforms should be required ..."). It
copies the question's words, and the small model often leaves the fronted auxiliary where it
stood or drops it: "whether are gender quotas in the EU good ...", "whether the D.A.R.E. program
good for ..." (`docs/generator-eval.md`). This logits processor mends that one construction:

- the statement is the question with its auxiliary moved to the end of the subject, and where
  the subject ends is the model's call: of every place the auxiliary could go, the one whose
  sentence the model finds likeliest (no parser is packaged; on the 24 questions of the foreign
  dev set this picks the right place every time);
- right after "whether", the auxiliary is not allowed (no clause goes "whether is ...");
- where a "whether" clause has copied the statement up to the auxiliary, the question's next
  word is not allowed and the auxiliary gets `NUDGE`, so the clause goes on as the statement.

Everything else is the model's own choice. Only questions fronted by an auxiliary that the
statement keeps as it is are handled ("Is", "Are", "Should", "Can", ...); "Does ..." would need
its verb inflected and is left alone.
"""

from __future__ import annotations

import re

from explorer.generation.coverage_guard import NUDGE

AUXILIARIES = frozenset({"is", "are", "was", "were", "should", "must", "can", "could", "will", "would", "may", "might"})
_WHETHER = re.compile(r"\bwhether\b", re.IGNORECASE)


def fronted_auxiliary(question: str) -> tuple[str, list[str]] | None:
    """The question's fronted auxiliary (lower case) and the words after it, or None."""
    words = question.strip().rstrip("?").split()
    if len(words) < 3 or words[0].lower() not in AUXILIARIES:
        return None
    return words[0].lower(), words[1:]


def likeliest_statement(model, tokenizer, auxiliary: str, words: list[str]) -> tuple[list[str], int]:
    """The statement's words and the auxiliary's index in them: of the auxiliary after each of
    the first words, the sentence to which `model` gives the highest log-likelihood."""
    import torch  # here: Inspect imports this module (for its errors) before any model is needed

    candidates = [words[:k] + [auxiliary] + words[k:] for k in range(1, len(words))]
    sentences = [f"The question is whether {' '.join(c)}." for c in candidates]
    rows = [tokenizer(sentence, add_special_tokens=False)["input_ids"] for sentence in sentences]
    width = max(len(row) for row in rows)
    ids = torch.zeros((len(rows), width), dtype=torch.long)
    mask = torch.zeros_like(ids)
    for r, row in enumerate(rows):  # padded on the right: each row keeps its own positions
        ids[r, : len(row)], mask[r, : len(row)] = torch.tensor(row), 1
    with torch.no_grad():
        logits = model(input_ids=ids.to(model.device), attention_mask=mask.to(model.device)).logits.float().cpu()
    taken = logits[:, :-1].log_softmax(-1).gather(2, ids[:, 1:, None])[..., 0] * mask[:, 1:]
    best = int(taken.sum(1).argmax())
    return candidates[best], best + 1


class QuestionRestatement:
    """A `transformers` logits processor for one prompt (batch of one) answering `question`."""

    def __init__(self, model, tokenizer, question: str, prompt_length: int):
        self.tokenizer, self.prompt_length = tokenizer, prompt_length
        found = fronted_auxiliary(question)
        self.subject = None  # None: a question this rule leaves alone
        if found is not None:
            words, at = likeliest_statement(model, tokenizer, *found)
            self.subject = " ".join(words[:at]).lower()
            self.auxiliary = self._first_tokens(words[at], words[at].title())
            self.skipped = self._first_tokens(words[at + 1])

    def _first_tokens(self, *words: str) -> list[int]:
        return sorted({self.tokenizer(f" {w}", add_special_tokens=False)["input_ids"][0] for w in words})

    def __call__(self, input_ids, scores):
        if self.subject is None:
            return scores
        text = self.tokenizer.decode(input_ids[0, self.prompt_length :], skip_special_tokens=True)
        line = text[text.rfind("\n") + 1 :]
        found = list(_WHETHER.finditer(line))
        if not found:
            return scores
        clause = " ".join(line[found[-1].end() :].split()).lower()
        if not clause:
            scores[:, self.auxiliary] = float("-inf")
        elif clause == self.subject:
            scores[:, self.skipped] = float("-inf")
            scores[:, self.auxiliary] += NUDGE
        return scores
