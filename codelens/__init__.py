"""CodeLens: semantic search over a Python codebase, in Russian and English."""

__version__ = "0.1.0"
