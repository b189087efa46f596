"""What surrounds one notebook execution: its environment, a heartbeat, a quiet kernel (the lock per figure is
intellimetry.atomic.exclusive_lock, shared with the model cache)."""
from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Iterator

from jupyter_client.manager import AsyncKernelManager
from traitlets import Unicode
from traitlets.config import Config


@contextmanager
def environment(**values: str) -> Iterator[None]:
    """Set environment variables for the kernel papermill starts, then restore them."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextmanager
def heartbeat(label: str, interval_s: float | None, out=None) -> Iterator[None]:
    """Print '<label> still running, N s elapsed' every interval_s (None: silent) until the block ends.

    For runs without a terminal (CI, logs), where no progress bar shows that work goes on.
    """
    if not interval_s:
        yield
        return
    stop = threading.Event()
    started = time.monotonic()

    def beat() -> None:
        while not stop.wait(interval_s):
            print(f"  {label} still running, {time.monotonic() - started:.0f} s elapsed",
                  file=out or sys.stdout, flush=True)

    thread = threading.Thread(target=beat, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


@contextmanager
def kernel_options(log_path: Path) -> Iterator[dict]:
    """papermill arguments for a kernel that talks over IPC sockets and writes its own output to a file.

    Over TCP the kernel warns that it is unencrypted, and when the runner is stopped (Ctrl-C) the
    kernel's shutdown chatter lands in the user's terminal; neither tells a reader anything. The
    kernel's output goes to `log_path` instead, which the runner quotes when a kernel dies. Each
    kernel gets its own socket folder (short: a socket path may not exceed ~100 characters), so
    kernels run side by side never share a socket.
    """
    sockets = tempfile.mkdtemp(prefix="intellimetry-kernel-")
    try:
        yield {"kernel_manager_class": FileLoggingKernelManager,
               "config": Config({"KernelManager": {"transport": "ipc", "ip": os.path.join(sockets, "k")},
                                 "FileLoggingKernelManager": {"output_path": str(log_path)}})}
    finally:
        # nbclient kills the kernel's group itself when it cleans up (after success, an error, a timeout,
        # Ctrl-C); this makes sure of it whenever that cleanup did not run, and is harmless when it did
        kill_kernel_groups(str(log_path))
        shutil.rmtree(sockets, ignore_errors=True)


# The process groups of the kernels this process started that may still run: {pgid: the kernel's log
# file}. jupyter_client starts each kernel in a session of its own (pgid == the kernel's pid), and what
# the kernel starts (a parallel_map's worker processes) stays in that group, so killing the group stops
# them all. A kernel is in no group of the runner's: when the process running it is stopped (the pool
# worker terminated at a failure or Ctrl-C), the kernel and its sweep's workers run on, at full CPU,
# unless that process kills the group first.
KERNEL_GROUPS: dict[int, str] = {}


def kill_kernel_groups(log_path: str | None = None) -> None:
    """SIGKILL the recorded process groups of the kernel that logs to `log_path` (of all kernels: None)."""
    for pgid, owner in list(KERNEL_GROUPS.items()):
        if log_path is None or owner == log_path:
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:  # already gone
                pass
            KERNEL_GROUPS.pop(pgid, None)


class FileLoggingKernelManager(AsyncKernelManager):
    """A kernel manager whose kernel writes its stdout/stderr to `output_path`.

    (Public name on purpose: traitlets reads a config section only for a name without a leading _.)
    """
    output_path = Unicode("", config=True, help="file receiving the kernel's stdout and stderr")

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        with open(self.output_path, "ab") if self.output_path else nullcontext() as log:
            if log is not None:
                kw["stdout"] = kw["stderr"] = log
            await super()._async_launch_kernel(kernel_cmd, **kw)
        pgid = getattr(self.provisioner, "pgid", None)
        if pgid and pgid != os.getpgrp():  # never this process's own group
            KERNEL_GROUPS[pgid] = self.output_path


def start_pool_worker() -> None:
    """Initializer of the runner's pool processes. Ctrl-C is handled once, by the parent, which stops the
    workers with SIGTERM; a worker so stopped kills its kernel's process group before it exits, since the
    kernel, in a session of its own, and its sweep's processes would otherwise outlive it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop_pool_worker)


def _stop_pool_worker(signum, frame) -> None:
    kill_kernel_groups()
    os._exit(128 + signum)  # at once: what the worker was doing is abandoned (its staging folder with it)
