"""Self-organised criticality: sandpile simulations (Zhan et al. 2025, Section 6)."""
