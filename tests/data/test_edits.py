"""Which arguments the lab's edits removed and added, for marking them before and after."""

from explorer.data import edits
from tests.helpers import make_example


def example():
    return make_example("R.", ("pro", ["A.", "B.", "B."]), ("con", ["C."]))


def test_a_dropped_argument_is_removed_and_an_added_one_added():
    before = example()
    assert edits.argument_changes(before, edits.drop_argument(before, 0, 0)) == ({(0, 0)}, set())
    assert edits.argument_changes(before, edits.add_argument(before, 1, "D.")) == (set(), {(1, 1)})
    assert edits.argument_changes(before, before) == (set(), set())


def test_a_moved_or_rewritten_argument_is_removed_on_one_side_and_added_on_the_other():
    before = example()
    moved = edits.move_argument(before, 0, 2, 1)  # the second "B." goes to con
    assert edits.argument_changes(before, moved) == ({(0, 2)}, {(1, 1)})
    rewritten = edits.edit_argument(before, 1, 0, "C, reworded.")
    assert edits.argument_changes(before, rewritten) == ({(1, 0)}, {(1, 0)})
