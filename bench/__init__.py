"""Benchmarks: speed, latency, memory and accuracy figures (``python -m bench``), not tests."""
