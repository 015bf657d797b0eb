"""Team-written twins for the meaning judge: one argument, a statement of it said in other words,
and the same statement with its meaning turned by the fewest words.

    python -m explorer.data.written_pairs --check training_data/judge/*.jsonl
    python -m explorer.data.written_pairs --out ~/.cache/rag-error-explorer/twins.jsonl  # with arguments
    python -m explorer.data.written_pairs --inputs 3   # what the third hand was given

Rules turn the words the argument uses ("cheaper" -> "more expensive"); a real answer rewords
first ("costs less", "Nor would it do away with ..."), and a judge that learnt only from rules reads
a reworded negation or comparison as turned. These twins teach the difference: the faithful side
changes the wording and keeps the meaning, its twin changes the meaning and keeps the wording.
Written by several hands (helper agents, each with its own instructions: `training_data/judge/
RECIPE.md`) on Perspectrum **train** claims. As in the written corpus
(`explorer.data.written`), the repository keeps only what the team wrote; the argument is a
Perspectrum perspective id, read from `../shared/data` when the pairs are built.

One record a line:

    {"claim": 2, "pid": 15, "twin": "a", "label": "states", "how": "restated-negation",
     "frame": "faq", "text": "..."}
    {"claim": 2, "pid": 15, "twin": "a", "label": "misstates", "how": "negation",
     "frame": "faq", "text": "...", "changed": "the words of text that turn the meaning"}
    {"claim": 2, "pid": 15, "label": "absent", "how": "same-topic", "frame": "plain", "text": "..."}

A twin (`claim`, `pid`, `twin`) has one *states* line and one or more *misstates* lines, each
sharing most of its words; `changed` is found exactly once in its text. An *absent* line is on
the claim's topic and does not state the argument. The check names the file, the line and the
field of every bad record and keeps the good ones.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from explorer.config import CHECKOUT
from explorer.data.labels import JUDGE_LABELS
from explorer.data.perspectrum_claims import PerspectrumClaim, load_claims
from explorer.data.written import CorpusError, _once, records
from explorer.files import atomic_writer

PAIRS_DIR = CHECKOUT / "training_data" / "judge"
WORDS = (4, 80)  # a statement's length in words, inclusive
TWIN_OVERLAP = 0.4  # the least share of words a misstatement keeps from its faithful twin


@dataclass(frozen=True)
class WrittenPair:
    """One checked line: `argument` is the perspective's text, `changed` a span of `text`."""

    argument: str
    text: str
    label: str
    how: str
    topic: str
    changed: tuple[int, int] | None
    where: str


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9']+", text.lower()))


def _field(record: dict, name: str, kind: type, where: str):
    value = record.get(name)
    if not isinstance(value, kind) or (isinstance(value, str) and not value.strip()):
        raise CorpusError(where, name, f"must be a non-empty {kind.__name__}")
    return value


def _pair(record, claims: dict[int, PerspectrumClaim], where: str) -> tuple[WrittenPair, tuple | None]:
    if not isinstance(record, dict):
        raise CorpusError(where, "line", "must be a JSON object")
    claim = claims.get(_field(record, "claim", int, where))
    if claim is None:
        raise CorpusError(where, "claim", f"{record['claim']} is not a claim of Perspectrum's train split")
    members = {pid: text for cluster in claim.clusters for pid, text in cluster.members}
    pid = _field(record, "pid", int, where)
    if pid not in members:
        raise CorpusError(where, "pid", f"{pid} is not a perspective of claim {claim.id}")
    label = _field(record, "label", str, where)
    if label not in JUDGE_LABELS:
        raise CorpusError(where, "label", f"{label!r} is not one of {', '.join(JUDGE_LABELS)}")
    text = _field(record, "text", str, where)
    how = _field(record, "how", str, where)
    if not WORDS[0] <= len(text.split()) <= WORDS[1]:
        raise CorpusError(where, "text", f"must be {WORDS[0]} to {WORDS[1]} words")
    if " ".join(text.lower().split()) in {" ".join(t.lower().split()) for t in members.values()}:
        raise CorpusError(where, "text", "is a Perspectrum perspective word for word: write it in other words")
    changed = None
    if label == "misstates":
        changed = _once(text, record.get("changed"), where, "changed")
        if text[changed[0] - 1 : changed[0]].isalnum() or text[changed[1] : changed[1] + 1].isalnum():
            raise CorpusError(where, "changed", f"{record['changed']!r} cuts a word: quote whole words")
    elif "changed" in record:
        raise CorpusError(where, "changed", f"only a misstatement has changed words, not a {label} line")
    twin = None
    if label != "absent":
        twin = (claim.id, pid, str(_field(record, "twin", (str, int), where)))
    return WrittenPair(members[pid], text, label, how, claim.text, changed, where), twin


def _twin_errors(twins: dict[tuple, list[WrittenPair]]) -> list[CorpusError]:
    errors = []
    for key, pairs in twins.items():
        faithful = [p for p in pairs if p.label == "states"]
        turned = [p for p in pairs if p.label == "misstates"]
        where = pairs[0].where
        if len(faithful) != 1 or not turned:
            errors.append(CorpusError(where, "twin", f"{key[2]!r} needs one states line and a misstates line"))
            continue
        kept = _words(faithful[0].text)
        for pair in turned:
            overlap = len(kept & _words(pair.text)) / max(1, len(kept))
            if overlap < TWIN_OVERLAP:
                errors.append(
                    CorpusError(pair.where, "text", f"keeps {overlap:.0%} of its twin's words: turn fewer words")
                )
    return errors


def check(paths: Sequence[Path], folder: Path | None = None) -> tuple[list[WrittenPair], list[CorpusError]]:
    """Every good line of `paths` and a `CorpusError` for each bad one; a twin with a problem is
    dropped whole (its faithful side alone would teach nothing the rules do not)."""
    claims = {claim.id: claim for claim in load_claims(["train"], folder)}
    kept, errors, seen = [], [], set()
    twins: dict[tuple, list[WrittenPair]] = defaultdict(list)
    for _, where, record in records([Path(p) for p in paths], errors):
        try:
            pair, twin = _pair(record, claims, where)
        except CorpusError as error:
            errors.append(error)
            continue
        if (pair.argument, pair.text) in seen:
            errors.append(CorpusError(where, "text", "is written twice for this argument"))
            continue
        seen.add((pair.argument, pair.text))
        (twins[twin] if twin else kept).append(pair)
    bad = _twin_errors(twins)
    dropped = {e.where for e in bad}
    for pairs in twins.values():
        if not any(p.where in dropped for p in pairs):
            kept += pairs
    return kept, errors + bad


# Each round of hands: its seed, hands, claims a hand, and the fewest clusters a claim has.
ROUNDS = ((47, 5, 22, 3), (48, 4, 19, 2), (49, 3, 10, 2))


def hand_inputs(claims: Sequence[PerspectrumClaim]) -> list[list[dict]]:
    """What each hand was given, round by round (`ROUNDS`): claims of the judge's half of
    Perspectrum train (`topic_half`), disjoint between hands, with one random member of each
    cluster."""
    from explorer.training.data import topic_half

    half = [c for c in claims if topic_half(c.text) == "components"]
    given, used = [], set()
    for seed, hands, per_hand, least in ROUNDS:
        rng = random.Random(seed)
        chosen = [c for c in half if len(c.clusters) >= least and c.id not in used]
        rng.shuffle(chosen)
        for k in range(hands):
            given.append([])
            for claim in chosen[k * per_hand : (k + 1) * per_hand]:
                used.add(claim.id)
                members = [(rng.choice(c.members), c.stance) for c in claim.clusters]
                perspectives = [{"pid": pid, "stance": stance, "text": text} for (pid, text), stance in members]
                given[-1].append({"claim": claim.id, "claim_text": claim.text, "perspectives": perspectives})
    return given


def pair_files(folder: Path = PAIRS_DIR) -> list[Path]:
    return sorted(folder.glob("*.jsonl"))


def build_parser() -> argparse.ArgumentParser:
    from explorer import console
    from explorer.cli.guard import Files, declare

    parser = argparse.ArgumentParser(prog="python -m explorer.data.written_pairs", description=__doc__.split("\n")[0])
    parser.add_argument("pairs", nargs="*", type=Path, metavar="FILE", help="default: training_data/judge/*.jsonl")
    parser.add_argument("--check", action="store_true", help="check the files and list every problem")
    parser.add_argument("--out", type=Path, help="write the checked lines with their arguments (third-party text)")
    parser.add_argument("--data", type=Path, help="the Perspectrum folder (default: ../shared/data/perspectrum)")
    hands = sum(round[1] for round in ROUNDS)
    parser.add_argument(
        "--inputs",
        type=console.bounded(int, 1, hands),
        metavar="HAND",
        help=f"print what hand HAND (1-{hands}) was given and stop",
    )
    also_read = lambda args: args.pairs or pair_files()  # noqa: E731
    declare(parser, Files(inputs=("pairs", "data"), also_read=also_read, output="out", third_party=True))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from explorer.cli import guard

    return guard.main(build_parser(), argv, run)


def run(args: argparse.Namespace) -> int:
    if args.inputs is not None:
        for item in hand_inputs(load_claims(["train"], args.data))[args.inputs - 1]:
            print(json.dumps(item, ensure_ascii=False))
        return 0
    pairs, errors = check(args.pairs or pair_files(), args.data)
    for error in errors:
        print(error, file=sys.stderr)
    counts = {label: sum(p.label == label for p in pairs) for label in JUDGE_LABELS}
    print(f"{len(pairs)} good lines ({', '.join(f'{k} {v}' for k, v in counts.items())}); {len(errors)} problems")
    if args.out and not args.check:
        with atomic_writer(args.out) as out:
            for pair in pairs:
                out.write(json.dumps(asdict(pair), ensure_ascii=False) + "\n")
        print(f"wrote {len(pairs)} lines to {args.out}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
