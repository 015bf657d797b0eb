"""Output files written whole or not at all, and whether two paths name one file.

`atomic_writer` writes to a temporary file beside the target and renames it over the target
once everything is written (`os.replace`, atomic on one file system): a run that fails or is
interrupted leaves the previous output exactly as it was, and two runs writing one output leave
one whole file, never lines of both. Only a SIGKILL or a power cut can leave the hidden
temporary file (`.NAME.*.tmp`) behind; the target itself is never half-written.

A target that is not a regular file (`/dev/stdout`, a named pipe, `/dev/full`) cannot be
replaced by renaming, so it is written in place.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


class WriteError(Exception):
    """An output could not be written; the previous file at `path`, if any, is unchanged."""

    def __init__(self, path: Path, error: OSError):
        super().__init__(f"cannot write {path}: {error.strerror or error}")
        self.path = path


class _Output:
    """The open file, with every write failure reported as a `WriteError` for the target."""

    def __init__(self, handle, path: Path):
        self._handle, self._path = handle, path

    def write(self, text: str) -> None:
        try:
            self._handle.write(text)
        except OSError as error:
            raise WriteError(self._path, error) from error


def _new_file_mode() -> int:
    """The permissions `open()` gives a new file (the temporary file gets 0600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextlib.contextmanager
def atomic_writer(path: Path) -> Iterator[_Output]:
    """A text file (UTF-8) that replaces `path` when the `with` block ends without an error.

    Raises `WriteError` when the file cannot be created, written or put in place; whatever was
    written is then discarded. An exception from the block itself passes through unchanged.
    """
    shown = Path(path)
    in_place = shown.exists() and not shown.is_file()
    # Through a symlink, replace the file it points to (a device is opened as named: the
    # real path of /dev/stdout can be a pipe's pseudo-name).
    target = shown if in_place else Path(os.path.realpath(path))
    try:
        if in_place:
            handle = target.open("w", encoding="utf-8")
        else:
            handle = tempfile.NamedTemporaryFile(
                "w", encoding="utf-8", dir=target.parent, prefix=f".{target.name}.", suffix=".tmp", delete=False
            )
    except OSError as error:
        raise WriteError(shown, error) from error

    def discard() -> None:
        with contextlib.suppress(OSError):
            handle.close()
        if not in_place:
            with contextlib.suppress(OSError):
                os.unlink(handle.name)

    try:
        yield _Output(handle, shown)
    except BaseException:
        discard()
        raise
    try:
        if in_place:
            handle.close()  # e.g. /dev/full: ENOSPC when the buffer is flushed
            return
        handle.flush()
        os.fsync(handle.fileno())
        handle.close()
        os.chmod(handle.name, target.stat().st_mode & 0o7777 if target.exists() else _new_file_mode())
        os.replace(handle.name, target)
    except OSError as error:
        discard()
        raise WriteError(shown, error) from error


def same_file(a: Path, b: Path) -> bool:
    """Whether `a` and `b` name one file: the same path, a symlink to it or a hard link."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return os.path.realpath(a) == os.path.realpath(b)
