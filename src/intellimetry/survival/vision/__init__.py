"""The Intelligence Test's vision figure (Zhan et al. 2025, Figure 3) on generated images, offline:
100-class image classification by a family of CNNs (:mod:`.classifiers`), and caption-to-image
retrieval by contrastive dual encoders (:mod:`.retrieval`, captions from :mod:`.captions`), all
trained from scratch on this machine and kept in the shared model cache."""
