"""An example as a link token: what goes in comes back, and a broken link says what is wrong."""

import base64
import json
import zlib

import pytest

from explorer.data import share_links
from explorer.data.example import Labels
from tests.helpers import make_example

HOSTILE = "<script>alert(1)</script> $15 *wage* [x](javascript:1)"


def test_an_example_comes_back_whole_labels_and_unicode_included():
    example = make_example(
        f"Taxes cut sugar. {HOSTILE} — café ☕ 税",
        ("pro", ["Taxes cut sugar."]),
        ("con", [HOSTILE]),
        example_id="my/odd id?&",
        topic="税",
        labels=Labels(hallucination=True, coverage_error=False, hallucinated_spans=((17, 30),)),
    )
    token = share_links.encode(example)
    assert all(c.isalnum() or c in "-_" for c in token)  # URL-safe, no padding
    assert share_links.decode(token) == example


def _token(payload: bytes) -> str:
    return base64.urlsafe_b64encode(zlib.compress(payload)).decode().rstrip("=")


@pytest.mark.parametrize(
    ("token", "problem"),
    [
        ("not base64!", "not base64url"),
        (base64.urlsafe_b64encode(b"plain text").decode(), "not zlib data"),
        (_token(b'{"id": "x"')[:-6], "cut short"),
        (_token(b"[1, 2"), "not a JSON record"),
        (_token(json.dumps({"id": "x", "query": "Q?", "perspectives": [], "response": "R"}).encode()), "perspectives"),
        (_token(b"[" * 100_000), "nested too deeply"),  # issue 28: was a RecursionError on the page
    ],
)
def test_a_broken_token_names_what_is_wrong(token, problem):
    with pytest.raises(share_links.BadToken, match=problem):
        share_links.decode(token)


def test_a_token_that_inflates_past_the_limit_is_refused_without_inflating_it():
    bomb = _token(b" " * (share_links.MAX_RECORD_BYTES + 1))
    assert len(bomb) < 10_000
    with pytest.raises(share_links.BadToken, match="inflates past"):
        share_links.decode(bomb)
