"""Language models under the Intelligence Test: failure counts, offline corpora, task analogs, our model family."""
