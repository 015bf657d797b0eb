"""A plain (non-editable) install ships everything the explorer reads from inside the package."""

import json
import subprocess
import sys
import zipfile

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.slow  # builds a wheel (about 15 s)


def test_a_built_wheel_finds_the_samples_shipped_scores_and_weights_without_the_checkout(tmp_path):
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        cwd=tmp_path,
    )
    (wheel,) = tmp_path.glob("rag_error_explorer-*.whl")
    assert "explorer/ui/labeller.js" in zipfile.ZipFile(wheel).namelist()  # the labelling view's script
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    probe = (
        "import explorer.config as c, explorer.data.samples as s, explorer.scoring.cache as k\n"
        "assert str(c.RESOURCES).startswith(%r), c.RESOURCES\n"
        "import json\n"
        "print(json.dumps([len(s.load_samples()), len(list(c.SHIPPED_SCORES.glob('*.jsonl*'))),"
        " sorted(p.name for p in c.RESOURCES.iterdir() if p.is_dir())]))\n"
    ).replace("%r", repr(str(site)))
    # Run outside the checkout so that nothing is imported from it.
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env={"PYTHONPATH": str(site)}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    examples, bundles, folders = json.loads(done.stdout)
    assert examples > 200 and bundles >= 3
    assert {"alignment_classifier", "classifier", "classifier_prompt", "cross_encoder", "samples"} <= set(folders)
