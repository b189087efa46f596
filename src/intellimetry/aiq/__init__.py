"""AIQ (Pereyda & Holder 2025): MCCP complexity, dissimilarity, intelligence space and AIQ."""
