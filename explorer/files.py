"""Output files written whole or not at all, where an output may go, and inputs read within bounds.

`atomic_writer` writes to a temporary file beside the target and renames it over the target
once everything is written (`os.replace`, atomic on one file system): a run that fails or is
interrupted leaves the previous output exactly as it was, and two runs writing one output leave
one whole file, never lines of both. Only a SIGKILL or a power cut can leave the hidden
temporary file (`.NAME.*.tmp`) behind; the target itself is never half-written, and the next
write of the same target removes it. A writer holds a lock on its temporary file (`flock`, which
dies with the process) until the file is in place, so only the files of dead writers are removed.

A target that is not a regular file (`/dev/stdout`, a named pipe, `/dev/full`) cannot be
replaced by renaming, so it is written in place; `check_output` lets only the standard streams
through as outputs. A file the explorer owns (`owned=True`: a cache entry, the shipped
calibrations) is different: whatever stands at its path (a FIFO, a link to `/dev/zero`) is
replaced by the new file, never written through. `write_text` is the one-call form.

`check_output` is the one guard on outputs: the CLI's commands (`explorer.cli.guard`) and the
notebook API's `save` ask it before they read or write anything. `read_regular` reads an input
only when it is a regular file of bounded size, so a FIFO, `/dev/zero` or a huge file is an
error at once, not a hang or a full memory.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import subprocess
import tempfile
from collections.abc import Collection, Iterable, Iterator, Sequence
from pathlib import Path

from explorer.config import CHECKOUT, shared_data_dir

# The user's own streams (a pipe, the terminal): written in place, the one non-regular output.
STANDARD_STREAMS = frozenset(("/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"))
# git answers which files the repository tracks in milliseconds; a hung git must not hang a run.
GIT_SECONDS = 30
# The most bytes an input file is read as (gzip may not expand past it either): examples hold
# at most 100,000 characters, so a bigger file is a mistake or an attack, not a dataset.
MAX_INPUT_BYTES = 1 << 30


class WriteError(Exception):
    """An output could not be written; the previous file at `path`, if any, is unchanged.
    `reason` is the system's words (`No space left on device`)."""

    def __init__(self, path: Path, error: OSError):
        self.reason = error.strerror or str(error)
        super().__init__(f"cannot write {path}: {self.reason}")
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


def _remove_stale(target: Path) -> None:
    """Remove the temporary files of `target` that no writer holds: those of runs killed before
    they could put their file in place (a live writer's lock refuses `LOCK_NB`)."""
    prefix = f".{target.name}."
    try:
        entries = [entry for entry in os.scandir(target.parent) if entry.name.startswith(prefix)]
    except OSError:  # no folder yet: creating the temporary file says why
        return
    for entry in entries:
        if not entry.name.endswith(".tmp") or not entry.is_file(follow_symlinks=False):
            continue
        with contextlib.suppress(OSError):
            descriptor = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                if os.path.samestat(os.fstat(descriptor), os.stat(entry.path, follow_symlinks=False)):
                    os.unlink(entry.path)
            finally:
                os.close(descriptor)


def _locked_temporary(target: Path):
    """A new temporary file beside `target`, locked for as long as it is open."""
    while True:
        handle = tempfile.NamedTemporaryFile(
            "w", encoding="utf-8", dir=target.parent, prefix=f".{target.name}.", suffix=".tmp", delete=False
        )
        # A remover holds the lock for an instant at most. A file system without locks fails here,
        # and then fails a remover's lock too: it never takes a file there for a dead writer's.
        with contextlib.suppress(OSError):
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            if os.path.samestat(os.fstat(handle.fileno()), os.stat(handle.name, follow_symlinks=False)):
                return handle
        except FileNotFoundError:
            pass  # a remover locked it first, taking it for a dead writer's: make another
        handle.close()


@contextlib.contextmanager
def atomic_writer(path: Path, *, owned: bool = False, durable: bool = True) -> Iterator[_Output]:
    """A text file (UTF-8) that replaces `path` when the `with` block ends without an error.

    Raises `WriteError` when the file cannot be created, written or put in place; whatever was
    written is then discarded. An exception from the block itself passes through unchanged.
    `owned`: the path itself is replaced, whatever stands there (see the module's docstring).
    `durable=False` skips the fsync, for a file whose loss in a power cut costs only a
    recomputation (a cache entry: fsync takes milliseconds, thousands of times for a dataset).
    """
    shown = Path(path)
    in_place = not owned and shown.exists() and not shown.is_file()
    # Through a symlink, replace the file it points to (a device is opened as named: the
    # real path of /dev/stdout can be a pipe's pseudo-name).
    target = shown if in_place or owned else Path(os.path.realpath(path))
    try:
        if in_place:
            handle = target.open("w", encoding="utf-8")
        else:
            _remove_stale(target)
            handle = _locked_temporary(target)
    except OSError as error:
        raise WriteError(shown, error) from error

    def discard() -> None:
        if not in_place:
            with contextlib.suppress(OSError):
                os.unlink(handle.name)
        with contextlib.suppress(OSError):
            handle.close()

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
        if durable:
            os.fsync(handle.fileno())
        kept_mode = target.is_file() and not target.is_symlink()  # an owned path's link is replaced
        os.fchmod(handle.fileno(), target.stat().st_mode & 0o7777 if kept_mode else _new_file_mode())
        os.replace(handle.name, target)  # still locked: no remover takes it for a dead writer's
        handle.close()
    except OSError as error:
        discard()
        raise WriteError(shown, error) from error


def write_text(path: Path, text: str, *, owned: bool = False, durable: bool = True) -> None:
    """`text` as the whole of `path`, through `atomic_writer` (`WriteError` when it cannot be)."""
    with atomic_writer(path, owned=owned, durable=durable) as out:
        out.write(text)


def same_file(a: Path, b: Path) -> bool:
    """Whether `a` and `b` name one file: the same path, a symlink to it or a hard link."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return os.path.realpath(a) == os.path.realpath(b)


class UnsafeOutputError(ValueError):
    """An output `check_output` refuses; the message names the output and why."""


_KINDS = (
    (stat.S_ISREG, "a regular file"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "a special file")


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of `path` when it is a regular file (through symlinks) of at most `limit` bytes.

    Anything else is an `OSError` whose `strerror` says what it is: a folder (EISDIR, as `open`
    says), a FIFO or a device (opened without blocking, so a FIFO without a writer is refused
    at once and `/dev/zero` is never read), or a file over the limit (EFBIG).
    """
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(descriptor)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, f"{_kind(info.st_mode)}, not a regular file", str(path))
        if info.st_size > limit:
            problem = f"{info.st_size:,} bytes, more than the {limit:,} bytes read at most"
            raise OSError(errno.EFBIG, problem, str(path))
        with os.fdopen(os.dup(descriptor), "rb") as handle:
            data = handle.read(limit + 1)
    finally:
        os.close(descriptor)
    if len(data) > limit:  # it grew while being read
        raise OSError(errno.EFBIG, f"more than the {limit:,} bytes read at most", str(path))
    return data


def _place(path: Path, folder: Path | None) -> Path | None:
    """Where `path` lies inside `folder` (relative, `.` for the folder itself), None when outside.

    Folders are compared by device and inode, so neither a symlink, another spelling of the
    path, a hard link nor a bind mount of the folder hides that a path is inside it.
    """
    if folder is None:
        return None
    try:
        wanted = os.stat(folder)
    except OSError:
        return None
    real = Path(os.path.realpath(path))
    for ancestor in (real, *real.parents):
        try:
            info = os.stat(ancestor)
        except OSError:
            continue  # not written yet
        if (info.st_dev, info.st_ino) == (wanted.st_dev, wanted.st_ino):
            return real.relative_to(ancestor)
    return None


def _tracked(place: Path) -> bool:
    """Whether the repository holds `place` (relative to the checkout) or files under it: git
    tracks them, or it is git's own folder. Where git cannot tell (no git; an installed package,
    not a checkout), everything inside counts as the repository's."""
    if place.parts[:1] == (".git",):
        return True
    command = ["git", "--literal-pathspecs", "-C", str(CHECKOUT), "ls-files", "-z", "--", str(place)]
    try:
        listed = subprocess.run(command, capture_output=True, timeout=GIT_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return True
    return listed.returncode != 0 or bool(listed.stdout)


def check_output(
    output: Path,
    inputs: Iterable[Path] = (),
    *,
    name: str = "",
    written: Sequence[Path] | None = None,
    folder: bool = False,
    third_party: bool = False,
    may_replace: Collection[Path] = (),
) -> None:
    """Refuse an output that must not be written (`UnsafeOutputError`), before anything is read
    or written. `name` is how messages call it (`--out`); `written`, the files it writes when
    that is not `output` alone (`explorer eval --out R` writes R.md and R.json); `folder`, an
    output that is a folder the command writes files into.

    Refused, through symlinks, hard links and bind mounts alike, is an output that:

    - is one of `inputs`, or lies inside an input that is a folder (a model, Perspectrum's
      files); a folder output that holds an input;
    - lies inside the shared data folder (`config.shared_data_dir()`): third-party originals;
    - is or holds a file of the repository (the checkout, `config.CHECKOUT`: a file git tracks,
      or git's own folder). New and untracked files in the checkout are allowed, as the
      README's commands run from the checkout write `report.md` or `scores.jsonl` there;
      `third_party` output (text under another licence) may go nowhere inside the checkout;
      `may_replace` names repository files the command regenerates (the shipped samples);
    - exists but is not a regular file (a folder, FIFO or device; the standard streams,
      `STANDARD_STREAMS`, are written in place), or for a folder output is not a folder; is a
      standard stream or a device when the command writes files named after it (`written`:
      `--out /dev/stdout` would make `/dev/stdout.md`);
    - is an existing file that is read-only.
    """
    given = [Path(path) for path in inputs if path is not None]
    label = f"{name} {output}" if name else str(output)
    paths = [Path(output)] if written is None or folder else [Path(p) for p in written]
    if paths != [Path(output)] and _is_stream_or_device(Path(output)):
        raise UnsafeOutputError(
            f"{label} is a stream or a device, but the command writes files named after it "
            f"({', '.join(map(str, paths))}); choose a file path"
        )
    for path in paths:
        subject = label if path == Path(output) else f"{label} writes {path}, which"
        _refuse_clashes(path, subject, given, folder=folder, third_party=third_party, may_replace=may_replace)
        _refuse_unwritable(path, subject, folder=folder)


def _is_stream_or_device(path: Path) -> bool:
    if str(path) in STANDARD_STREAMS:
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _refuse_clashes(
    path: Path, subject: str, inputs: list[Path], *, folder: bool, third_party: bool, may_replace: Collection[Path]
) -> None:
    for source in inputs:
        inside = _place(path, source)
        if inside == Path("."):
            kind = "folder" if source.is_dir() else "file"
            raise UnsafeOutputError(f"{subject} is the input {kind} {source}; choose another output path")
        if inside is not None:
            raise UnsafeOutputError(f"{subject} is inside the input folder {source}; choose another output path")
        if folder and _place(source, path) is not None:
            raise UnsafeOutputError(f"{subject} holds the input {source}; choose another output folder")
    shared = shared_data_dir()
    if _place(path, shared) is not None:
        raise UnsafeOutputError(
            f"{subject} is inside the shared data folder {shared}, which holds third-party originals; "
            "choose a path outside it"
        )
    place = _place(path, CHECKOUT)
    if place is None or any(same_file(path, allowed) for allowed in may_replace):
        return
    if third_party:
        raise UnsafeOutputError(
            f"{subject} is inside the repository ({CHECKOUT}); third-party text must not be copied into it"
        )
    if _tracked(place):
        raise UnsafeOutputError(f"{subject} is a file of the repository ({CHECKOUT}); choose another output path")


def _refuse_unwritable(path: Path, subject: str, *, folder: bool) -> None:
    if str(path) in STANDARD_STREAMS:
        return
    try:
        mode = os.stat(path).st_mode
    except OSError:  # not there yet (a missing folder on the way fails when it is written)
        return
    if folder:
        if not stat.S_ISDIR(mode):
            raise UnsafeOutputError(f"{subject} is {_kind(mode)}, not a folder; choose a folder path")
        return
    if not stat.S_ISREG(mode):
        raise UnsafeOutputError(f"{subject} is {_kind(mode)}, not a regular file; choose a file path")
    # Root may write any file, but a file made read-only says: do not replace me.
    if not os.access(path, os.W_OK) or not stat.S_IMODE(mode) & 0o222:
        raise UnsafeOutputError(f"{subject} is read-only; make it writable or choose another output path")
