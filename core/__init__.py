"""funes: a durable, local memory for AI coding agents.

The library is the product; `funes.cli` is a thin layer over it. Heavy dependencies (lancedb,
torch, sentence-transformers) are imported lazily inside the functions that need them, so that
`import funes` and the per-turn hook start fast.
"""

__version__ = "0.1.0"
