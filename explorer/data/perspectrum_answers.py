"""Training answers that read like a chat assistant's, with errors woven in at exact character
spans, built from Perspectrum's **train** claims only.

    python -m explorer.data.perspectrum_answers --out ~/.cache/rag-error-explorer/perspectrum-v2.jsonl
    python -m explorer.data.perspectrum_answers --invented arguments \\
        --out ~/.cache/rag-error-explorer/perspectrum-v2u.jsonl

The templated builder (`explorer.data.perspectrum`) adds or removes whole sentences of a fixed
shape, so a learner can tell its errors apart by form. Real answers differ in what this builder
adds (`explorer.data.answer_styles`, `explorer.data.answer_pools`): openers and closers of many
kinds (a restated question, "it depends on your values", "here is an overview", a summary),
bullets and markdown headers, sides in either order, merged sentences; and errors inside
fluent text. Per claim and variant one input (paraphrased: each argument is one member of its
Perspectrum cluster, the answer states another, as in `explorer.data.perspectrum`) and one answer
plan give, written in the same style so that each error is the only difference:

- `clean` (kind `paraphrased`): every argument stated, nothing added;
- `hallucination` (kind `organic`): one (now and then two) invented pieces, in rotation: a reason
  clause attached to a stated argument ("..., since ..."), a named example as a clause, another
  perspective of the same claim that the input does not give as a subordinate clause or a
  sentence, an invented attribution ("According to a 2014 OECD report, ..."), a statistic, a
  study, a named example, a court ruling or event, a quote, a predicted consequence, or an
  opener or closer that says something checkable (framing lines that do not are never errors);
- `coverage` (kind `organic`): one argument's statement left out;
- `both` (kind `organic`): one left out and one invented piece (sometimes an argument of the
  claim that the input lacks takes the dropped one's place);
- `ambiguous` (kind `organic`, hallucination): a qualifier strengthened ("may" -> "will"), an
  argument restated, or an argument voiced by the other side;
- the paper's synthetic errors of the clean answer (`explorer.data.synthetic`, kind
  `synthetic_paraphrased`): a stated argument removed from the input (its statement is the span)
  and an unused cluster's member added to it.

`hallucinated_spans` point at exactly the invented words (`answer.invented` repeats them, so a
test can check each span names its text). Perspectrum's test split is never read (the claims
come from `explorer.data.perspectrum_claims`, train only here); the content pools were written for
this project. Deterministic for a seed. The output holds third-party text: write it to a cache.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from explorer import console
from explorer.data import answer_pools as pools
from explorer.data.answer_styles import Plan, Statement, choose_style, frame_line, merge, render
from explorer.data.example import Example, Labels, UncoveredArgument
from explorer.data.jsonl import write_jsonl
from explorer.data.labels import has_error, kind_of
from explorer.data.perspectrum import SOURCE_FIELD, clean_example, coverage_pool
from explorer.data.perspectrum_claims import PerspectrumClaim, load_claims
from explorer.data.perspectrum_responses import Casing
from explorer.data.synthetic import make_coverage_error, make_hallucination, with_verbalizations

ANSWER_FIELD = "answer"
SPLITS = ("train",)
# Offsets the variant index so these inputs differ from the templated builder's of the same seed.
VARIANT_OFFSET = 100
AMBIGUOUS_TYPES = ("partial_hallucination", "repetition", "perspective_confusion")
# What the hallucinations invent: `any` piece above, or only `arguments`: the answers whose invented
# pieces include an argument of the claim that the input does not give (the unprovided clauses and
# sentences, and the "both" answers that state one in place of the dropped argument), no ambiguous
# ones. The `arguments` build trains the coverage tagger (`explorer.detectors.tagger`): added to the
# tagger's training data, it raised the tagger's coverage ROC AUC on the foreign dev set more than
# the `any` build did, and lowered its hallucination AUC less (README, "Token tagger").
INVENTED = ("any", "arguments")
WOVEN = (
    "reason",
    "example_clause",
    "unprovided_clause",
    "attribution",
    "statistic",
    "study",
    "example",
    "event",
    "quote",
    "consequence",
    "unprovided_sentence",
    "content_opener",
    "content_closer",
)
SENTENCES = {
    "statistic": pools.STATISTICS,
    "study": pools.STUDIES,
    "example": pools.EXAMPLE_SENTENCES,
    "event": pools.EVENTS,
    "quote": pools.QUOTES,
    "consequence": pools.CONSEQUENCES,
}


def _rng(seed: int, *keys) -> random.Random:
    return random.Random("\n".join(map(str, (seed, *keys))))


class Source:
    """One claim's input and what the plan may draw on: stated texts, spare cluster members."""

    def __init__(self, claim: PerspectrumClaim, example: Example, casing: Casing):
        self.claim, self.example, self.casing = claim, example, casing
        entries = example.extra[SOURCE_FIELD]["arguments"]
        text_of = {pid: text for cluster in claim.clusters for pid, text in cluster.members}
        self.stated = {(e["perspective"], e["argument"]): text_of[e["stated_pid"]] for e in entries}
        self.spares = {  # other members of a used cluster: restatements
            (e["perspective"], e["argument"]): [
                (pid, text_of[pid]) for pid in e["cluster"] if pid not in (e["pid"], e["stated_pid"]) and pid in text_of
            ]
            for e in entries
        }
        used = {pid for e in entries for pid in e["cluster"]}
        self.unused = [  # one member of each cluster the input does not use: unprovided arguments
            (c.stance, c.members) for c in claim.clusters if not used & {pid for pid, _ in c.members}
        ]

    def side_of(self, ref) -> str:
        return self.example.perspectives[ref[0]].name


def plan_answer(source: Source, rng: random.Random, questions: bool = False) -> Plan:
    """The clean answer's plan: parts in the input's order (or reversed), statements shuffled.
    `questions`: some queries are asked as users ask them (`answer_pools.yes_no_question`)."""
    example, casing = source.example, source.casing
    style = choose_style(rng)
    parts = []
    for p, perspective in enumerate(example.perspectives):
        order = list(range(len(perspective.arguments)))
        rng.shuffle(order)
        statements = [Statement(perspective.name, ((p, a),), (source.stated[(p, a)],)) for a in order]
        parts.append((perspective.name, statements))
    if len(parts) == 2 and rng.random() < 0.4:
        parts.reverse()
    claim = casing.inner(source.claim.text)
    query = rng.choice(pools.QUERIES).format(c=claim)
    # Its own draw, so that the rest of the plan (and every answer built from it) stays as before.
    question = pools.yes_no_question(claim) if questions else None
    if question is not None and random.Random(f"question\n{claim}\n{query}").random() < pools.QUESTION_CHANCE:
        query = question
    opener = frame_line(rng, pools.OPENERS, claim) if rng.random() < 0.8 else None
    closer = frame_line(rng, pools.CLOSERS, claim) if rng.random() < 0.65 else None
    return Plan(_cap(query), claim, parts, opener, closer, style)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _statements(plan: Plan) -> list[tuple[int, int]]:
    """(part, index) of every statement of a given argument."""
    return [(k, i) for k, (_, ss) in enumerate(plan.parts) for i, s in enumerate(ss) if s.refs and not s.error]


def _set(plan: Plan, k: int, i: int, statement: Statement | None) -> Plan:
    parts = [(side, list(ss)) for side, ss in plan.parts]
    if statement is None:
        del parts[k][1][i]
    else:
        parts[k][1][i] = statement
    return replace(plan, parts=parts)


def _insert(plan: Plan, k: int, i: int, statement: Statement) -> Plan:
    parts = [(side, list(ss)) for side, ss in plan.parts]
    parts[k][1].insert(i, statement)
    return replace(plan, parts=parts)


def _unprovided(source: Source, rng: random.Random, side: str | None = None):
    """A member of a cluster the input does not use (its side's when `side` has one): (side, pid, text)."""
    options = [(s, m) for s, m in source.unused if side is None or s == side] or source.unused
    if not options:
        return None
    stance, members = rng.choice(options)
    pid, text = rng.choice(members)
    return stance, pid, text


def weave(plan: Plan, source: Source, rng: random.Random, kind: str, pids: list[int]) -> Plan:
    """`plan` with one invented piece of `kind`."""
    c = plan.claim
    spots = _statements(plan)
    k, i = rng.choice(spots)
    target = plan.parts[k][1][i]
    if kind == "reason":
        words = rng.choice(("", "", "mainly ", "especially ", "partly ")) + rng.choice(pools.REASONS)
        return _set(plan, k, i, replace(target, clause=(", ", words)))
    if kind == "example_clause":
        words = _lower_first(pools.fill(rng.choice(pools.EXAMPLES), rng, c))
        return _set(plan, k, i, replace(target, clause=(", ", words)))
    if kind == "attribution":
        return _set(plan, k, i, replace(target, prefix=pools.fill(rng.choice(pools.ATTRIBUTIONS), rng, c)))
    if kind in ("unprovided_clause", "unprovided_sentence"):
        found = _unprovided(source, rng, plan.parts[k][0])
        if found is None:
            return weave(plan, source, rng, "reason", pids)
        _, pid, text = found
        pids.append(pid)
        y = source.casing.inner(text)
        if kind == "unprovided_clause":
            join = rng.choice(pools.UNPROVIDED_JOINS)
            return _set(plan, k, i, replace(target, clause=(join[:2], join[2:].format(y=y))))
        line = rng.choice(pools.UNPROVIDED_SENTENCES[plan.parts[k][0]]).format(y=y)
        return _insert(
            plan, k, rng.randint(0, len(plan.parts[k][1])), Statement(plan.parts[k][0], literal=line, error=True)
        )
    if kind == "content_opener":
        return replace(
            plan, opener=Statement("", literal=pools.fill(rng.choice(pools.CONTENT_OPENERS), rng, c), error=True)
        )
    if kind == "content_closer":
        return replace(
            plan, closer=Statement("", literal=pools.fill(rng.choice(pools.CONTENT_CLOSERS), rng, c), error=True)
        )
    line = pools.fill(rng.choice(SENTENCES[kind]), rng, c)
    return _insert(plan, k, i + rng.randint(0, 1), Statement(plan.parts[k][0], literal=line, error=True))


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def drop(plan: Plan, rng: random.Random):
    """`plan` without one argument's statement, and that argument; None when it would be empty."""
    spots = _statements(plan)
    if len(spots) < 2:
        return None, None, None
    k, i = rng.choice(spots)
    return _set(plan, k, i, None), plan.parts[k][1][i].refs[0], (k, i)


def ambiguous(plan: Plan, source: Source, rng: random.Random):
    """`plan` with an ambiguous hallucination and its type."""
    spots = _statements(plan)
    strengthenable = []
    for k, i in spots:
        words = set(source.casing.inner(plan.parts[k][1][i].texts[0]).split())
        strengthenable += [(k, i, w) for w in pools.STRENGTHEN if w in words]
    kinds = (
        ["repetition"]
        + (["strengthen"] * 2 if strengthenable else [])
        + (["confusion"] if len(plan.parts) == 2 else [])
    )
    chosen = rng.choice(kinds)
    if chosen == "strengthen":
        k, i, word = rng.choice(strengthenable)
        stronger = rng.choice(pools.STRENGTHEN[word])
        return _set(plan, k, i, replace(plan.parts[k][1][i], strengthen=(word, stronger))), "partial_hallucination"
    k, i = rng.choice(spots)
    statement = plan.parts[k][1][i]
    if chosen == "confusion":
        other = 1 - k
        moved = replace(statement, side=plan.parts[other][0], error=True)
        plan = _set(plan, k, i, None)
        return _insert(plan, other, rng.randint(0, len(plan.parts[other][1])), moved), "perspective_confusion"
    spare = source.spares.get(statement.refs[0]) or [(None, source.stated[statement.refs[0]])]
    again = rng.choice(pools.RESTATEMENTS).format(y=source.casing.inner(rng.choice(spare)[1]))
    return _insert(plan, k, i + 1, Statement(statement.side, literal=again, error=True)), "repetition"


def written(source: Source, plan: Plan, seed: int, name: str, labels: Labels, notes: dict) -> Example:
    """The example of `plan` (rendered with the clean answer's seed, so the twins share their words)."""
    rng = _rng(seed, source.claim.id, source.example.id, "render")
    plan = replace(
        plan, parts=[(side, merge(rng, ss, 1.0 if plan.style == "terse" else 0.25)) for side, ss in plan.parts]
    )
    out = render(rng, plan, source.casing)
    spans = tuple(out.invented)
    labels = replace(labels, hallucinated_spans=spans)
    extra = dict(source.example.extra)
    extra[SOURCE_FIELD] = dict(extra[SOURCE_FIELD]) | {"extra_pids": notes.pop("pids", [])}
    extra[ANSWER_FIELD] = {"style": plan.style, "invented": [out.text[s:e] for s, e in spans]} | notes
    example = source.example.replace(
        id=f"{source.example.id.replace('perspectrum-', 'answers-')}-{name}",
        query=plan.query,
        response=out.text,
        labels=labels,
        extra=extra,
    )
    return with_verbalizations(example, {ref: tuple(spans) for ref, spans in out.verbalizations.items()})


def examples_of(
    claim: PerspectrumClaim,
    variant: int,
    seed: int,
    casing: Casing,
    ambiguous_types: Sequence[str] = AMBIGUOUS_TYPES,
    invented: str = "any",
    questions: bool = False,
) -> list[Example]:
    """The clean answer of one input, its errors and its synthetic errors (`invented`: see `INVENTED`)."""
    base = clean_example(claim, VARIANT_OFFSET + variant, seed, casing)
    if base is None:
        return []
    source = Source(claim, base, casing)
    rng = _rng(seed, claim.id, variant, "plan")
    plan = plan_answer(source, rng, questions)
    made = [written(source, plan, seed, "clean", Labels(False, False, "paraphrased", False), {})]

    woven, pids = plan, []
    kinds = [rng.choice(WOVEN) for _ in range(2 if rng.random() < 0.2 else 1)]
    for kind in kinds:
        woven = weave(woven, source, rng, kind, pids)
    made.append(
        written(
            source, woven, seed, "hallucination", Labels(True, False, "organic", False), {"errors": kinds, "pids": pids}
        )
    )

    dropped, ref, place = drop(plan, rng)
    if dropped is not None:
        uncovered = (UncoveredArgument(*ref),)
        made.append(
            written(
                source,
                dropped,
                seed,
                "coverage",
                Labels(False, True, "organic", False, uncovered=uncovered),
                {"dropped": list(ref)},
            )
        )
        kind, pids = rng.choice(WOVEN), []
        if rng.random() < 0.3 and (found := _unprovided(source, rng, source.side_of(ref))) is not None:
            kind, (_, pid, text) = "replacing_unprovided", found
            pids.append(pid)
            line = rng.choice(pools.UNPROVIDED_SENTENCES[plan.parts[place[0]][0]]).format(y=casing.inner(text))
            both = _insert(dropped, place[0], place[1], Statement(plan.parts[place[0]][0], literal=line, error=True))
        else:
            both = weave(dropped, source, rng, kind, pids)
        made.append(
            written(
                source,
                both,
                seed,
                "both",
                Labels(True, True, "organic", False, uncovered=uncovered),
                {"errors": [kind], "dropped": list(ref), "pids": pids},
            )
        )

    confused, which = ambiguous(plan, source, rng)
    # Restating or misplacing a given argument labels supported words as invented; a run may
    # leave those out (`--ambiguous-types`). The draw above happens anyway, so the rest of the
    # build does not change with the choice.
    if which in ambiguous_types:
        labels = Labels(True, False, "organic", True, which)
        made.append(written(source, confused, seed, "ambiguous", labels, {"errors": [which]}))

    clean = made[0]
    removed = make_hallucination(clean, seed)
    if removed is not None:
        # Kind synthetic_paraphrased (the clean answer is `paraphrased`); the removed argument's
        # statement is now the invented text.
        spans = removed.labels.hallucinated_spans
        answer = dict(removed.extra[ANSWER_FIELD]) | {"invented": [clean.response[s:e] for s, e in spans]}
        made.append(removed.replace(extra=dict(removed.extra) | {ANSWER_FIELD: answer}))
    pool, pid_of = coverage_pool(claim, clean)
    added = make_coverage_error(clean, pool, seed)
    if added is not None:
        source_field = dict(added.extra[SOURCE_FIELD]) | {
            "added_pid": pid_of[added.extra["synthetic"]["added"]["text"]]
        }
        made.append(added.replace(extra=dict(added.extra) | {SOURCE_FIELD: source_field}))
    if invented == "arguments":
        # Filtered after every draw, so the answers kept are those of the `any` build.
        return [e for e in made if not _invents(e) or e.extra[SOURCE_FIELD]["extra_pids"]]
    return made


def _invents(example: Example) -> bool:
    """Whether `example` is a written answer with an invented piece (hallucination, both, ambiguous)."""
    return kind_of(example.labels) == "organic" and has_error(example.labels, "hallucination")


def build(
    *,
    folder: Path | None = None,
    seed: int = 0,
    variants: int = 2,
    ambiguous_types: Sequence[str] = AMBIGUOUS_TYPES,
    invented: str = "any",
    questions: bool = False,
) -> list[Example]:
    """Every train claim's answers (`variants` inputs each)."""
    claims = load_claims(SPLITS, folder)
    casing = Casing(text for claim in claims for cluster in claim.clusters for _, text in cluster.members)
    return [
        e
        for claim in claims
        for v in range(variants)
        for e in examples_of(claim, v, seed, casing, ambiguous_types, invented, questions)
    ]


def build_parser() -> argparse.ArgumentParser:
    from explorer.cli.guard import Files, declare

    parser = argparse.ArgumentParser(
        prog="python -m explorer.data.perspectrum_answers", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--out", type=lambda t: Path(t).expanduser(), required=True, help="output JSON Lines (a cache)")
    parser.add_argument("--seed", type=console.SEED, default=0)
    parser.add_argument("--variants", type=console.VARIANTS, default=2, help="inputs per claim (default 2)")
    parser.add_argument(
        "--ambiguous-types",
        default=",".join(AMBIGUOUS_TYPES),
        help="ambiguous hallucinations to write (default all; partial_hallucination is a strengthened qualifier)",
    )
    parser.add_argument(
        "--invented",
        choices=INVENTED,
        default="any",
        help="what the hallucinations invent: any piece (default), or only arguments of the claim the input lacks "
        "(no ambiguous answers): the coverage tagger's build",
    )
    parser.add_argument(
        "--questions",
        action="store_true",
        help=f"ask {pools.QUESTION_CHANCE * 100:.0f}%% of the claims that can be turned as users ask "
        '("Should X be Y?"); off for the builds the shipped models were trained on',
    )
    parser.add_argument("--data", type=lambda t: Path(t).expanduser(), help="Perspectrum folder")
    declare(parser, Files(inputs=("data",), output="out", third_party=True))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from explorer.cli import guard

    return guard.main(build_parser(), argv, run)


def run(args: argparse.Namespace) -> int:
    from explorer.cli.exit_codes import EXIT_USAGE, CliError

    types = tuple(args.ambiguous_types.split(","))
    if set(types) - set(AMBIGUOUS_TYPES):
        raise CliError(f"--ambiguous-types must be among {','.join(AMBIGUOUS_TYPES)}", EXIT_USAGE)
    try:
        examples = build(
            folder=args.data,
            seed=args.seed,
            variants=args.variants,
            ambiguous_types=types,
            invented=args.invented,
            questions=args.questions,
        )
    except ValueError as error:
        raise CliError(str(error), EXIT_USAGE) from error
    args.out.resolve().parent.mkdir(parents=True, exist_ok=True)
    write_jsonl(examples, args.out.resolve())
    counts = Counter(
        (e.labels.kind, e.labels.hallucination, e.labels.coverage_error, e.labels.ambiguous_type) for e in examples
    )
    print(f"wrote {len(examples)} examples to {args.out}", file=sys.stderr)
    for key, n in sorted(counts.items(), key=str):
        print(f"  {key} {n}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
