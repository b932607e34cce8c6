"""Exceptions with the fix in the message, and the exit codes the CLI maps them to.

The bottom of the package: this module imports nothing of CodeLens. `IndexNotFound`, whose
message names the command that builds the index, lives with that command in locations.py."""

from __future__ import annotations

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_NO_INDEX = 2
EXIT_BAD_SOURCE = 3
EXIT_BAD_DB = 4
EXIT_MODEL_MISMATCH = 5
EXIT_BAD_INPUT = 6
EXIT_LLM = 7
EXIT_USAGE = 64  # sysexits' EX_USAGE: a bad flag or argument


class CodeLensError(Exception):
    """Base class: the message is what the user reads; exit_code is what the CLI returns."""

    exit_code = EXIT_ERROR


class SourceError(CodeLensError):
    """The codebase to index is missing, unreadable, not a zip, or has no Python files."""

    exit_code = EXIT_BAD_SOURCE


class DatabaseError(CodeLensError):
    """The --db folder cannot be written, or is not a CodeLens index."""

    exit_code = EXIT_BAD_DB


class ModelMismatch(CodeLensError):
    exit_code = EXIT_MODEL_MISMATCH

    def __init__(self, index_model: str, requested_model: str) -> None:
        super().__init__(
            f"the index was built with model {index_model!r} but {requested_model!r} was "
            f"requested - search with --model {index_model} or rebuild: "
            f"python index.py --model {requested_model}"
        )
        self.index_model = index_model
        self.requested_model = requested_model


class ModelUnavailable(CodeLensError):
    """An embedding backend or model cannot be loaded (missing package, bad path)."""


class BadInput(CodeLensError):
    """A questions or predictions file that is missing or malformed."""

    exit_code = EXIT_BAD_INPUT


class LLMError(CodeLensError):
    """The answer endpoint is misconfigured, unreachable, too slow, or replied with garbage."""

    exit_code = EXIT_LLM
