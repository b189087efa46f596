"""Failure counts on hand-made score rows: ties, masks, blocks, torch and embeddings."""
import numpy as np
import pytest
import torch

from intellimetry.survival import failure_counts, failure_counts_from_embeddings

SCORES = np.array([
    [0.9, 0.5, 0.1, 0.7],   # reference 1: 0.9 and 0.7 are higher -> 2
    [0.2, 0.2, 0.2, 0.2],   # all tied -> 0 (ties favour the subject)
    [0.1, 0.3, 0.3, 0.9],   # reference 2: 0.9 higher, 0.3 tied -> 1
    [0.8, 0.6, 0.4, 0.2],   # reference 3: three higher -> 3
])
REFERENCE = np.array([1, 0, 2, 3])


def test_hand_computed_counts_with_ties():
    assert failure_counts(SCORES, REFERENCE).tolist() == [2, 0, 1, 3]


def test_masked_candidates_never_count():
    mask = np.zeros_like(SCORES, dtype=bool)
    mask[0, 0] = True           # the 0.9 of event 0 is excluded -> 1
    mask[3, [0, 1]] = True      # two of the three above event 3's reference -> 1
    assert failure_counts(SCORES, REFERENCE, mask=mask).tolist() == [1, 0, 1, 1]
    ragged = [[0], [], [], [0, 1]]
    assert failure_counts(SCORES, REFERENCE, mask=ragged).tolist() == [1, 0, 1, 1]


def test_torch_and_numpy_agree_including_half_precision():
    expected = failure_counts(SCORES, REFERENCE)
    assert (failure_counts(torch.tensor(SCORES), torch.tensor(REFERENCE)) == expected).all()
    assert (failure_counts(torch.tensor(SCORES, dtype=torch.bfloat16), REFERENCE)
            == failure_counts(torch.tensor(SCORES, dtype=torch.bfloat16).float(), REFERENCE)).all()


def test_blocked_and_unblocked_results_are_identical():
    rng = np.random.default_rng(0)
    scores = rng.integers(0, 20, size=(257, 311)).astype(np.float32)  # many ties on purpose
    reference = rng.integers(0, 311, size=257)
    mask = rng.random(scores.shape) < 0.1
    whole = failure_counts(scores, reference, mask=mask, block_elements=scores.size)
    for block in (1, 311, 1000, 311 * 7 + 5):
        assert (failure_counts(scores, reference, mask=mask, block_elements=block) == whole).all()
    # and a direct count, for one row
    row = 5
    assert whole[row] == ((scores[row] > scores[row, reference[row]]) & ~mask[row]).sum()


def test_embeddings_match_the_full_score_matrix():
    rng = np.random.default_rng(1)
    queries, candidates = rng.normal(size=(50, 8)), rng.normal(size=(120, 8))
    bias = rng.normal(size=120)
    reference = rng.integers(0, 120, size=50)
    excluded = [rng.choice(120, size=3, replace=False) for _ in range(50)]
    dense = failure_counts(queries @ candidates.T + bias, reference, mask=excluded)
    blocked = failure_counts_from_embeddings(queries, candidates, reference, mask=excluded, bias=bias,
                                             block_elements=7 * 120)
    assert (blocked == dense).all()


def test_bad_inputs_name_the_problem():
    with pytest.raises(ValueError, match="one reference index per event"):
        failure_counts(SCORES, [0, 1])
    with pytest.raises(ValueError, match=r"reference indices must lie in \[0, 3\]"):
        failure_counts(SCORES, [0, 1, 2, 4])
    with pytest.raises(ValueError, match="2-D"):
        failure_counts(SCORES[0], [0])
