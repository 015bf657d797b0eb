"""NPOV training and dev examples built from Perspectrum (Chen et al., NAACL 2019), train and dev only.

    python -m explorer.data.perspectrum --out ~/.cache/rag-error-explorer/perspectrum.jsonl

Perspectrum gives, for each debate claim, clusters (`pids`) of perspectives that a human judged
to state the same argument, each cluster supporting or undermining the claim. That is paraphrase
supervision for free: one member of a cluster is the argument given to the chatbot, another
member (a real human paraphrase, not a template) is what the response says for it.

Each example of a claim (`variants` per claim, seeded):

- perspectives `pro` (supporting clusters) and `con` (undermining clusters), 1-4 clusters each
  from those with two or more distinct members; a claim with clusters on one side only gets one
  perspective;
- query: the claim turned into a question (a few templates); topic: the claim;
- response: each part (pro then con, or con then pro) with its arguments in a shuffled order,
  written from templates by `explorer.data.perspectrum_responses` (an intro sentence, a lead-in
  for each argument, now and then two arguments merged into one sentence);
- `verbalizations` (see `explorer.data.synthetic`) records where each argument is stated, so the
  synthetic hallucinations get their spans;
- kind `paraphrased` (the response paraphrases its arguments, the paper's paraphrased set), error-free.

On top, the paper's synthetic errors (§4.2, `explorer.data.synthetic`), kind `synthetic_paraphrased`:
a hallucination (a stated argument removed from the input; its sentence is the span) and a
coverage error (a cluster of the same claim and stance that no argument uses added to the input,
one of its members as the argument; `uncovered` names it).

**The test split is never read**: the claims come from `explorer.data.perspectrum_claims`, which
refuses it, filters claims by id before touching their text, and drops any perspective a test
claim (and, for train examples, a dev claim) also uses.

The output holds third-party text (CC BY-SA 4.0): write it to a cache, never into the repository.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from explorer import console
from explorer.data.example import Example, Labels, Perspective
from explorer.data.jsonl import write_jsonl
from explorer.data.perspectrum_claims import ALLOWED_SPLITS, PerspectrumClaim, load_claims
from explorer.data.perspectrum_responses import QUERIES, Casing, compose
from explorer.data.synthetic import make_coverage_error, make_hallucination, with_verbalizations

SOURCE_FIELD = "perspectrum"
MAX_PER_SIDE = 4


def _rng(seed: int, *keys) -> random.Random:
    return random.Random("\n".join(map(str, (seed, *keys))))


def clean_example(claim: PerspectrumClaim, variant: int, seed: int, casing: Casing) -> Example | None:
    """One error-free `paraphrased` example of the claim, or None when it has under two usable clusters."""
    rng = _rng(seed, claim.id, variant)
    usable = {s: [c for c in claim.clusters if c.stance == s and len(c.members) >= 2] for s in ("pro", "con")}
    if sum(map(len, usable.values())) < 2:
        return None
    counts = {s: rng.randint(1, min(MAX_PER_SIDE, len(cs))) if cs else 0 for s, cs in usable.items()}
    if sum(counts.values()) < 2:  # one side with a single usable cluster: take two from the other
        side = max(usable, key=lambda s: len(usable[s]))
        counts[side] = min(2, len(usable[side]))
        if sum(counts.values()) < 2:
            counts = {s: min(1, len(cs)) for s, cs in usable.items()}
    perspectives, texts, provenance, parts = [], {}, [], []
    for stance in ("pro", "con"):
        if not counts[stance]:
            continue
        p = len(perspectives)
        chosen = rng.sample(usable[stance], counts[stance])
        arguments = []
        for a, cluster in enumerate(chosen):
            given, stated = rng.sample(cluster.members, 2)
            arguments.append(casing.sentence(given[1]))
            texts[(p, a)] = stated[1]
            provenance.append(
                {
                    "perspective": p,
                    "argument": a,
                    "pid": given[0],
                    "stated_pid": stated[0],
                    "cluster": [pid for pid, _ in cluster.members],
                }
            )
        perspectives.append(Perspective(stance, tuple(arguments)))
        order = list(range(len(arguments)))
        rng.shuffle(order)
        parts.append((stance, [(p, a) for a in order]))
    if len(parts) == 2 and rng.random() < 0.3:
        parts.reverse()
    response, spans = compose(rng, claim.text, parts, texts, casing)
    query = rng.choice(QUERIES).format(c=casing.inner(claim.text))
    example = Example(
        id=f"perspectrum-{claim.id}-{variant}",
        query=query[0].upper() + query[1:],
        perspectives=tuple(perspectives),
        response=response,
        topic=claim.text,
        labels=Labels(hallucination=False, coverage_error=False, kind="paraphrased", ambiguous=False),
        split=claim.split,
        extra={SOURCE_FIELD: {"claim": claim.id, "arguments": provenance}},
    )
    return with_verbalizations(example, spans)


def coverage_pool(claim: PerspectrumClaim, example: Example) -> tuple[dict, dict]:
    """Clusters of the claim that the example does not use, by (topic, perspective name): one
    seeded member each; and the pid of each such text."""
    used = {pid for entry in example.extra[SOURCE_FIELD]["arguments"] for pid in entry["cluster"]}
    rng = _rng(0, example.id, "pool")
    pool, pid_of = {}, {}
    for perspective in example.perspectives:
        texts = []
        for cluster in claim.clusters:
            if cluster.stance != perspective.name or used & {pid for pid, _ in cluster.members}:
                continue
            pid, text = rng.choice(cluster.members)
            texts.append(text)
            pid_of[text] = pid
        if texts:
            pool[(example.topic, perspective.name)] = texts
    return pool, pid_of


def build(
    splits: Sequence[str] = ALLOWED_SPLITS,
    *,
    folder: Path | None = None,
    seed: int = 0,
    variants: int = 3,
    synthetic: bool = True,
    isolate_dev: bool = True,
) -> list[Example]:
    """Error-free examples of every claim of `splits` and, with `synthetic`, their synthetic errors."""
    claims = load_claims(splits, folder, isolate_dev=isolate_dev)
    casing = Casing(text for claim in claims for cluster in claim.clusters for _, text in cluster.members)
    examples = []
    for claim in claims:
        for variant in range(variants):
            example = clean_example(claim, variant, seed, casing)
            if example is None:
                continue
            examples.append(example)
            if not synthetic:
                continue
            hallucination = make_hallucination(example, seed)
            if hallucination is not None:
                examples.append(hallucination)
            pool, pid_of = coverage_pool(claim, example)
            coverage = make_coverage_error(example, pool, seed)
            if coverage is not None:
                added = coverage.extra["synthetic"]["added"]
                source = dict(coverage.extra[SOURCE_FIELD]) | {"added_pid": pid_of[added["text"]]}
                coverage = coverage.replace(extra=dict(coverage.extra) | {SOURCE_FIELD: source})
                examples.append(coverage)
    return examples


def used_pids(example: Example) -> set[int]:
    """Every Perspectrum perspective id whose text the example holds."""
    source = example.extra.get(SOURCE_FIELD, {})
    pids = {entry["pid"] for entry in source.get("arguments", ())}
    pids |= {entry["stated_pid"] for entry in source.get("arguments", ())}
    if "added_pid" in source:
        pids.add(source["added_pid"])
    pids |= set(source.get("extra_pids", ()))  # unprovided arguments woven in (explorer.data.perspectrum_answers)
    return pids


def _user_path(text: str) -> Path:
    return Path(text).expanduser()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The builder's options, shared by `python -m explorer.data.perspectrum` and `explorer build-data`."""
    parser.add_argument("--out", type=_user_path, required=True, help="output JSON Lines (outside the repository)")
    parser.add_argument("--splits", default="train,dev", help="comma-separated, among train,dev (default both)")
    parser.add_argument("--seed", type=console.SEED, default=0)
    parser.add_argument("--variants", type=console.VARIANTS, default=3, help="examples per claim (default 3)")
    parser.add_argument("--no-synthetic", action="store_true", help="error-free examples only")
    parser.add_argument(
        "--data", type=_user_path, help="Perspectrum folder (default: $EXPLORER_SHARED_DATA/perspectrum)"
    )


def run(args: argparse.Namespace) -> int:
    """Build and write the examples; a test split asked for raises `ValueError`, missing
    Perspectrum files `FileNotFoundError`. Where the output may go is checked before (by
    `explorer.cli.guard`, or `main`): nowhere inside the repository or the input folder."""
    out = args.out.resolve()
    examples = build(
        args.splits.split(","),
        folder=args.data,
        seed=args.seed,
        variants=args.variants,
        synthetic=not args.no_synthetic,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    write_jsonl(examples, out)
    counts = Counter((e.split, e.labels.kind, e.labels.hallucination, e.labels.coverage_error) for e in examples)
    print(f"wrote {len(examples)} examples to {out}", file=sys.stderr)
    for (split, kind, h, c), n in sorted(counts.items()):
        print(f"  {split:<5} {kind:<22} hallucination={h!s:<5} coverage_error={c!s:<5} {n}", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    from explorer.cli.guard import Files, declare

    parser = argparse.ArgumentParser(prog="python -m explorer.data.perspectrum", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    declare(parser, Files(inputs=("data",), output="out", third_party=True))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from explorer.cli import extras, guard

    return guard.main(build_parser(), argv, extras.run_build_data)  # what `explorer build-data` runs


if __name__ == "__main__":
    sys.exit(main())
