"""Corpus cases (issue 14, problems 8 and 10): files that are not JSON Lines (a JSON array,
pretty-printed JSON, gzip), records that say two things (a key twice, contradictory labels),
labels where they are not read (issue 28), names the reader makes up that must not take the
user's, and examples past the size limits."""

from __future__ import annotations

import gzip
import json

from tests.bad_inputs.builders import FIRST, GOOD_PAIR, LAST, Case, around, bullets, good, lines, words_text

REFCHECKER = {"question": "Is coffee healthy?", "response": "It has antioxidants.", "reference": "Coffee has them."}

FILE_AND_LIMIT_CASES: tuple[Case, ...] = (
    Case(
        "json-array",
        "one JSON array of records, pretty-printed, with a bad record in the middle",
        (json.dumps([good(FIRST), good("no-query", query=""), good(LAST)], indent=2) + "\n").encode(),
        GOOD_PAIR,
        ("line 23: query: must not be empty",),
    ),
    Case(
        "json-array-one-line",
        "one JSON array of records on a single line",
        json.dumps([good(FIRST), good(LAST)]).encode(),
        GOOD_PAIR,
    ),
    Case(
        "pretty-printed",
        "records pretty-printed one after the other (`jq .`, `json.dump(indent=2)`)",
        (json.dumps(good(FIRST), indent=2) + "\n" + json.dumps(good(LAST), indent=4) + "\n").encode(),
        GOOD_PAIR,
    ),
    Case(
        "pretty-printed-broken",
        "pretty-printed records, the second missing a comma: the first is kept, the error has its real line",
        (
            json.dumps(good(FIRST), indent=2)
            + "\n"
            + json.dumps(good("broken"), indent=2).replace('"broken",', '"broken"', 1)
            + "\n"
            + json.dumps(good(LAST), indent=2)
            + "\n"
        ).encode(),
        (FIRST,),
        (
            "line 24: invalid JSON: Expecting ',' delimiter (column 3); reading stopped here (the file is read as one "
            "JSON document, not line by line)",
        ),
    ),
    Case(
        "gzip",
        "JSON Lines compressed with gzip, a bad line in the middle",
        gzip.compress(around(good("no-query", query="")), mtime=0),
        GOOD_PAIR,
        ("line 2: query: must not be empty",),
    ),
    Case(
        "duplicate-keys",
        "a key given twice at the top of a record, then inside its labels",
        around(
            json.dumps(good("twice")).replace('"query":', '"query": "Is sugar bad?", "query":', 1),
            json.dumps(good("twice-in-labels", labels={"hallucination": True})).replace(
                '"hallucination": true', '"hallucination": true, "hallucination": false'
            ),
        ),
        GOOD_PAIR,
        (
            "line 2: duplicate key 'query': an object gives it twice, and JSON would keep only the last value",
            "line 3: duplicate key 'hallucination': an object gives it twice, and JSON would keep only the last value",
        ),
    ),
    Case(
        "contradictory-labels",
        "labels that say no error but mark one: kept, with a warning for each contradiction",
        around(
            good(
                "contradictory",
                labels={
                    "hallucination": False,
                    "hallucinated_spans": [[0, 5]],
                    "coverage_error": False,
                    "uncovered": [{"perspective": 1, "argument": 0}],
                    "ambiguous": False,
                    "ambiguous_type": "repetition",
                },
            )
        ),
        (FIRST, "contradictory", LAST),
        warnings=(
            "line 2: labels: hallucination is false, but hallucinated_spans marks 1 span(s)",
            "line 2: labels: coverage_error is false, but uncovered lists 1 argument(s)",
            "line 2: labels: ambiguous is false, but ambiguous_type is repetition",
        ),
    ),
    Case(
        "misplaced-labels",
        "a label misspelt inside `labels`, labels outside it, `labels` misspelt: kept, with a warning for each key",
        around(
            good("misspelt", labels={"halucination": True, "coverage_error": False}),
            good("outside", hallucinated_spans=[[0, 5]], hallucination=True),
            good("lables", lables={"hallucination": True}),
        ),
        (FIRST, "misspelt", "outside", "lables", LAST),
        warnings=(
            "line 2: labels.halucination: is not a label the explorer reads (did you mean 'hallucination'?); "
            "kept as it is",
            "line 3: hallucinated_spans: is a label, but outside `labels` it is not read; move it into labels",
            "line 3: hallucination: is a label, but outside `labels` it is not read; move it into labels",
            "line 4: lables: is not a field the explorer reads (did you mean 'labels'?); kept as it is",
        ),
    ),
    Case(
        "made-up-id-clash",
        "a RefChecker record without an id on line 1, and a record whose own id is line-1",
        lines(REFCHECKER, dict(REFCHECKER, id="line-1", response="It has caffeine.")),
        ("line-1 (2)", "line-1"),
    ),
    Case(
        "made-up-name-clash",
        "an unnamed perspective first, then one named 'perspective 1'",
        lines(
            good(
                "unnamed",
                perspectives=[
                    {"arguments": ["Taxes reduce sugar consumption."]},
                    {"name": "perspective 1", "arguments": ["Taxes hurt poor families the most."]},
                ],
            )
        ),
        ("unnamed",),
    ),
    Case(
        "over-the-character-limit",
        "a 17,000-word response: more characters than an example may hold",
        around(good("huge", response=words_text(17_000))),
        GOOD_PAIR,
        (
            "line 2: the example holds 104,831 characters of text (query, perspectives and response); the limit is "
            "100,000: split it into several examples",
        ),
    ),
    Case(
        "over-the-claim-limit",
        "a response of 1,200 one-line bullet claims (70,000 characters)",
        lines(good("bullets", response=bullets(1_200))),
        ("bullets",),
        refused_by={
            "semantic": "the response makes 1,200 claims (sentences or clauses); the alignment reads at most",
            "stacked": "the response makes 1,200 claims (sentences or clauses); the alignment reads at most",
        },
    ),
    Case(
        "unspaced-runs",
        "a response of 20,000 dots, an argument that is one 5,000-letter word, a query of 1,500 dashes after its "
        "question (issue 51: the taggers read the dots alone for 5 to 8 minutes)",
        around(
            good("dots", response="." * 20_000),
            good("one-word", perspectives=[{"name": "pro", "arguments": ["Fine.", "a" * 5_000]}]),
            good("dashes", query="Should sugary drinks be taxed? " + "-" * 1_500),
        ),
        GOOD_PAIR,
        (
            "line 2: response: characters 0-20,000 are 20,000 characters without a space or line break; the limit "
            "is 1,000, since the detectors read text as words: break the run up or leave it out",
            "line 3: perspectives[0].arguments[1]: characters 0-5,000 are 5,000 characters without a space or line "
            "break; the limit is 1,000, since the detectors read text as words: break the run up or leave it out",
            "line 4: query: characters 31-1,531 are 1,500 characters without a space or line break; the limit is "
            "1,000, since the detectors read text as words: break the run up or leave it out",
        ),
    ),
)
