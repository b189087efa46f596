"""Content digests shared by the library and the tooling: one way to hash a file."""
from __future__ import annotations

import hashlib
from pathlib import Path


def sha256_file(path: Path) -> str:
    """sha256 of a file's bytes, read in 1 MiB blocks (model weights run to hundreds of MB)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
