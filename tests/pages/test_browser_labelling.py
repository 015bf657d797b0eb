"""Labelling in the browser: five answers of an uploaded log labelled on the dataset page's Label
tab, with the mouse, the buttons and the keys (words marked in the response, an argument marked
uncovered, a finding accepted and one rejected, an answer without errors); the labels file they
are written to passes `explorer validate` and `explorer eval` with those labels, and a new
session that names the file again shows them."""

from __future__ import annotations

import json
import re

import pytest

from explorer.cli import main
from explorer.data.example import Labels
from explorer.data.jsonl import parse_jsonl, write_jsonl
from explorer.data.labelling import snap
from explorer.data.samples import load_samples
from tests.helpers import BROWSER_GROUP
from tests.pages.browser import open_dataset_page, screenshot, settle

pytestmark = [pytest.mark.browser, BROWSER_GROUP]


def _upload_log(page, tmp_path):
    """Twelve sample answers without their labels, uploaded on the dataset page: those of the
    sample's second topic, on most of which the verdict has a finding to accept or reject (on the
    first topic's, stacked v11 has two)."""
    log = tmp_path / "answers.jsonl"
    write_jsonl([e.replace(labels=Labels()) for e in load_samples()[10:22]], log)
    open_dataset_page(page)
    page.locator(".st-key-dataset-uploader input[type=file]").set_input_files(str(log))
    page.get_by_text("12 of 12 examples match the filters.").wait_for()
    page.get_by_role("tab", name="Label", exact=True).click()
    page.locator(".rx-labeller").wait_for()
    settle(page)
    return {e.id: e for e in parse_jsonl(log).examples}


def _shown(page) -> str:
    """The id of the answer the queue is at (the header names it)."""
    header = page.get_by_text(re.compile(r"Answer \d+ of 12 in the queue")).inner_text()
    return re.search(r"labelled · (\S+)", header).group(1)


def _next(page, before: str, by_key: bool) -> str:
    if by_key:
        page.locator("body").press("n")
    else:
        page.get_by_role("button", name="Next", exact=True).click()
    page.wait_for_function("id => !document.body.innerText.includes('· ' + id + ' ·')", arg=before)
    settle(page)
    return _shown(page)


def _finding(page) -> str:
    """An error type the verdict has a finding on for the answer shown."""
    found = page.locator("[data-finding]").first
    found.wait_for()
    return found.get_attribute("data-finding")


def test_five_answers_labelled_in_the_browser_make_a_labels_file_validate_and_eval_read(page, tmp_path, capsys):
    answers = _upload_log(page, tmp_path)
    labels_file = tmp_path / "my-labels.jsonl"
    path_box = page.get_by_role("textbox", name="Labels file")
    path_box.fill(str(labels_file))
    path_box.press("Enter")
    page.get_by_text(re.compile(r"Writing 0 labelled answer")).wait_for()
    expected = {}

    # 1. Words of the response selected (the third to the fifth), then the mouse released: the
    # selection is set exactly, since a drag's end point on a hyphenated word can land past it.
    first = _shown(page)
    words = page.locator(".rx-response .rx-w")
    page.evaluate(
        """() => {
        document.activeElement.blur();  // as a click would: the keys go to the labeller, not the file box
        const w = [...document.querySelectorAll('.rx-response .rx-w')];
        const range = document.createRange();
        range.setStart(w[2].firstChild, 0);
        range.setEnd(w[4].firstChild, w[4].textContent.length);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        w[4].dispatchEvent(new MouseEvent('mouseup', {bubbles: true, button: 0}));
    }"""
    )
    page.locator(".rx-response .rx-marked").nth(2).wait_for()
    settle(page)
    response = answers[first].response
    offsets = [int(words.nth(i).get_attribute(a)) for i, a in ((2, "data-s"), (4, "data-e"))]
    expected[first] = {"hallucination": True, "coverage_error": False, "hallucinated_spans": [offsets]}
    assert snap(response, *offsets) == tuple(offsets)

    # 2. An argument uncovered whole (the next answer by the key n).
    second = _next(page, first, by_key=True)
    page.locator(".rx-argument").first.get_by_role("button", name="uncovered").click()
    page.locator(".rx-argument.rx-whole").wait_for()
    settle(page)
    expected[second] = {
        "hallucination": False,
        "coverage_error": True,
        "uncovered": [{"perspective": 0, "argument": 0}],
    }

    # 3. A finding of the verdict accepted with its button.
    third = _next(page, second, by_key=False)
    accepted = _finding(page)
    page.locator(f"[class*=-accept-{accepted}]").get_by_role("button", name="Accept").click()
    page.locator(f"[data-finding={accepted}][data-outcome=accepted]").wait_for()
    settle(page)
    flag = "hallucination" if accepted == "hallucination" else "coverage_error"
    expected[third] = {flag: True}

    # 4. A finding rejected with its key (2: hallucination, 4: coverage), on the next answer the
    # verdict has one on: the queue's order follows the verdict, so which that is moves with it.
    fourth = _next(page, third, by_key=True)
    for _ in answers:
        if page.locator("[data-finding]").count():
            break
        fourth = _next(page, fourth, by_key=True)
    rejected = _finding(page)
    page.locator("body").press("2" if rejected == "hallucination" else "4")
    page.locator(f"[data-finding={rejected}][data-outcome=rejected]").wait_for()
    settle(page)
    expected[fourth] = {"hallucination" if rejected == "hallucination" else "coverage_error": False}

    # 5. No errors, by the key 0.
    fifth = _next(page, fourth, by_key=True)
    page.locator("body").press("0")
    page.get_by_text(re.compile(r"Writing 5 labelled answer")).wait_for()
    settle(page)
    expected[fifth] = {"hallucination": False, "coverage_error": False}
    screenshot(page, "dataset-label")

    written = parse_jsonl(labels_file)
    assert written.ok and not written.warnings and len(written.examples) == 5
    by_id = {e.id: e for e in written.examples}
    assert set(by_id) == set(expected)
    for example_id, wanted in expected.items():
        record = json.loads(json.dumps(by_id[example_id].to_dict()))["labels"]
        for field, value in wanted.items():
            assert record.get(field, [] if isinstance(value, list) else None) == value, (example_id, field, record)
        assert by_id[example_id].response == answers[example_id].response  # the answer itself, unchanged
    assert main(["validate", str(labels_file)]) == 0
    assert "5 valid example(s), 0 problem(s)" in capsys.readouterr().out
    assert main(["eval", str(labels_file), "--detectors", "rouge", "--out", str(tmp_path / "report"), "--quiet"]) == 0
    assert (tmp_path / "report.json").is_file()

    # A new session: the same upload, the same file named, and the five labels are back.
    page.goto(page.url.split("?")[0])
    _upload_log(page, tmp_path)
    page.get_by_role("textbox", name="Labels file").fill(str(labels_file))
    page.get_by_role("textbox", name="Labels file").press("Enter")
    page.get_by_text(re.compile(r"least sure first · 5 labelled")).wait_for()
    settle(page)
