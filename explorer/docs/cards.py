"""Detector cards, written from the records (`explorer.docs.records`), never typed by hand.

A card states a detector's method and where it comes from, its training data and command, its
size, its calibration, its figures on each evaluation set with intervals, its speed and its
known failures, as Hugging Face model cards do. Every figure is read from a record here: a
refit, a new evaluation or speed record changes the card when `python -m explorer.docs` runs
again (`explorer.docs.site` writes the cards into `docs/detectors/`), and a test fails while a
committed card differs from what the records say. The same functions give the app's *About the
detectors* (`about`) and `explorer detectors --describe` (`card`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from explorer import detectors
from explorer.data.labels import ERROR_TYPES
from explorer.docs import limits
from explorer.docs.records import EVALUATION_SETS, Records, shipped
from explorer.evaluation.calibration import NEAR_CHANCE_AUC
from explorer.evaluation.slices import SLICES

CARDS = Path("docs") / "detectors"
_COST = {
    detectors.INSTANT: "instant (computed inline everywhere)",
    detectors.FAST: "fast (inline for one example, in the background for a dataset)",
    detectors.SLOW: "slow (a language model: always in the background)",
}
_GENERATED = (
    "Written by `python -m explorer.docs` from the registry (`explorer/detectors/__init__.py`), the training "
    "records (`explorer/resources/<detector>/<task>/training.json`), `explorer/resources/calibration.json` and "
    "`explorer/resources/records/`; do not edit by hand."
)


def _percent(value: float) -> str:
    return f"{100 * value:.1f}"


def _auc(value: float) -> str:
    return f"{value:.2f}"


def calibration_sentence(name: str, records: Records) -> str:
    """The detector's dev ROC AUC per error type and the data it was measured on, from
    `calibration.json` ("" without a calibration), with why it flatters."""
    entry = records.calibration.get("detectors", {}).get(name)
    if not entry:
        return ""
    figures = " / ".join(_auc(entry[t]["auc"]) for t in ERROR_TYPES)
    return (
        f"Dev ROC AUC {figures} ({' / '.join(ERROR_TYPES)}) on {entry['data']}: the data its threshold was chosen "
        "on, so not a held-out figure."
    )


def speed_sentence(name: str, records: Records) -> str:
    entry = records.speed.get("detectors", {}).get(name)
    if not entry:
        return ""
    where = f"{entry['device'].upper() if entry['device'] == 'cuda' else 'CPU'}, {entry['threads']} thread(s)"
    cpu = entry.get("median_cpu_seconds")
    if cpu is not None and entry["device"] == "cpu":  # what it costs, even when measured beside other jobs
        return f"{cpu:.2f} s an example of the sample (median CPU time, {where})."
    return f"{entry['median_seconds']:.2f} s an example of the sample (median, {where})."


def about(name: str, records: Records | None = None) -> str:
    """A detector's title, summary, dev ROC AUC and speed, in one paragraph of Markdown: what the
    app's sidebar and `explorer detectors` show."""
    records = records or shipped()
    spec = detectors.spec(name)
    parts = (f"**{spec.title}**: {spec.summary}", calibration_sentence(name, records), speed_sentence(name, records))
    return " ".join(part for part in parts if part)


def _facts(name: str, records: Records) -> list[str]:
    spec = detectors.spec(name)
    entry = records.calibration.get("detectors", {}).get(name, {})
    rows = [
        ("Method from", spec.origin or "this project"),
        ("Response words", spec.response_word_meaning),
        ("Argument words", spec.argument_word_meaning),
        ("Model it reads", (entry.get("info", {}).get("model") or "none (word counts only)").replace("; ", "<br>")),
    ]
    if spec.weights is not None:
        size = records.weights_bytes.get(name, 0)
        shown = f"{size / 1e6:.1f} MB" if size >= 1e5 else f"{size / 1e3:.1f} KB"
        rows.append(("Its weights", f"{shown} in `explorer/resources/{spec.weights.folder}/`"))
    rows += [(f"Option `--{name}-{o.name}`", o.help) for o in spec.options]
    return ["| | |", "|---|---|"] + [f"| {key} | {value} |" for key, value in rows]


def _kept(record: Mapping) -> str:
    """Which step, epoch, C or feature set was kept, and its dev figures, from a training record."""
    if "kept_epoch" in record:
        chosen = next(e for e in record["dev"] if e["epoch"] == record["kept_epoch"])
        figures = ", ".join(
            f"{k.replace('_', ' ')} {_auc(v)}" for k, v in chosen.items() if k.endswith(("map", "acc1"))
        )
        return f"epoch {record['kept_epoch']} ({figures})"
    if "kept_step" in record:
        key, what = [record["kept_step"]], f"step {record['kept_step']:,}"
    elif "kept_features" in record:
        key, what = [record["kept_features"], record["kept_C"]], f"{record['kept_features']}, C {record['kept_C']}"
    elif "kept_C" in record:
        key, what = [record["kept_C"]], f"C {record['kept_C']}"
    else:
        return "as recorded"
    for *row, value in record.get("dev_roc_auc", []):
        if row == key:
            if isinstance(value, dict):
                shown = " / ".join(_auc(v) for v in value.values()) + f" ({' / '.join(value)})"
            else:
                shown = _auc(value)
            return f"{what}, dev ROC AUC {shown}"
    return what


def _examples(record: Mapping) -> str:
    return f" ({record['train_examples']:,} examples)" if "train_examples" in record else ""


def _data(record: Mapping) -> str:
    """What a training record says it was trained on: a list of sources, or counts by source."""
    data = record.get("train_data") or record.get("data")
    if isinstance(data, Mapping):
        return "; ".join(f"{source.replace('_', ' ')} ({count:,})" for source, count in data["sources"].items())
    return "; ".join(data) if isinstance(data, list) else str(data)


def _training(name: str, records: Records) -> list[str]:
    spec = detectors.spec(name)
    if spec.weights is None:
        return ["No weights of its own: it computes its scores by rule from the model it reads (above)."]
    lines = []
    by_task = records.training.get(name, {})
    for task in sorted(
        by_task, key=lambda t: (t not in ERROR_TYPES, ERROR_TYPES.index(t) if t in ERROR_TYPES else 0, t)
    ):
        record = by_task[task]
        lines += [f"**{task or 'the adapter'}**{_examples(record)}: {_data(record)}.", ""]
        if record.get("dev_data") or record.get("selection"):
            lines += [f"Chosen on: {record.get('dev_data') or record.get('selection')}; kept {_kept(record)}.", ""]
        else:
            lines += [f"Kept {_kept(record)} on the dev split of its data.", ""]
        where = (
            record.get("gpu")
            or record.get("device")
            or (f"{record['threads']} CPU thread(s)" if "threads" in record else "")
        )
        if "seconds" in record:
            lines += [f"Training took {record['seconds'] / 60:.0f} min" + (f" on {where}" if where else "") + ".", ""]
        command = record.get("command") or f"explorer train --detector {name}" + (f" --task {task}" if task else "")
        lines += ["```bash", command, "```", ""]
    return lines


def _calibration(name: str, records: Records) -> list[str]:
    entry = records.calibration.get("detectors", {}).get(name)
    if not entry:
        return ["No calibration: its scores give no verdict (`python bench/calibrate.py` fits one)."]
    lines = [f"Fitted on {entry['data']} (`explorer/resources/calibration.json`)."]
    if name == detectors.VERDICT_DETECTOR:
        lines[0] += " **This detector gives the verdict** (`explorer.detectors.VERDICT_DETECTOR`)."
    lines += [
        "",
        "| error type | dev ROC AUC | errors / error-free | threshold (P = 0.5) | unlikely below | likely from |",
    ]
    lines += ["|---|---|---|---|---|---|"]
    for error_type in ERROR_TYPES:
        found = entry[error_type]
        counts = f"{found['positives']} / {found['negatives']}"
        if "threshold" in found:
            cuts = " | ".join(f"{found[k]:.3f}" for k in ("threshold", "unlikely_below", "likely_from"))
        else:
            why = "near chance" if found["auc"] < NEAR_CHANCE_AUC else "ranks errors lower"
            cuts = f"no verdict ({why}) | | "
        lines.append(f"| {error_type} | {_auc(found['auc'])} | {counts} | {cuts} |")
    return lines


def _evaluation(name: str, records: Records) -> list[str]:
    measured = records.dev_sets.get("detectors", {}).get(name, {})
    if not measured:
        return [f"Not measured yet: `python bench/dev_sets.py --detectors {name}` adds it to the record."]
    lines = [
        "Example-level ROC AUC × 100 with its 95% bootstrap interval per error type and slice of the paper's "
        "Table 1 (`explorer eval`, summarized by `python bench/dev_sets.py` in "
        "`explorer/resources/records/dev_sets.json`); a slice a set lacks is left out.",
        "",
    ]
    for set_name, about_set in EVALUATION_SETS.items():
        if set_name not in measured:
            continue
        found, info = measured[set_name], records.dev_sets["sets"][set_name]
        lines += [
            f"### {about_set.title}",
            "",
            f"{info['examples']} examples: {about_set.about}. "
            f"Measured at commit `{found['commit']}`, detector version {found['version']}.",
            "",
        ]
        shown = [s for s in SLICES if any(s.name in found["example"].get(t, {}) for t in ERROR_TYPES)]
        lines += [
            "| error type | " + " | ".join(s.title.lower() for s in shown) + " |",
            "|---" * (len(shown) + 1) + "|",
        ]
        for error_type in ERROR_TYPES:
            cells = []
            for chosen in shown:
                cell = found["example"].get(error_type, {}).get(chosen.name)
                cells.append(_interval(cell) if cell else "–")
            lines.append(f"| {error_type} | " + " | ".join(cells) + " |")
            words = found["word"].get(error_type, {})
            if words:
                lines.append(
                    f"| {error_type}, word level | "
                    + " | ".join(_percent(words[s.name]) if s.name in words else "–" for s in shown)
                    + " |"
                )
        if found["spans"]:
            lines += [
                "",
                "Hallucinated spans, precision / recall / F1 × 100: "
                + "; ".join(
                    f"{s.title.lower()} "
                    + " / ".join(_percent(found["spans"][s.name][k]) for k in ("precision", "recall", "f1"))
                    for s in SLICES
                    if s.name in found["spans"]
                )
                + ".",
            ]
        lines += _variants(found.get("variants", {}), about_set.variants)
        lines.append("")
    missing = [about.title for set_name, about in EVALUATION_SETS.items() if set_name not in measured]
    if missing:
        lines.append(
            f"Not measured yet on {' and '.join(missing)}: `python bench/dev_sets.py --detectors {name} --sets "
            + ",".join(n for n in EVALUATION_SETS if n not in measured)
            + "` adds it."
        )
    return lines


def _interval(cell: Mapping) -> str:
    return f"{_percent(cell['auc'])} [{_percent(cell['ci'][0])}, {_percent(cell['ci'][1])}]"


def _variants(found: Mapping, names: Mapping[str, str]) -> list[str]:
    """The per-variant table of a set whose records name their recipe's variants: each variant's
    errors against the set's faithful answers."""
    shown = [v for v in names if any(v in found.get(t, {}) for t in ERROR_TYPES)]
    shown += sorted({v for t in ERROR_TYPES for v in found.get(t, {})} - set(shown))
    if not shown:
        return []
    lines = ["", "Per variant, its answers with the error against the faithful ones:", ""]
    lines += ["| error type | " + " | ".join(f"{v}: {names.get(v, v)}" for v in shown) + " |"]
    lines += ["|---" * (len(shown) + 1) + "|"]
    for error_type in ERROR_TYPES:
        cells = [found.get(error_type, {}).get(v) for v in shown]
        lines.append(f"| {error_type} | " + " | ".join(_interval(c) if c else "–" for c in cells) + " |")
    return lines


def _speed(name: str, records: Records) -> list[str]:
    entry = records.speed.get("detectors", {}).get(name)
    if not entry:
        return [f"Not measured yet: `python bench/speed.py --detectors {name} --record` adds it to the record."]
    run = entry["run"]
    return [
        f"{speed_sentence(name, records)} Wall-clock median {entry['median_seconds']:.2f} s, "
        f"p90 {entry['p90_seconds']:.2f} s; loading {entry['load_seconds']:.1f} s; "
        f"peak memory {entry['peak_rss_mib']} MiB; {entry['examples']} examples. Measured by "
        f"`{records.speed['command']}` on {run['cpus']} CPUs (load average {run['load_average'][0]} before, "
        f"{run['load_average'][1]} after) at commit `{run['commit']}` on {run['date']} "
        "(`explorer/resources/records/speed.json`)."
    ]


def card(name: str, records: Records | None = None) -> str:
    """Detector `name`'s card, Markdown."""
    records = records or shipped()
    spec = detectors.spec(name)
    version = detectors.detector_class(name).version
    head = [f"# {spec.title}", "", f"`{name}` · version {version} · {_COST[spec.cost]}", "", spec.summary, ""]
    sections: list[tuple[str, Callable[[str, Records], list[str]]]] = [
        ("Training", _training),
        ("Calibration and verdict", _calibration),
        ("Figures on the evaluation sets", _evaluation),
        ("Speed", _speed),
        ("Known failures", limits.detector_failures),
    ]
    lines = head + _facts(name, records) + [""]
    for title, section in sections:
        lines += [f"## {title}", "", *section(name, records), ""]
    lines += ["---", "", _GENERATED, ""]
    return "\n".join(line.rstrip() for line in lines).replace("\n\n\n", "\n\n").rstrip() + "\n"


def index(records: Records) -> str:
    """`docs/detectors/index.md`: every detector, its cost, dev figures and speed, linked to its card."""
    lines = [
        "# Detectors",
        "",
        "One card per detector, each written from the records by `python -m explorer.docs`. The dev ROC AUC "
        "is the calibration's (hallucination / coverage); the speed, the median CPU seconds an example of the sample.",
        "",
        "| detector | cost | dev ROC AUC | speed | what it does |",
        "|---|---|---|---|---|",
    ]
    for name in detectors.names():
        spec = detectors.spec(name)
        entry = records.calibration.get("detectors", {}).get(name)
        figures = " / ".join(_auc(entry[t]["auc"]) for t in ERROR_TYPES) if entry else "–"
        speed = records.speed.get("detectors", {}).get(name)
        seconds = f"{speed.get('median_cpu_seconds') or speed['median_seconds']:.2f} s" if speed else "–"
        verdict = " (gives the verdict)" if name == detectors.VERDICT_DETECTOR else ""
        first = spec.summary.split(". ")[0].rstrip(".") + "."
        lines.append(f"| [{spec.title}]({name}.md){verdict} | {spec.cost} | {figures} | {seconds} | {first} |")
    lines += ["", "---", "", _GENERATED, ""]
    return "\n".join(lines)


def pages(records: Records) -> dict[Path, str]:
    """Every generated page, by path relative to the checkout."""
    found = {CARDS / f"{name}.md": card(name, records) for name in detectors.names()}
    found[CARDS / "index.md"] = index(records)
    return found
