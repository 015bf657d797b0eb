"""Sentences and clauses with character offsets: the claims a response makes, the units of an argument.

RefChecker (Hu et al. 2024) checks a response claim by claim; Chang et al. 2024 score words.
The semantic detector and the claim view sit in between: a claim is a sentence of the
response, or a clause of it where the sentence joins several arguments (that decision needs
the arguments, so it is made in `explorer.detectors.ops.alignment`; this module only proposes where a
sentence could be cut).

Sentence splitting is rule-based because NLTK's punkt model needs data that cannot be
downloaded here. The rules, each with a test:
- a sentence ends at `.`, `!`, `?` or `…` (with any closing quotes or brackets after it)
  followed by whitespace and a word that does not start in lower case; full-width
  `。！？` and the Devanagari, Arabic and Urdu stops end a sentence without a space;
- no cut after an abbreviation from a fixed list ("e.g.", "Dr.", "vs."), after a
  single-letter initial ("J. Smith"), inside a number ("3.5"), or after a dotted acronym
  ("U.S.") unless a common sentence opener follows;
- a blank line, a line that starts a list item, or a line break after end punctuation or a
  colon ends a sentence; other single line breaks are soft wraps inside one sentence;
- list markers ("- ", "1. ") and surrounding whitespace are not part of a sentence;
- a markdown table row ("| a | b |") is a line of its own and each of its cells a sentence (a
  row of dashes is none): a table states one argument a cell;
- a markdown heading (a line starting "# " to "###### ", or a line wholly in bold) is a
  sentence of its own: a chat model's "### Arguments for" would otherwise open the next sentence
  ("Arguments for Supporters say ..."). A heading, and a cell of a table's header row, is a
  sentence (`explorer.text.camps` reads the side a heading names) but no claim: `is_heading`
  tells the claim makers to leave it out.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from explorer.text.words import DEFAULT_SEGMENTER, Segmenter

Span = tuple[int, int]

# Abbreviations after which a period does not end a sentence (lower case, without the final dot).
# "etc." is not one: it ends a list inside a sentence as often as a sentence, and the case of
# the next word tells the two apart.
ABBREVIATIONS = frozenset(
    """
    mr mrs ms mx dr prof sr jr st mt ft gen col capt lt sgt sen gov pres hon
    e.g i.e cf vs al approx ca ed eds est dept univ inc ltd corp
    jan feb apr jun jul aug sep sept oct nov dec a.m p.m
    """.split()
)
# Abbreviations that are also words ("no", "p"): not a sentence end only before a number.
NUMBER_ABBREVIATIONS = frozenset("no nos vol vols p pp fig figs art sec ch".split())

# Words that, after a dotted acronym ("the U.S."), show a new sentence has begun.
SENTENCE_OPENERS = frozenset(
    """
    the this that these those it its they their there he she we i you our a an in on at but however
    yet so thus therefore meanwhile moreover furthermore also still critics supporters opponents
    proponents some many most others if when while although though since because as for finally
    """.split()
)

_TERMINATOR = regex.compile(
    r"(?:[.!?\u2026]+|[\u3002\uff01\uff1f\u0964\u0965\u061f\u06d4]+)[\"'\u201d\u2019\u00bb)\]]*"
)
_UNSPACED_STOPS = frozenset("\u3002\uff01\uff1f")
_NEWLINES = regex.compile(r"[ \t]*\r?\n(?:[ \t]*\r?\n)*[ \t]*")
_LIST_MARKER = regex.compile(r"(?:[-*\u2022\u2023\u25e6\u2013\u2014]|\d{1,3}[.)]|[a-z][.)]|#{1,6})[ \t]+")
# A markdown heading line, and a table's rule line (see the module doc).
_HEADING = regex.compile(r"[ \t]{0,3}(?:#{1,6}[ \t]+\S.*|\*\*[^*\n]+\*\*:?|__[^_\n]+__:?)[ \t]*")
_TABLE_RULE = regex.compile(r"[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+(?:[ \t]*:?-+:?[ \t]*)?")
_WORD_AFTER = regex.compile(r"\s*[\"'\u201c\u2018(\[]*(\p{L}[\p{L}\p{M}'\u2019]*)?")
# Where a sentence may be cut into clauses: a semicolon, or a comma before a conjunction that
# commonly joins two arguments. Only candidates: `explorer.detectors.ops.alignment` decides.
_CLAUSE_CUT = regex.compile(
    r"[;\uff1b]\s+|,\s+(?=(?:but|while|whereas|although|though|yet|and|and also|or|since|because|so)\b)",
    regex.IGNORECASE,
)
# Where `piece_spans` cuts: every semicolon, colon and comma, and "and that" (one verb's list of
# that-clauses: "note that X, that Y and that Z"). Finer than a claim, so that each argument a
# sentence lists can be matched to its own piece (`explorer.detectors.matching`).
_PIECE_CUT = regex.compile(r"[;:,\uff1b\uff1a\uff0c]\s+|\s+and\s+(?=that\b)", regex.IGNORECASE)
_CONJUNCT_CUT = regex.compile(r"\s+(?:and|as well as)\s+", regex.IGNORECASE)
MIN_CLAUSE_CONTENT_WORDS = 3
MIN_PIECE_CONTENT_WORDS = 2  # "Raises achievement." states an argument; "Overview:" does not


@dataclass(frozen=True)
class Claim:
    """One claim of a response: `text == response[start:end]`.

    `sentence` is the index of the sentence it comes from; `clause` its clause index inside
    that sentence, or None when the claim is the whole sentence.
    """

    index: int
    start: int
    end: int
    text: str
    sentence: int
    clause: int | None = None

    @property
    def span(self) -> Span:
        return (self.start, self.end)


def _strip(text: str, start: int, end: int) -> Span | None:
    """Shrink `[start, end)` to exclude whitespace and a leading list marker; None if empty."""
    while start < end and text[start].isspace():
        start += 1
    marker = _LIST_MARKER.match(text, start, end)
    if marker is not None and marker.end() < end:
        start = marker.end()
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def _last_visible(text: str, end: int) -> str:
    """The last non-space character of `text[:end]`, or "" (read backwards: a long text has many
    line breaks, and copying its prefix at each one took time quadratic in its length)."""
    while end > 0 and text[end - 1].isspace():
        end -= 1
    return text[end - 1] if end else ""


def _word_before(text: str, end: int) -> str:
    """The run of non-space characters that ends at `end` (read backwards, as above)."""
    start = end
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return text[start:end]


def _line(text: str, start: int) -> str:
    """The line of `text` that holds `start` (from its start to its line break)."""
    end = text.find("\n", start)
    return text[text.rfind("\n", 0, start) + 1 : end if end >= 0 else len(text)].rstrip("\r")


def _is_hard_break(text: str, newline: regex.Match) -> bool:
    if newline.group().count("\n") >= 2:
        return True
    if text.startswith("|", newline.end()) or _last_visible(text, newline.start()) == "|":
        return True
    last = _last_visible(text, newline.start())
    if not last or last in ".!?:\u2026\u3002\uff01\uff1f" or last in "\"'\u201d\u2019)":
        return True
    if _HEADING.fullmatch(_line(text, newline.start())) or _HEADING.fullmatch(_line(text, newline.end())):
        return True
    return _LIST_MARKER.match(text, newline.end()) is not None


def _blocks(text: str) -> list[Span]:
    """Spans of text between hard line breaks."""
    blocks, start = [], 0
    for newline in _NEWLINES.finditer(text):
        if _is_hard_break(text, newline):
            blocks.append((start, newline.start()))
            start = newline.end()
    blocks.append((start, len(text)))
    return blocks


def _ends_sentence(text: str, terminator: regex.Match, block_end: int) -> bool:
    end = terminator.end()
    marks = terminator.group()
    if any(mark in _UNSPACED_STOPS for mark in marks):
        return True
    if end >= block_end:
        return True
    if not text[end].isspace():
        return False
    following = _WORD_AFTER.match(text, end, block_end)
    next_word = following.group(1) if following else None
    if next_word is not None and next_word[0].islower():
        return False
    if marks.rstrip("\"'\u201d\u2019\u00bb)]") != ".":
        return True
    previous = _word_before(text, terminator.start())
    if not previous:
        return True
    word = previous.lstrip("\"'\u201c\u2018([").lower()
    if word in ABBREVIATIONS:
        return False
    if word in NUMBER_ABBREVIATIONS and regex.match(r"\s*\d", text[end:block_end]):
        return False
    if len(word) == 1 and word.isalpha():
        return False
    if regex.fullmatch(r"(?:\p{L}\.)+\p{L}", word):  # a dotted acronym such as "u.s"
        return next_word is not None and next_word.lower() in SENTENCE_OPENERS
    return True


def _table_cells(text: str, start: int, end: int) -> list[Span]:
    """The cells of a markdown table row, each stripped; none for a row of dashes."""
    cells = []
    for cell in regex.finditer(r"[^|]+", text[start:end]):
        span = _strip(text, start + cell.start(), start + cell.end())
        if span is not None and not regex.fullmatch(r"[\s:\-]+", text[span[0] : span[1]]):
            cells.append(span)
    return cells


def sentence_spans(text: str) -> tuple[Span, ...]:
    """The sentences of `text` as `[start, end)` spans, in order, without surrounding whitespace."""
    spans: list[Span] = []
    for block_start, block_end in _blocks(text):
        # A list marker ("2. ") would otherwise read as a one-word sentence.
        while block_start < block_end and text[block_start].isspace():
            block_start += 1
        if text.startswith("|", block_start):
            spans += _table_cells(text, block_start, block_end)
            continue
        marker = _LIST_MARKER.match(text, block_start, block_end)
        if marker is not None:
            block_start = marker.end()
        start = block_start
        for terminator in _TERMINATOR.finditer(text, block_start, block_end):
            if _ends_sentence(text, terminator, block_end):
                span = _strip(text, start, terminator.end())
                if span is not None:
                    spans.append(span)
                start = terminator.end()
        span = _strip(text, start, block_end)
        if span is not None:
            spans.append(span)
    return tuple(spans)


def is_heading(text: str, span: Span) -> bool:
    """Whether the sentence `text[span]` (of `sentence_spans`) is a markdown heading or a cell of
    a table's header row (the row above its rule line), which state nothing."""
    start = text.rfind("\n", 0, span[0]) + 1  # the heading's own "### ", left out of the sentence
    if _HEADING.fullmatch(text, start, span[1]) is not None:
        return True
    after = text.find("\n", span[1])
    return after >= 0 and text.startswith("|", start) and _TABLE_RULE.fullmatch(_line(text, after + 1)) is not None


def clause_spans(
    text: str, sentence: Span, segmenter: Segmenter = DEFAULT_SEGMENTER, cut: regex.Pattern = _CLAUSE_CUT
) -> tuple[Span, ...]:
    """Candidate clauses of one sentence of `text`: cut at semicolons and before conjunctions (or at `cut`).

    A piece with fewer than `MIN_CLAUSE_CONTENT_WORDS` content words ("sweets, and desserts")
    is joined to the piece before it (or after it, for the first), so a list is never cut into
    its items. Returns `(sentence,)` when the sentence has no cut.
    """
    start, end = sentence
    pieces: list[Span] = []
    cursor = start
    for found in cut.finditer(text, start, end):
        pieces.append((cursor, found.start()))
        cursor = found.end()
    pieces.append((cursor, end))
    merged: list[Span] = []
    for piece in pieces:
        if merged and _content_count(text, merged[-1], segmenter) < MIN_CLAUSE_CONTENT_WORDS:
            merged[-1] = (merged[-1][0], piece[1])
        elif merged and _content_count(text, piece, segmenter) < MIN_CLAUSE_CONTENT_WORDS:
            merged[-1] = (merged[-1][0], piece[1])
        else:
            merged.append(piece)
    if len(merged) > 1 and _content_count(text, merged[-1], segmenter) < MIN_CLAUSE_CONTENT_WORDS:
        last = merged.pop()
        merged[-1] = (merged[-1][0], last[1])
    stripped = [_strip(text, s, e) for s, e in merged]
    return tuple(span for span in stripped if span is not None) or (sentence,)


def piece_spans(text: str, segmenter: Segmenter = DEFAULT_SEGMENTER) -> tuple[Span, ...]:
    """Every sentence of `text` cut at each comma, semicolon, colon and "and that", short pieces
    joined to a neighbour as in `clause_spans` (so "pubs, clubs and bars" stays one); a sentence
    with fewer than `MIN_PIECE_CONTENT_WORDS` content words (a one-word header) is left out."""
    return tuple(
        piece
        for sentence in sentence_spans(text)
        for piece in clause_spans(text, sentence, segmenter, _PIECE_CUT)
        if _content_count(text, piece, segmenter) >= MIN_PIECE_CONTENT_WORDS
    )


def candidate_spans(text: str, segmenter: Segmenter = DEFAULT_SEGMENTER) -> tuple[Span, ...]:
    """Where `text` may state an argument: each of its pieces (`piece_spans`) and each sentence
    that has more than one, in order. An argument is stated by one clause of a list as often as
    by a whole sentence ("..., because ..." belongs to the statement before it)."""
    pieces = piece_spans(text, segmenter)
    sentences = [
        s
        for s in sentence_spans(text)
        if s not in pieces and _content_count(text, s, segmenter) >= MIN_PIECE_CONTENT_WORDS
    ]
    return tuple(sorted(set(pieces) | set(sentences)))


def conjunct_spans(text: str, span: Span, segmenter: Segmenter = DEFAULT_SEGMENTER) -> tuple[Span, ...]:
    """The conjuncts `text[span]` joins with "and", or () when it joins none: in "X cuts A and
    gives B a voice" each verb phrase is a statement of its own. Conjuncts of fewer than
    `MIN_CLAUSE_CONTENT_WORDS` content words are joined to a neighbour, as in `clause_spans`, so
    "costs and benefits" is never cut."""
    found = clause_spans(text, span, segmenter, _CONJUNCT_CUT)
    return found if len(found) > 1 else ()


def _content_count(text: str, span: Span, segmenter: Segmenter) -> int:
    return len(segmenter.content_words(text[span[0] : span[1]]))


def split_sentences(text: str) -> tuple[Claim, ...]:
    """Every sentence of `text` as a whole-sentence `Claim`."""
    return tuple(
        Claim(index=i, start=s, end=e, text=text[s:e], sentence=i) for i, (s, e) in enumerate(sentence_spans(text))
    )


def mean_word_scores(claims: tuple[Claim, ...], words: list[tuple[int, int, float]]) -> list[float | None]:
    """Per claim, the mean score of the scored words inside it (None when it holds none).

    Turns any detector's word-level scores on the response into claim-level scores, so the
    claim view can show whether the other detectors agree with a claim's verdict.
    """
    means: list[float | None] = []
    for claim in claims:
        inside = [score for start, end, score in words if claim.start <= start and end <= claim.end]
        means.append(sum(inside) / len(inside) if inside else None)
    return means
