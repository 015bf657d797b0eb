"""The exit codes of the `explorer` command and of every `python -m` module, as one record.

`EXIT_CODES` says, for each code, when it is returned and by which commands and modules; every
entry point ends through `explorer.cli.guard.main`, which turns the errors below into these
codes. `docs/reference/exit-codes.md` is `markdown()`, and `tests/test_exit_codes.py` checks
that the page, the commands of the parser and the modules with a `main` all match the record.
"""

from __future__ import annotations

from dataclasses import dataclass

EXIT_OK, EXIT_PARTIAL, EXIT_USAGE, EXIT_IO, EXIT_SERVER = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130  # the shell's code for a run ended by Ctrl-C (128 + SIGINT)

COMMANDS = (
    "validate",
    "score",
    "eval",
    "synth",
    "train",
    "generate",
    "claims",
    "build-data",
    "detectors",
    "calibrate",
    "rates",
)
# The modules run as `python -m MODULE` (each has a `main` and a `build_parser`).
DATA_MODULES = (
    "explorer.data.perspectrum",
    "explorer.data.perspectrum_answers",
    "explorer.data.written",
    "explorer.data.written_pairs",
    "explorer.training.written_synthetic",
    "explorer.training.judge_data",
)
TRAINING_MODULES = (
    "explorer.cli.stacked",
    "explorer.training.classifier",
    "explorer.training.generator",
    "explorer.training.invention",
    "explorer.training.judge",
    "explorer.training.matcher",
    "explorer.training.tagger",
    "explorer.training.tuned_alignment_classifier",
    "explorer.training.tuned_cross_encoder",
)
MODULES = DATA_MODULES + TRAINING_MODULES


class CliError(Exception):
    """A run that cannot go on: `code` is its exit code, the message says why."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class ExitCode:
    code: int
    when: str
    commands: tuple[str, ...]
    modules: tuple[str, ...]


EXIT_CODES = (
    ExitCode(EXIT_OK, "all good: every input was read and every output written", COMMANDS, MODULES),
    ExitCode(
        EXIT_PARTIAL,
        "some input lines (or corpus records) were invalid, or some examples could not be scored, checked or "
        "answered: each is named on stderr, and everything else was still processed and written",
        ("validate", "score", "eval", "synth", "generate", "claims", "calibrate", "rates"),
        (
            "explorer.data.written",
            "explorer.data.written_pairs",
            "explorer.training.written_synthetic",
            "explorer.training.judge_data",
        ),
    ),
    ExitCode(
        EXIT_USAGE,
        "bad usage, before anything is written: an unknown option or detector, a number out of its range, an "
        "output the guard refuses (an input, a file of the repository, the shared data, not a regular file), a "
        "model that cannot be used, training data without both classes, no `--dev` where the shared data has none, "
        "labels too few to calibrate on, a calibration that cannot carry an error rate",
        COMMANDS,
        MODULES,
    ),
    ExitCode(
        EXIT_IO,
        "an input could not be read (missing, not a regular file, too big, invalid lines in training data) or "
        "an output could not be written (the previous output is left as it was)",
        COMMANDS,
        MODULES,
    ),
    ExitCode(
        EXIT_SERVER,
        "the generation server (`--base-url`) could not be reached, did not answer in time or answered an error",
        ("generate",),
        (),
    ),
    ExitCode(
        EXIT_INTERRUPTED,
        "interrupted (Ctrl-C): the previous output is as it was; finished results are cached and a resumable "
        "training run goes on from its `--work` folder when run again",
        COMMANDS,
        MODULES,
    ),
)


def markdown() -> str:
    """`docs/reference/exit-codes.md`: the record as a page."""
    lines = [
        "# Exit codes",
        "",
        "<!-- Written from explorer/cli/exit_codes.py (EXIT_CODES); tests/test_exit_codes.py checks it. -->",
        "",
        "Every `explorer` command and every `python -m` module of the explorer ends with one of these codes.",
        "Errors are one line on stderr naming the option, file, line or field; never a traceback.",
        "",
        "| code | when | `explorer` commands | `python -m` modules |",
        "|---:|---|---|---|",
    ]
    for entry in EXIT_CODES:
        commands = "all" if entry.commands == COMMANDS else ", ".join(f"`{c}`" for c in entry.commands) or "none"
        modules = "all" if entry.modules == MODULES else ", ".join(f"`{m}`" for m in entry.modules) or "none"
        lines.append(f"| {entry.code} | {entry.when} | {commands} | {modules} |")
    lines += ["", "The `python -m` modules:", ""]
    lines += [f"- `{module}`" for module in MODULES]
    return "\n".join(lines) + "\n"
