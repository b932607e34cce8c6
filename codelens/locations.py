"""Where CodeLens keeps things on this machine, resolved in one place.

One user cache root holds everything per user: the models' exported graphs (`onnx/`, MPNet's
unpacked weights), every repository's index (`indexes/<name>-<hash>`) and, beside them, what
is shared across indexes. The installed `codelens` command finds a repository's index from the
working directory, so `cd myrepo && codelens search "..."` needs no flag:

    --db / CODELENS_DB            an explicit index folder: always wins
    ./chroma_db (holding an index) what `python index.py` and `make run` build in a checkout
    the enclosing project         the nearest folder above the working directory that is a git
                                  repository's root (a `.git` folder or file) or already has an
                                  index (a folder of repositories with an index holding this one
                                  wins; so does a workspace file indexed with `codelens index
                                  team.toml` that lists it); else the working directory itself

Indexes live in the user cache, not in the repository: nothing appears in `git status`, a
read-only checkout can be searched, the watcher never sees the index's own writes, and one
place lists (`codelens repos`) and deletes (`codelens forget`) them. The key is the project's
real path, so a symlinked or relative path finds the same index.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from codelens.errors import EXIT_NO_INDEX, CodeLensError
from codelens.settings import environment_value

CHECKOUT_DB = Path("chroma_db")  # `python index.py`'s default, relative to the working directory
METADATA_NAME = "index_metadata.json"
WORKSPACE_FILES_NAME = "workspace_files.json"  # the workspace files indexed in the user cache, and their folders
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def cache_root(environ: dict[str, str] | None = None) -> Path:
    """CODELENS_CACHE_DIR, else the platform's user cache folder + /codelens
    ($XDG_CACHE_HOME or ~/.cache on Linux, ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows)."""
    chosen = environment_value("cache_dir", environ)
    if chosen is not None:
        return chosen
    env = os.environ if environ is None else environ  # the platform's variables (settings.py's exceptions)
    if env.get("XDG_CACHE_HOME"):
        return Path(env["XDG_CACHE_HOME"]).expanduser() / "codelens"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "codelens"
    if sys.platform == "win32" and env.get("LOCALAPPDATA"):
        return Path(env["LOCALAPPDATA"]) / "codelens" / "Cache"
    return Path.home() / ".cache" / "codelens"


def model_cache(environ: dict[str, str] | None = None) -> Path:
    """Exported ONNX graphs and unpacked weights: CODELENS_MODEL_CACHE, else the cache root."""
    return environment_value("model_cache", environ) or cache_root(environ)


def indexes_root(environ: dict[str, str] | None = None) -> Path:
    """Every project's index, one folder each."""
    return cache_root(environ) / "indexes"


def shared_embedding_cache(environ: dict[str, str] | None = None) -> Path:
    """The machine-wide embedding cache every index run reads and fills."""
    return cache_root(environ) / "embeddings.sqlite"


def index_for(project: Path, environ: dict[str, str] | None = None) -> Path:
    """The index folder of a project (a repository, a folder or a zip), keyed by its real path:
    `<indexes>/<name>-<16 hex of sha256(real path)>`; the name only helps a person reading it."""
    real = Path(project).expanduser().resolve()
    digest = hashlib.sha256(str(real).encode("utf-8", errors="surrogateescape")).hexdigest()[:16]
    name = _UNSAFE.sub("_", real.name or "root")[:40]
    return indexes_root(environ) / f"{name}-{digest}"


def project_root(start: Path, environ: dict[str, str] | None = None) -> Path:
    """The project enclosing `start`: a folder above it with an index of its own that holds the
    repository `start` is in (a workspace: `codelens index ~/work`), else the nearest folder at
    or above it that is a git repository's root or already has an index; else `start` itself."""
    start = Path(start).expanduser().resolve()
    nearest = None
    for folder in (start, *start.parents):
        indexed = has_index(index_for(folder, environ))
        if nearest is not None and indexed and _workspace_holds(index_for(folder, environ), nearest.name):
            return folder  # a workspace around the repository: searched whole
        if nearest is None and ((folder / ".git").exists() or indexed):
            nearest = folder
    listed = workspace_file_around(start, environ)
    return listed or nearest or start


def _workspace_files_record(environ: dict[str, str] | None = None) -> Path:
    return cache_root(environ) / WORKSPACE_FILES_NAME


def remember_workspace_file(workspace_file: Path, folders: list[Path],
                            environ: dict[str, str] | None = None) -> None:
    """Record that `codelens index team.toml` indexed these folder repositories, so that a search
    run inside one of them uses the workspace's index (`workspace_file_around`). A cache: lost,
    the next `codelens index team.toml` writes it again."""
    import json

    target = _workspace_files_record(environ)
    record = _read_workspace_files(target)
    record[str(Path(workspace_file).resolve())] = [str(Path(folder).resolve()) for folder in folders]
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(record, indent=1), encoding="utf-8")
        os.replace(temporary, target)
    except OSError:
        pass


def workspace_file_around(start: Path, environ: dict[str, str] | None = None) -> Path | None:
    """An indexed workspace file (recorded by `remember_workspace_file`, its index still there)
    one of whose folder repositories holds `start`; the deepest repository wins."""
    here = Path(start).expanduser().resolve()
    best: tuple[int, Path] | None = None
    for workspace_file, folders in _read_workspace_files(_workspace_files_record(environ)).items():
        for folder in folders:
            depth = len(Path(folder).parts)
            if here.is_relative_to(folder) and (best is None or depth > best[0]) and Path(workspace_file).is_file() \
                    and has_index(index_for(Path(workspace_file), environ)):
                best = (depth, Path(workspace_file))
    return best[1] if best else None


def _read_workspace_files(path: Path) -> dict[str, list[str]]:
    import json

    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return {str(k): [str(f) for f in v] for k, v in raw.items() if isinstance(v, list)}
    except (OSError, ValueError, AttributeError, TypeError):
        return {}


def _workspace_holds(index_dir: Path, label: str) -> bool:
    """Whether the index is a workspace with a repository labelled `label` (its metadata says)."""
    import json

    try:
        repositories = json.loads((index_dir / METADATA_NAME).read_text(encoding="utf-8")).get("repositories") or []
    except (OSError, ValueError, AttributeError):
        return False
    return any(isinstance(item, dict) and item.get("label") == label for item in repositories)


def repository_within(project: Path, start: Path) -> str:
    """The top-level folder of `project` that `start` is in, when `project` is a workspace
    around it ("" when `start` is the project's own folder or not below it)."""
    try:
        parts = Path(start).resolve().relative_to(Path(project).resolve()).parts
    except ValueError:
        return ""
    return parts[0] if parts and (Path(project) / parts[0] / ".git").exists() else ""


def current_repository(project: Path | None, cwd: Path | None = None) -> str:
    """The repository of the workspace `project` (a folder of repositories, or a workspace file)
    that the working directory is in: what a search without flags ranks first on a tie
    (search/ties.py). "" outside every repository, or when the project is one repository."""
    if project is None:
        return ""
    cwd = Path.cwd() if cwd is None else Path(cwd)
    if not Path(project).is_file():
        return repository_within(project, cwd)
    from codelens.workspace_file import load_workspace_file

    try:
        folders = load_workspace_file(project).folders
    except CodeLensError:
        return ""
    here = cwd.resolve()
    inside = [entry for entry in folders if here.is_relative_to(entry.path)]
    return max(inside, key=lambda entry: len(entry.path.parts)).name if inside else ""


def has_index(index_dir: Path) -> bool:
    return (Path(index_dir) / METADATA_NAME).is_file()


def is_too_broad(folder: Path) -> bool:
    """A folder no one means to index whole by accident: the file system's root or a home folder."""
    real = Path(folder).resolve()
    return real == Path(real.anchor) or real == Path.home().resolve()


@dataclass(frozen=True)
class IndexLocation:
    """Which index a command uses and why."""

    index_dir: Path
    project: Path | None  # the project it indexes when found from the working directory; None for --db
    how: str  # "explicit" (--db / CODELENS_DB), "checkout" (./chroma_db) or "project"

    @property
    def from_project(self) -> bool:
        return self.how == "project"


def locate_index(explicit_db: str | Path | None, cwd: Path | None = None,
                 environ: dict[str, str] | None = None) -> IndexLocation:
    """The index a command with these flags, run in `cwd`, uses (the table in this module's docstring)."""
    explicit = explicit_db or environment_value("db_path", environ)
    if explicit:
        return IndexLocation(Path(explicit), None, "explicit")
    cwd = Path.cwd() if cwd is None else Path(cwd)
    if has_index(cwd / CHECKOUT_DB):
        return IndexLocation(CHECKOUT_DB if cwd == Path.cwd() else cwd / CHECKOUT_DB, None, "checkout")
    project = project_root(cwd, environ)
    return IndexLocation(index_for(project, environ), project, "project")


def index_command(index_dir: Path | str | None = None, flags: str = "") -> str:
    """The command that (re)builds the index in `index_dir`, as a message tells it: an index in
    the user cache is a repository's (`codelens index`, run in it), any other one a --db."""
    tail = f" {flags}" if flags else ""
    if index_dir is not None:
        folder = Path(index_dir).expanduser()
        try:
            in_cache = folder.resolve().is_relative_to(indexes_root().resolve())
        except OSError:
            in_cache = False
        if in_cache:
            return f"codelens index{tail} (in the repository)"
        if folder != CHECKOUT_DB and folder.resolve() != (Path.cwd() / CHECKOUT_DB).resolve():
            return f"python index.py --db {folder}{tail}"
    return f"python index.py{tail}"


class IndexNotFound(CodeLensError):
    """No index in `db_path`: the message names the command that builds it (index_command)."""

    exit_code = EXIT_NO_INDEX

    def __init__(self, db_path: str) -> None:
        super().__init__(f"no index in {db_path} - run: {index_command(db_path)}")
        self.db_path = db_path
