"""The Intelligence Test on text search (the paper's Figure 4, §4.3).

A search model ranks every document of a collection for a query; its failure count is the number
of documents it scores strictly above the right one (:mod:`intellimetry.survival.failure_counts`).

* :mod:`.tasks` builds the test collections from real offline text: the Python documentation's
  section titles -> their sections (the stand-in for the paper's synthetic Wikipedia title ->
  document set), the Python FAQ's questions -> their answers (a question -> answer set), Debian
  manual pages' names -> their DESCRIPTION sections, and a loader for BEIR-style folders
  (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) for paper-scale data sets.
* :mod:`.retrievers` scores them: BM25 (the bm25s package) and dense retrievers (sentence encoders
  from a folder, a Hugging Face id or an ONNX file, mean-pooled, cosine similarity).
* :mod:`.study` runs every model on every collection and computes what the figure reports.
"""
