"""Explorer for hallucination and coverage errors in RAG answers on controversial topics.

Implements the detectors of Chang et al. 2024, "Detecting Hallucination and Coverage Errors in
Retrieval Augmented Generation for Controversial Topics" (arXiv 2403.08904).
"""

__version__ = "0.1.0"
