"""What each command reads and writes, declared beside its options and checked before it runs.

Every subcommand declares its files (`declare`): the options that name what it reads and the
option that names what it writes, with how that is written. `check` hands them to
`explorer.files.check_output`, the one output guard (the notebook API's `save` asks it too),
before the command reads or writes anything; a refused output is exit 2 naming the option.
`tests/test_guard.py` runs every subcommand of the parser through it, so a new command cannot
forget to declare.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from explorer.cli.common import EXIT_USAGE, CliError
from explorer.files import UnsafeOutputError, check_output


@dataclass(frozen=True)
class Files:
    """One command's files, by argparse dest.

    `inputs`: options naming files or folders it reads (a list option, each of them);
    `also_read`: inputs that follow from the options rather than name them (a default file
    beside the input); `output`: the option naming what it writes, `written` the files that
    are (default: that path), `folder` when it is a folder written into; `third_party` and
    `may_replace` as in `check_output`; `unguarded`: path options that are neither read nor
    written by the command itself (the result cache keeps its own folder).
    """

    inputs: tuple[str, ...] = ()
    also_read: Callable[[argparse.Namespace], Iterable[Path | None]] | None = None
    output: str | None = None
    written: Callable[[Path], Sequence[Path]] | None = None
    folder: bool = False
    third_party: bool = False
    may_replace: tuple[Path, ...] = ()
    unguarded: tuple[str, ...] = ()

    def options(self) -> set[str]:
        return {*self.inputs, *((self.output,) if self.output else ()), *self.unguarded}


def declare(parser: argparse.ArgumentParser, files: Files) -> None:
    """Record what the command of `parser` reads and writes; a dest it does not have is a bug."""
    unknown = files.options() - {action.dest for action in parser._actions}
    if unknown:
        raise ValueError(f"{parser.prog} has no option {', '.join(sorted(unknown))} to declare")
    parser.set_defaults(files=files)


def _paths(value) -> list[Path]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [path for item in value for path in _paths(item)]
    return [Path(value)]


def check(args: argparse.Namespace) -> None:
    """Refuse the command's output when `check_output` does (`CliError`, exit 2)."""
    files: Files = args.files
    output = getattr(args, files.output) if files.output else None
    if output is None:
        return
    inputs = [path for dest in files.inputs for path in _paths(getattr(args, dest))]
    inputs += [path for path in (files.also_read(args) if files.also_read else ()) if path is not None]
    try:
        check_output(
            output,
            inputs,
            name=f"--{files.output.replace('_', '-')}",
            written=files.written(output) if files.written else None,
            folder=files.folder,
            third_party=files.third_party,
            may_replace=files.may_replace,
        )
    except UnsafeOutputError as error:
        raise CliError(str(error), EXIT_USAGE) from error
