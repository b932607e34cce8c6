"""CodeLens: semantic search over a codebase in any of its languages, in Russian and English."""

__version__ = "0.1.0"
