"""What each entry point reads and writes, declared beside its options and checked before it runs.

Every subcommand of `explorer` and every `python -m` module (`explorer.cli.exit_codes.MODULES`)
declares its files (`declare`): the options that name what it reads, the option that names what
it writes, with how that is written, and a checkpoint folder it reads back and writes (`work`).
`check` hands them to `explorer.files.check_output`, the one output guard (the notebook API's
`save` asks it too), before the command reads or writes anything; a refused output is exit 2
naming the option. `main` is every entry point's `main`: parse, check, run, and each error as
one line and an exit code of `explorer.cli.exit_codes`. `tests/test_guard.py` runs every
subcommand of the parser through it and `tests/test_modules.py` every module, so a new command
or module cannot forget to declare.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from explorer import console
from explorer.cli.exit_codes import EXIT_INTERRUPTED, EXIT_IO, EXIT_USAGE, CliError
from explorer.config import CHECKOUT
from explorer.files import UnsafeOutputError, WriteError, check_output
from explorer.models.language_model import InvalidModelError
from explorer.training import TrainingInputError


@dataclass(frozen=True)
class Files:
    """One command's files, by argparse dest.

    `inputs`: options naming files or folders it reads (a list option, each of them);
    `also_read`: inputs that follow from the options rather than name them (a default file
    beside the input); `output`: the option naming what it writes, `written` the files that
    are (default: that path), `folder` when it is a folder written into; `third_party` and
    `may_replace` as in `check_output`; `work`: a resumable trainer's checkpoint folder, read
    back and written, refused where a folder output would be; `unguarded`: path options that
    are neither read nor written by the command itself (the result cache keeps its own folder).
    """

    inputs: tuple[str, ...] = ()
    also_read: Callable[[argparse.Namespace], Iterable[Path | None]] | None = None
    output: str | None = None
    written: Callable[[Path], Sequence[Path]] | None = None
    folder: bool = False
    third_party: bool = False
    may_replace: tuple[Path, ...] = ()
    work: str | None = None
    unguarded: tuple[str, ...] = ()

    def options(self) -> set[str]:
        return {*self.inputs, *(name for name in (self.output, self.work) if name), *self.unguarded}


def declare(parser: argparse.ArgumentParser, files: Files) -> None:
    """Record what the command of `parser` reads and writes; a dest it does not have, or one that
    would hide the declaration (`files`, `run`), is a bug."""
    dests = {action.dest for action in parser._actions}
    unknown = files.options() - dests
    if unknown:
        raise ValueError(f"{parser.prog} has no option {', '.join(sorted(unknown))} to declare")
    if dests & {"files", "run"}:
        raise ValueError(f"{parser.prog}: an option's dest may not be files or run (the guard's own)")
    parser.set_defaults(files=files)


def _paths(value) -> list[Path]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [path for item in value for path in _paths(item)]
    return [Path(value)]


def _flag(dest: str) -> str:
    return f"--{dest.replace('_', '-')}"


def check(args: argparse.Namespace) -> None:
    """Refuse the command's output or checkpoint folder when `check_output` does (`CliError`, exit 2)."""
    files: Files = args.files
    inputs = [path for dest in files.inputs for path in _paths(getattr(args, dest))]
    inputs += [path for path in (files.also_read(args) if files.also_read else ()) if path is not None]
    output = getattr(args, files.output) if files.output else None
    work = getattr(args, files.work) if files.work else None
    try:
        if output is not None:
            check_output(
                output,
                inputs,
                name=_flag(files.output),
                written=files.written(output) if files.written else None,
                folder=files.folder,
                third_party=files.third_party,
                may_replace=files.may_replace,
            )
        if work is not None:
            check_output(work, inputs, name=_flag(files.work), folder=True)
    except UnsafeOutputError as error:
        raise CliError(str(error), EXIT_USAGE) from error


class _Ship(argparse.Action):
    """`--ship`: the output is the shipped weights' folder (`const`), said before the run starts."""

    def __call__(self, parser, namespace, values, option_string=None):
        namespace.out, namespace.shipping = self.const, True


def add_output_folder(parser: argparse.ArgumentParser, shipped: Path, what: str, *, required: bool = True) -> None:
    """`--out FOLDER` or `--ship`, one of them `required`: a trainer never writes over the shipped
    weights (files of the repository) unless it is asked to by name. Declare `shipped` in
    `Files.may_replace`."""
    group = parser.add_mutually_exclusive_group(required=required)
    group.add_argument("--out", type=Path, help=f"output folder for the {what} (outside the repository)")
    group.add_argument(
        "--ship",
        action=_Ship,
        nargs=0,
        const=shipped,
        dest="out",
        help=f"write the {what} into the repository's shipped folder {_shown(shipped)}, replacing the files there",
    )


def _shown(path: Path) -> Path:
    """`path` relative to the checkout when it is inside it (`explorer/resources/tagger`)."""
    return path.relative_to(CHECKOUT) if path.is_relative_to(CHECKOUT) else path


def main(
    parser: argparse.ArgumentParser,
    argv: Sequence[str] | None = None,
    run: Callable[[argparse.Namespace], int] | None = None,
    *,
    interrupted: str = "any previous output is as it was",
) -> int:
    """An entry point's whole `main`: parse `argv`, `check` its files, then `run` it (default: the
    `run` its parser sets). Every error it can meet ends as one line on stderr, prefixed with the
    parser's `prog`, and an exit code of `explorer.cli.exit_codes`; `interrupted` is what Ctrl-C says."""
    args = parser.parse_args(argv)
    console.report_warnings()
    if getattr(args, "quiet", False):
        console.quiet_libraries()
    prog = parser.prog
    try:
        check(args)
        if getattr(args, "shipping", False):
            print(f"{prog}: --ship: the new weights replace the shipped ones in {args.out}", file=sys.stderr)
        return (run or args.run)(args)
    except CliError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return error.code
    except WriteError as error:
        print(f"{prog}: {error}; nothing was written", file=sys.stderr)
        return EXIT_IO
    except (InvalidModelError, TrainingInputError) as error:
        print(f"{prog}: {error}; nothing was written", file=sys.stderr)
        return EXIT_USAGE
    except OSError as error:  # an input that cannot be read, an output folder that cannot be made
        where = f"{error.filename}: " if error.filename else ""
        print(f"{prog}: {where}{error.strerror or error}", file=sys.stderr)
        return EXIT_IO
    except KeyboardInterrupt:
        work = getattr(args, "files", None) and args.files.work
        resume = f"; run again with the same {_flag(work)} to resume" if work else ""
        print(f"{prog}: interrupted; {interrupted}{resume}", file=sys.stderr)
        return EXIT_INTERRUPTED
