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
from contextlib import contextmanager
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
        shutil.rmtree(sockets, ignore_errors=True)


class FileLoggingKernelManager(AsyncKernelManager):
    """A kernel manager whose kernel writes its stdout/stderr to `output_path`.

    (Public name on purpose: traitlets reads a config section only for a name without a leading _.)
    """
    output_path = Unicode("", config=True, help="file receiving the kernel's stdout and stderr")

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        if not self.output_path:
            return await super()._async_launch_kernel(kernel_cmd, **kw)
        with open(self.output_path, "ab") as log:
            kw["stdout"] = kw["stderr"] = log
            return await super()._async_launch_kernel(kernel_cmd, **kw)


def ignore_interrupts() -> None:
    """Worker-process initializer: Ctrl-C is handled once, by the parent, which stops the workers."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
