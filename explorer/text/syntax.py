"""Finite verbs, pronoun positions and sentence form, by rules: a stand-in for a parser.

Chiesurin et al. 2023 (§2.2) read a response's form off Stanza's constituency parse (*short*:
one sentence whose root is S or SINV; *fragment*: one sentence whose root is neither; *long*:
several sentences) and its pronouns off Stanza's dependency parse (a pronoun that is a
subject or a direct object). Stanza's models download from a model hub, and no English parser
with its model installs from a package registry (spaCy's `en_core_web_sm` is not on PyPI), so
this module approximates both with closed word lists and position rules:

- a **finite verb** is an auxiliary or modal ("is", "has", "did", "can", "'re", "cannot",
  not after "to"); or a verb form from `resources/english-verbs.txt` in a finite position:
  a third-person "-s" form or a past form after a word that is not a determiner, preposition
  or sentence-initial comparative ("Lower costs"), a past form not followed by "by"
  ("the money raised by ..." is a participle), or a base form right after "I / you / we /
  they" or a plural noun ("Uniforms reduce ...");
- a sentence is **short** when a finite verb sits in its main clause: before any subordinator
  or relative word ("because", "which", "who", a non-initial "that") of its comma-separated
  segment; questions count as fragments (their root is SQ or SBARQ, neither S nor SINV);
- a **pronoun** (personal or demonstrative: I, you, he, she, it, we, they, me, him, her, us,
  them, this, that, these, those) is a *subject* when it is nominative ("they") or stands
  before a finite verb that agrees with it ("it depends", "this means"; not "afford it are"),
  and a *direct object* when it follows a verb form ("-ing" forms included) and no noun follows
  it ("reject this", "keeping them", but not "reject this idea").

Where it departs from the seed: no parse tree, so a participle phrase read as a clause, a
noun read as a verb ("people like them" vs "like them") or an imperative ("Consider both
sides.", read as a fragment) is misjudged; relative pronouns (which, who) and expletive
"there" are never counted; an indirect object ("gave him the book") counts as a direct one.
`tests/text/test_syntax.py` measures it on 40 hand-labelled sentences.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

import regex

from explorer.config import ENGLISH_VERBS

SHORT, FRAGMENT, LONG = "short", "fragment", "long"
SUBJECT, OBJECT = "subject", "object"

_CLITIC = r"'(?:s|re|ve|ll|d|m)\b"
_TOKEN = regex.compile(
    rf"\p{{L}}+(?=n't\b)|n't\b|{_CLITIC}|\p{{L}}+(?:(?:-|'(?!(?:s|re|ve|ll|d|m)\b))\p{{L}}+)*|\d+(?:[.,]\d+)*|[^\s\p{{L}}\d]"
)
FINITE_AUXILIARIES = frozenset(
    "am is are was were has have had do does did will would shall should can could may might must cannot "
    "ca wo sha 're 've 'm 'll 'd".split()
)
NOMINATIVE = frozenset("i he she we they".split())
ACCUSATIVE = frozenset("me him us them".split())
DEMONSTRATIVES = frozenset("this that these those".split())
PRONOUNS = NOMINATIVE | ACCUSATIVE | DEMONSTRATIVES | {"it", "you", "her"}
# Words after which the next word is a noun, not a verb.
DETERMINERS = frozenset(
    """a an the these those my your his her its our their no every each some many more most fewer less few
    several all both other another such any much enough own""".split()
)
PREPOSITIONS = frozenset(
    """of in on at for to with by from about into onto over under between through against without within
    across among during after before since until like per via than as""".split()
)
SUBORDINATORS = frozenset(
    """because although though since if unless whereas while when whenever where who whom whose which
    after before until""".split()
)
ADVERBS = frozenset(
    """also often still never always only even just usually generally sometimes rarely already really indeed
    further therefore however simply largely mostly actually certainly probably clearly rightly""".split()
)
IRREGULAR_PLURALS = frozenset("people children men women police".split())
NOT_PLURAL = frozenset("is was has does this its his us as thus less yes various plus bus gas news".split())


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int

    @property
    def lower(self) -> str:
        return self.text.lower().replace("\u2019", "'")

    @property
    def is_word(self) -> bool:
        return self.text[0].isalnum() or self.text[0] == "'" or self.text == "n't"


@dataclass(frozen=True)
class PronounUse:
    text: str
    start: int
    end: int
    role: str


@dataclass(frozen=True)
class VerbLexicon:
    """Verb forms by kind, from base forms and irregular (base, past, participle) lines."""

    base: frozenset[str]
    third_person: frozenset[str]
    past: frozenset[str]
    gerund: frozenset[str]  # never finite, but takes objects ("keeping them")

    @cached_property  # the union once: word-by-word checks ask it for every word
    def forms(self) -> frozenset[str]:
        return self.base | self.third_person | self.past | self.gerund


def _third_person(verb: str) -> str:
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _regular_past(verb: str) -> set[str]:
    if verb.endswith("e"):
        return {verb + "d"}
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return {verb[:-1] + "ied"}
    # A final consonant is doubled after one short vowel ("ban" -> "banned"); both spellings are
    # listed because stress decides it ("visited", not "visitted").
    return {verb + "ed", verb + verb[-1] + "ed"}


def _gerund(verb: str) -> set[str]:
    if verb.endswith("ie"):
        return {verb[:-2] + "ying"}
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
        return {verb[:-1] + "ing"}
    return {verb + "ing", verb + verb[-1] + "ing"}  # doubling depends on stress, as in `_regular_past`


@cache
def verb_lexicon() -> VerbLexicon:
    base, third, past, gerund = set(), set(), set(), set()
    for line in ENGLISH_VERBS.read_text(encoding="utf-8").splitlines():
        forms = line.split()
        if not forms or forms[0].startswith("#"):
            continue
        verb = forms[0]
        base.add(verb)
        third.add(_third_person(verb))
        past.update(forms[1:] if len(forms) > 1 else _regular_past(verb))
        gerund.update(_gerund(verb))
    return VerbLexicon(frozenset(base), frozenset(third), frozenset(past - base), frozenset(gerund))


def forms_of(verb: str, irregular: tuple[str, ...] = ()) -> dict[str, str]:
    """A base verb's forms by kind ("third", "past", "gerund"), one spelling each, where
    `verb_lexicon` lists every spelling a form may take (a final consonant doubled only after
    three letters: "ban" -> "banned", "visit" -> "visited"); `irregular` is (past, participle)."""
    pasts, gerunds = sorted(_regular_past(verb), key=len), sorted(_gerund(verb), key=len)
    doubled = len(verb) == 3 and len(pasts) > 1
    return {
        "third": _third_person(verb),
        "past": irregular[0] if irregular else pasts[-1 if doubled else 0],
        "gerund": gerunds[-1 if doubled and len(gerunds) > 1 else 0],
    }


@cache
def verb_forms() -> dict[str, dict[str, str]]:
    """`forms_of` every verb of `resources/english-verbs.txt`, by base form."""
    forms: dict[str, dict[str, str]] = {}
    for line in ENGLISH_VERBS.read_text(encoding="utf-8").splitlines():
        words = line.split()
        if words and not words[0].startswith("#"):
            forms[words[0]] = forms_of(words[0], tuple(words[1:]))
    return forms


def tokens(sentence: str) -> list[Token]:
    """Words (contractions split as in the Penn Treebank: "don't" -> "do", "n't") and punctuation."""
    return [Token(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(sentence.replace("\u2019", "'"))]


def _previous_word(found: list[Token], i: int, skip_adverbs: bool = False) -> Token | None:
    """The word before `found[i]` (None after punctuation or at the start), optionally skipping
    adverbs ("they also save" reads as "they save")."""
    j = i - 1
    while skip_adverbs and j > 0 and found[j].lower in ADVERBS:
        j -= 1
    return found[j] if j >= 0 and found[j].is_word else None


def _is_comparative_opener(found: list[Token], i: int) -> bool:
    """`found[i]` is an "-er" word opening a segment ("Lower costs ..."): an adjective."""
    word = found[i].lower
    return word.endswith("er") and (i == 0 or not found[i - 1].is_word)


def _is_plural_noun(word: str) -> bool:
    return word in IRREGULAR_PLURALS or (
        word.endswith("s") and not word.endswith("ss") and word not in NOT_PLURAL and word not in FINITE_AUXILIARIES
    )


def finite_verbs(found: list[Token], lexicon: VerbLexicon | None = None) -> list[int]:
    """Indices of the tokens read as finite verbs (see the module docstring)."""
    lexicon = lexicon or verb_lexicon()
    finite: list[int] = []
    for i, token in enumerate(found):
        word = token.lower
        before = _previous_word(found, i, skip_adverbs=True)
        prev = before.lower if before else None
        if word in FINITE_AUXILIARIES or (word == "'s" and prev in PRONOUNS | {"there", "here", "what"}):
            if prev != "to":
                finite.append(i)
            continue
        if before is None or prev in PREPOSITIONS or prev == "to" or _is_comparative_opener(found, i - 1):
            continue
        after = found[i + 1].lower if i + 1 < len(found) else None
        if word in lexicon.third_person and (prev not in DETERMINERS or prev in ("this", "that")):
            finite.append(i)
        elif word in lexicon.past and prev not in DETERMINERS and after != "by":
            finite.append(i)
        elif word in lexicon.base and (prev in ("i", "you", "we", "they") or _is_plural_noun(prev)):
            finite.append(i)
    return finite


def _segment_start(found: list[Token], i: int) -> bool:
    return i == 0 or not found[i - 1].is_word or found[i - 1].lower in ("and", "but", "so", "that", "because")


def main_clause_verbs(found: list[Token], finite: list[int]) -> list[int]:
    """The finite verbs before any subordinator or relative word ("that" not opening a
    segment) in their comma-separated segment."""
    main, subordinate = [], False
    finite_set = set(finite)
    for i, token in enumerate(found):
        if not token.is_word:
            subordinate = False
        elif token.lower in SUBORDINATORS or (token.lower == "that" and not _segment_start(found, i)):
            subordinate = True
        elif i in finite_set and not subordinate:
            main.append(i)
    return main


def _next_skipping_adverbs(found: list[Token], i: int) -> int | None:
    j = i + 1
    while j < len(found) and found[j].lower in ADVERBS:
        j += 1
    return j if j < len(found) else None


def _agrees(pronoun: str, verb: str) -> bool:
    """Whether finite `verb` can take `pronoun` ("it" or "you") as its subject: "afford it are
    hit" is not "it are"."""
    if pronoun == "it":
        return verb not in ("are", "were", "'re", "have", "do", "'ve", "am", "'m") and verb not in verb_lexicon().base
    return verb not in ("is", "was", "has", "does", "am", "'m", "'s") and verb not in verb_lexicon().third_person


def _followed_by_noun(found: list[Token], i: int) -> bool:
    """Whether a noun phrase may follow `found[i]` (so it is a determiner, not a pronoun)."""
    if i + 1 >= len(found) or not found[i + 1].is_word:
        return False
    after = found[i + 1].lower
    return not (after in PREPOSITIONS or after in ADVERBS or after in ("and", "or", "but", "because", "that"))


def pronoun_uses(found: list[Token], finite: list[int]) -> list[PronounUse]:
    """Pronouns in subject or direct-object position (see the module docstring)."""
    finite_set = set(finite)
    verb_forms = verb_lexicon().forms | FINITE_AUXILIARIES
    uses = []
    for i, token in enumerate(found):
        word = token.lower
        if word not in PRONOUNS:
            continue
        following = _next_skipping_adverbs(found, i)
        before_finite = following is not None and following in finite_set
        before = _previous_word(found, i)
        after_verb = before is not None and before.lower in verb_forms
        role = None
        if word in NOMINATIVE:
            role = SUBJECT
        elif word in ("it", "you"):
            agrees = before_finite and _agrees(word, found[following].lower)
            role = SUBJECT if agrees else OBJECT if after_verb else None
        elif word in ACCUSATIVE:
            role = OBJECT if after_verb else None
        elif word == "her":
            role = OBJECT if after_verb and not _followed_by_noun(found, i) else None
        elif word in DEMONSTRATIVES:
            if before_finite and _segment_start(found, i):
                role = SUBJECT
            elif after_verb and not _followed_by_noun(found, i):
                role = OBJECT
        if role is not None:
            uses.append(PronounUse(token.text, token.start, token.end, role))
    return uses


@dataclass(frozen=True)
class SentenceSyntax:
    form: str  # SHORT or FRAGMENT
    pronouns: tuple[PronounUse, ...]


def analyse_sentence(sentence: str) -> SentenceSyntax:
    """One sentence's form (short or fragment) and its subject / object pronouns (offsets into it)."""
    found = tokens(sentence)
    finite = finite_verbs(found)
    is_question = sentence.rstrip().endswith("?")
    form = SHORT if main_clause_verbs(found, finite) and not is_question else FRAGMENT
    return SentenceSyntax(form, tuple(pronoun_uses(found, finite)))
