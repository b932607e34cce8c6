"""One Settings object and the table that declares each setting once (`SETTING_ROWS`: its field,
flag, environment variable, parser and help).

The precedence is written once, in `Settings.resolve`: a flag that was given > the environment >
the default. The index's own record comes after the flags and the environment, where the index is
read: an empty `model` or `english_model` means "what the index has" (search/searcher.py,
index/build.py), else the default. Which index (`--db`, CODELENS_DB, ./chroma_db, the project
around the working directory) is codelens/locations.py's. The CLI (cli/common.py: the flags are
added from the table, `settings_of`), serve, MCP, the app and index.py all resolve through it.

Nothing is read at import time: `Settings.from_env()` reads the environment when called. A module
below the edges that was handed no value asks `environment_value(name)`: the same row, read when
called (the tests change CODELENS_CACHE_DIR between tests, and `codelens setup`, bench/ and the
models are reached without a Settings).

Where CodeLens reads `os.environ` itself, and why (`grep -rn os.environ codelens` lists these and
this module, nothing else):
- models/threads.py: the thread policy (OMP_WAIT_POLICY, GOMP_SPINCOUNT) is read and set for
  OpenMP and OpenBLAS, which read it from the environment when they load; not a setting of ours.
- index/distributed.py: RAY_ADDRESS is Ray's own variable (`ray.init` reads it); we only ask
  whether it is there, to join that cluster rather than start one.
- tokens.py: the team token (CODELENS_TOKEN) is a secret: never in Settings, which is printed,
  compared and handed around; read where it is checked.
- answer/llm.py: CODELENS_LLM_KEY, the LLM endpoint's key, a secret for the same reason (the rest
  of the endpoint's configuration comes from this table).
- locations.py: the platform's own variables for a user's cache folder (XDG_CACHE_HOME,
  LOCALAPPDATA), defined by the platform, not by us; CODELENS_CACHE_DIR comes from this table.
- cli/agents.py: where other programs keep their configuration (CODEX_HOME, APPDATA,
  XDG_CONFIG_HOME), read as those programs define it.
- cli/app.py, cli/project.py: a child process's environment, built from ours and handed on
  (the page, a background server): written, not read for a value.
- ingest/redaction.py: no read; its docstring shows code whose secrets it masks.
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
    # Where this machine keeps things (codelens/locations.py): the user cache root and the models'
    # cache; None: the platform's user cache folder.
    cache_dir: Path | None = None
    model_cache: Path | None = None
    precision: str = ""  # "fp32": every packaged model in fp32 (codelens/models/runtime.py); "": as shipped
    device: str = ""  # where sentence-transformers models run (cpu, cuda, mps); "": CUDA when torch sees one
    embed_cache_mb: float | None = None  # the shared embedding cache's cap (index/embed_cache.py); None: its default
    # What an exposed server or page may index besides the configured sources (codelens/exposure.py).
    allowed_roots: tuple[Path, ...] = ()
    idle_exit_s: float | None = None  # a background server's idle time before it exits; None: serve/lifetime's
    autoserve: bool = True  # a search in a project starts a background server (codelens/cli/project.py)
    token_file: Path | None = None  # the page's team token file (the app takes no flags of ours)
    # The LLM endpoint (codelens/answer/llm.py checks and parses these: its messages name the
    # variables); its key is a secret and is not here.
    llm_url: str = ""
    llm_model: str = ""
    llm_timeout: str = ""
    llm_temperature: str = ""
    llm_context_tokens: str = ""
    llm_retry_s: str = ""

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


def _on_unless_switched_off(text: str) -> bool:
    return text.strip().lower() not in ("0", "false", "no", "off")


def _number_or_default(text: str) -> float | None:
    """A number, or None (the reader's default) for text that is not one."""
    try:
        return float(text)
    except ValueError:
        return None


def _folder(text: str) -> Path:
    return Path(text).expanduser()


def _file_named(text: str) -> Path | None:
    return Path(text.strip()).expanduser() if text.strip() else None


def _folders(text: str) -> tuple[Path, ...]:
    """os.pathsep-separated folders, resolved; empty parts skipped."""
    return tuple(Path(part).expanduser().resolve() for part in text.split(os.pathsep) if part.strip())


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
    Setting("cache_dir", env="CODELENS_CACHE_DIR", parse=_folder),
    Setting("model_cache", env="CODELENS_MODEL_CACHE", parse=_folder),  # models only (older name, still honoured)
    Setting("precision", env="CODELENS_PRECISION", parse=lambda text: text.strip().lower()),
    Setting("device", env="CODELENS_DEVICE", parse=str.strip),
    Setting("embed_cache_mb", env="CODELENS_EMBED_CACHE_MB", parse=_number_or_default),
    Setting("allowed_roots", env="CODELENS_ALLOWED_ROOTS", parse=_folders),
    Setting("idle_exit_s", env="CODELENS_IDLE_EXIT_S", parse=_number_or_default),
    Setting("autoserve", env="CODELENS_AUTOSERVE", parse=_on_unless_switched_off),
    Setting("token_file", env="CODELENS_TOKEN_FILE", parse=_file_named),
    Setting("llm_url", env="CODELENS_LLM_URL"),
    Setting("llm_model", env="CODELENS_LLM_MODEL"),
    Setting("llm_timeout", env="CODELENS_LLM_TIMEOUT"),
    Setting("llm_temperature", env="CODELENS_LLM_TEMPERATURE"),
    Setting("llm_context_tokens", env="CODELENS_LLM_CONTEXT_TOKENS"),
    Setting("llm_retry_s", env="CODELENS_LLM_RETRY_S"),
)


def setting_row(name: str) -> Setting:
    return next(row for row in SETTING_ROWS if row.name == name)


def environment_value(name: str, environ: Mapping[str, str] | None = None) -> Any:
    """Setting `name` from the environment alone (its row's variable, parsed), or None when the
    variable is unset or empty: what a module asks when no Settings handed it the value."""
    env = os.environ if environ is None else environ
    text = env.get(setting_row(name).env, "")
    return setting_row(name).parse(text) if text else None
