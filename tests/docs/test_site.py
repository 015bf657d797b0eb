"""The docs site builds with `mkdocs build --strict`, every generated page is what the records
say, and the README carries no figure typed by hand (issue 49)."""

import os
import re
import subprocess
import sys

import pytest
import yaml

from explorer import detectors
from explorer.config import CHECKOUT
from explorer.docs import records, site

README = CHECKOUT / "README.md"
MKDOCS = [sys.executable, "-m", "mkdocs", "build", "--strict"]  # not --quiet: it stops counting warnings
QUIET = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # Material's banner about its successor


def test_the_site_builds_in_strict_mode(tmp_path):
    built = subprocess.run(
        [*MKDOCS, "--site-dir", str(tmp_path / "site")], cwd=CHECKOUT, capture_output=True, text=True, env=QUIET
    )
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "site" / "detectors" / "stacked" / "index.html").is_file()
    api = (tmp_path / "site" / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert "Score an <code>Example</code>" in api  # mkdocstrings rendered `explorer.inspect`'s docstring


def test_a_broken_link_fails_the_build_under_the_sites_settings(tmp_path):
    config = yaml.safe_load((CHECKOUT / "mkdocs.yml").read_text(encoding="utf-8"))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\nSee [the guide](guide.md).\n", encoding="utf-8")
    (tmp_path / "docs" / "other.md").write_text("# Other\n", encoding="utf-8")
    small = {key: config[key] for key in ("site_name", "strict", "validation", "markdown_extensions")}
    small["nav"] = ["index.md", "other.md"]
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(small), encoding="utf-8")
    built = subprocess.run(
        [*MKDOCS, "--site-dir", str(tmp_path / "site")], cwd=tmp_path, capture_output=True, text=True
    )
    assert built.returncode != 0
    assert "guide.md" in built.stderr


def test_every_detector_card_is_in_the_nav():
    config = yaml.safe_load((CHECKOUT / "mkdocs.yml").read_text(encoding="utf-8"))
    (cards_section,) = (entry["Detector cards"] for entry in config["nav"] if "Detector cards" in entry)
    listed = {next(iter(item.values())) if isinstance(item, dict) else item for item in cards_section}
    assert {f"detectors/{name}.md" for name in detectors.names()} | {"detectors/index.md"} == listed


def test_every_generated_file_is_what_the_records_say():
    stale = [
        str(path)
        for path, text in site.written(records.load()).items()
        if not (CHECKOUT / path).is_file() or (CHECKOUT / path).read_text(encoding="utf-8") != text
    ]
    assert not stale, f"run `python -m explorer.docs` to rewrite: {', '.join(stale)}"


def test_a_generated_block_is_filled_and_an_unknown_one_refused():
    text = "before\n<!-- generated:limits -->\nold\n<!-- /generated:limits -->\nafter\n"
    assert (
        site.fill(text, {"limits": "new"})
        == "before\n<!-- generated:limits -->\nnew\n<!-- /generated:limits -->\nafter\n"
    )
    with pytest.raises(KeyError, match="made-up"):
        site.fill("<!-- generated:made-up -->\n<!-- /generated:made-up -->", {"limits": ""})


def test_the_cli_reference_holds_every_commands_help():
    page = site.cli_reference()
    for name in ("validate", "score", "eval", "synth", "train", "generate", "claims", "build-data", "detectors"):
        assert f"## explorer {name}\n\n```text\nusage: explorer {name}" in page


def _outside_blocks_and_code(text: str) -> str:
    text = re.sub(r"https?://\S+", "", site.BLOCK.sub("", text))
    return re.sub(r"```.*?```", "", text, flags=re.S)


# Numbers in the README that are names, not measurements: the paper's arXiv id and the Python
# version pyproject.toml requires.
_IDENTIFIERS = {
    "2403.08904",
    re.search(r'requires-python = ">=([\d.]+)"', (CHECKOUT / "pyproject.toml").read_text()).group(1),
}


def test_the_readme_types_no_figure_outside_its_generated_blocks():
    prose = _outside_blocks_and_code(README.read_text(encoding="utf-8"))
    figures = set(re.findall(r"\d+\.\d+|\d+(?:\.\d+)?\s?%|\.\d\d+", prose)) - _IDENTIFIERS
    assert not figures, f"figures typed into the README: {sorted(figures)}; put them in a generated block"


def test_the_readme_is_short_and_leads_to_how_to_read_a_verdict():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200
    first_screen = "\n".join(lines[:30])
    assert "make app" in first_screen and "make test" in first_screen
    assert "[How to read a verdict](#how-to-read-a-verdict)" in first_screen
    assert "## How to read a verdict" in lines
