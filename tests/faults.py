"""Injected faults for the tests: a folder nothing can be written under, a run killed mid-way,
a file system that is full for one process, a run that would hang."""

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from tests.helpers import ROOT


def unwritable_folder(tmp_path: Path) -> Path:
    """A folder path under which nothing can be created.

    A read-only folder (mode 0555) where permissions stop writes; as root, which permissions
    do not stop, a path under a regular file (every write fails with ENOTDIR).
    """
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    probe = folder / "probe"
    try:
        probe.write_text("")
    except PermissionError:
        return folder
    probe.unlink()
    folder.chmod(0o755)
    blocker = tmp_path / "a-regular-file"
    blocker.write_text("")
    return blocker / "folder"


def explorer(*arguments: str, **options) -> subprocess.Popen:
    """`python -m explorer ARGUMENTS` in a new process (the checkout first on its path), with
    the options of `python_module`."""
    return python_module("explorer", *arguments, **options)


def python_module(
    module: str, *arguments: str, file_size_limit: int | None = None, memory_limit: int | None = None, **options
) -> subprocess.Popen:
    """`python -m MODULE ARGUMENTS` in a new process (the checkout first on its path).

    With `file_size_limit`, the process may not grow any regular file past that many bytes
    (RLIMIT_FSIZE): its writes then fail with EFBIG, as on a full disk. Pipes are not limited.
    With `memory_limit`, it may not map more than that many bytes (RLIMIT_AS): a run that
    would read without end fails there instead of taking the machine's memory.
    """

    def limit() -> None:
        if file_size_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))
        if memory_limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))

    environment = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", **options.pop("env", {})}
    if file_size_limit is not None:
        # Its own bytecode too would be cut at the limit, and a cut .pyc left in the libraries
        # breaks every later import of that module ("marshal data too short").
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.Popen(
        [sys.executable, "-m", module, *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        preexec_fn=limit if file_size_limit is not None or memory_limit is not None else None,
        **options,
    )


def finish(run: subprocess.Popen, timeout: float) -> tuple[str, str]:
    """stdout and stderr of `run` once it ends; killed (and TimeoutExpired) when it hangs past `timeout`."""
    try:
        return run.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        run.kill()
        run.communicate()
        raise


def wait_for(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the condition did not come true in time")
        time.sleep(0.02)
