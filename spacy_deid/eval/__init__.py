"""Evaluation of de-identification output: leakage, over-masking, utility."""
from spacy_deid.eval.metrics import LabelCounts, PairCounts, evaluate_pairs, join_by_id, pair_counts, survives, tokens

__all__ = ["LabelCounts", "PairCounts", "evaluate_pairs", "join_by_id", "pair_counts", "survives", "tokens"]
