"""One Settings object and the table that declares each setting once (`SETTING_ROWS`: its field,
flag, environment variable, parser and help).

The precedence is written once, in `Settings.resolve`: a flag that was given > the environment >
the default. The index's own record comes after the flags and the environment, where the index is
read: an empty `model` or `english_model` means "what the index has" (search/searcher.py,
index/build.py), else the default. Which index (`--db`, CODELENS_DB, ./chroma_db, the project
around the working directory) is codelens/locations.py's. The CLI (cli/common.py: the flags are
added from the table, `settings_of`), serve, MCP, the app and index.py all resolve through it.

Nothing is read at import time: `Settings.from_env()` reads the environment when called.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

DEFAULT_MODEL = "multilingual-e5-small"
# Characters of embedded text per chunk (ingest/embed_text.py). Embedding time grows with text length
# (measured: e5 ~33 texts/s at 50 tokens, ~6/s at 235, ~2/s at 465 on 2 cores); the first measurements
# (bench/RESULTS.md) used ~600 characters. 700 keeps a little more code after the header. Not yet
# swept with bench/retrieval.py: a candidate to tune. Here, not in ingest/, so that importing the
# settings (the CLI's fast path does) imports nothing else.
DEFAULT_TEXT_BUDGET = 700
DEFAULT_DB = "./chroma_db"
DEMO_ZIP_NAME = "codebase_python.zip"
COLLECTION_NAME = "codelens"  # the ChromaDB collection inside an embedded index folder
_COLLECTION_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")


def default_source(cwd: Path | None = None) -> Path | None:
    """`./codebase_python.zip` when present, else the demo beside the checkout, else None."""
    cwd = cwd or Path.cwd()
    project_root = Path(__file__).resolve().parent.parent
    for candidate in (
        cwd / DEMO_ZIP_NAME,
        project_root / DEMO_ZIP_NAME,
        project_root.parent / "shared" / DEMO_ZIP_NAME,
    ):
        if candidate.is_file():
            return candidate
    return None


@dataclass(frozen=True)
class Settings:
    db_path: Path = Path(DEFAULT_DB)
    # The embedding model asked for (--model / CODELENS_MODEL); "": the index's own model when
    # searching, the default when building.
    model: str = ""
    # A named index beside the default one: <db>/collections/NAME ("" is the --db folder itself).
    collection: str = ""
    # A `chroma run` server for the vectors; the rest of the index stays in the index folder.
    chroma_url: str = ""
    batch_size: int = 32
    # Characters of embedded text per chunk (header first, then code; see codelens/ingest/embed_text.py).
    embed_code_chars: int = DEFAULT_TEXT_BUDGET
    max_file_bytes: int = 1_000_000
    show_progress: bool = True
    # --ray ADDRESS|auto: embedding batches go to Ray actors (codelens/index/distributed.py); "" is local.
    ray_address: str = ""
    ray_worker_cpus: int = 0  # CPUs per Ray actor; 0: one actor per node, using all its CPUs
    # A cold build swaps in a searchable partial index first and adds dense vectors in batches.
    progressive: bool = True
    progressive_min_chunks: int = 100  # fewer vectors to embed than this: one build, no partial index first
    # The English leg's second model (codelens/models/registry.py) for an index run: "minilm"
    # (fast) or "mpnet"; "": the one the index already has, else minilm.
    english_model: str = ""
    # The project (repository or folder) the index was found for from the working directory
    # (codelens/locations.py); None when --db, CODELENS_DB or ./chroma_db named the index.
    project: Path | None = None

    @classmethod
    def resolve(cls, flags: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> Settings:
        """The defaults, then the environment, then the flags that were given (`flags`: argparse's
        values by dest; a flag left out, empty or zero was not given), row by row of SETTING_ROWS."""
        env = os.environ if environ is None else environ
        flags = flags or {}
        values: dict[str, Any] = {}
        for row in SETTING_ROWS:
            if row.env and env.get(row.env):
                values[row.name] = row.parse(env[row.env])
            if row.flag and flags.get(row.dest):
                values[row.name] = row.from_flag(flags[row.dest]) if row.from_flag else row.parse(flags[row.dest])
        return cls(**values)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The defaults, then the environment (no flags: the app, a test, a library caller)."""
        return cls.resolve(None, environ)

    @property
    def build_model(self) -> str:
        """The model an index run embeds with."""
        return self.model or DEFAULT_MODEL

    @property
    def index_dir(self) -> Path:
        """The folder of the index these settings name: --db, or a named collection in it."""
        if not self.collection:
            return self.db_path
        return self.db_path / "collections" / self.collection

    def with_overrides(self, **overrides: object) -> Settings:
        """Apply the CLI flags that were given (None means 'not given')."""
        given = {key: value for key, value in overrides.items() if value is not None}
        if "db_path" in given:
            given["db_path"] = Path(given["db_path"])
        if given.get("collection"):
            given["collection"] = valid_collection_name(str(given["collection"]))
        return replace(self, **given)


def valid_collection_name(name: str) -> str:
    """Collection names become folder names: letters, digits, '.', '_' and '-' only."""
    from codelens.errors import BadInput

    if not _COLLECTION_NAME.fullmatch(name) or name in (".", ".."):
        raise BadInput(f"collection name {name!r}: use 1-64 letters, digits, '.', '_' or '-'")
    return name


def positive_int(text: str) -> int:
    """A flag's whole number above zero (argparse's type: its message is the usage error)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return value


def _on_unless_off(text: str) -> bool:
    return text.strip() not in ("0", "false", "no")


@dataclass(frozen=True)
class Setting:
    """One setting, declared once: the Settings field it fills, its flag and its environment
    variable (either may be absent), how their text becomes the value, and the flag's help."""

    name: str  # the Settings field
    flag: str = ""  # "--batch-size"; "": no flag
    env: str = ""  # "CODELENS_MODEL"; "": no environment variable
    parse: Callable[[str], Any] = str  # the environment's text (and a flag's value) -> the field's value
    from_flag: Callable[[Any], Any] | None = None  # a flag's value -> the field's, when it differs from parse
    help: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)  # argparse's other options (type, action, metavar)

    @property
    def dest(self) -> str:
        """argparse's name for the flag's value."""
        return self.flag.lstrip("-").replace("-", "_")


SETTING_ROWS: tuple[Setting, ...] = (
    # Which index: codelens/locations.py decides (--db > CODELENS_DB > ./chroma_db > the project).
    Setting("db_path", "--db", "CODELENS_DB", Path,
            help=f"index folder (env CODELENS_DB; default: {DEFAULT_DB} when it holds an index, else the index of "
                 "the repository around the working directory, kept in the user cache)"),
    Setting("collection", "--collection", "CODELENS_COLLECTION", lambda text: valid_collection_name(text),
            help="a named index in --db, for several codebases side by side "
                 "(env CODELENS_COLLECTION; default: the --db folder itself)"),
    Setting("chroma_url", "--chroma-url", "CODELENS_CHROMA_URL",
            help="keep the vectors on a `chroma run` server, e.g. http://127.0.0.1:8000 (env CODELENS_CHROMA_URL)"),
    Setting("model", "--model", "CODELENS_MODEL",
            help=f"embedding model: {DEFAULT_MODEL} (default) or st:NAME_OR_PATH"),
    Setting("batch_size", "--batch-size", parse=int, help="chunks per embedding batch", options={"type": int}),
    Setting("max_file_bytes", "--max-file-kb", from_flag=lambda kb: kb * 1000,
            help="skip .py files larger than this, with a warning (default 1000 kB)", options={"type": positive_int}),
    Setting("show_progress", "--quiet", from_flag=lambda _quiet: False, help="no progress bar",
            options={"action": "store_true", "default": False}),
    Setting("ray_address", "--ray",
            help="embed on a Ray cluster: HEAD:6379, ray://HEAD:10001, or auto (the cluster this machine joined, "
                 "else a local one); needs pip install -r requirements-ray.txt",
            options={"metavar": "ADDRESS|auto"}),
    Setting("ray_worker_cpus", "--ray-worker-cpus", parse=int,
            help="CPUs per Ray embedding worker (default: one worker per node, all its CPUs)",
            options={"type": positive_int}),
    # Its choices are the English models' keys (codelens/models/registry.py): the CLI adds them.
    Setting("english_model", "--english-model", "CODELENS_ENGLISH_MODEL",
            help="the English leg's second model: minilm (default; fast) or mpnet (better English answers, "
                 "~40 ms more per question, slower indexing)"),
    Setting("progressive", env="CODELENS_PROGRESSIVE", parse=_on_unless_off),
)


def setting_row(name: str) -> Setting:
    return next(row for row in SETTING_ROWS if row.name == name)
