"""Combining diverse tests (Pereyda & Holder): a Raven's-matrices generator, CartPole, one network
family trained on either or both, the difficulty-weighted mixed score (Eq. 1-3) and the paper's two
validity criteria (handicapping and the amount of training)."""
