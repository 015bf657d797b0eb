"""Explorer for hallucination and coverage errors in RAG answers on controversial topics.

Implements the detectors of Chang et al. 2024, "Detecting Hallucination and Coverage Errors in
Retrieval Augmented Generation for Controversial Topics" (arXiv 2403.08904).
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    """`explorer.inspect` and its result types, imported on first use (`import explorer` stays light)."""
    if name in ("inspect", "Inspection", "Inspections"):
        from explorer import api

        return getattr(api, name)
    raise AttributeError(f"module 'explorer' has no attribute {name!r}")
