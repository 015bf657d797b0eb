"""Linguistic phenomena of responses after Chiesurin et al. 2023 (§2.2, Table 1): length,
syntactic form, pronoun use and lexical alignment with the question, per response and per source.

The paper finds that people trust answers that repeat the question's words and avoid
pronouns, whether or not the answer is faithful. Per response:

- length: words (`explorer.text.words`, stop words included);
- form: *long* (several sentences, `explorer.text.claims`), else *short* or *fragment*
  (`explorer.text.syntax`: rules standing in for the paper's constituency parse);
- pronouns: personal or demonstrative pronouns in subject or direct-object position
  (`explorer.text.syntax`, standing in for the paper's dependency parse);
- lexical alignment with the query and grounding in the arguments, with the trust-trap flag
  (`explorer.evaluation.trust`).

`phenomena_table` groups responses by source like the paper's Table 1 groups them by system:
an example's `model` field (written by `explorer generate`), else its `source` field, else its
label kind (organic, paraphrased, ...), else "unlabelled".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from explorer.data.example import Example
from explorer.evaluation.trust import TrustThresholds, trust_metrics
from explorer.text.claims import sentence_spans
from explorer.text.syntax import LONG, OBJECT, SUBJECT, PronounUse, analyse_sentence
from explorer.text.words import DEFAULT_SEGMENTER

FORMS = ("fragment", "short", LONG)


@dataclass(frozen=True)
class Phenomena:
    """One response's length, form and subject / object pronouns (offsets into the response)."""

    words: int
    sentences: int
    form: str
    pronouns: tuple[PronounUse, ...]

    @property
    def subject_pronouns(self) -> int:
        return sum(p.role == SUBJECT for p in self.pronouns)

    @property
    def object_pronouns(self) -> int:
        return sum(p.role == OBJECT for p in self.pronouns)


def phenomena(response: str) -> Phenomena:
    """Length, form and pronouns of one response. An empty response is a zero-word fragment."""
    spans = sentence_spans(response)
    pronouns: list[PronounUse] = []
    forms = []
    for start, end in spans:
        analysed = analyse_sentence(response[start:end])
        forms.append(analysed.form)
        pronouns.extend(PronounUse(p.text, p.start + start, p.end + start, p.role) for p in analysed.pronouns)
    form = LONG if len(spans) > 1 else forms[0] if forms else "fragment"
    return Phenomena(len(DEFAULT_SEGMENTER.words(response)), len(spans), form, tuple(pronouns))


def source_of(example: Example) -> str:
    """The system or source that wrote the response (see the module docstring)."""
    for key in ("model", "source"):
        value = example.extra.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return example.labels.kind or "unlabelled"


def phenomena_frame(examples: Iterable[Example], thresholds: TrustThresholds | None = None) -> pd.DataFrame:
    """One row per example id: source, words, sentences, form, subject and object pronouns,
    then the trust metrics (query P/R/F1, K-F1, K-F1++, trust trap)."""
    rows = {}
    for example in examples:
        found = phenomena(example.response)
        rows[example.id] = {
            "source": source_of(example),
            "words": found.words,
            "sentences": found.sentences,
            "form": found.form,
            "subject pronouns": found.subject_pronouns,
            "object pronouns": found.object_pronouns,
            **trust_metrics(example, thresholds).as_row(),
        }
    columns = ["source", "words", "sentences", "form", "subject pronouns", "object pronouns"]
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=None if rows else columns)
    frame.index.name = "id"
    return frame


def phenomena_table(examples: Iterable[Example], thresholds: TrustThresholds | None = None) -> pd.DataFrame:
    """Seed 002's Table 1 per source: responses, mean words, % fragment / short / long, % with a
    pronoun in subject or object position, mean query precision / recall / F1, mean K-F1++ and
    % trust traps. Shares are percentages of the source's responses."""
    frame = phenomena_frame(examples, thresholds)
    if frame.empty:
        return pd.DataFrame(
            columns=[
                "responses",
                "words",
                *(f"% {f}" for f in FORMS),
                "% pronoun",
                "query P",
                "query R",
                "query F1",
                "K-F1++",
                "% trust trap",
            ]
        )
    frame["pronoun"] = (frame["subject pronouns"] + frame["object pronouns"]) > 0
    grouped = frame.groupby("source", sort=True)
    table = pd.DataFrame({"responses": grouped.size(), "words": grouped["words"].mean()})
    for form in FORMS:
        table[f"% {form}"] = grouped["form"].apply(lambda forms, form=form: 100 * (forms == form).mean())
    table["% pronoun"] = 100 * grouped["pronoun"].mean()
    table["query P"] = grouped["query precision"].mean()
    table["query R"] = grouped["query recall"].mean()
    table["query F1"] = grouped["query F1"].mean()
    table["K-F1++"] = grouped["K-F1++"].mean()
    table["% trust trap"] = 100 * grouped["trust trap"].mean()
    return table
