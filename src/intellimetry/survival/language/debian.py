"""Debian binary packages as a source of real, human-written text, fetched without root.

`apt-get download` fetches the .deb into a temporary folder and `dpkg-deb -x` unpacks it into
`.cache/debian/<name>_<version>/` (the version as it appears in the .deb's file name, with an epoch's
colon written %3a). Unpacking goes to a temporary folder first and is renamed into place, so an
interrupted fetch never leaves half a package. A package already unpacked there is reused without
the network, which keeps a corpus fixed until someone asks for `refresh=True`.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from intellimetry import paths

DEBIAN_CACHE = paths.CACHE_DIR / "debian"
DOWNLOAD_TIMEOUT_S = 600


class PackageUnavailable(RuntimeError):
    """A Debian package could not be had (no apt-get, no network, unknown name, bad archive)."""

    def __init__(self, package: str, reason: str):
        super().__init__(f"Debian package {package!r} is unavailable: {reason}")
        self.package = package
        self.reason = reason


@dataclass(frozen=True)
class Package:
    """An unpacked Debian package: its files lie under `root` as they would under /."""
    name: str
    version: str
    root: Path


def fetch_package(name: str, cache_dir: Path | None = None, refresh: bool = False) -> Path:
    """The folder holding the unpacked files of Debian package `name` (downloaded on first use)."""
    return fetch(name, cache_dir, refresh).root


def fetch(name: str, cache_dir: Path | None = None, refresh: bool = False) -> Package:
    """Package `name` unpacked under `cache_dir` (default .cache/debian), with its version."""
    _check_name(name)
    cache_dir = Path(cache_dir or DEBIAN_CACHE)
    cached = _unpacked(name, cache_dir)
    if cached and not refresh:
        return cached
    with tempfile.TemporaryDirectory(prefix=f"deb-{name}-") as scratch:
        deb = _download(name, Path(scratch))
        package = _unpack(name, deb, cache_dir)
    if cached and cached.root != package.root:
        shutil.rmtree(cached.root, ignore_errors=True)  # one version per package in the cache
    return package


def _check_name(name: str) -> None:
    allowed = set("abcdefghijklmnopqrstuvwxyz0123456789+-.")
    if not isinstance(name, str) or not name or not set(name) <= allowed or name[0] in "-.":
        raise ValueError(f"name must be a Debian package name (lower-case letters, digits, + - .), got {name!r}")


def _unpacked(name: str, cache_dir: Path) -> Package | None:
    """The unpacked copy of `name` in the cache (one per package; temporary folders start with '.')."""
    found = sorted(p for p in cache_dir.glob(f"{name}_*") if p.is_dir())
    if not found:
        return None
    folder = found[-1]
    return Package(name, unquote(folder.name[len(name) + 1:]), folder)


def _download(name: str, folder: Path) -> Path:
    if shutil.which("apt-get") is None:
        raise PackageUnavailable(name, "apt-get is not installed on this machine")
    try:
        # -o APT::Sandbox::User=root: the scratch folder is not readable by the _apt user.
        done = subprocess.run(["apt-get", "download", "-q", "-o", "APT::Sandbox::User=root",
                               "-o", "Acquire::http::Timeout=30", "-o", "Acquire::Retries=1", name],
                              cwd=folder, capture_output=True, text=True, timeout=DOWNLOAD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise PackageUnavailable(name, f"apt-get download took over {DOWNLOAD_TIMEOUT_S} s") from None
    debs = sorted(folder.glob(f"{name}_*.deb"))
    if done.returncode != 0 or len(debs) != 1:
        errors = [line for line in done.stderr.splitlines() if line.startswith("E:")] or [done.stderr.strip()]
        raise PackageUnavailable(name, f"apt-get download failed ({'; '.join(errors) or 'no .deb written'})")
    return debs[0]


def _unpack(name: str, deb: Path, cache_dir: Path) -> Package:
    """Unpack `deb` to a temporary folder beside its final place, then rename it into place."""
    if shutil.which("dpkg-deb") is None:
        raise PackageUnavailable(name, "dpkg-deb is not installed on this machine")
    quoted_version = deb.stem.split("_")[1]
    final = cache_dir / f"{name}_{quoted_version}"
    if final.is_dir():
        return Package(name, unquote(quoted_version), final)
    cache_dir.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=cache_dir))
    try:
        done = subprocess.run(["dpkg-deb", "-x", str(deb), str(scratch)], capture_output=True, text=True)
        if done.returncode != 0:
            raise PackageUnavailable(name, f"dpkg-deb -x failed: {done.stderr.strip()}")
        try:
            scratch.rename(final)
        except OSError:
            if not final.is_dir():  # else another process unpacked the same version meanwhile
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return Package(name, unquote(quoted_version), final)
