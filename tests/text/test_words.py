from explorer.text.words import DEFAULT_SEGMENTER, Segmenter, english_stop_words


def test_offsets_map_back_to_the_original_text():
    text = "Don't tax\tsugary drinks,\r\nit’s unfair!  Café prices (2024) rose."
    for word in DEFAULT_SEGMENTER.words(text):
        assert text[word.start : word.end] == word.text


def test_splits_on_whitespace_and_punctuation_and_keeps_contractions_whole():
    words = [w.text for w in DEFAULT_SEGMENTER.words("Sugar-taxes, (in 2024) don't work.")]
    assert words == ["Sugar", "taxes", "in", "2024", "don't", "work"]


def test_stop_words_are_nltk_english_and_work_offline():
    stop_words = english_stop_words()
    assert len(stop_words) == 198
    assert {"the", "and", "don't", "should've", "before"} <= stop_words
    content = [w.text for w in DEFAULT_SEGMENTER.content_words("The tax should not be raised before the vote")]
    assert content == ["tax", "raised", "vote"]


def test_curly_apostrophe_contractions_are_stop_words_too():
    assert [w.is_stop for w in DEFAULT_SEGMENTER.words("it’s")] == [True]


def test_porter_stems_lowercased():
    stems = [w.stem for w in DEFAULT_SEGMENTER.words("Taxes TAXING studies")]
    assert stems == ["tax", "tax", "studi"]


def test_non_latin_scripts_are_words_and_cjk_characters_are_one_word_each():
    assert [w.text for w in DEFAULT_SEGMENTER.words("Zürich naïve café")] == ["Zürich", "naïve", "café"]
    assert [w.text for w in DEFAULT_SEGMENTER.words("שלום עולם")] == ["שלום", "עולם"]
    assert [w.text for w in DEFAULT_SEGMENTER.words("税金は高い")] == ["税", "金", "は", "高", "い"]


def test_combining_marks_stay_inside_their_word():
    text = "cafe\u0301 au lait"
    assert DEFAULT_SEGMENTER.words(text)[0].text == "cafe\u0301"


def test_zero_width_space_and_emoji_separate_words_and_are_not_words():
    assert [w.text for w in DEFAULT_SEGMENTER.words("tax\u200bcut 🙂 now")] == ["tax", "cut", "now"]


def test_empty_text_has_no_words():
    assert DEFAULT_SEGMENTER.words("") == ()
    assert DEFAULT_SEGMENTER.words(" \n\t ") == ()


def test_segmenter_takes_its_own_stop_words():
    segmenter = Segmenter(stop_words=frozenset({"tax"}))
    assert [w.text for w in segmenter.content_words("the tax")] == ["the"]


def test_joining_format_characters_stay_inside_the_word_and_out_of_its_stem():
    # Soft hyphen, zero-width joiner and non-joiner, word joiner, U+FEFF: invisible, not breaks.
    text = "Ta\u00adxes cut\u200d su\u200cgar, Pre\u2060vent \ufeffdon't now\u00ad"
    words = DEFAULT_SEGMENTER.words(text)
    assert [w.text for w in words] == ["Ta\u00adxes", "cut", "su\u200cgar", "Pre\u2060vent", "don't", "now"]
    assert [w.stem for w in words] == [w.stem for w in DEFAULT_SEGMENTER.words("Taxes cut sugar Prevent don't now")]
    assert words[4].is_stop
    assert all(text[w.start : w.end] == w.text for w in words)
