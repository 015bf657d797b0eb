"""The bad-input corpus: broken and odd example files, each with the outcome it must get.

Every case is one JSON Lines file in this folder, written from the definitions below by
`python -m tests.bad_inputs.corpus` (the long texts are generated, so edit them here, not in
the files; a test fails when the files and the definitions disagree). A case states which
example ids are read, in order, and every problem reported, exactly as the user sees it
(line, field, what is wrong). Broken lines sit between good ones, so every file also shows that
good lines are kept. `refused_by` names the detectors that must refuse the case's examples
with a `DetectorError`, and how their message starts; every other detector must score them.
`warnings` lists what is reported about examples that are kept.

The cases of other file layouts (a JSON array, pretty-printed JSON, gzip), ambiguous records and
the size limits are in `files_and_limits.py`; the scores files `explorer eval --scores` must
check, in `scores.py` (written to `scores/`); the builders they share, in `builders.py`.
"""

from __future__ import annotations

import json

from tests.bad_inputs.builders import (
    BASE,
    FIRST,
    GOOD_PAIR,
    HOSTILE,
    LAST,
    SENTENCES,
    Case,
    around,
    good,
    lines,
    with_perspectives,
    words_text,
)
from tests.bad_inputs.files_and_limits import FILE_AND_LIMIT_CASES
from tests.bad_inputs.scores import write_scores

CASES: tuple[Case, ...] = (
    Case(
        "empty-query",
        "an empty query",
        around(good("empty-query", query="")),
        GOOD_PAIR,
        ("line 2: query: must not be empty",),
    ),
    Case(
        "empty-response",
        "an empty response, then one of only whitespace",
        around(good("empty", response=""), good("blank", response=" \n\t ")),
        GOOD_PAIR,
        ("line 2: response: must not be empty", "line 3: response: must not be empty"),
    ),
    Case(
        "empty-arguments",
        "a perspective with an empty argument list, then empty and blank argument strings",
        around(
            good("no-arguments", perspectives=[{"name": "pro", "arguments": []}]),
            good("empty-argument", perspectives=[{"name": "pro", "arguments": ["Fine.", "", "   "]}]),
        ),
        GOOD_PAIR,
        (
            "line 2: perspectives[0].arguments: a perspective needs at least one argument",
            "line 3: perspectives[0].arguments[1]: must not be empty",
            "line 3: perspectives[0].arguments[2]: must not be empty",
        ),
    ),
    Case(
        "perspective-without-arguments",
        "a perspective with a name and no arguments field",
        around(good("nameless", perspectives=[{"name": "pro"}, BASE["perspectives"][1]])),
        GOOD_PAIR,
        ("line 2: perspectives[0].arguments: must be a list of strings, got null",),
    ),
    Case(
        "no-perspectives",
        "an empty perspective list, then none at all",
        around(good("none", perspectives=[]), {k: v for k, v in good("missing").items() if k != "perspectives"}),
        GOOD_PAIR,
        ("line 2: perspectives: needs at least one perspective", "line 3: perspectives: is required"),
    ),
    Case(
        "missing-fields",
        "an empty object",
        around({}),
        GOOD_PAIR,
        (
            "line 2: id: is required",
            "line 2: query: is required",
            "line 2: response: is required",
            "line 2: perspectives: is required",
        ),
    ),
    Case(
        "wrong-types",
        "numbers, lists and objects where strings, lists and objects belong",
        around(
            good(7, query=["Q?"], response={"text": "A."}),
            good("flat", perspectives="pro, con"),
            good("odd-extras", topic=3, split=1),
            good("label-text", labels="yes"),
        ),
        GOOD_PAIR,
        (
            "line 2: id: must be a string, got number",
            "line 2: query: must be a string, got list",
            "line 2: response: must be a string, got object",
            "line 3: perspectives: must be a list, got string",
            "line 4: topic: must be a string, got number",
            "line 4: split: must be one of train, dev, test, got 1",
            "line 5: labels: must be an object, got string",
        ),
    ),
    Case(
        "booleans-and-numbers",
        "1 for true, true for an index",
        around(
            good(
                "bools",
                labels={
                    "hallucination": 1,
                    "hallucinated_spans": [[True, 4]],
                    "uncovered": [{"perspective": True, "argument": 0}],
                },
            )
        ),
        GOOD_PAIR,
        (
            "line 2: labels.hallucinated_spans[0]: must be a pair of integers [start, end], got [true, 4]",
            "line 2: labels.hallucination: must be true or false, got number",
            "line 2: labels.uncovered[0]: perspective and argument must be integer indices",
        ),
    ),
    Case(
        "not-objects",
        "JSON values that are not objects",
        around("[1, 2]", '"text"', "null", "42", "true"),
        GOOD_PAIR,
        (
            "line 2: expected a JSON object, got list",
            "line 3: expected a JSON object, got string",
            "line 4: expected a JSON object, got null",
            "line 5: expected a JSON object, got number",
            "line 6: expected a JSON object, got boolean",
        ),
    ),
    Case(
        "malformed-json",
        "a cut record, single quotes, prose, two records on a line, a missing comma",
        around(
            '{"id": "cut",',
            "{'id': 'single'}",
            "not json at all",
            '{"id": "a"} {"id": "b"}',
            '{"id": "x" "query": "Q"}',
        ),
        GOOD_PAIR,
        (
            "line 2: invalid JSON: Expecting property name enclosed in double quotes (column 14)",
            "line 3: invalid JSON: Expecting property name enclosed in double quotes (column 2)",
            "line 4: invalid JSON: Expecting value (column 1)",
            "line 5: invalid JSON: Extra data (column 13)",
            "line 6: invalid JSON: Expecting ',' delimiter (column 12)",
        ),
    ),
    Case(
        "truncated-file",
        "the last record cut off, with no final newline",
        lines(good(FIRST), good(LAST)) + json.dumps(good("cut")).encode()[:60],
        GOOD_PAIR,
        ("line 3: invalid JSON: Unterminated string starting at (column 46)",),
    ),
    Case(
        "blank-lines",
        "empty and whitespace-only lines, which are skipped but still counted",
        lines(good(FIRST), "", "   \t", good("no-query", query=""), "", good(LAST)),
        GOOD_PAIR,
        ("line 4: query: must not be empty",),
    ),
    Case(
        "non-utf8",
        "a Latin-1 line, then a stray 0xff byte",
        around(
            json.dumps(good("latin"), ensure_ascii=False).replace("Sugar tax", "Café tax").encode("latin-1"),
            b'{"id": "\xff"}',
        ),
        GOOD_PAIR,
        ("line 2: not valid UTF-8 (byte 0xe9 at byte 30)", "line 3: not valid UTF-8 (byte 0xff at byte 9)"),
    ),
    Case(
        "utf16-file",
        "a whole file in UTF-16 with its byte order mark (Windows PowerShell's >)",
        lines(good("utf16"), good("utf16-b")).decode("utf-8").encode("utf-16"),
        (),
        (
            "line 1: not valid UTF-8 (byte 0xff at byte 1); the file is UTF-16, save it as UTF-8",
            "line 2: invalid JSON: Expecting value (column 1)",
            "line 3: invalid JSON: Expecting value (column 1)",  # the NUL byte after the last newline
        ),
    ),
    Case(
        "bom",
        "a UTF-8 byte order mark before the first record",
        b"\xef\xbb\xbf" + lines(good(FIRST), good(LAST)),
        GOOD_PAIR,
    ),
    Case(
        "bom-mid-file",
        "two files joined with cat, the second starting with a byte order mark",
        lines(good(FIRST)) + b"\xef\xbb\xbf" + lines(good("after-bom"), good(LAST)),
        GOOD_PAIR,
        ("line 2: invalid JSON: Unexpected UTF-8 BOM (decode using utf-8-sig) (column 1)",),
    ),
    Case(
        "crlf",
        "Windows line ends between records and inside the response",
        lines(
            good(FIRST),
            good("crlf", response="Taxes reduce sugar consumption.\r\nThey hurt poor families."),
            end=b"\r\n",
        ),
        (FIRST, "crlf"),
    ),
    Case(
        "duplicate-ids",
        "an id used twice, and two perspectives with one name",
        lines(
            good("dup"),
            good("twins", perspectives=with_perspectives(BASE["perspectives"][0], BASE["perspectives"][0])),
            good("dup", response="Another answer."),
            good(LAST),
        ),
        ("dup", LAST),
        (
            "line 2: perspectives[1].name: 'pro' is already the name of perspectives[0]",
            "line 3: id: 'dup' was already used on line 1",
        ),
    ),
    Case(
        "refchecker",
        "RefChecker records: one reference, a list of references, with and without an id",
        lines(
            {
                "question": "Is coffee healthy?",
                "response": "It has antioxidants.",
                "reference": "Coffee has antioxidants.",
            },
            {"id": "rc", "question": "Q?", "response": "A one.", "reference": ["One.", "Two."], "source": "web"},
        ),
        ("line-1", "rc"),
    ),
    Case(
        "refchecker-bad",
        "RefChecker records with a blank question, a number and bad items as references",
        lines(
            {"question": " ", "response": "A.", "reference": "Ref."},
            {"question": "Q?", "response": "A.", "reference": 5},
            {"question": "Q?", "response": "A.", "reference": ["ok", 3, ""]},
            {"question": "Q?", "response": "A.", "reference": "Fine."},
        ),
        ("line-4",),
        (
            "line 1: question: must not be empty",
            "line 2: reference: must be a list of strings, got number",
            "line 3: reference[1]: must be a string, got number",
            "line 3: reference[2]: must not be empty",
        ),
    ),
    Case(
        "html-script",
        "HTML and script in every field",
        lines(
            good(
                HOSTILE,
                topic=HOSTILE,
                query=HOSTILE,
                perspectives=[{"name": HOSTILE, "arguments": [HOSTILE, "Taxes reduce sugar consumption."]}],
                response=f"{HOSTILE} Taxes reduce sugar consumption.",
            )
        ),
        (HOSTILE,),
    ),
    Case(
        "markdown",
        "markdown, LaTeX dollars and a javascript: link, which must show as typed",
        lines(
            good(
                "markdown",
                query="Is a $15 *minimum* wage better than $12?",
                response="# Yes\n- [click](javascript:alert(1)) **now** `code` | a | table |\n1. $x^2$",
            )
        ),
        ("markdown",),
    ),
    Case(
        "emoji",
        "emoji, joined family sequences, skin tones and flags between words",
        lines(
            good(
                "emoji",
                query="Should sugary drinks 🥤 be taxed?",
                perspectives=[
                    {"name": "pro 👍🏽", "arguments": ["Taxes 💰 reduce sugar 🍬 consumption."]},
                    {"name": "con 👎", "arguments": ["Taxes hurt poor families 👨\u200d👩\u200d👧."]},
                ],
                response="🇬🇧 Taxes💰reduce sugar consumption 🙂 but hurt families 👨\u200d👩\u200d👧\u200d👦!",
            )
        ),
        ("emoji",),
    ),
    Case(
        "right-to-left",
        "Arabic and Hebrew, right to left, mixed with English",
        lines(
            good(
                "arabic",
                query="هل يجب فرض ضريبة على المشروبات السكرية؟",
                perspectives=[
                    {"name": "مع", "arguments": ["الضرائب تقلل استهلاك السكر."]},
                    {"name": "ضد", "arguments": ["الضرائب تضر بالأسر الفقيرة."]},
                ],
                response="الضرائب تقلل استهلاك السكر، لكنها تضر بالأسر الفقيرة (sugar tax).",
            ),
            good(
                "hebrew",
                query="האם יש להטיל מס על משקאות ממותקים?",
                perspectives=[{"name": "בעד", "arguments": ["המס מפחית צריכת סוכר."]}],
                response="המס מפחית צריכת סוכר ומממן ארוחות בבתי ספר.",
            ),
        ),
        ("arabic", "hebrew"),
    ),
    Case(
        "cjk",
        "Chinese and Japanese without spaces, Korean with them",
        lines(
            good(
                "chinese",
                query="应该对含糖饮料征税吗？",
                perspectives=[
                    {"name": "支持", "arguments": ["税收减少糖的消费。"]},
                    {"name": "反对", "arguments": ["税收伤害贫困家庭。"]},
                ],
                response="税收减少糖的消费，但伤害贫困家庭。",
            ),
            good(
                "japanese",
                query="砂糖税は導入すべきですか？",
                perspectives=[{"name": "賛成", "arguments": ["税金は砂糖の消費を減らす。"]}],
                response="税金は砂糖の消費を減らし、学校給食の財源になる。",
            ),
            good(
                "korean",
                query="설탕세를 도입해야 합니까?",
                perspectives=[{"name": "찬성", "arguments": ["세금은 설탕 소비를 줄인다."]}],
                response="세금은 설탕 소비를 줄이고 학교 급식을 지원한다.",
            ),
        ),
        ("chinese", "japanese", "korean"),
    ),
    Case(
        "zero-width",
        "zero-width space, joiner and non-joiner, soft hyphen, word joiner and U+FEFF inside words",
        lines(
            good(
                "zero-width",
                response="Sugar ta\u00adxes re\u200dduce con\u200csumption and fund\u2060 school\ufeff meals, "
                "but critics\u200bsay they hurt poor families.",
            )
        ),
        ("zero-width",),
    ),
    Case(
        "control-characters",
        "NUL, escape sequences, bell, vertical tab, form feed, DEL and tabs inside the text",
        lines(
            good(
                "controls",
                query="Should\tsugary drinks be taxed?\x00",
                response="Sugar taxes\x1b[31m reduce\x1b[0m consumption\x07 and\x0b fund\x0c school\x7f meals.",
            )
        ),
        ("controls",),
    ),
    Case(
        "combining-marks",
        "decomposed accents, Devanagari vowel signs, Thai without spaces",
        lines(
            good(
                "decomposed",
                response="Cafe\u0301 owners say sugar taxes reduce consumption.",
                query="Taxes na\u0131\u0308ve?",
            ),
            good(
                "devanagari-thai",
                perspectives=[{"name": "पक्ष", "arguments": ["कर चीनी की खपत कम करते हैं।"]}],
                response="कर चीनी की खपत कम करते हैं। ภาษีน้ำตาลช่วยลดการบริโภค",
            ),
        ),
        ("decomposed", "devanagari-thai"),
    ),
    Case(
        "lone-surrogate",
        "a lone UTF-16 surrogate escape, which is not Unicode text",
        around(json.dumps(good("surrogate")).replace("poor families.", "poor \\ud800families.")),
        GOOD_PAIR,
        ("line 2: response: holds a lone surrogate \\ud800 at character 85, which is not Unicode text",),
    ),
    Case(
        "nan-infinity",
        "NaN and Infinity, which Python's JSON reader accepts: wrong in labels, kept in unknown fields",
        around(
            json.dumps(
                good("nan-labels", labels={"hallucination": float("nan"), "hallucinated_spans": [[0, float("inf")]]})
            ),
            json.dumps(good("nan-extra", confidence=float("nan"), weight=float("-inf"))),
        ),
        (FIRST, "nan-extra", LAST),
        (
            "line 2: labels.hallucinated_spans[0]: must be a pair of integers [start, end], got [0, Infinity]",
            "line 2: labels.hallucination: must be true or false, got number",
        ),
    ),
    Case(
        "huge-numbers",
        "a span end past any float, and one past the text",
        around(
            good("huge", labels={"hallucinated_spans": [[0, 99999999999999999999]]}),
            '{"id": "overflow", "query": "Q?", "perspectives": [{"arguments": ["A."]}], "response": "R.", '
            '"labels": {"hallucinated_spans": [[0, 1e400]]}}',
        ),
        GOOD_PAIR,
        (
            "line 2: labels.hallucinated_spans[0]: [0, 99999999999999999999] is not a non-empty span inside a text "
            "of 94 characters",
            "line 3: labels.hallucinated_spans[0]: must be a pair of integers [start, end], got [0, Infinity]",
        ),
    ),
    Case(
        "bad-labels",
        "reversed and empty spans, an argument that is not there, an unknown kind and ambiguous type",
        around(
            good(
                "labels",
                labels={
                    "kind": "organic-ish",
                    "ambiguous_type": "maybe",
                    "hallucinated_spans": [[5, 2], [3, 3]],
                    "uncovered": [
                        {"perspective": 1, "argument": 4},
                        {"perspective": 0, "argument": 0, "spans": [[0, 99]]},
                    ],
                },
            )
        ),
        GOOD_PAIR,
        (
            "line 2: labels.hallucinated_spans[0]: [5, 2] is not a non-empty span inside a text of 94 characters",
            "line 2: labels.hallucinated_spans[1]: [3, 3] is not a non-empty span inside a text of 94 characters",
            "line 2: labels.kind: must be one of organic, paraphrased, synthetic, synthetic_paraphrased, "
            'got "organic-ish"',
            "line 2: labels.ambiguous_type: must be one of partial_hallucination, partial_coverage, repetition, "
            'perspective_confusion, got "maybe"',
            "line 2: labels.uncovered[0]: there is no argument 4 in perspective 1",
            "line 2: labels.uncovered[1].spans[0]: [0, 99] is not a non-empty span inside a text of 31 characters",
        ),
    ),
    Case(
        "nested-junk",
        "objects and lists where names and arguments belong",
        around(
            good(
                "junk",
                perspectives=[{"name": {"a": [1]}, "arguments": [["nested"], {"x": {"y": None}}, "Fine."]}, [1, 2]],
                labels={"uncovered": [[0, 1]]},
            )
        ),
        GOOD_PAIR,
        (
            "line 2: perspectives[0].name: must be a string, got object",
            "line 2: perspectives[0].arguments[0]: must be a string, got list",
            "line 2: perspectives[0].arguments[1]: must be a string, got object",
            "line 2: perspectives[1]: must be an object with name and arguments, got list",
            "line 2: labels.uncovered[0]: must be an object with perspective and argument, got list",
        ),
    ),
    Case(
        "deep-nesting",
        "an array nested deeper than Python's JSON reader goes",
        around("[" * 100_000),
        GOOD_PAIR,
        ("line 2: invalid JSON: arrays or objects nested too deeply (column 1)",),
    ),
    Case(
        "unknown-fields",
        "fields the format does not know, at the top and in the labels: kept, the one in the labels with a warning",
        lines(good("extras", model="gpt-x", scores=[0.1, 0.2], labels={"hallucination": False, "annotator": 7})),
        ("extras",),
        warnings=("line 1: labels.annotator: is not a label the explorer reads; kept as it is",),
    ),
    Case(
        "one-perspective",
        "a single perspective with a single argument",
        lines(good("one", perspectives=[{"name": "only", "arguments": ["Taxes reduce sugar consumption."]}])),
        ("one",),
    ),
    Case(
        "ten-perspectives",
        "ten perspectives, one of them unnamed",
        lines(
            good(
                "ten",
                perspectives=[
                    {"name": f"city {i}", "arguments": [f"City {i} taxed sugar in {2010 + i}."]} for i in range(9)
                ]
                + [{"arguments": ["An unnamed view."]}],
                response="Every city taxed sugar at some point between 2010 and 2018.",
            )
        ),
        ("ten",),
    ),
    Case(
        "many-arguments",
        "one perspective with 200 arguments",
        lines(
            good(
                "many",
                perspectives=[
                    {"name": "pro", "arguments": [f"{SENTENCES[i % 8][:-1]} (point {i})." for i in range(200)]}
                ],
            )
        ),
        ("many",),
    ),
    Case(
        "stop-words-only",
        "a response and arguments made only of stop words and punctuation",
        lines(
            good(
                "stops",
                perspectives=[{"name": "pro", "arguments": ["It is what it is."]}],
                response="Yes, they should!",
            )
        ),
        ("stops",),
    ),
    Case(
        "response-5000-words",
        "a 5,000-word response",
        lines(good("long", response=words_text(5_000))),
        ("long",),
    ),
    Case(
        "beyond-context",
        "a 12,000-word response, past the 8,192-token context of the language model (SmolLM2) and the "
        "1,000 claims the alignment reads",
        lines(good("beyond", response=words_text(12_000))),
        ("beyond",),
        refused_by={
            "salience": "too long for the model: prompt",
            "semantic": "the response makes 1,392 claims (sentences or clauses); the alignment reads at most 1,000",
            "stacked": "the response makes 1,392 claims (sentences or clauses); the alignment reads at most 1,000",
        },
    ),
    Case(
        "long-single-line",
        "1,500 words without a full stop, comma or line break",
        lines(good("run-on", response=words_text(1_500, punctuated=False))),
        ("run-on",),
    ),
    Case(
        "punctuation-run",
        "a 1,000-character rule of = signs between two sentences",
        lines(good("rule", response="Taxes reduce sugar consumption.\n" + "=" * 1_000 + "\nThey hurt poor families.")),
        ("rule",),
        refused_by={
            "semantic": "the text at characters 32-1037 is longer than the 256 word pieces",
            "stacked": "the text at characters 32-1037 is longer than the 256 word pieces",
        },
    ),
    *FILE_AND_LIMIT_CASES,
)


def write() -> None:
    for case in CASES:
        case.path.write_bytes(case.data)
    write_scores()


if __name__ == "__main__":
    write()
