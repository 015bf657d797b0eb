#!/usr/bin/env python3
"""Build the hand-written sample dataset from its source files.

Reads every ``sample_data/source/<topic_slug>.json`` file, assembles the responses for each
variant (clean, a second error-free wording "clean-alt", paraphrased, hallucination, coverage,
and the four ambiguous kinds), computes every character span from the assembled strings,
checks that each span covers exactly the text it is meant to, records where each argument is
put into words in the response (``verbalizations``), and writes

    explorer/resources/samples/examples.jsonl         one labelled example per line
    explorer/resources/samples/spare_arguments.jsonl  one line per topic and perspective

Standard library only. The output is deterministic: running the script twice gives
byte-identical files.

Usage:
    python sample_data/build.py            # (re)write the two .jsonl files, print counts
    python sample_data/build.py --check    # exit 1 if the committed files are out of date
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE_DIR = HERE / "source"
SHIPPED = HERE.parent / "explorer" / "resources" / "samples"  # the package ships what this writes
EXAMPLES_PATH = SHIPPED / "examples.jsonl"
SPARE_PATH = SHIPPED / "spare_arguments.jsonl"

PERSPECTIVES = ("pro", "con")  # output order: perspective index 0 = pro, 1 = con
SPLITS = ("train", "dev", "test")
EXTRA_VARIANTS = ("hallucination2", "coverage2")
VARIANT_ORDER = (
    "clean",
    "clean-alt",
    "paraphrased",
    "hallucination",
    "hallucination2",
    "coverage",
    "coverage2",
    "partial-hallucination",
    "partial-coverage",
    "repetition",
    "perspective-confusion",
)

# Authoring limits (see README.md).
ARG_COUNT = (3, 6)
SPARE_COUNT = (2, 3)
ARG_WORDS = (15, 40)
RESPONSE_WORDS = (120, 260)
# A paraphrase must share at most this fraction of content words with its argument
# (Jaccard over content-word sets), and a verbalization must reuse at least this share of
# its argument's content words ("mostly in the argument's own words").
MAX_PARAPHRASE_OVERLAP = 0.25
MIN_VERBALIZATION_RECALL = 0.5
# ... but is not a verbatim copy: its longest run of consecutive words shared with the
# argument covers at most this share of the argument.
MAX_VERBATIM_RUN = 0.75
# A hallucinated sentence must not look like a light rewording of any given or spare
# argument (Jaccard over content-word sets).
MAX_HALLUCINATION_OVERLAP = 0.3
# The alternative clean response is written afresh, not a light edit of the clean one: each
# of its sentences (intro and verbalizations) repeats at most this share of the matching
# clean sentence as one run of consecutive words.
MAX_ALT_CLEAN_RUN = 0.5

STOPWORDS = frozenset(
    """
    a about above after again against all almost also although am an and any are as at be
    because been before being below between both but by can could did do does doing down
    during each even every few for from further had has have having he her here hers him his
    how i if in into is it its itself just may me might more most much must my no nor not now
    of off often on once one only or other others our out over own per rather same she should
    since so some such than that the their theirs them themselves then there these they this
    those through thus to too under until up upon very was we were what when where whether
    which while who whom whose why will with within without would yet you your
    """.split()
)


class SourceError(ValueError):
    """A source file breaks one of the authoring rules."""


def ensure(cond: bool, *context) -> None:
    """An internal consistency check that, unlike ``assert``, also runs under ``python -O``."""
    if not cond:
        raise AssertionError(context)


# --------------------------------------------------------------------------------------
# Text helpers


def words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+(?:['-][^\W_]+)*", text.lower())


def content_words(text: str) -> set[str]:
    return {w for w in words(text) if w not in STOPWORDS and not w.isdigit()}


def jaccard(a: str, b: str) -> float:
    sa, sb = content_words(a), content_words(b)
    return len(sa & sb) / len(sa | sb) if sa | sb else 0.0


def recall(reference: str, text: str) -> float:
    """Share of the reference's content words that also occur in text."""
    ref = content_words(reference)
    return len(ref & content_words(text)) / len(ref) if ref else 1.0


def longest_shared_run(reference: str, text: str) -> float:
    """Longest run of consecutive words shared with text, as a share of reference's words."""
    a, b = words(reference), words(text)
    best, prev = 0, [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        for j, y in enumerate(b, 1):
            if x == y:
                cur[j] = prev[j - 1] + 1
                best = max(best, cur[j])
        prev = cur
    return best / len(a) if a else 0.0


def check_sentence(text: str, where: str) -> None:
    if not isinstance(text, str) or not text:
        raise SourceError(f"{where}: expected a non-empty string")
    if text != text.strip() or "  " in text or "\n" in text:
        raise SourceError(f"{where}: stray whitespace in {text!r}")
    if text[-1] not in ".?":
        raise SourceError(f"{where}: must end with a full stop: {text!r}")
    for ch in text:
        if ord(ch) > 127 and not unicodedata.category(ch).startswith("L"):
            raise SourceError(f"{where}: non-ASCII punctuation {ch!r} (use plain ASCII)")


# --------------------------------------------------------------------------------------
# Source validation


def require(cond: bool, message: str) -> None:
    if not cond:
        raise SourceError(message)


def check_verbalization(argument: str, sentence: str, where: str) -> None:
    """A faithful verbalization: mostly the argument's own words, but not a verbatim copy."""
    run = longest_shared_run(argument, sentence)
    require(run <= MAX_VERBATIM_RUN, f"{where}: copies {run:.0%} of the argument word for word")
    rc = recall(argument, sentence)
    require(rc >= MIN_VERBALIZATION_RECALL, f"{where}: reuses only {rc:.2f} of the argument's words")


def check_alternative(clean: str, sentence: str, where: str) -> None:
    """A sentence of the ``alt`` block: not the matching clean sentence, nor a light edit of it."""
    require(sentence != clean, f"{where}: identical to the clean response's sentence")
    run = longest_shared_run(clean, sentence)
    require(run <= MAX_ALT_CLEAN_RUN, f"{where}: repeats {run:.0%} of the clean response's sentence word for word")


def validate(src: dict, slug: str) -> None:
    w = slug
    keys = {
        "topic",
        "query",
        "split",
        "pro",
        "con",
        "spare",
        "paraphrased",
        "response",
        "hallucinations",
        "partial_hallucination",
        "partial_coverage",
        "repetition",
        "perspective_confusion",
        "coverage",
        "extra_variants",
        "alt",
    }
    require(set(src) == keys, f"{w}: keys differ from the schema: {sorted(set(src) ^ keys)}")
    require(re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", slug) is not None, f"{w}: bad slug")
    require(src["split"] in SPLITS, f"{w}: split must be one of {SPLITS}")
    check_sentence(src["query"], f"{w}.query")
    require(src["query"].endswith("?"), f"{w}.query: should be a question")

    all_args: list[str] = []
    for p in PERSPECTIVES:
        args = src[p]
        require(ARG_COUNT[0] <= len(args) <= ARG_COUNT[1], f"{w}.{p}: needs 3-6 arguments")
        spare = src["spare"][p]
        require(SPARE_COUNT[0] <= len(spare) <= SPARE_COUNT[1], f"{w}.spare.{p}: needs 2-3")
        para = src["paraphrased"][p]
        verb = src["response"][p]
        require(len(para) == len(args), f"{w}.paraphrased.{p}: one per argument")
        require(len(verb) == len(args), f"{w}.response.{p}: one verbalization per argument")
        for i, arg in enumerate(args + spare):
            where = f"{w}.{p}[{i}]" if i < len(args) else f"{w}.spare.{p}[{i - len(args)}]"
            check_sentence(arg, where)
            n = len(words(arg))
            require(ARG_WORDS[0] <= n <= ARG_WORDS[1], f"{where}: {n} words, need 15-40")
        for i, (arg, par, v) in enumerate(zip(args, para, verb)):
            check_sentence(par, f"{w}.paraphrased.{p}[{i}]")
            check_sentence(v, f"{w}.response.{p}[{i}]")
            ov = jaccard(arg, par)
            require(
                ov <= MAX_PARAPHRASE_OVERLAP, f"{w}.paraphrased.{p}[{i}]: content-word overlap {ov:.2f} is too high"
            )
            check_verbalization(arg, v, f"{w}.response.{p}[{i}]")
        all_args += args + spare + para
    require(len(set(all_args)) == len(all_args), f"{w}: duplicate argument text")
    check_sentence(src["response"]["intro"], f"{w}.response.intro")

    alt = src["alt"]
    require(
        isinstance(alt, dict) and set(alt) == {"intro", *PERSPECTIVES},
        f"{w}.alt: needs exactly the keys intro, pro, con",
    )
    check_sentence(alt["intro"], f"{w}.alt.intro")
    check_alternative(src["response"]["intro"], alt["intro"], f"{w}.alt.intro")
    for p in PERSPECTIVES:
        entries = alt[p]
        require(
            isinstance(entries, list)
            and all(isinstance(e, dict) and set(e) == {"argument", "sentence"} for e in entries),
            f"{w}.alt.{p}: a list of {{argument, sentence}} entries in response order",
        )
        order = [e["argument"] for e in entries]
        require(
            all(type(i) is int for i in order) and sorted(order) == list(range(len(src[p]))),
            f"{w}.alt.{p}: must verbalize each {p} argument exactly once, got order {order}",
        )
        for k, e in enumerate(entries):
            where, i = f"{w}.alt.{p}[{k}]", e["argument"]
            check_sentence(e["sentence"], where)
            check_verbalization(src[p][i], e["sentence"], where)
            check_alternative(src["response"][p][i], e["sentence"], where)

    def arg_ref(obj: dict, where: str) -> tuple[str, int]:
        p, i = obj["perspective"], obj["argument"]
        require(p in PERSPECTIVES, f"{where}: perspective must be pro or con")
        require(isinstance(i, int) and 0 <= i < len(src[p]), f"{where}: bad argument index")
        return p, i

    def slot(part: str, after: int, where: str) -> None:
        require(part in PERSPECTIVES, f"{where}: part must be pro or con")
        require(
            isinstance(after, int) and 0 <= after < len(src[part]),
            f"{where}: 'after' must index a verbalization of the {part} part",
        )

    hs = src["hallucinations"]
    require(len(hs) >= 2, f"{w}.hallucinations: need at least two")
    for k, h in enumerate(hs):
        where = f"{w}.hallucinations[{k}]"
        slot(h["part"], h["after"], where)
        check_sentence(h["sentence"], where)
        for other in all_args:
            ov = jaccard(h["sentence"], other)
            require(
                ov <= MAX_HALLUCINATION_OVERLAP, f"{where}: overlap {ov:.2f} with provided/spare argument {other!r}"
            )
    require(hs[0]["part"] != hs[1]["part"], f"{w}.hallucinations: the second one goes in the other perspective's part")

    cov = src["coverage"]
    require(len(cov) == 2, f"{w}.coverage: give two entries (the second feeds coverage2)")
    for k, c in enumerate(cov):
        p, i = arg_ref(c, f"{w}.coverage[{k}]")
        # Dropping the first verbalization of a part would orphan the next sentence's
        # "They also ..." transition, so only later arguments are dropped.
        require(i > 0, f"{w}.coverage[{k}]: drop a non-first argument")
    require(
        cov[0]["perspective"] != cov[1]["perspective"],
        f"{w}.coverage: the second entry drops an argument of the other perspective",
    )

    ph = src["partial_hallucination"]
    p, i = arg_ref(ph, f"{w}.partial_hallucination")
    check_sentence(ph["sentence"], f"{w}.partial_hallucination")
    require(
        ph["sentence"].count(ph["clause"]) == 1,
        f"{w}.partial_hallucination: clause must occur exactly once in the sentence",
    )
    require(
        words(ph["sentence"].replace(ph["clause"], "", 1)) == words(src["response"][p][i]),
        f"{w}.partial_hallucination: sentence minus clause must be the faithful sentence",
    )

    pc = src["partial_coverage"]
    p, i = arg_ref(pc, f"{w}.partial_coverage")
    check_sentence(pc["sentence"], f"{w}.partial_coverage")
    arg = src[p][i]
    require(
        arg.count(pc["uncovered"]) == 1, f"{w}.partial_coverage: 'uncovered' must occur exactly once in the argument"
    )
    dropped = content_words(pc["uncovered"]) - content_words(arg.replace(pc["uncovered"], ""))
    kept = dropped & content_words(pc["sentence"])
    require(dropped and not kept, f"{w}.partial_coverage: the shortened sentence still mentions {sorted(kept)}")

    rep = src["repetition"]
    slot(rep["part"], rep["after"], f"{w}.repetition")
    require(0 <= rep["restates"] <= rep["after"], f"{w}.repetition: must come after the argument it restates")
    check_sentence(rep["sentence"], f"{w}.repetition")

    pcf = src["perspective_confusion"]
    p, i = arg_ref(pcf, f"{w}.perspective_confusion")
    require(i > 0, f"{w}.perspective_confusion: move a non-first argument")
    slot(other_perspective(p), pcf["after"], f"{w}.perspective_confusion")
    check_sentence(pcf["sentence"], f"{w}.perspective_confusion")
    rc = recall(src[p][i], pcf["sentence"])
    require(
        rc >= MIN_VERBALIZATION_RECALL, f"{w}.perspective_confusion: reuses only {rc:.2f} of the moved argument's words"
    )

    extra = src["extra_variants"]
    require(
        all(v in EXTRA_VARIANTS for v in extra) and len(set(extra)) == len(extra),
        f"{w}.extra_variants: only {EXTRA_VARIANTS}",
    )


def other_perspective(p: str) -> str:
    return "con" if p == "pro" else "pro"


# --------------------------------------------------------------------------------------
# Assembly


class Draft:
    """A response as an intro plus two ordered lists of tagged sentences."""

    def __init__(self, intro: str, parts: dict[str, list[tuple[int, str]]]):
        """``parts[p]`` lists (argument index, verbalization) pairs in response order."""
        self.intro = intro
        self.parts = {p: [(("arg", p, i), s) for i, s in parts[p]] for p in PERSPECTIVES}

    @classmethod
    def clean(cls, src: dict) -> Draft:
        """The ``response`` block: every argument verbalized, in argument order."""
        return cls(src["response"]["intro"], {p: list(enumerate(src["response"][p])) for p in PERSPECTIVES})

    @classmethod
    def alternative(cls, src: dict) -> Draft:
        """The ``alt`` block: the same arguments, worded afresh and possibly reordered."""
        return cls(
            src["alt"]["intro"], {p: [(e["argument"], e["sentence"]) for e in src["alt"][p]] for p in PERSPECTIVES}
        )

    def _index(self, tag: tuple) -> tuple[str, int]:
        for p in PERSPECTIVES:
            for k, (t, _) in enumerate(self.parts[p]):
                if t == tag:
                    return p, k
        raise KeyError(tag)

    def insert_after(self, part: str, after: int, tag: tuple, sentence: str) -> None:
        """Insert after the verbalization of argument ``after`` of ``part``."""
        _, k = self._index(("arg", part, after))
        self.parts[part].insert(k + 1, (tag, sentence))

    def remove(self, perspective: str, argument: int) -> None:
        p, k = self._index(("arg", perspective, argument))
        del self.parts[p][k]

    def replace(self, perspective: str, argument: int, tag: tuple, sentence: str) -> None:
        p, k = self._index(("arg", perspective, argument))
        self.parts[p][k] = (tag, sentence)

    def assemble(self) -> tuple[str, dict]:
        """Join all sentences with single spaces; return the text and each tag's span."""
        sentences = [(("intro",), self.intro)]
        for p in PERSPECTIVES:
            sentences += self.parts[p]
        text, spans, pos = [], {}, 0
        for tag, s in sentences:
            if text:
                text.append(" ")
                pos += 1
            spans[tag] = (pos, pos + len(s))
            text.append(s)
            pos += len(s)
        response = "".join(text)
        for tag, s in sentences:
            a, b = spans[tag]
            ensure(response[a:b] == s, (tag, response[a:b], s))
        return response, spans


def labels(
    kind: str = "organic",
    *,
    hallucination: bool = False,
    coverage_error: bool = False,
    ambiguous_type: str | None = None,
    hallucinated_spans: list | None = None,
    uncovered: list | None = None,
) -> dict:
    return {
        "hallucination": hallucination,
        "coverage_error": coverage_error,
        "kind": kind,
        "ambiguous": ambiguous_type is not None,
        "ambiguous_type": ambiguous_type,
        "hallucinated_spans": hallucinated_spans or [],
        "uncovered": uncovered or [],
    }


def verbalizations(spans: dict, stated: dict) -> list[dict]:
    """Where the response puts each argument into words: ``[{perspective, argument, spans}]``.

    ``stated`` maps a sentence tag other than ``("arg", p, i)`` (a replacement, a restatement,
    a misplaced argument) to the ``(perspective, argument)`` it states. Synthetic errors use
    this: removing an argument from the input makes these sentences the hallucinated span.
    """
    found: dict[tuple[int, int], list[list[int]]] = {}
    for tag, (a, b) in spans.items():
        if tag[0] == "arg":
            key = (PERSPECTIVES.index(tag[1]), tag[2])
        elif tag in stated:
            p, i = stated[tag]
            key = (PERSPECTIVES.index(p), i)
        else:
            continue
        found.setdefault(key, []).append([a, b])
    return [{"perspective": p, "argument": i, "spans": sorted(found[(p, i)])} for p, i in sorted(found)]


def perspectives_block(src: dict, paraphrased: bool = False) -> list[dict]:
    pick = src["paraphrased"] if paraphrased else src
    return [{"name": p, "arguments": list(pick[p])} for p in PERSPECTIVES]


def build_topic(slug: str, src: dict) -> list[tuple[str, dict]]:
    out: dict[str, tuple[str, dict, bool]] = {}  # variant -> (response, labels, paraphrased)
    stated: dict[str, list[dict]] = {}  # variant -> verbalizations

    def span_of(spans: dict, tag: tuple, response: str, expected: str) -> list[int]:
        a, b = spans[tag]
        ensure(response[a:b] == expected, (slug, tag))
        return [a, b]

    # clean / paraphrased
    clean, spans = Draft.clean(src).assemble()
    out["clean"] = (clean, labels(), False)
    out["paraphrased"] = (clean, labels("paraphrased"), True)
    stated["clean"] = stated["paraphrased"] = verbalizations(spans, {})

    # clean-alt: a second faithful response, worded differently from clean
    alt, spans = Draft.alternative(src).assemble()
    for p in PERSPECTIVES:
        for e in src["alt"][p]:
            span_of(spans, ("arg", p, e["argument"]), alt, e["sentence"])
    ensure(alt != clean, slug)
    out["clean-alt"] = (alt, labels(), False)
    stated["clean-alt"] = verbalizations(spans, {})

    # hallucination(s): one unprovided argument inserted
    for k, variant in enumerate(("hallucination", "hallucination2")):
        if variant == "hallucination2" and variant not in src["extra_variants"]:
            continue
        h = src["hallucinations"][k]
        d = Draft.clean(src)
        d.insert_after(h["part"], h["after"], ("hall",), h["sentence"])
        resp, spans = d.assemble()
        out[variant] = (
            resp,
            labels(hallucination=True, hallucinated_spans=[span_of(spans, ("hall",), resp, h["sentence"])]),
            False,
        )
        stated[variant] = verbalizations(spans, {})

    # coverage error(s): one verbalization removed
    for k, variant in enumerate(("coverage", "coverage2")):
        if variant == "coverage2" and variant not in src["extra_variants"]:
            continue
        c = src["coverage"][k]
        d = Draft.clean(src)
        d.remove(c["perspective"], c["argument"])
        resp, spans = d.assemble()
        ensure(src["response"][c["perspective"]][c["argument"]] not in resp)
        stated[variant] = verbalizations(spans, {})
        out[variant] = (
            resp,
            labels(
                coverage_error=True,
                uncovered=[{"perspective": PERSPECTIVES.index(c["perspective"]), "argument": c["argument"]}],
            ),
            False,
        )

    # partial hallucination: faithful sentence plus an embellishing clause
    ph = src["partial_hallucination"]
    d = Draft.clean(src)
    d.replace(ph["perspective"], ph["argument"], ("ph",), ph["sentence"])
    resp, spans = d.assemble()
    start = span_of(spans, ("ph",), resp, ph["sentence"])[0] + ph["sentence"].index(ph["clause"])
    span = [start, start + len(ph["clause"])]
    ensure(resp[span[0] : span[1]] == ph["clause"])
    stated["partial-hallucination"] = verbalizations(spans, {("ph",): (ph["perspective"], ph["argument"])})
    out["partial-hallucination"] = (
        resp,
        labels(hallucination=True, ambiguous_type="partial_hallucination", hallucinated_spans=[span]),
        False,
    )

    # partial coverage: one verbalization drops part of its argument
    pc = src["partial_coverage"]
    d = Draft.clean(src)
    d.replace(pc["perspective"], pc["argument"], ("pc",), pc["sentence"])
    resp, spans = d.assemble()
    stated["partial-coverage"] = verbalizations(spans, {("pc",): (pc["perspective"], pc["argument"])})
    arg = src[pc["perspective"]][pc["argument"]]
    a = arg.index(pc["uncovered"])
    uspan = [a, a + len(pc["uncovered"])]
    ensure(arg[uspan[0] : uspan[1]] == pc["uncovered"])
    out["partial-coverage"] = (
        resp,
        labels(
            coverage_error=True,
            ambiguous_type="partial_coverage",
            uncovered=[
                {"perspective": PERSPECTIVES.index(pc["perspective"]), "argument": pc["argument"], "spans": [uspan]}
            ],
        ),
        False,
    )

    # repetition: an already verbalized argument restated in other words
    rep = src["repetition"]
    d = Draft.clean(src)
    d.insert_after(rep["part"], rep["after"], ("rep",), rep["sentence"])
    resp, spans = d.assemble()
    stated["repetition"] = verbalizations(spans, {("rep",): (rep["part"], rep["restates"])})
    out["repetition"] = (
        resp,
        labels(
            hallucination=True,
            ambiguous_type="repetition",
            hallucinated_spans=[span_of(spans, ("rep",), resp, rep["sentence"])],
        ),
        False,
    )

    # perspective confusion: an argument moved into the other perspective's part
    pcf = src["perspective_confusion"]
    p = pcf["perspective"]
    d = Draft.clean(src)
    d.remove(p, pcf["argument"])
    d.insert_after(other_perspective(p), pcf["after"], ("conf",), pcf["sentence"])
    resp, spans = d.assemble()
    ensure(src["response"][p][pcf["argument"]] not in resp)
    stated["perspective-confusion"] = verbalizations(spans, {("conf",): (p, pcf["argument"])})
    out["perspective-confusion"] = (
        resp,
        labels(
            hallucination=True,
            coverage_error=True,
            ambiguous_type="perspective_confusion",
            hallucinated_spans=[span_of(spans, ("conf",), resp, pcf["sentence"])],
            uncovered=[{"perspective": PERSPECTIVES.index(p), "argument": pcf["argument"]}],
        ),
        False,
    )

    for name, text in (("clean", clean), ("clean-alt", alt)):
        n = len(words(text))
        require(
            RESPONSE_WORDS[0] <= n <= RESPONSE_WORDS[1], f"{slug}: {name} response has {n} words, need {RESPONSE_WORDS}"
        )

    records = []
    for variant in VARIANT_ORDER:
        if variant not in out:
            continue
        resp, lab, para = out[variant]
        records.append(
            (
                variant,
                {
                    "id": f"{slug}-{variant}",
                    "topic": src["topic"],
                    "query": src["query"],
                    "perspectives": perspectives_block(src, para),
                    "response": resp,
                    "labels": lab,
                    "split": src["split"],
                    "verbalizations": stated[variant],
                },
            )
        )
    return records


def check_record(rec: dict) -> None:
    """Re-check the span invariants on a finished record."""
    lab, resp = rec["labels"], rec["response"]
    for a, b in lab["hallucinated_spans"]:
        ensure(0 <= a < b <= len(resp), rec["id"])
        ensure(resp[a:b] == resp[a:b].strip(), rec["id"])
    for u in lab["uncovered"]:
        text = rec["perspectives"][u["perspective"]]["arguments"][u["argument"]]
        for a, b in u.get("spans", []):
            ensure(0 <= a < b <= len(text), rec["id"])
    ensure(lab["hallucination"] == bool(lab["hallucinated_spans"]), rec["id"])
    ensure(lab["coverage_error"] == bool(lab["uncovered"]), rec["id"])
    ensure(lab["ambiguous"] == (lab["ambiguous_type"] is not None), rec["id"])
    for v in rec["verbalizations"]:
        ensure(0 <= v["argument"] < len(rec["perspectives"][v["perspective"]]["arguments"]), rec["id"])
        for a, b in v["spans"]:
            ensure(0 <= a < b <= len(resp), rec["id"])


# --------------------------------------------------------------------------------------
# Driver


def load_sources() -> list[tuple[str, dict]]:
    paths = sorted(SOURCE_DIR.glob("*.json"))
    if not paths:
        raise SourceError(f"no source files in {SOURCE_DIR}")
    sources = []
    for path in paths:
        with path.open(encoding="utf-8") as f:
            src = json.load(f)
        validate(src, path.stem)
        sources.append((path.stem, src))
    # Examples are grouped by split (train, dev, test), then by topic slug.
    sources.sort(key=lambda item: (SPLITS.index(item[1]["split"]), item[0]))
    return sources


def to_jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def build() -> tuple[str, str, list[tuple[str, dict]]]:
    sources = load_sources()
    titles = [src["topic"] for _, src in sources]
    require(len(set(titles)) == len(titles), "topic titles must be unique")
    tagged, spare = [], []
    for slug, src in sources:
        tagged += build_topic(slug, src)
        for p in PERSPECTIVES:
            spare.append({"topic": src["topic"], "perspective": p, "arguments": list(src["spare"][p])})
    examples = [rec for _, rec in tagged]
    ids = [r["id"] for r in examples]
    ensure(len(set(ids)) == len(ids), "duplicate ids")
    for rec in examples:
        check_record(rec)
    return to_jsonl(examples), to_jsonl(spare), tagged


def summary(tagged: list[tuple[str, dict]]) -> str:
    examples = [rec for _, rec in tagged]
    lines = []
    topics = Counter()
    seen = set()
    for r in examples:
        key = (r["split"], r["topic"])
        if key not in seen:
            seen.add(key)
            topics[r["split"]] += 1
    per_split = Counter(r["split"] for r in examples)
    lines.append("split   topics  examples")
    for s in SPLITS:
        lines.append(f"{s:<7} {topics[s]:>6}  {per_split[s]:>8}")
    lines.append(f"{'total':<7} {sum(topics.values()):>6}  {len(examples):>8}")
    lines.append("")
    lines.append("variant                 " + "  ".join(f"{s:>5}" for s in SPLITS) + "  total")
    for v in VARIANT_ORDER:
        c = Counter(r["split"] for variant, r in tagged if variant == v)
        lines.append(f"{v:<23} " + "  ".join(f"{c[s]:>5}" for s in SPLITS) + f"  {sum(c.values()):>5}")
    lines.append("")

    def count(pred) -> str:
        c = Counter(r["split"] for r in examples if pred(r["labels"]))
        return "  ".join(f"{c[s]:>5}" for s in SPLITS) + f"  {sum(c.values()):>5}"

    lines.append("label                   " + "  ".join(f"{s:>5}" for s in SPLITS) + "  total")
    lines.append(f"{'kind=organic':<23} " + count(lambda lab: lab["kind"] == "organic"))
    lines.append(f"{'kind=paraphrased':<23} " + count(lambda lab: lab["kind"] == "paraphrased"))
    lines.append(f"{'hallucination=true':<23} " + count(lambda lab: lab["hallucination"]))
    lines.append(f"{'coverage_error=true':<23} " + count(lambda lab: lab["coverage_error"]))
    lines.append(f"{'ambiguous=true':<23} " + count(lambda lab: lab["ambiguous"]))
    lines.append(f"{'no error':<23} " + count(lambda lab: not lab["hallucination"] and not lab["coverage_error"]))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--check", action="store_true", help="verify the committed .jsonl files are up to date; write nothing"
    )
    args = ap.parse_args(argv)
    try:
        examples_text, spare_text, tagged = build()
    except SourceError as e:
        print(f"source error: {e}", file=sys.stderr)
        return 2
    if args.check:
        stale = [
            p.name
            for p, t in ((EXAMPLES_PATH, examples_text), (SPARE_PATH, spare_text))
            if not p.exists() or p.read_text(encoding="utf-8") != t
        ]
        if stale:
            print("out of date: " + ", ".join(stale) + " (run python sample_data/build.py)", file=sys.stderr)
            return 1
        print("sample data is up to date")
        return 0
    for path, text in ((EXAMPLES_PATH, examples_text), (SPARE_PATH, spare_text)):
        with path.open("w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    print(summary(tagged))
    return 0


if __name__ == "__main__":
    sys.exit(main())
