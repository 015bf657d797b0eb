"""The team-written corpus: realistic NPOV answers on Perspectrum **train** claims, with exact error spans.

    python -m explorer.data.written --check training_data/written/*.jsonl
    python -m explorer.data.written --out ~/.cache/rag-error-explorer/written.jsonl

Answers were written by several hands (one file each under `training_data/written/`), each with
its own instructions, in the styles real chat assistants use (openers and closing lines, bullets,
markdown headers, either side first, heavy paraphrase), the way MiniCheck and LettuceDetect
synthesize their training data with strong LLMs. `training_data/written/RECIPE.md` gives the
instructions. The repository keeps only what the team wrote: each record names its arguments by
Perspectrum perspective id (`pids`), and the argument text is read from `../shared/data` when the
corpus is built, never copied into the repository.

One record a line:

    {"claim": 301, "pids": {"pro-1": 2228, "con-1": 23035}, "variant": "hallucination",
     "ambiguous_type": null, "style": "bullets", "query": "...", "response": "...",
     "invented": ["exact words of the response that no argument gives"],
     "dropped": [{"argument": "con-1", "part": null | "the words of the argument left out"}]}

`variant` is one of `VARIANTS`; `invented` marks only the invented words (not the sentence that
carries them); `dropped` names a whole argument left out (`part: null`) or the part of it left
out (the words as written; `--store` turns them into a `[start, end]` span of the argument, so
that no argument text stays in the repository). The check refuses a record whose labels disagree
with its variant, whose spans are not found exactly once, or whose claim or perspectives are not
in Perspectrum's train split; the problem names the file, the line and the field, and the other
records are kept.

Records of the second recipe (up to five arguments a side, answers up to 400 words) also say
where the answer states each argument and how it goes wrong, which a judge of each argument
against the words that state it learns from:

    "stated": {"pro-1": ["the exact words stating it", "..."], ...},
    "distorted": [{"argument": "con-2", "text": "the exact words misstating it",
                   "changed": "the words in it that turn its meaning", "how": "negation"}],
    "invented": [{"text": "exact words", "kind": "rebuttal"}, ...]

Every argument is then stated, distorted or dropped whole (one only; a part dropped is stated in
the rest); a `distortion` answer states every argument, one with its meaning turned (a
hallucination and a coverage error at once: its words are invented, its argument is not given).
The built example keeps them as `argument_spans` (per perspective, per argument, the list of
spans that state it; the foreign dev sets give one span per argument, which `argument_statements`
reads too), `distortions` and `inventions`.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from explorer.config import CHECKOUT
from explorer.data.example import AMBIGUOUS_TYPES, Example, Labels, Perspective, UncoveredArgument
from explorer.data.jsonl import loads, write_jsonl
from explorer.data.perspectrum_claims import PerspectrumClaim, load_claims
from explorer.files import MAX_INPUT_BYTES, atomic_writer, read_regular

CORPUS_DIR = CHECKOUT / "training_data" / "written"
# The second recipe's hands (`RECIPE.md`), kept apart so that a build of the first, which the
# shipped models record as their data, stays what it was.
SECOND_DIR = CORPUS_DIR / "second"
SOURCE = "written"
VARIANTS = ("clean", "hallucination", "coverage", "both", "ambiguous", "distortion")
# How a distortion turns an argument's meaning, and what kind of thing an invention adds.
DISTORTIONS = ("negation", "antonym", "comparative", "quantity", "role", "cause", "scope", "modality")
INVENTION_KINDS = (
    "statistic",
    "study",
    "example",
    "reason",
    "extra_argument",
    "quote",
    "law",
    "history",
    "definition",
    "consequence",
    "rebuttal",
    "consensus",
    "conclusion",
)
SIDES = ("pro", "con")
_REF = re.compile(r"^(pro|con)-([1-9])$")
# What each ambiguous type marks: invented words (hallucination) and/or a dropped part (coverage).
AMBIGUOUS_MARKS = {
    "partial_hallucination": (True, False),
    "partial_coverage": (False, True),
    "repetition": (True, False),
    "perspective_confusion": (True, False),
}
MIN_WORDS, MAX_WORDS = 15, 600
# What a record may hold: what the team wrote and the perspective ids, never argument text.
RECORD_KEYS = frozenset(
    {"claim", "pids", "variant", "ambiguous_type", "style", "query", "response", "invented", "dropped", "n"}
    | {"stated", "distorted"}
)


class CorpusError(ValueError):
    def __init__(self, where: str, field: str, problem: str):
        super().__init__(f"{where}: {field}: {problem}")
        self.where, self.field, self.problem = where, field, problem


@dataclass(frozen=True)
class Checked:
    examples: list[Example]
    errors: list[CorpusError]


def _once(haystack: str, needle: str, where: str, field: str) -> tuple[int, int]:
    if not isinstance(needle, str) or not needle.strip():
        raise CorpusError(where, field, "must be a non-empty string")
    start = haystack.find(needle)
    if start < 0:
        raise CorpusError(where, field, f"{needle[:60]!r} is not in the text")
    if haystack.find(needle, start + 1) >= 0:
        raise CorpusError(where, field, f"{needle[:60]!r} occurs more than once; quote more words")
    return start, start + len(needle)


def _part(argument: str, part, where: str, field: str) -> tuple[int, int]:
    """The span of `part` in the argument: a `[start, end]` pair (as stored) or the words (as written)."""
    if isinstance(part, list):
        if len(part) == 2 and all(isinstance(x, int) for x in part) and 0 <= part[0] < part[1] <= len(argument):
            return part[0], part[1]
        raise CorpusError(where, field, f"{part!r} is not a [start, end] span inside the argument")
    return _once(argument, part, where, field)


def _perspectives(
    record: dict, claim: PerspectrumClaim, where: str
) -> tuple[tuple[Perspective, ...], dict[str, tuple[int, int]]]:
    pids = record.get("pids")
    if not isinstance(pids, dict) or not pids:
        raise CorpusError(where, "pids", "must map argument names (pro-1, con-2, ...) to perspective ids")
    texts = {pid: text for cluster in claim.clusters for pid, text in cluster.members}
    stance = {pid: cluster.stance for cluster in claim.clusters for pid, _ in cluster.members}
    by_side: dict[str, list[tuple[int, str, str]]] = {side: [] for side in SIDES}
    for ref, pid in pids.items():
        match = _REF.match(str(ref))
        if not match:
            raise CorpusError(where, f"pids.{ref}", "argument names are pro-N or con-N")
        if not isinstance(pid, int) or pid not in texts:
            raise CorpusError(where, f"pids.{ref}", f"{pid!r} is not a usable train perspective of claim {claim.id}")
        if stance[pid] != match[1]:
            raise CorpusError(where, f"pids.{ref}", f"perspective {pid} is {stance[pid]}, not {match[1]}")
        by_side[match[1]].append((int(match[2]), ref, texts[pid]))
    perspectives, place = [], {}
    for side in SIDES:
        if not by_side[side]:
            continue
        ordered = sorted(by_side[side])
        for a, (_, ref, _) in enumerate(ordered):
            place[ref] = (len(perspectives), a)
        perspectives.append(Perspective(side, tuple(text for _, _, text in ordered)))
    return tuple(perspectives), place


def _invented(record: dict, response: str, where: str) -> list[tuple[tuple[int, int], str | None]]:
    """Each invented span with its kind (None in records of the first recipe, which name none)."""
    found = []
    for i, item in enumerate(record.get("invented") or []):
        text, kind = (item, None) if isinstance(item, str) else (item.get("text"), item.get("kind"))
        if not isinstance(item, str) and (not isinstance(item, dict) or kind not in INVENTION_KINDS):
            raise CorpusError(where, f"invented[{i}].kind", f"must be one of {', '.join(INVENTION_KINDS)}")
        found.append((_once(response, text, where, f"invented[{i}]"), kind))
    return found


def _distorted(record: dict, place, response: str, where: str) -> list[dict]:
    found = []
    for i, item in enumerate(record.get("distorted") or []):
        if not isinstance(item, dict) or item.get("argument") not in place:
            raise CorpusError(where, f"distorted[{i}].argument", f"must name one of {', '.join(place)}")
        if item.get("how") not in DISTORTIONS:
            raise CorpusError(where, f"distorted[{i}].how", f"must be one of {', '.join(DISTORTIONS)}")
        start, end = _once(response, item.get("text"), where, f"distorted[{i}].text")
        changed = _once(response[start:end], item.get("changed"), where, f"distorted[{i}].changed")
        p, a = place[item["argument"]]
        found.append(
            {
                "perspective": p,
                "argument": a,
                "span": [start, end],
                "changed": [start + changed[0], start + changed[1]],
                "how": item["how"],
            }
        )
    return found


def _argument_spans(record: dict, perspectives, place, response: str, distorted, dropped, where: str):
    """Per perspective, per argument, the spans that state it; every argument is stated, distorted
    or dropped whole, one only (a part dropped is stated in the rest)."""
    stated = record["stated"]
    if not isinstance(stated, dict):
        raise CorpusError(where, "stated", "must map argument names to the exact words that state them")
    spans = [[[] for _ in p.arguments] for p in perspectives]
    for ref, texts in stated.items():
        if ref not in place:
            raise CorpusError(where, f"stated.{ref}", f"is not one of {', '.join(place)}")
        if not isinstance(texts, list) or not texts:
            raise CorpusError(where, f"stated.{ref}", "must be a non-empty list of exact words of the response")
        p, a = place[ref]
        spans[p][a] = sorted(list(_once(response, text, where, f"stated.{ref}[{i}]")) for i, text in enumerate(texts))
    misstated = {(d["perspective"], d["argument"]) for d in distorted}
    whole = {(u.perspective, u.argument) for u in dropped if u.spans is None}
    for ref, (p, a) in place.items():
        ways = [bool(spans[p][a]), (p, a) in misstated, (p, a) in whole]
        if sum(ways) != 1:
            raise CorpusError(
                where, f"stated.{ref}", "every argument is stated, distorted or dropped whole: exactly one of them"
            )
    return spans


def _labels(record: dict, example_perspectives, place, response: str, where: str) -> tuple[Labels, dict]:
    """The gold labels, and what records of the second recipe add (`extra` of the example)."""
    variant = record.get("variant")
    if variant not in VARIANTS:
        raise CorpusError(where, "variant", f"must be one of {', '.join(VARIANTS)}, got {variant!r}")
    ambiguous_type = record.get("ambiguous_type")
    for name in ("invented", "dropped", "distorted"):
        if not isinstance(record.get(name) or [], list):
            raise CorpusError(where, name, "must be a list")
    invented = _invented(record, response, where)
    distorted = _distorted(record, place, response, where)
    dropped = record.get("dropped") or []
    spans = tuple(sorted([span for span, _ in invented] + [tuple(d["span"]) for d in distorted]))
    for (_, end), (start, _) in zip(spans, spans[1:]):
        if start < end:
            raise CorpusError(where, "invented", "spans overlap")
    uncovered = []
    for i, item in enumerate(dropped):
        ref = item.get("argument") if isinstance(item, dict) else None
        if ref not in place:
            raise CorpusError(where, f"dropped[{i}].argument", f"{ref!r} is not one of {', '.join(place)}")
        p, a = place[ref]
        part = item.get("part")
        argument = example_perspectives[p].arguments[a]
        part_spans = None if part is None else (_part(argument, part, where, f"dropped[{i}].part"),)
        uncovered.append(UncoveredArgument(p, a, part_spans))
    dropped_arguments = tuple(uncovered)
    uncovered += [UncoveredArgument(d["perspective"], d["argument"]) for d in distorted]
    hallucination, coverage = bool(spans), bool(uncovered)
    expected = {
        "clean": (False, False),
        "hallucination": (True, False),
        "coverage": (False, True),
        "both": (True, True),
        "distortion": (True, True),
    }
    if variant == "ambiguous":
        if ambiguous_type not in AMBIGUOUS_MARKS:
            raise CorpusError(where, "ambiguous_type", f"must be one of {', '.join(AMBIGUOUS_TYPES)}")
        wanted = AMBIGUOUS_MARKS[ambiguous_type]
    else:
        if ambiguous_type is not None:
            raise CorpusError(where, "ambiguous_type", f"only an ambiguous variant has one, not {variant}")
        wanted = expected[variant]
    if (hallucination, coverage) != wanted:
        raise CorpusError(
            where,
            "invented/dropped",
            f"a {ambiguous_type or variant} answer marks invented words: {wanted[0]}, a dropped argument: "
            f"{wanted[1]}; this one marks {hallucination} and {coverage}",
        )
    if (variant == "distortion") != bool(distorted) or (distorted and (invented or dropped)):
        raise CorpusError(where, "distorted", "a distortion answer, and only it, misstates one argument and no more")
    second_recipe = "stated" in record
    if variant != "ambiguous" and not second_recipe and any(u.spans is not None for u in uncovered):
        raise CorpusError(where, "dropped", "a part of an argument left out is an ambiguous partial_coverage answer")
    extra = {}
    if second_recipe:
        extra = {
            "argument_spans": _argument_spans(
                record, example_perspectives, place, response, distorted, dropped_arguments, where
            ),
            "distortions": distorted,
            "inventions": [{"span": list(span), "kind": kind} for span, kind in invented],
        }
    labels = Labels(
        hallucination=hallucination,
        coverage_error=coverage,
        kind="organic",
        ambiguous=variant == "ambiguous",
        ambiguous_type=ambiguous_type,
        hallucinated_spans=spans,
        uncovered=tuple(uncovered),
    )
    return labels, extra


def to_example(record: dict, claims: dict[int, PerspectrumClaim], where: str, hand: str) -> Example:
    if not isinstance(record, dict):
        raise CorpusError(where, "record", "must be a JSON object")
    unknown = sorted(set(record) - RECORD_KEYS)
    if unknown:
        raise CorpusError(where, unknown[0], f"is not a field of a corpus record ({', '.join(sorted(RECORD_KEYS))})")
    claim = claims.get(record.get("claim"))
    if claim is None:
        raise CorpusError(where, "claim", f"{record.get('claim')!r} is not a Perspectrum train claim")
    response, query = record.get("response"), record.get("query")
    for name, value in (("response", response), ("query", query)):
        if not isinstance(value, str) or not value.strip():
            raise CorpusError(where, name, "must be a non-empty string")
    words = len(response.split())
    if not MIN_WORDS <= words <= MAX_WORDS:
        raise CorpusError(where, "response", f"{words} words; an answer has {MIN_WORDS}-{MAX_WORDS}")
    if "{" in response or "}" in response:
        raise CorpusError(where, "response", "holds curly braces: a template left in the answer?")
    perspectives, place = _perspectives(record, claim, where)
    labels, added = _labels(record, perspectives, place, response, where)
    variant = record["variant"]
    return Example(
        id=f"written-{hand}-{claim.id}-{variant}" + (f"-{record['n']}" if "n" in record else ""),
        query=query.strip(),
        perspectives=perspectives,
        response=response,
        topic=claim.text,
        labels=labels,
        split="train",
        extra={"source": SOURCE, "variant": variant, "style": str(record.get("style", "")), "hand": hand, **added},
    )


def records(paths: Sequence[Path], errors: list[CorpusError]) -> Iterator[tuple[Path, str, object]]:
    """Each JSON line of `paths` (sorted) as (its file, "file:line", the record); a file not UTF-8
    or a line not JSON becomes a `CorpusError` in `errors` and the rest is read. Raises `OSError`
    for a file that cannot be read (only a regular file of bounded size is)."""
    for path in sorted(paths):
        try:
            text = read_regular(path, MAX_INPUT_BYTES).decode("utf-8")
        except UnicodeDecodeError as error:
            errors.append(CorpusError(path.name, "file", f"not UTF-8 (byte {error.start + 1})"))
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            where = f"{path.name}:{number}"
            try:
                yield path, where, loads(line)
            except json.JSONDecodeError as error:
                errors.append(CorpusError(where, "line", f"not JSON ({error.msg})"))


def check(paths: Sequence[Path], folder: Path | None = None) -> Checked:
    """Every record of `paths` as an `Example` (train split), and a `CorpusError` for each bad one.
    Raises `OSError` for a file that cannot be read (only a regular file of bounded size is)."""
    claims = {claim.id: claim for claim in load_claims(["train"], folder)}
    examples, errors, seen = [], [], set()
    for path, where, record in records(paths, errors):
        try:
            example = to_example(record, claims, where, path.stem)
        except CorpusError as error:
            errors.append(error)
            continue
        if example.id in seen:
            errors.append(CorpusError(where, "variant", f'{example.id} is written twice (add "n": 2)'))
            continue
        seen.add(example.id)
        examples.append(example)
    return Checked(examples, errors)


def store(path: Path, folder: Path | None = None) -> None:
    """Rewrite a checked corpus file with every dropped part as a `[start, end]` span of its argument."""
    claims = {claim.id: claim for claim in load_claims(["train"], folder)}
    lines = []
    for line in Path(path).read_text("utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        example = to_example(record, claims, str(path), path.stem)
        for item, uncovered in zip(record.get("dropped") or [], example.labels.uncovered):
            item["part"] = None if uncovered.spans is None else list(uncovered.spans[0])
        lines.append(json.dumps(record, ensure_ascii=False))
    with atomic_writer(Path(path)) as out:
        out.write("\n".join(lines) + "\n")


def corpus_files(folder: Path = CORPUS_DIR) -> list[Path]:
    return sorted(folder.glob("*.jsonl"))


def summary(examples: Iterable[Example]) -> str:
    examples = list(examples)
    variants = Counter(e.extra["variant"] for e in examples)
    hands = Counter(e.extra["hand"] for e in examples)
    claims = len({e.topic for e in examples})
    return (
        f"{len(examples)} examples on {claims} claims; "
        + ", ".join(f"{v} {variants[v]}" for v in VARIANTS)
        + "; hands: "
        + ", ".join(f"{h} {n}" for h, n in sorted(hands.items()))
    )


def argument_statements(example: Example) -> dict[tuple[int, int], list[tuple[int, int]]]:
    """Where the response states each argument, from the example's `argument_spans` (a list of
    spans per argument here, one span per argument in the foreign dev sets); arguments it does not
    state are absent."""
    found = {}
    for p, per_argument in enumerate(example.extra.get("argument_spans") or []):
        for a, spans in enumerate(per_argument):
            if spans and isinstance(spans[0], int):
                spans = [spans]
            if spans:
                found[(p, a)] = sorted(tuple(span) for span in spans)
    return found


def hand_inputs(claims: Sequence[PerspectrumClaim], used: set[int], seed: int) -> list[dict]:
    """What a hand of the second recipe writes on: train claims with both sides, those no file uses
    yet first, each with one to five arguments a side (more often three to five), each a random
    member of a distinct cluster (seeded)."""
    rng = random.Random(seed)
    order = sorted(claims, key=lambda c: (c.id in used, rng.random()))
    inputs = []
    for claim in order:
        by_side = {side: [c for c in claim.clusters if c.stance == side] for side in SIDES}
        if not all(by_side.values()) or sum(map(len, by_side.values())) < 3:
            continue
        pids, arguments = {}, {}
        for side, clusters in by_side.items():
            count = min(len(clusters), rng.choice((1, 2, 3, 3, 4, 4, 5, 5)))
            for n, cluster in enumerate(rng.sample(clusters, count), 1):
                pid, text = rng.choice(cluster.members)
                pids[f"{side}-{n}"], arguments[f"{side}-{n}"] = pid, text
        inputs.append({"claim": claim.id, "claim_text": claim.text, "pids": pids, "arguments": arguments})
    return inputs


def build_parser() -> argparse.ArgumentParser:
    from explorer import console
    from explorer.cli.guard import Files, declare

    parser = argparse.ArgumentParser(prog="python -m explorer.data.written", description=__doc__.split("\n")[0])
    parser.add_argument(
        "corpus", nargs="*", type=Path, metavar="FILE", help="corpus files (default: training_data/written/*.jsonl)"
    )
    parser.add_argument("--check", action="store_true", help="only check the files and list every problem")
    parser.add_argument("--out", type=Path, help="write the checked examples here (JSON Lines; third-party text)")
    parser.add_argument("--store", action="store_true", help="rewrite the files with each dropped part as a span")
    parser.add_argument("--data", type=Path, help="the Perspectrum folder (default: ../shared/data/perspectrum)")
    parser.add_argument(
        "--inputs",
        type=console.CLAIMS,
        metavar="N",
        help="print N hands' inputs of the second recipe (claims, argument ids and texts) and stop",
    )
    parser.add_argument(
        "--skip", type=console.CLAIMS_SKIPPED, default=0, help="with --inputs: leave out the first SKIP claims"
    )
    parser.add_argument(
        "--seed", type=console.SEED, default=0, help="with --inputs: the seed of the claims and arguments"
    )
    # --store rewrites the corpus files in place: that is what it is for; --out never may.
    files = Files(
        inputs=("corpus", "data"), also_read=lambda args: args.corpus or corpus_files(), output="out", third_party=True
    )
    declare(parser, files)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from explorer.cli import guard

    return guard.main(build_parser(), argv, run)


def run(args: argparse.Namespace) -> int:
    files = args.corpus or corpus_files()
    if args.inputs is not None:
        used = {
            json.loads(line)["claim"]
            for path in files
            for line in read_regular(path, MAX_INPUT_BYTES).decode("utf-8").splitlines()
            if line
        }
        for item in hand_inputs(load_claims(["train"], args.data), used, args.seed)[
            args.skip : args.skip + args.inputs
        ]:
            print(json.dumps(item, ensure_ascii=False))
        return 0
    checked = check(files, args.data)
    for error in checked.errors:
        print(error, file=sys.stderr)
    print(summary(checked.examples))
    if args.store and not checked.errors:
        for path in files:
            store(path, args.data)
    if args.out and not args.check:
        if checked.examples:
            write_jsonl(checked.examples, args.out)
            print(f"wrote {len(checked.examples)} examples to {args.out}")
        else:
            print(f"no record could be read: {args.out} was not written", file=sys.stderr)
    return 1 if checked.errors else 0


if __name__ == "__main__":
    sys.exit(main())
