"""Evaluation: retrieval scoring now; experiments, metrics and judges build on it."""
