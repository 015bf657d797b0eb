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
- response: an intro sentence bridging from the query, then each part (pro then con, or con then
  pro) with a lead-in for each argument ("Supporters argue that ...", "They also ...",
  "In addition, ...", "Critics respond that ..."), the arguments in a shuffled order, and now and
  then two arguments merged into one sentence ("..., and they add that ...");
- `verbalizations` (see `explorer.data.synthetic`) records where each argument is stated, so the
  synthetic hallucinations get their spans;
- kind `paraphrased` (the response paraphrases its arguments, the paper's paraphrased set), error-free.

On top, the paper's synthetic errors (§4.2, `explorer.data.synthetic`), kind `synthetic_paraphrased`:
a hallucination (a stated argument removed from the input; its sentence is the span) and a
coverage error (a cluster of the same claim and stance that no argument uses added to the input,
one of its members as the argument; `uncovered` names it).

**The test split is never read.** Claim ids are filtered by `dataset_split_v1.0.json` before any
claim's text is touched, and asking for `test` raises. Perspectrum reuses some perspectives
(`pid`s) across claims of different splits; a perspective that also belongs to a test claim is
never used (only ids are compared), and with `isolate_dev` (default) train examples use no
perspective of a dev claim, so dev text is unseen in training.

The output holds third-party text (CC BY-SA 4.0): write it to a cache, never into the repository.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from explorer.config import CHECKOUT
from explorer.data.example import Example, Labels, Perspective
from explorer.data.jsonl import write_jsonl
from explorer.data.shared import shared_data_dir
from explorer.data.synthetic import make_coverage_error, make_hallucination, with_verbalizations

ALLOWED_SPLITS = ("train", "dev")
SPLIT_FILE = "dataset_split_v1.0.json"
CLAIMS_FILE = "perspectrum_with_answers_v1.0.json"
POOL_FILE = "perspective_pool_v1.0.json"
STANCES = {"SUPPORT": "pro", "UNDERMINE": "con"}
SOURCE_FIELD = "perspectrum"
MAX_PER_SIDE = 4


class TestSplitError(ValueError):
    """Someone asked for Perspectrum's reserved test split."""


@dataclass(frozen=True)
class Cluster:
    stance: str  # "pro" | "con"
    members: tuple[tuple[int, str], ...]  # (pid, text), usable members only, distinct texts


@dataclass(frozen=True)
class Claim:
    id: int
    split: str
    text: str
    clusters: tuple[Cluster, ...]


# --------------------------------------------------------------------------------------
# Reading (train and dev only)


def check_splits(splits: Iterable[str]) -> tuple[str, ...]:
    chosen = tuple(dict.fromkeys(splits))
    if "test" in chosen:
        raise TestSplitError("Perspectrum's test split is reserved for evaluation outside the team: never read it")
    unknown = [s for s in chosen if s not in ALLOWED_SPLITS]
    if unknown or not chosen:
        raise ValueError(f"splits must be among {', '.join(ALLOWED_SPLITS)}, got {', '.join(chosen) or 'none'}")
    return chosen


def perspectrum_dir(folder: Path | None = None) -> Path:
    return Path(folder) if folder else shared_data_dir("perspectrum") / "perspectrum"


def _normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\u2019", "'").replace("\u2018", "'")).strip()


def load_claims(
    splits: Sequence[str] = ALLOWED_SPLITS, folder: Path | None = None, *, isolate_dev: bool = True
) -> list[Claim]:
    """The claims of `splits` (train and/or dev, never test) with their usable clusters."""
    splits = check_splits(splits)
    folder = perspectrum_dir(folder)
    split_of = {int(cid): split for cid, split in json.loads((folder / SPLIT_FILE).read_text("utf-8")).items()}
    records = json.loads((folder / CLAIMS_FILE).read_text("utf-8"))
    # Only ids are compared before the filter: which perspectives a reserved (or dev) claim uses.
    reserved_pids: set[int] = set()
    dev_pids: set[int] = set()
    wanted = []
    for record in records:
        split = split_of.get(int(record["cId"]))
        pids = {int(pid) for cluster in record["perspectives"] for pid in cluster["pids"]}
        if split == "test" or split is None:
            reserved_pids |= pids
            continue
        if split == "dev":
            dev_pids |= pids
        if split in splits:
            wanted.append((split, record))
    banned = {"train": reserved_pids | (dev_pids if isolate_dev else set()), "dev": reserved_pids}
    needed = {int(pid) for _, record in wanted for cluster in record["perspectives"] for pid in cluster["pids"]}
    pool = {
        int(entry["pId"]): _normalize(entry["text"])
        for entry in json.loads((folder / POOL_FILE).read_text("utf-8"))
        if int(entry["pId"]) in needed
    }
    claims = []
    for split, record in wanted:
        clusters = []
        for cluster in record["perspectives"]:
            stance = STANCES.get(cluster.get("stance_label_3"))
            if stance is None:
                continue
            members, seen = [], set()
            for pid in map(int, cluster["pids"]):
                text = pool.get(pid, "")
                if pid in banned[split] or len(text.split()) < 3 or text.lower() in seen:
                    continue
                seen.add(text.lower())
                members.append((pid, text))
            if members:
                clusters.append(Cluster(stance, tuple(members)))
        claims.append(Claim(int(record["cId"]), split, _normalize(record["text"]), tuple(clusters)))
    return sorted(claims, key=lambda c: c.id)


# --------------------------------------------------------------------------------------
# Writing a response


QUERIES = (
    "Is it true that {c}?",
    "Do you agree that {c}?",
    "What are the arguments for and against the claim that {c}?",
    "Should we accept that {c}?",
    "What do both sides say about whether {c}?",
)
INTROS = (
    "Whether {c} is a contested question, and people see it differently.",
    "People disagree about whether {c}.",
    "The claim that {c} divides opinion, with arguments on both sides.",
    "There is no consensus on whether {c}.",
    "Opinions differ on the claim that {c}.",
    "Many people have asked whether {c}, and the debate has two sides.",
)
INTROS_ONE_SIDE = (
    "Some people hold a firm view on whether {c}.",
    "The question of whether {c} has drawn clear arguments.",
    "Here is what has been said about whether {c}.",
)
FIRST = {
    "pro": (
        "Supporters argue that {x}.",
        "Those in favour point out that {x}.",
        "Proponents say that {x}.",
        "On one side, {x}.",
        "One argument for it is that {x}.",
        "Advocates contend that {x}.",
    ),
    "con": (
        "Critics respond that {x}.",
        "Opponents argue that {x}.",
        "On the other hand, {x}.",
        "Those against it say that {x}.",
        "One argument against it is that {x}.",
        "Sceptics counter that {x}.",
    ),
}
NEXT = {
    "pro": (
        "They also argue that {x}.",
        "In addition, {x}.",
        "Moreover, {x}.",
        "They add that {x}.",
        "Another point in its favour is that {x}.",
        "Furthermore, {x}.",
        "Supporters also note that {x}.",
    ),
    "con": (
        "They also warn that {x}.",
        "Critics further argue that {x}.",
        "In addition, {x}.",
        "They point out, too, that {x}.",
        "Another objection is that {x}.",
        "Moreover, {x}.",
        "Opponents also say that {x}.",
    ),
}
LAST = ("Finally, {x}.", "Lastly, {x}.")
JOINERS = (", and they add that {x}.", ", and {x}.", "; they also say that {x}.", ", while {x}.")
MERGE_CHANCE = 0.25


class Casing:
    """Whether a sentence's first word may be lower-cased mid-sentence: only words the texts also
    write in lower case mid-sentence (so "The" becomes "the", "China" and "US" stay)."""

    def __init__(self, texts: Iterable[str]):
        lower, upper = Counter(), Counter()
        for text in texts:
            for word in re.findall(r"[A-Za-z']+", text)[1:]:
                (lower if word[0].islower() else upper)[word.lower()] += 1
        self.lower_ok = {word for word, n in lower.items() if n > upper.get(word, 0)}

    def inner(self, text: str) -> str:
        """`text` to follow "that ...": first word lower-cased when allowed, final stop removed."""
        text = text.strip().rstrip(".!;:").rstrip()
        first = re.match(r"[A-Za-z']+", text)
        if first and first.group(0)[0].isupper() and first.group(0).lower() in self.lower_ok:
            if first.group(0)[1:].islower() or len(first.group(0)) == 1:
                text = text[0].lower() + text[1:]
        return text

    def sentence(self, text: str) -> str:
        text = text.strip()
        text = text[0].upper() + text[1:] if text else text
        return text if text.endswith((".", "!", "?")) else text + "."


@dataclass
class _Piece:
    text: str
    ref: tuple[int, int] | None  # (perspective, argument) it states; None for the intro


def _part_sentences(
    rng: random.Random, stance: str, refs: list[tuple[int, int]], texts: dict, casing: Casing
) -> list[list[_Piece]]:
    """Sentences of one part, each a list of pieces (two when two arguments are merged)."""
    sentences: list[list[_Piece]] = []
    i = 0
    while i < len(refs):
        x = casing.inner(texts[refs[i]])
        if i == 0:
            lead = rng.choice(FIRST[stance])
        elif i == len(refs) - 1 and len(refs) > 2 and rng.random() < 0.5:
            lead = rng.choice(LAST)
        else:
            lead = rng.choice(NEXT[stance])
        first = lead.format(x=x)
        first = first[0].upper() + first[1:]
        if i + 1 < len(refs) and rng.random() < MERGE_CHANCE:
            joined = rng.choice(JOINERS).format(x=casing.inner(texts[refs[i + 1]]))
            sentences.append([_Piece(first[:-1], refs[i]), _Piece(joined, refs[i + 1])])
            i += 2
        else:
            sentences.append([_Piece(first, refs[i])])
            i += 1
    return sentences


def compose(
    rng: random.Random,
    claim_text: str,
    parts: Sequence[tuple[str, list[tuple[int, int]]]],
    texts: dict,
    casing: Casing,
) -> tuple[str, dict[tuple[int, int], tuple[tuple[int, int], ...]]]:
    """The response and, per argument, the span(s) stating it."""
    c = casing.inner(claim_text)
    intro = rng.choice(INTROS if len(parts) > 1 else INTROS_ONE_SIDE).format(c=c)
    sentences = [[_Piece(intro[0].upper() + intro[1:], None)]]
    for stance, refs in parts:
        sentences.extend(_part_sentences(rng, stance, refs, texts, casing))
    response, spans = "", {}
    for sentence in sentences:
        if response:
            response += " "
        for piece in sentence:
            start = len(response)
            response += piece.text
            if piece.ref is not None:
                # A merged second piece starts at its joiner's first word, not at ", and".
                offset = len(piece.text) - len(piece.text.lstrip(",; "))
                spans[piece.ref] = ((start + offset, len(response)),)
    return response, spans


# --------------------------------------------------------------------------------------
# Examples


def _rng(seed: int, *keys) -> random.Random:
    return random.Random("\n".join(map(str, (seed, *keys))))


def clean_example(claim: Claim, variant: int, seed: int, casing: Casing) -> Example | None:
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


def coverage_pool(claim: Claim, example: Example) -> tuple[dict, dict]:
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
    return pids


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The builder's options, shared by `python -m explorer.data.perspectrum` and `explorer build-data`."""
    parser.add_argument("--out", type=Path, required=True, help="output JSON Lines (outside the repository)")
    parser.add_argument("--splits", default="train,dev", help="comma-separated, among train,dev (default both)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variants", type=int, default=3, help="examples per claim (default 3)")
    parser.add_argument("--no-synthetic", action="store_true", help="error-free examples only")
    parser.add_argument("--data", type=Path, help="Perspectrum folder (default: $EXPLORER_SHARED_DATA/perspectrum)")


def run(args: argparse.Namespace) -> int:
    """Build and write the examples; a bad request (a test split, an output inside the repository)
    raises `ValueError`, missing Perspectrum files `FileNotFoundError`."""
    out = args.out.expanduser().resolve()
    if out.is_relative_to(CHECKOUT):
        raise ValueError(f"{out} is inside the repository; Perspectrum's text must not be copied into it")
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except ValueError as error:  # TestSplitError included
        parser.error(str(error))


if __name__ == "__main__":
    sys.exit(main())
