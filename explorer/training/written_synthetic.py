"""The paper's synthetic errors (§4.2) made from the team-written corpus, for the token tagger.

    python -m explorer.data.written --out ~/.cache/rag-error-explorer/written.jsonl
    python -m explorer.training.written_synthetic --data ~/.cache/rag-error-explorer/written.jsonl \
        --out ~/.cache/rag-error-explorer/written-synthetic.jsonl

The Perspectrum builders remove an argument whose statement they wrote themselves, a whole
sentence of a known shape. Real answers state an argument as one clause of a list ("note that
..., that it puts low-income students at a disadvantage, and that ..."), in a bullet, or under a
header; a tagger trained on whole removed sentences reads such a clause as supported. The team's
answers state arguments that way, but the corpus records only invented words, not where each
argument is stated. So:

1. **Where each argument is stated** comes from the matching check's one-to-one pairing
   (`explorer.detectors.matching`): an argument's paired piece of the answer if their similarity
   is at least `PAIRED`, plus each piece left unpaired whose best argument it is by a margin of
   `MARGIN` with similarity at least `EXTRA` ("..., because ..." after the paired piece).
   Found by a model, so now and then wrong; the tagger learns from many.
2. **Paraphrased input** (the paper's paraphrased set, as `explorer.data.perspectrum` builds it):
   each argument replaced by another member of its Perspectrum cluster, the answer unchanged.
3. From each answer with no coverage error and no ambiguous label (clean and hallucination
   variants), as given and paraphrased: one synthetic hallucination per argument whose side keeps
   another (the argument removed from the input; its statement joins the answer's invented
   spans), and, from clean answers, one synthetic coverage error per side (a member of an unused
   cluster of the claim and side added to the input at a seeded position).
4. From each such answer as given, one **misstatement**: a stated argument chosen at random has
   its statement turned by a rule of `explorer.data.distortions` (negated, an opposite word, a
   flipped comparison, swapped roles or cause and effect); the turned statement is invented and
   the argument uncovered, as in the second recipe's hand-written distortions.

Answers of the second recipe say where each argument is stated (`argument_spans`); those spans
are used instead of the matching check's.

Perspectrum's train split only (`load_claims(["train"])`; the corpus is train-only too); the
foreign dev set is never read. Deterministic: every choice is seeded by the answer's id. The
output holds third-party text: write it to a cache.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
from collections.abc import Iterator, Sequence

import numpy as np

from explorer.data.distortions import RULES
from explorer.data.example import Example, Labels, Perspective, UncoveredArgument
from explorer.data.jsonl import write_jsonl
from explorer.data.perspectrum_claims import PerspectrumClaim, load_claims
from explorer.data.synthetic import ArgumentRef, insert_argument, remove_argument
from explorer.data.written import argument_statements
from explorer.detectors.matching import MatchingDetector
from explorer.detectors.ops.alignment import pair
from explorer.text.claims import Span
from explorer.training.data import corpus_builder_parser, read_told

PAIRED, EXTRA, MARGIN = 0.45, 0.55, 0.1
MISSTATEMENT = "-misstatement-"  # in a misstatement's id (4)


def statements(detector: MatchingDetector, example: Example) -> dict[ArgumentRef, list[Span]]:
    """Where the answer states each argument (module docstring, 1); arguments found nowhere are absent."""
    if "argument_spans" in example.extra:
        return argument_statements(example)
    pieces, arguments, similarity = detector.similarities(example)
    found: dict[ArgumentRef, list[Span]] = {key: [] for key in arguments}
    paired = set()
    for row, column in enumerate(pair(similarity)):
        if column >= 0:
            paired.add(column)
            if similarity[row, column] >= PAIRED:
                found[arguments[row]].append(pieces[column])
    for column, piece in enumerate(pieces):
        if column in paired:
            continue
        ranked = np.sort(similarity[:, column])
        best = int(np.argmax(similarity[:, column]))
        runner_up = ranked[-2] if len(arguments) > 1 else -1
        if ranked[-1] >= EXTRA and ranked[-1] - runner_up >= MARGIN and found[arguments[best]]:
            found[arguments[best]].append(piece)
    return {key: sorted(spans) for key, spans in found.items() if spans}


def paraphrased(example: Example, claim: PerspectrumClaim, rng: random.Random) -> tuple[Perspective, ...]:
    """The example's perspectives with each argument replaced by another member of its cluster."""
    cluster_of = {text: cluster for cluster in claim.clusters for _, text in cluster.members}
    perspectives = []
    for perspective in example.perspectives:
        arguments = []
        for text in perspective.arguments:
            others = [t for _, t in cluster_of[text].members if t != text] if text in cluster_of else []
            arguments.append(rng.choice(others) if others else text)
        perspectives.append(Perspective(perspective.name, tuple(arguments)))
    return tuple(perspectives)


def _hallucinations(source: Example, found: dict[ArgumentRef, list[Span]], kind: str) -> Iterator[Example]:
    invented = set(source.labels.hallucinated_spans)
    for p, a, _ in source.arguments():
        if len(source.perspectives[p].arguments) < 2 or (p, a) not in found:
            continue
        labels = Labels(
            hallucination=True,
            coverage_error=False,
            kind=kind,
            ambiguous=False,
            hallucinated_spans=tuple(sorted(invented | set(found[(p, a)]))),
        )
        yield remove_argument(source, p, a).replace(id=f"{source.id}-synthetic-hallucination-{p}-{a}", labels=labels)


def _coverage_errors(
    source: Example, written: Example, claim: PerspectrumClaim, kind: str, rng: random.Random
) -> Iterator[Example]:
    used = {text for _, _, text in written.arguments()} | {text for _, _, text in source.arguments()}
    for p, perspective in enumerate(source.perspectives):
        unused = [c for c in claim.clusters if c.stance == perspective.name and not used & {t for _, t in c.members}]
        if not unused:
            continue
        text = rng.choice(rng.choice(unused).members)[1]
        position = rng.randint(0, len(perspective.arguments))
        labels = Labels(
            hallucination=False,
            coverage_error=True,
            kind=kind,
            ambiguous=False,
            uncovered=(UncoveredArgument(p, position),),
        )
        added = insert_argument(source, p, position, text)
        yield added.replace(id=f"{source.id}-synthetic-coverage-{p}", labels=labels)


def _misstatement(source: Example, found: dict[ArgumentRef, list[Span]], rng: random.Random) -> Iterator[Example]:
    """One stated argument's statement turned by a rule (module docstring, 4)."""
    stated = [(key, span) for key, spans in sorted(found.items()) for span in spans]
    rng.shuffle(stated)
    invented = source.labels.hallucinated_spans
    for (p, a), (start, end) in stated:
        if any(s < end and start < e for s, e in invented):
            continue
        how = rng.choice(sorted(RULES))
        turned = RULES[how](source.response[start:end], rng)
        if turned is None:
            continue
        response = source.response[:start] + turned.text + source.response[end:]
        shift = len(turned.text) - (end - start)
        kept = [(s + shift, e + shift) if s >= end else (s, e) for s, e in invented]
        labels = Labels(
            hallucination=True,
            coverage_error=True,
            kind="organic",
            ambiguous=False,
            hallucinated_spans=tuple(sorted([*kept, (start, start + len(turned.text))])),
            uncovered=(UncoveredArgument(p, a),),
        )
        extra = {k: v for k, v in source.extra.items() if k not in ("argument_spans", "distortions", "inventions")}
        yield source.replace(
            id=f"{source.id}{MISSTATEMENT}{how}-{p}-{a}", response=response, labels=labels, extra=extra
        )
        return


def build(written: Sequence[Example], claims: Sequence[PerspectrumClaim], detector: MatchingDetector) -> list[Example]:
    """The paraphrased answers and the synthetic errors of `written` (module docstring, 2-3)."""
    claim_of = {claim.text: claim for claim in claims}
    sources = [e for e in written if not e.labels.coverage_error and not e.labels.ambiguous]
    # One batched encoding of every piece and argument the matching check pairs: the second
    # recipe's answers say where they state each argument, and need no model.
    detector.prepare([e for e in sources if "argument_spans" not in e.extra])
    made: list[Example] = []
    for example in sources:
        claim = claim_of[example.topic]
        rng = random.Random(example.id)
        found = statements(detector, example)
        inputs = [(example, "synthetic")]
        perspectives = paraphrased(example, claim, rng)
        if perspectives != example.perspectives:
            kind = "organic" if example.labels.hallucination else "paraphrased"
            restated = example.replace(
                id=f"{example.id}-paraphrased",
                perspectives=perspectives,
                labels=dataclasses.replace(example.labels, kind=kind),
            )
            made.append(restated)
            inputs.append((restated, "synthetic_paraphrased"))
        made += _misstatement(example, found, rng)
        for source, kind in inputs:
            made += _hallucinations(source, found, kind)
            if not example.labels.hallucination:
                made += _coverage_errors(source, example, claim, kind, rng)
    return made


def build_parser() -> argparse.ArgumentParser:
    def only(parser) -> tuple[str, ...]:
        parser.add_argument(
            "--misstatements-only",
            action="store_true",
            help="write the misstatements alone (4): the stacked head's turned answers, beside the corpus it "
            "already reads as --organic",
        )
        return ()

    return corpus_builder_parser("python -m explorer.training.written_synthetic", __doc__, "data", only)


def main(argv: Sequence[str] | None = None) -> int:
    from explorer.cli import guard

    return guard.main(build_parser(), argv, run)


def run(args: argparse.Namespace) -> int:
    examples, errors = read_told(args.data)
    made = build(examples, load_claims(["train"], args.perspectrum), MatchingDetector())
    if args.misstatements_only:
        made = [e for e in made if MISSTATEMENT in e.id]
    write_jsonl(made, args.out)
    print(f"wrote {len(made)} examples to {args.out}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
