"""Where bench/turned_losses.py places a turned argument."""

from bench.turned_losses import CAUGHT, JUDGE, READING, SAID, loss


def test_a_found_misstatement_is_caught_whatever_the_judge_says_of_the_turned_words_alone():
    assert loss("misstates", 0.0) == CAUGHT
    assert loss("misstates", 0.99) == CAUGHT


def test_a_missed_one_is_the_judges_loss_below_its_line_and_the_readings_at_or_above_it():
    for finding in ("states", "absent"):
        assert loss(finding, SAID - 0.01) == JUDGE
        assert loss(finding, SAID) == READING
