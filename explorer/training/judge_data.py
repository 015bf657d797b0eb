"""Pairs for the meaning judge (`explorer.detectors.meaning`): an argument beside a piece of an
answer, labelled *states* (the piece states the argument with its meaning), *misstates* (it states
the argument with its meaning turned) or *absent* (it does not state it).

    python -m explorer.data.written --out ~/.cache/rag-error-explorer/written.jsonl
    python -m explorer.data.written training_data/written/second/*.jsonl \
        --out ~/.cache/rag-error-explorer/written-second.jsonl
    python -m explorer.training.judge_data --written ~/.cache/rag-error-explorer/written.jsonl \
        ~/.cache/rag-error-explorer/written-second.jsonl --out ~/.cache/rag-error-explorer/judge-pairs.jsonl

A piece is one of the answer's `explorer.text.claims.candidate_spans`, the units the detector
judges. Sources, all on Perspectrum's train claims:

1. **Answers of the team-written corpus's second recipe**, which say where each argument is
   stated (`argument_spans`) and misstated (`distortions`): a piece holding most of a statement of
   the argument states it (`COVERS` of its characters), one holding most of its misstatement
   misstates it, one touching neither is absent; a piece that holds a little of a statement is
   left out (neither label is right).
2. **Answers of the first recipe**, which do not: where each argument is stated comes from the
   matching check's pairing (`explorer.training.written_synthetic.statements`), and an argument
   the answer drops is absent from every piece.
3. **Perspectrum's clusters**: two members of one cluster state each other; members of two
   clusters of the same side do not (members of opposite sides are left out: some are each
   other's negation, which is a misstatement, not an absence).
4. **Rule-built misstatements** (`explorer.data.distortions`) of every *states* pair: the
   statement inside the piece turned, or the argument turned, with the changed words.
5. **Team-written twins** (`explorer.data.written_pairs`): a statement reworded with its meaning
   kept (*states*) beside the same words with the meaning turned (*misstates*, with the changed
   words), and topical pieces that state nothing (*absent*), each against its perspective and
   the other members of its cluster.
6. **Rule-built restatements** (`explorer.data.restatements`) of every *states* pair whose piece
   or argument holds a negation another construction says as well ("does not" / "fails to",
   "would not end" / "would do nothing to end", "X, not Y" / "X rather than Y"): still *states*,
   so that a negation said another way is not read as a turned argument.
7. **Rule-built rewordings** (`explorer.data.restatements.rewording`) of half the *states*
   pairs, in the piece or the argument: a word put for another of its group ("reduce" ->
   "lower") or a comparison said from the scale's other end ("cheaper than" -> "less expensive
   than"), *states*, beside the same new words turned ("lower" -> "raise", "less expensive" ->
   "more expensive"), *misstates* with the changed words: what tells them apart is the
   direction, not which words changed.
8. **Rule-built frames** (`explorer.data.framings`) of `FRAME_SHARE` of the arguments of *states*
   pairs: the argument word for word inside the frame an answer puts around it ("Critics also
   cite X as a drawback.", a list item, a table row), *states*.

Absent pairs are many and mostly easy; each argument keeps the `HARD` absent pieces the tuned
matcher finds closest to it (what the detector's shortlist would show the judge) and one more
at random; and each piece of an answer that states no argument at all (a framing line, an
invented fact, a rebuttal) is kept beside one argument drawn at random, so that every such
piece is seen. Deterministic (every choice seeded by the example's id), train claims only; the output
holds third-party text: write it to a cache.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from explorer.data.distortions import RULES
from explorer.data.example import Example
from explorer.data.framings import framed
from explorer.data.perspectrum_claims import PerspectrumClaim, load_claims
from explorer.data.restatements import restatement, rewording
from explorer.data.written import argument_statements
from explorer.data.written_pairs import WrittenPair, check, pair_files
from explorer.detectors.ops.judge import ABSENT, LABELS, MISSTATES, STATES
from explorer.files import atomic_writer
from explorer.text.claims import Span, candidate_spans
from explorer.training.data import corpus_builder_parser, read_told

COVERS = 0.6  # a piece states (misstates) an argument when it holds this share of a statement
TOUCHES = 0.15  # below this share a piece is absent; between, the pair is left out
HARD = 3
TWINS = "twins"  # the source of the team-written twins' pairs
RULE_SHARE = 0.7  # the share of states pairs that also give a rule-built misstatement
REWORD_SHARE = 0.5  # the share of states pairs that also give a rule-built rewording and its twin
FRAME_SHARE = 0.3  # the share of the states pairs' arguments that also give a framed copy


@dataclass(frozen=True)
class Pair:
    argument: str
    text: str
    label: int
    source: str
    topic: str
    changed: Span | None = None  # the words of `text` that turn the meaning (misstates only)
    changed_in_argument: Span | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, record: dict) -> Pair:
        spans = {k: tuple(record[k]) if record.get(k) else None for k in ("changed", "changed_in_argument")}
        return cls(**{**record, **spans})


def _share(piece: Span, span: Span) -> float:
    """The share of `span` inside `piece`."""
    inside = min(piece[1], span[1]) - max(piece[0], span[0])
    return max(0, inside) / max(1, span[1] - span[0])


def _label(piece: Span, stated: Sequence[Span], misstated: Sequence[Span]) -> int | None:
    best_mis = max((_share(piece, s) for s in misstated), default=0.0)
    best_states = max((_share(piece, s) for s in stated), default=0.0)
    if best_mis >= COVERS:
        return MISSTATES
    if best_states >= COVERS:
        return STATES
    if max(best_mis, best_states) < TOUCHES:
        return ABSENT
    return None


def _spans_of(example: Example) -> tuple[dict, dict]:
    """Per argument, its statements and its misstatements (spans of the response)."""
    stated = argument_statements(example)
    misstated: dict = {}
    for d in example.extra.get("distortions") or []:
        misstated.setdefault((d["perspective"], d["argument"]), []).append(tuple(d["span"]))
    return stated, misstated


class Builder:
    """Makes the pairs; `encoder` (the tuned matcher) ranks the absent pieces."""

    def __init__(self, encoder, seed: int = 0):
        self.encoder = encoder
        self.seed = seed

    def _absent_kept(self, argument: str, texts: list[str], rng: random.Random) -> set[int]:
        if not texts:
            return set()
        vectors = self.encoder.encode([argument, *texts])
        order = list(np.argsort(-(vectors[1:] @ vectors[0])))
        kept = set(order[:HARD])
        rest = order[HARD:]
        if rest:
            kept.add(rng.choice(rest))
        return {int(i) for i in kept}

    def answer_pairs(self, example: Example, stated: dict, misstated: dict, source: str) -> Iterator[Pair]:
        """Every argument of `example` against the response's pieces, labelled from the spans."""
        rng = random.Random(f"{self.seed}:{example.id}")
        pieces = candidate_spans(example.response)
        topic = example.topic or example.id
        arguments = list(example.arguments())
        labels = {
            (p, a): [_label(piece, stated.get((p, a), []), misstated.get((p, a), [])) for piece in pieces]
            for p, a, _ in arguments
        }
        stating_none = [i for i in range(len(pieces)) if all(found[i] == ABSENT for found in labels.values())]
        drawn = {i: rng.randrange(len(arguments)) for i in stating_none} if arguments else {}
        for n, (p, a, argument) in enumerate(arguments):
            labelled = list(zip(pieces, labels[(p, a)]))
            absent = [piece for piece, label in labelled if label == ABSENT]
            kept = self._absent_kept(argument, [example.response[s:e] for s, e in absent], rng)
            kept |= {absent.index(pieces[i]) for i, m in drawn.items() if m == n}
            for piece, label in labelled:
                if label is None or (label == ABSENT and absent.index(piece) not in kept):
                    continue
                text = example.response[piece[0] : piece[1]]
                changed = None
                if label == MISSTATES:
                    changed = _changed_in(example, (p, a), piece)
                yield Pair(argument, text, label, source, topic, changed)

    def cluster_pairs(self, claims: Sequence[PerspectrumClaim]) -> Iterator[Pair]:
        for claim in claims:
            rng = random.Random(f"{self.seed}:claim:{claim.id}")
            for i, cluster in enumerate(claim.clusters):
                texts = [t for _, t in cluster.members]
                same_side = [
                    t
                    for j, c in enumerate(claim.clusters)
                    if j != i and c.stance == cluster.stance
                    for _, t in c.members
                ]
                for n, text in enumerate(texts):
                    others = texts[:n] + texts[n + 1 :]
                    if others:
                        yield Pair(text, rng.choice(others), STATES, "perspectrum", claim.text)
                    if same_side:
                        kept = self._absent_kept(text, same_side, rng)
                        for k in sorted(kept):
                            yield Pair(text, same_side[k], ABSENT, "perspectrum", claim.text)

    def misstatements(self, pair: Pair) -> Iterator[Pair]:
        """Rule-built misstatements of a states pair: the piece turned, or the argument."""
        rng = random.Random(f"{self.seed}:rule:{pair.argument}:{pair.text}")
        if rng.random() >= RULE_SHARE:
            return
        how = rng.choice(sorted(RULES))
        turn_piece = rng.random() < 0.6
        distorted = RULES[how](pair.text if turn_piece else pair.argument, rng)
        if distorted is None:
            return
        if turn_piece:
            yield Pair(pair.argument, distorted.text, MISSTATES, f"{pair.source}+{how}", pair.topic, distorted.changed)
        else:
            yield Pair(
                distorted.text, pair.text, MISSTATES, f"{pair.source}+{how}", pair.topic, None, distorted.changed
            )

    def rewordings(self, pair: Pair) -> Iterator[Pair]:
        """Rule-built rewordings of a states pair (`REWORD_SHARE` of them), the piece's or the
        argument's: said in other words (states) and the same words turned (misstates)."""
        rng = random.Random(f"{self.seed}:reworded:{pair.argument}:{pair.text}")
        if rng.random() >= REWORD_SHARE:
            return
        in_piece = rng.random() < 0.6
        found = rewording(pair.text if in_piece else pair.argument, rng)
        if found is None:
            return
        source = f"{pair.source}+reworded"
        if in_piece:
            yield Pair(pair.argument, found.kept.text, STATES, source, pair.topic)
            if found.turned is not None:
                yield Pair(pair.argument, found.turned.text, MISSTATES, source, pair.topic, found.turned.changed)
            return
        yield Pair(found.kept.text, pair.text, STATES, source, pair.topic)
        if found.turned is not None:
            yield Pair(found.turned.text, pair.text, MISSTATES, source, pair.topic, None, found.turned.changed)

    def framings(self, stated: Sequence[Pair]) -> Iterator[Pair]:
        """Framed copies (`FRAME_SHARE`) of the distinct arguments of `stated`, each once."""
        seen = set()
        for pair in stated:
            if pair.argument in seen:
                continue
            seen.add(pair.argument)
            rng = random.Random(f"{self.seed}:framed:{pair.argument}")
            if rng.random() < FRAME_SHARE:
                yield Pair(pair.argument, framed(pair.argument, rng), STATES, f"{pair.source}+framed", pair.topic)

    def restatements(self, pair: Pair) -> Iterator[Pair]:
        """Rule-built restatements of a states pair's negations: the piece's, then the argument's."""
        rng = random.Random(f"{self.seed}:restated:{pair.argument}:{pair.text}")
        if (found := restatement(pair.text, rng)) is not None:
            yield Pair(pair.argument, found.text, STATES, f"{pair.source}+restated", pair.topic)
        if (found := restatement(pair.argument, rng)) is not None:
            yield Pair(found.text, pair.text, STATES, f"{pair.source}+restated", pair.topic)


def twin_pairs(written: Sequence[WrittenPair], claims: Sequence[PerspectrumClaim]) -> Iterator[Pair]:
    """The team-written twins, each against its perspective and the rest of its cluster."""
    cluster_of = {text: [t for _, t in c.members] for claim in claims for c in claim.clusters for _, text in c.members}
    for pair in written:
        label = LABELS.index(pair.label)
        for argument in cluster_of.get(pair.argument, [pair.argument]):
            yield Pair(argument, pair.text, label, TWINS, pair.topic, pair.changed)


def _changed_in(example: Example, key: tuple[int, int], piece: Span) -> Span | None:
    """The changed words of the argument's distortion, as a span of the piece's text."""
    for d in example.extra.get("distortions") or []:
        if (d["perspective"], d["argument"]) == key:
            start, end = d["changed"]
            if piece[0] <= start and end <= piece[1]:
                return (start - piece[0], end - piece[0])
    return None


def build(
    written: Sequence[Example],
    claims: Sequence[PerspectrumClaim],
    encoder,
    matching=None,
    seed: int = 0,
    twins: Sequence[WrittenPair] = (),
) -> list[Pair]:
    """Every source's pairs (module docstring); `matching` finds the first recipe's statements."""
    from explorer.training.written_synthetic import statements

    builder = Builder(encoder, seed)
    pairs: list[Pair] = []
    for example in written:
        if example.labels.ambiguous:
            continue  # a strengthened qualifier or a repetition: no pair label fits it
        if "argument_spans" in example.extra:
            stated, misstated = _spans_of(example)
            pairs += builder.answer_pairs(example, stated, misstated, "written-2")
        elif matching is not None:
            found = statements(matching, example)
            dropped = {(u.perspective, u.argument) for u in example.labels.uncovered}
            stated = {key: spans for key, spans in found.items() if key not in dropped}
            pairs += builder.answer_pairs(example, stated, {}, "written-1")
    pairs += builder.cluster_pairs(claims)
    stated = [pair for pair in pairs if pair.label == STATES]
    pairs += twin_pairs(twins, claims)
    pairs += [m for pair in stated for m in builder.misstatements(pair)]
    pairs += [r for pair in stated for r in builder.restatements(pair)]
    pairs += builder.framings(stated)
    return pairs + [r for pair in stated for r in builder.rewordings(pair)]


def read_pairs(path: Path) -> list[Pair]:
    return [Pair.from_dict(json.loads(line)) for line in Path(path).read_text("utf-8").splitlines() if line.strip()]


def write_pairs(pairs: Sequence[Pair], path: Path) -> None:
    """`pairs` as JSON Lines at `path`, written whole or not at all (`read_pairs` reads them)."""
    with atomic_writer(path) as out:
        for pair in pairs:
            out.write(json.dumps(pair.to_dict(), ensure_ascii=False) + "\n")


def build_parser() -> argparse.ArgumentParser:
    def twins(parser) -> tuple[str]:
        parser.add_argument(
            "--twins", type=Path, nargs="*", help="team-written twins (default: training_data/judge/*.jsonl)"
        )
        return ("twins",)

    return corpus_builder_parser("python -m explorer.training.judge_data", __doc__, "written", twins)


def checked_twins(paths: Sequence[Path] | None, folder: Path | None = None) -> tuple[list[WrittenPair], int]:
    """The twins of `paths` (default: the repository's) and how many lines were bad, each named
    on stderr with its file, line and field."""
    twins, errors = check(pair_files() if paths is None else paths, folder)
    for error in errors:
        print(error, file=sys.stderr)
    return twins, len(errors)


def main(argv: Sequence[str] | None = None) -> int:
    from explorer.cli import guard

    return guard.main(build_parser(), argv, run)


def run(args: argparse.Namespace) -> int:
    from explorer.detectors.matching import MatchingDetector

    read, errors = read_told(args.written)
    written = [e for e in read if e.split == "train"]
    matching = MatchingDetector()
    twins, bad = checked_twins(args.twins, args.perspectrum)
    pairs = build(written, load_claims(["train"], args.perspectrum), matching.encoder, matching, twins=twins)
    write_pairs(pairs, args.out)
    counts = {name: sum(p.label == i for p in pairs) for i, name in enumerate(LABELS)}
    print(f"wrote {len(pairs)} pairs to {args.out}: {counts}")
    return 1 if errors or bad else 0


if __name__ == "__main__":
    sys.exit(main())
