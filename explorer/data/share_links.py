"""One example as a short URL-safe token, so a link or a reload brings back what was pasted or edited.

The token is the example's JSON record (`Example.to_dict`, gold labels and unknown fields
included), zlib-compressed and base64url-encoded without padding: a sample example of ~3 KB
of text becomes ~1.5 KB of URL. Nothing is stored on a server; the link holds the example.
A token is read within bounds, as an input file is: it inflates to at most `MAX_RECORD_BYTES`,
and JSON nested deeper than Python's parser goes is a `BadToken` (the page shows a warning),
not a `RecursionError`.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib

from explorer.data.example import Example
from explorer.data.jsonl import InvalidExample, loads, parse_example

# Browsers accept URLs of 2 MB, but servers and chat tools cut them far shorter; past this a
# link is not offered (the report or the JSON record shares the example instead).
MAX_TOKEN_LENGTH = 64_000
# A token inflates to at most this: a link cannot make the server decompress a bomb.
MAX_RECORD_BYTES = 4_000_000


class BadToken(ValueError):
    """A link's example token that cannot be read, with what is wrong with it."""


def encode(example: Example) -> str:
    record = json.dumps(example.to_dict(), ensure_ascii=False, separators=(",", ":"))
    packed = zlib.compress(record.encode("utf-8"), level=9)
    return base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")


def decode(token: str) -> Example:
    """The example in `token`; `BadToken` says which step failed (base64, zlib, JSON, the record)."""
    try:
        packed = base64.b64decode(token + "=" * (-len(token) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError) as error:
        raise BadToken(f"not base64url: {error}") from error
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(packed, MAX_RECORD_BYTES)
    except zlib.error as error:
        raise BadToken(f"not zlib data (cut short or altered?): {error}") from error
    if inflater.unconsumed_tail:
        raise BadToken(f"the example inflates past {MAX_RECORD_BYTES:,} bytes")
    if not inflater.eof:
        raise BadToken("the compressed example is cut short (was the link copied whole?)")
    try:
        record = loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BadToken(f"not a JSON record: {error}") from error
    try:
        return parse_example(record)
    except InvalidExample as invalid:
        raise BadToken("; ".join(str(e) for e in invalid.errors)) from invalid
