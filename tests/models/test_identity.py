"""A model's identity (part of every result-cache key) changes with any file that shapes its
output (issue 14, problem 5: a changed chat template served stale cached salience)."""

import json

import pytest

from explorer.detectors.salience import SalienceDetector
from explorer.models.encoder import encoder_identity
from explorer.models.identity import model_identity


@pytest.fixture
def model_folder(tmp_path):
    folder = tmp_path / "tiny-model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "llama"}), encoding="utf-8")
    (folder / "model.safetensors").write_bytes(b"weights")
    (folder / "chat_template.jinja").write_text("{{ messages }}", encoding="utf-8")
    (folder / "tokenizer.json").write_text("{}", encoding="utf-8")
    (folder / "special_tokens_map.json").write_text("{}", encoding="utf-8")
    (folder / "1_Pooling").mkdir()
    (folder / "1_Pooling" / "config.json").write_text("{}", encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "changed", ["chat_template.jinja", "tokenizer.json", "model.safetensors", "1_Pooling/config.json", "merges.new"]
)
def test_editing_or_adding_any_file_of_the_folder_changes_the_identity(model_folder, changed):
    before = model_identity(model_folder)
    with (model_folder / changed).open("a", encoding="utf-8") as handle:
        handle.write("\n")
    assert model_identity(model_folder) != before


def test_hidden_folders_and_the_folders_place_do_not_count(model_folder, tmp_path):
    before = model_identity(model_folder)
    (model_folder / ".git").mkdir()
    (model_folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    assert model_identity(model_folder) == before
    moved = model_folder.rename(tmp_path / "moved")
    assert model_identity(moved).split("@")[1] == before.split("@")[1]


def test_a_changed_chat_template_changes_the_salience_cache_key(model_folder):
    before = SalienceDetector(model=str(model_folder)).info()
    (model_folder / "chat_template.jinja").write_text("{{ messages | reverse }}", encoding="utf-8")
    assert SalienceDetector(model=str(model_folder)).info()["model"] != before["model"]


def test_a_custom_sentence_encoder_is_named_by_its_files_not_its_path(model_folder):
    before = encoder_identity(model_folder)
    assert str(model_folder) not in before
    (model_folder / "tokenizer.json").write_text('{"changed": true}', encoding="utf-8")
    assert encoder_identity(model_folder) != before
