"""The explorer from Python and notebooks: `explorer.inspect(...)`.

As Inseq's attributions `.show()` themselves and Captum's visualizations render in Jupyter, an
`Inspection` renders itself (`_repr_html_`: the same report as the app's "Download HTML
report") and saves it (`.save(path)`):

    import explorer
    found = explorer.inspect({"id": "x", "query": "...", "perspectives": [...], "response": "..."})
    found                      # in Jupyter: verdict, scores against thresholds, claims, highlights
    found.verdicts["hallucination"].verdict   # "likely" / "unclear" / "unlikely"
    found.scores               # pandas DataFrame: detector x error type
    found.save("report.html")

    many = explorer.inspect("data.jsonl", detectors=["rouge", "semantic", "salience"])
    many.frame()               # one row per example (`explorer.evaluation.table.scores_frame`)

Results go through the same on-disk cache as the app and the CLI (shipped salience results
serve the sample data at once). The verdict always comes from `detectors.VERDICT_DETECTOR`,
scored even when not among `detectors`. `calibration="my-calibration.json"` (a file `explorer
calibrate` wrote) puts that calibration in place of the shipped one for the detectors it
refitted: verdicts, thresholds and the report then read it and name it.

`save` writes as the CLI writes: through the same guard (`explorer.files.check_output`: never
over the examples' file, a file of the repository or the shared data, a FIFO or a device; an
`UnsafeOutputError` says why), whole or not at all, with the permissions the umask gives.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from explorer import detectors
from explorer.data.example import Example
from explorer.data.jsonl import FormatError, parse_example, parse_jsonl
from explorer.data.labels import ERROR_TYPES
from explorer.detectors.base import Detector, DetectorResult
from explorer.evaluation import calibration, refit, table, verdict
from explorer.evaluation.calibration import Calibrations, shipped
from explorer.evaluation.refit import merged
from explorer.files import check_output, write_text
from explorer.render import export
from explorer.scoring.cache import ResultCache
from explorer.scoring.runner import score_example

DEFAULT_DETECTORS = ("rouge", detectors.VERDICT_DETECTOR)


def _write(path: Path, text: str, source: Path | None) -> Path:
    check_output(path, [source])
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, text)
    return path


@dataclass(frozen=True)
class Inspection:
    """One example scored by the chosen detectors: `results` by detector name, `errors` for the
    detectors that refused it (e.g. too long for the model), and the verdict per error type."""

    example: Example
    results: Mapping[str, DetectorResult]
    errors: Mapping[str, str] = field(default_factory=dict)
    judge: DetectorResult | None = None  # the verdict detector's result, chosen or not
    source: Path | None = None  # the JSON Lines file it was read from, which `save` never replaces
    calibrations: Calibrations | None = None  # in force for its verdicts and report (None: the shipped)

    @property
    def verdicts(self) -> dict[str, verdict.Verdict]:
        """Per error type: `.verdict` (likely / unclear / unlikely, None without calibration),
        `.probability`, `.score` and `.piece` (the sentence or argument responsible)."""
        with calibration.using(self.calibrations):
            return verdict.verdicts(self.example, self.judge) if self.judge is not None else {}

    @property
    def scores(self) -> pd.DataFrame:
        """Detector x error type: the score, its threshold and verdict (calibrated on each detector's dev set)."""
        rows = []
        for name, result in self.results.items():
            row: dict[str, Any] = {"detector": name}
            for error_type in ERROR_TYPES:
                fit = verdict.thresholds({name: result}, self.calibrations)[name][error_type]
                score = result.score(error_type)
                row[error_type] = score
                row[f"{error_type} threshold"] = fit.threshold if fit is not None and fit.informative else None
                row[f"{error_type} verdict"] = fit.verdict(score) if fit is not None else None
            rows.append(row)
        return pd.DataFrame(rows).set_index("detector") if rows else pd.DataFrame()

    def html(self, **options) -> str:
        """The standalone report page (what `.save` writes)."""
        with calibration.using(self.calibrations):
            return export.example_html(self.example, self._shown(), **options)

    def _shown(self) -> dict[str, DetectorResult]:
        shown = dict(self.results)
        if self.judge is not None:
            shown.setdefault(self.judge.detector, self.judge)
        return shown

    def _repr_html_(self) -> str:
        with calibration.using(self.calibrations):
            return export.example_fragment(self.example, self._shown())

    def save(self, path: str | os.PathLike) -> Path:
        """Write the report as one self-contained HTML file; returns its path."""
        return _write(Path(path), self.html(), self.source)


class Inspections(list):
    """Several inspections (of a JSON Lines file), with the lines that could not be read in `problems`."""

    def __init__(self, items: Sequence[Inspection], problems: Sequence[FormatError] = (), source: Path | None = None):
        super().__init__(items)
        self.problems = list(problems)
        self.source = source

    def frame(self) -> pd.DataFrame:
        """One row per example: labels and every detector's scores, indexed by id."""
        detector_names = list(dict.fromkeys(name for found in self for name in found.results))
        return table.scores_frame(
            [f.example for f in self], {f.example.id: dict(f.results) for f in self}, detector_names
        )

    def _repr_html_(self) -> str:
        return self.frame()._repr_html_()

    def save(self, folder: str | os.PathLike) -> list[Path]:
        """One report per example in `folder`, named after its id (`export.file_names`: two
        examples never share a file); returns the paths."""
        check_output(Path(folder), [self.source], folder=True)
        names = export.file_names([found.example for found in self])
        return [found.save(Path(folder) / name) for found, name in zip(self, names)]


def _detectors(detector_names: Sequence[str], model: str | None) -> list[Detector]:
    names = list(dict.fromkeys([*detector_names, detectors.VERDICT_DETECTOR]))
    for name in names:
        detectors.spec(name)  # an unknown name fails here, listing the valid ones
    return [detectors.create(name, model=model) for name in names]


def _inspect_one(
    example: Example,
    chosen: list[Detector],
    detector_names: Sequence[str],
    cache: ResultCache | None,
    source: Path | None,
    calibrations: Calibrations | None = None,
):
    scored = score_example(example, chosen, cache)
    return Inspection(
        example=example,
        results={name: scored.results[name] for name in detector_names if name in scored.results},
        errors={name: message for name, message in scored.errors.items() if name in detector_names},
        judge=scored.results.get(detectors.VERDICT_DETECTOR),
        source=source,
        calibrations=calibrations,
    )


def _examples(source: Example | Mapping | str | os.PathLike) -> tuple[list[Example], list[FormatError], bool]:
    if isinstance(source, Example):
        return [source], [], True
    if isinstance(source, Mapping):
        return [parse_example(dict(source))], [], True  # InvalidExample names each bad field
    path = Path(source)
    if not path.is_file():
        raise FileNotFoundError(f"no such JSON Lines file: {path} (pass an Example or a dict for one example)")
    loaded = parse_jsonl(path)
    if not loaded.examples:
        details = "; ".join(str(e) for e in loaded.errors[:5])
        raise ValueError(f"{path} holds no valid example" + (f": {details}" if details else ""))
    return loaded.examples, loaded.errors, False


def _calibrations(given: str | os.PathLike | Calibrations | None) -> Calibrations | None:
    if given is None or isinstance(given, Calibrations):
        return given
    return merged(shipped(), refit.read(Path(given)).calibrations)


def inspect(
    source: Example | Mapping | str | os.PathLike,
    detectors: Sequence[str] = DEFAULT_DETECTORS,
    *,
    model: str | None = None,
    cache: ResultCache | None | bool = True,
    methods: Sequence[str] | None = None,
    calibration: str | os.PathLike | Calibrations | None = None,
) -> Inspection | Inspections:
    """Score an `Example`, a record (dict, as in the JSON Lines format) or a JSON Lines file.

    `detectors`: registered detector names (an unknown one raises, listing the valid ones);
    `model`: a causal LM path for the detectors that read one; `cache`: the on-disk result
    cache (True: the default folder, False: none, or a `ResultCache`). One example gives an
    `Inspection`; a file gives `Inspections` (bad lines are skipped, kept in `.problems`, and
    reported in a warning). `methods`: the former name of `detectors`, still accepted.
    `calibration`: a calibration file `explorer calibrate` wrote (or `Calibrations`), in force
    in place of the shipped one for what it refitted.
    """
    detector_names = detectors if methods is None else methods
    if isinstance(detector_names, str):
        detector_names = [m.strip() for m in detector_names.split(",") if m.strip()]
    examples, problems, single = _examples(source)
    chosen = _detectors(detector_names, model)
    store = ResultCache() if cache is True else (cache or None)
    path = None if single else Path(source)
    calibrations = _calibrations(calibration)
    found = [_inspect_one(example, chosen, detector_names, store, path, calibrations) for example in examples]
    if single:
        return found[0]
    if problems:
        warnings.warn(f"{len(problems)} line(s) could not be read and were skipped, e.g. {problems[0]}", stacklevel=2)
    return Inspections(found, problems, path)
