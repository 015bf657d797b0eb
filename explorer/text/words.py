"""Word segmentation with character offsets, stop words and stemming; text shortened for a label.

Chang et al. 2024 (§3.1) split text on whitespace and punctuation, drop NLTK's English stop
words and stem with NLTK's Porter stemmer. Every detector and every highlight uses the words
made here, so a word-level score always maps back to an exact span of the user's text.

Departures from a plain whitespace/punctuation split, each so that non-English text is not
silently scored as empty (the fault of `rouge_score`'s default tokenizer):
- letters, digits and combining marks of any script form words; apostrophes inside a word
  keep it whole ("don't" is one word, and a stop word);
- Chinese and Japanese characters are one word each, since those scripts do not separate
  words with spaces;
- invisible format characters that join rather than break (soft hyphen, zero-width joiner and
  non-joiner, word joiner, U+FEFF; Unicode's word-boundary rules skip them too) stay inside their
  word and are left out of its stem, so text pasted from a web page matches the same words
  typed plainly. The zero-width space marks a word break and stays one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import regex

from explorer.config import STOPWORDS

UNSPACED_SCRIPTS = r"\p{Han}\p{Hiragana}\p{Katakana}"  # written without spaces: a word a character
_LETTERS = rf"[[\p{{L}}\p{{N}}\p{{M}}]--[{UNSPACED_SCRIPTS}]]+"
_JOINERS = r"[\p{Cf}--\u200b]"
_WORD = regex.compile(rf"(?V1)[{UNSPACED_SCRIPTS}]|{_LETTERS}(?:(?:['\u2019]|{_JOINERS}+){_LETTERS})*")
_JOINER = regex.compile(rf"(?V1){_JOINERS}")


@dataclass(frozen=True)
class Word:
    """One word of a text: `text == source[start:end]`."""

    text: str
    start: int
    end: int
    stem: str
    is_stop: bool


def english_stop_words() -> frozenset[str]:
    """NLTK's English stop-word list, from the copy shipped in this package.

    The copy, not `nltk.corpus.stopwords`, because that corpus needs `nltk.download()` (no
    network here) and its contents differ between nltk_data releases: shipping one list keeps
    scores identical on every machine.
    """
    path = STOPWORDS
    return frozenset(path.read_text(encoding="utf-8").split())


class Segmenter:
    """Splits text into `Word`s; swappable so detectors can be tested with other word rules."""

    def __init__(self, stop_words: frozenset[str] | None = None, stemmer=None):
        self.stop_words = english_stop_words() if stop_words is None else stop_words
        self._stemmer = stemmer
        self._stem = lru_cache(maxsize=65536)(self._stem_word)
        # Detectors and claim splitting segment the same texts again and again (an argument
        # shared by many examples, a sentence and its clauses); words are immutable.
        self._words = lru_cache(maxsize=2048)(self._segment)

    def _stem_word(self, word: str) -> str:
        # NLTK is imported at the first word stemmed: `import nltk` loads scipy.stats, sklearn
        # and pandas (2.3 s), which a command that never segments text (`--help`, `validate`)
        # should not wait for.
        if self._stemmer is None:
            from nltk.stem import PorterStemmer

            self._stemmer = PorterStemmer()
        return self._stemmer.stem(word)

    def words(self, text: str) -> tuple[Word, ...]:
        """All words of `text`, stop words included, in order."""
        return self._words(text)

    def _segment(self, text: str) -> tuple[Word, ...]:
        found = []
        for match in _WORD.finditer(text):
            normalized = _JOINER.sub("", match.group()).lower().replace("\u2019", "'")
            found.append(
                Word(
                    text=match.group(),
                    start=match.start(),
                    end=match.end(),
                    stem=self._stem(normalized),
                    is_stop=normalized in self.stop_words,
                )
            )
        return tuple(found)

    def content_words(self, text: str) -> tuple[Word, ...]:
        """The words of `text` that are not stop words: the units every detector scores."""
        return tuple(word for word in self.words(text) if not word.is_stop)

    def content_stems(self, text: str) -> Counter[str]:
        """How often each stem occurs among the content words of `text` (ROUGE's bag of stems;
        its keys, the stems two texts are compared on)."""
        return Counter(word.stem for word in self.content_words(text))


DEFAULT_SEGMENTER = Segmenter()


def shorten(text: str, limit: int) -> str:
    """`text` when it has at most `limit` characters, else its start and "…", `limit` in all."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"
