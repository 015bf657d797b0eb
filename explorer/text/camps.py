"""Which camp each sentence of a response speaks for: supporters or opponents.

An answer on a controversial topic says whose argument it is stating: a header ("**Arguments
against**", "### Why some support it"), a subject ("Supporters argue that...", "Critics also point
out..."), a pronoun that carries the last subject on ("They also contend..."), or a turn to the
other side ("On the other hand, ..."). Chang et al. 2024 list *perspective confusion*, a given
argument stated in the other side's voice, among the ambiguous errors; reading the camps is what
lets a detector see it (`explorer.detectors.voice`), since the argument's words are all given.

Rules, not a model: the cues are a closed set of English words, and each rule has a test. A
sentence takes the camp its opening words name (a side noun or phrase within its first
`OPENING_WORDS` words, or anywhere in a header that is not the question restated); a sentence
that names none continues the camp before it when it opens with a pronoun ("They also...") and
otherwise speaks for its header's section, if any (a subject no cue names, "Those who still buy
it", may be either camp); a turn marker without a side noun passes to the other side, and a
closing line ("Overall, ...") speaks for none. The sides are the answer's two camps, `SUPPORT` and `OPPOSE`,
not the perspectives: "critics of bottled water" speak for the perspective that says stop buying
it. Which perspective each camp voices is read from what the camp's sentences state
(`explorer.detectors.voice`).
"""

from __future__ import annotations

import regex

from explorer.text.claims import Span, sentence_spans

# Words of the opening that may name the speaker: "On the other side, a number of critics also
# argue that" names it within its first nine words.
OPENING_WORDS = 12

SUPPORT, OPPOSE = "support", "oppose"
SIDES = (SUPPORT, OPPOSE)
# Nouns and phrases that name a side wherever they stand in the opening.
_SPEAKERS = {
    SUPPORT: r"supporters?|proponents?|advocates?|defenders?|backers?|champions?"
    r"|(?:those|people|many|some)\s+in\s+favou?r|in\s+favou?r|those\s+for|(?:who|which)\s+(?:support|favou?r|back)"
    r"|pro[- ]side|\bpros\b|\byes[- ]side",
    OPPOSE: r"opponents?|critics?|skeptics?|sceptics?|detractors?|objectors?|naysayers?"
    r"|(?:those|people|many|some)\s+against|(?:who|which)\s+oppose|opposed|opposing\s+(?:view|side|camp)"
    r"|con[- ]side|\bcons\b|\bno[- ]side|others\s+disagree",
}
# In a header only ("Arguments for", "For arming the police", "Why others oppose it").
_HEADER_SIDES = {
    SUPPORT: r"\bfor\b|\bsupport|\bpro\b|\byes\b|\bbenefits?\b|\badvantages?\b",
    OPPOSE: r"\bagainst\b|\boppos|\bcon\b|\bno\b|\bconcerns?\b|\bdrawbacks?\b|\bdisadvantages?\b|\brisks?\b"
    r"|\bcriticism",
}
_CONTINUATION = regex.compile(
    r"^\W*(?:they|these|those|such|this\s+side|the\s+same|this\s+camp|in\s+their\s+view)\b", regex.I
)
_TURN = regex.compile(
    r"^\W*(?:on\s+the\s+other\s+(?:hand|side)|however|by\s+contrast|in\s+contrast|conversely|others\b|"
    r"but\s+others|meanwhile|on\s+the\s+opposing\s+side|from\s+the\s+other\s+side)",
    regex.I,
)
# A closing line speaks for no side ("Overall, ...", "**Bottom line:** ..."), whatever came before.
_CLOSING = regex.compile(
    r"^\W*(?:(?:thus|so|therefore|hence),?\s+)?(?:overall|ultimately|in\s+(?:short|sum|summary|the\s+end|conclusion)|to\s+(?:sum\s+up|summari[sz]e|conclude)|"
    r"all\s+in\s+all|bottom\s+line|in\s+the\s+end|tl;?dr|summary|the\s+debate|views\s+on|where\s+you\s+land)\b",
    regex.I,
)
# Inside the opening: "Defenders, however, emphasise..." after "Those who favour scrapping it..."
# is the other camp, though both name supporters (of different things).
_CONTRAST = regex.compile(
    r"\b(?:however|by\s+contrast|in\s+contrast|on\s+the\s+other\s+(?:hand|side)|conversely|instead)\b", regex.I
)
_HEADER_MARK = regex.compile(r"^\s*#{1,6}\s|^\s*(\*\*|__)[^*_]+\1\s*:?\s*$|^[^.!?]{0,80}:\s*$")
_WORD = regex.compile(r"\w+")
# A bold label that opens a sentence ("**For:** Major changes...") is read as a header.
_LABEL = regex.compile(r"^\s*(\*\*|__)([^*_]{1,60})\1")


def _is_header(sentence: str) -> bool:
    first_line = sentence.strip().split("\n", 1)[0]
    words = _WORD.findall(first_line)
    return bool(_HEADER_MARK.search(first_line)) or (
        0 < len(words) <= 6 and not first_line.rstrip().endswith((".", "!", "?"))
    )


def _speakers(text: str) -> set[str]:
    """The sides whose speaker nouns or phrases (`_SPEAKERS`) the text uses."""
    return {side for side in SIDES if regex.search(_SPEAKERS[side], text, regex.I)}


def _named_side(text: str, header: bool) -> str | None:
    """The side the text names, or None (also when it names both: "supporters say ...; critics
    say ..." speaks for both)."""
    named = _speakers(text)
    if header:
        named |= {side for side in SIDES if regex.search(_HEADER_SIDES[side], text, regex.I)}
    return named.pop() if len(named) == 1 else None


def _both_named(sentence: str) -> bool:
    """Whether the sentence's opening names both sides."""
    return _speakers(_opening(sentence)) == set(SIDES)


def _other(side: str) -> str:
    return OPPOSE if side == SUPPORT else SUPPORT


def _opening(sentence: str) -> str:
    words = list(_WORD.finditer(sentence))
    if len(words) <= OPENING_WORDS:
        return sentence
    return sentence[: words[OPENING_WORDS - 1].end()]


def camps(response: str) -> list[tuple[Span, str | None]]:
    """Each sentence of `response` (`explorer.text.claims.sentence_spans`) with the side it speaks
    for (`SUPPORT` or `OPPOSE`), or None where nothing says (before any cue, a sentence whose subject
    names no side outside a header's section, a closing line)."""
    out: list[tuple[Span, str | None]] = []
    current: str | None = None  # the camp of the sentence before
    section: str | None = None  # the camp the last header (or bold label) named
    after_header = False
    for start, end in sentence_spans(response):
        sentence = response[start:end]
        header = _is_header(sentence)
        first_line = sentence.split("\n", 1)[0]
        label = _LABEL.match(sentence)
        if header and first_line.rstrip(" *_#").endswith("?"):
            named = None  # the question restated as a title ("**Is it crucial for humanity...?**")
        elif label and not header:
            named = _named_side(label.group(2), True)
            section = named if named is not None else section
            if named is None:
                named = _named_side(_opening(sentence[label.end() :]), False)
        else:
            named = _named_side(first_line if header else _opening(sentence), header)
        if header and named is not None:
            section = named
        if header and "\n" in sentence:
            # A header glued to its first sentence ("### Against\nCritics say..."): the header
            # sets the section, the sentence may still name its own speaker.
            current = named if named is not None else current
            named = _named_side(_opening(sentence.split("\n", 1)[1]), False)
        if named is not None:
            turned = named == current and not header and _CONTRAST.search(_opening(sentence))
            current = _other(named) if turned else named
        elif _CLOSING.match(sentence):
            current = section = None
        elif _both_named(sentence):
            current = None
        elif _TURN.match(sentence) and not after_header and not _CONTINUATION.match(sentence) and current is not None:
            # A header that just named the side already made the turn ("**The case for** / On
            # the other side, those who...").
            current = _other(current)
        elif not header and not _CONTINUATION.match(sentence):
            # A subject no cue names ("Those who still buy it say..."): it may be either camp, so
            # only a header's section speaks for it.
            current = section
        after_header = header
        out.append(((start, end), current))
    return out
