"""g-index (Venkatasubramanian et al. 2021): flow programs, divergence Δ and the g-index formula."""
from intellimetry.gindex.divergence import (
    IGNORED_KEYS,
    association_graph,
    clique_check,
    divergence,
    divergence_of_texts,
    max_weight_clique,
    node_similarity,
    performance,
    skill_level,
)
from intellimetry.gindex.flows import FlowError, dag_check, parse_flow
from intellimetry.gindex.gindex import (
    curriculum_weights,
    domain_distance_from_pairwise,
    domain_distance_matrix,
    experience,
    g_index,
    generalisation_difficulty,
    pairwise_divergences,
    task_contributions,
    within_domain_from_pairwise,
)

__all__ = [
    "FlowError", "IGNORED_KEYS", "association_graph", "clique_check", "dag_check", "divergence", "divergence_of_texts",
    "max_weight_clique", "node_similarity", "parse_flow", "performance", "skill_level",
    "curriculum_weights", "domain_distance_from_pairwise", "domain_distance_matrix", "experience", "g_index",
    "generalisation_difficulty", "pairwise_divergences", "task_contributions", "within_domain_from_pairwise",
]
