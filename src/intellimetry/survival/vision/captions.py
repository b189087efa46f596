"""Captions of generated shape images, from the parameters that drew them (the text side of the
text-to-image retrieval task, an offline stand-in for MS COCO and Flickr30k captions).

A caption states every attribute a viewer can read off the image: size, polarity (bright or dark
shape), texture, shape and position, e.g. "a large dark checkered triangle at the top left". Size
and position are binned: size at the middle of the radius range; position in thirds of the range of
centre offsets in each axis. Each word belongs to one attribute, so the words alone fix the caption.
"""
from __future__ import annotations

import numpy as np

from intellimetry.images import SHAPES, TEXTURES

SHAPE_WORDS = {"disc": "disc", "ring": "ring", "square": "square", "square-outline": "square outline",
               "triangle": "triangle", "plus": "plus", "flower": "flower", "ellipse": "ellipse",
               "crescent": "crescent", "half-disc": "half disc"}
TEXTURE_WORDS = {"solid": "plain", "stripes-horizontal": "horizontally striped",
                 "stripes-vertical": "vertically striped", "stripes-diagonal": "diagonally striped",
                 "stripes-antidiagonal": "antidiagonally striped", "checker": "checkered",
                 "concentric": "ringed", "radial-gradient": "radially shaded",
                 "linear-gradient": "linearly shaded", "speckle": "speckled"}
ROWS, COLUMNS = ("top", "middle", "bottom"), ("left", "centre", "right")
PAD = "<pad>"


def _third(offset: float, max_offset: float) -> int:
    """0, 1 or 2: which third of [-max_offset, max_offset] the offset falls in."""
    if max_offset <= 0:
        return 1
    return int(np.clip(np.floor((offset + max_offset) / (2 * max_offset) * 3), 0, 2))


def position_phrase(row: int, column: int) -> str:
    """ "at the top left", "on the left", "at the top", "in the centre", ... for thirds (row, column)."""
    if row == 1 and column == 1:
        return "in the centre"
    if row == 1:
        return f"on the {COLUMNS[column]}"
    if column == 1:
        return f"at the {ROWS[row]}"
    return f"at the {ROWS[row]} {COLUMNS[column]}"


def caption(shape: int, texture: int, offset_x: float, offset_y: float, radius: float, bright: bool,
            max_offset: float, radius_range: tuple[float, float]) -> str:
    """One image's caption from its generation parameters (fractions of the image size, as
    `intellimetry.images.make_shapes(..., with_params=True)` returns them)."""
    size = "large" if radius > (radius_range[0] + radius_range[1]) / 2 else "small"
    polarity = "bright" if bright else "dark"
    where = position_phrase(_third(offset_y, max_offset), _third(offset_x, max_offset))
    return f"a {size} {polarity} {TEXTURE_WORDS[TEXTURES[texture]]} {SHAPE_WORDS[SHAPES[shape]]} {where}"


def captions(params: dict, max_offset: float, radius_range: tuple[float, float]) -> list[str]:
    """Every image's caption from `make_shapes`' parameter arrays."""
    columns = ("shape", "texture", "offset_x", "offset_y", "radius", "bright")
    return [caption(int(s), int(t), float(x), float(y), float(r), bool(b), max_offset, radius_range)
            for s, t, x, y, r, b in zip(*(params[c] for c in columns))]


def vocabulary() -> list[str]:
    """Every word a caption can contain, sorted, after the padding token (id 0)."""
    phrases = [*SHAPE_WORDS.values(), *TEXTURE_WORDS.values(), "a large small bright dark",
               *(position_phrase(r, c) for r in range(3) for c in range(3))]
    return [PAD, *sorted({word for phrase in phrases for word in phrase.split()})]


def tokenize(texts: list[str], words: list[str] | None = None) -> np.ndarray:
    """(n, longest caption) int64 word ids, right-padded with 0; an unknown word is an error."""
    index = {word: i for i, word in enumerate(words or vocabulary())}
    split = [text.split() for text in texts]
    unknown = sorted({word for words_ in split for word in words_ if word not in index})
    if unknown:
        raise ValueError(f"words outside the caption vocabulary: {unknown}")
    ids = np.zeros((len(split), max((len(s) for s in split), default=0)), dtype=np.int64)
    for row, words_ in enumerate(split):
        ids[row, :len(words_)] = [index[word] for word in words_]
    return ids
