"""Where the code comes from: a zip or a folder, opened safely, filtered to the files read
(code, and the documents and configuration files of `formats`).

A codebase is untrusted input. Zip entries are written only inside a private work
folder (no `..`, absolute paths, drive letters or symlinks), archives are capped in
size, file count and compression ratio, and nothing found is ever imported or run.
"""

from __future__ import annotations

import errno
import functools
import io
import os
import re
import stat
import tokenize
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from zlib import error as zlib_error

import pathspec

from codelens.errors import SourceError
from codelens.ingest.formats import (
    HEADER_HEAD_BYTES,
    SCRIPT_HEAD_BYTES,
    file_format,
    header_format,
    names_nothing,
    script_format,
)

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv",
    ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
    "dist", "site-packages", ".eggs", "__MACOSX",
    ".terraform", ".gradle",  # Terraform's downloaded providers and modules, Gradle's caches: not the project's
    ".idea", ".vs",  # IDE state (JetBrains' workspace XML, Visual Studio's): the editor's, not the project's
    ".next", ".nuxt", ".svelte-kit", ".angular", ".parcel-cache",  # front-end frameworks' build output
})

# the names a Python virtual environment is usually given: skipped when the folder is one (a venv's `pyvenv.cfg`,
# conda's `conda-meta/`, the installed packages), kept when it is the project's own package of that name (koanf's
# `providers/env/`: its environment-variable provider, absent from every answer while `env` was skipped by name)
_ENVIRONMENT_NAMES = frozenset({"venv", "env", ".env", "virtualenv"})
_ENVIRONMENT_MARKS = ("pyvenv.cfg", "conda-meta", "Lib/site-packages")


def is_skipped_folder(folder: Path) -> bool:
    """A folder no index reads, by its name (SKIP_DIRS), or a virtual environment by one of its usual names."""
    if folder.name in SKIP_DIRS:
        return True
    if folder.name not in _ENVIRONMENT_NAMES:
        return False
    return (any((folder / mark).exists() for mark in _ENVIRONMENT_MARKS)
            or any(folder.glob("lib/python*/site-packages")))


# `build/` is a build's output at the root (a workspace repository's too) or beside a build's manifest (Gradle's
# `app/build/` beside `app/build.gradle`, a package's beside its package.json); elsewhere a package of that name
# (luarocks' `src/luarocks/build/`: the build back ends, its four files in no chunk), kept
_BUILD_MANIFESTS = ("build.gradle", "build.gradle.kts", "pom.xml", "build.xml", "CMakeLists.txt", "meson.build",
                    "Makefile", "package.json", "setup.py", "setup.cfg", "pyproject.toml", "Cargo.toml", "build.zig")


def is_build_output(folder: Path, rel: str) -> bool:
    """A `build/` folder a build writes (silently skipped, as SKIP_DIRS are); `rel`, its path below the root."""
    if folder.name != "build":
        return False
    return ("/" not in rel.strip("/") or (folder.parent / ".git").exists()  # a workspace repository's root
            or any((folder.parent / name).is_file() for name in _BUILD_MANIFESTS))


def _release_copy(name: str, rel: str) -> bool:
    """A library's release unpacked below the root (`_RELEASE_COPY`), not sources for a version (`src-2.12`); or
    the documentation as one release had it (Humanizer's `website/version-overrides/2.11.10/`, seven copies of
    every page: a version's name below a documentation folder)."""
    parts = rel.strip("/").split("/")
    if len(parts) >= 2 and _BARE_VERSION.match(name) and any(p.lower() in _DOC_ROOTS for p in parts[:-1]):
        return True
    return (len(parts) >= 2 and _RELEASE_COPY.match(name) is not None
            and name.split("-", 1)[0].lower() not in _VERSIONED_SOURCES)


# Other people's code and build output, skipped with a warning (one per folder): vendored
# dependencies (Go's vendor/, third_party/ and its spellings, CocoaPods' Pods/, C and C++ projects' deps/,
# a library's bundled/ copy: spdlog's fmt; a shaded copy, `shaded_org_apache_tools_zip/`) and build
# folders (Rust's and Maven's target/, .NET's bin/ and obj/). A bin/ that holds scripts (`.py`, `.sh`, or
# a `#!` line of a language read: `bin/rails`, `bin/asdf`) is the repository's own: kept. Docusaurus's
# versioned_docs/ and versioned_sidebars/ are the docs copied at each release (Humanizer's eight copies of every
# API page: 73% of its chunks, ranks 5-10 of nearly every question); the current docs stay.
# Other people's code is so named in any case: .NET writes `ThirdParty/` (GuardClauses' copy of JetBrains' annotations,
# 164 of its 303 chunks), `Vendor/`, `3rdParty/`; the other names keep their case (a `Target/` may be a package).
_ANY_CASE_VENDORED = frozenset({"vendor", "third_party", "third-party", "thirdparty", "3rdparty"})
VENDORED_DIRS = _ANY_CASE_VENDORED | frozenset({"deps", "bundled", "Pods", "versioned_docs", "versioned_sidebars",
                                                "target", "bin", "obj"})
_SHADED = "shaded_"  # another library's package copied under a new name (os-lib's `shaded_org_apache_tools_zip`)
# a header-only library's headers concatenated by a tool into one file beside them (toml11's, nlohmann/json's and
# Catch2's `single_include/` next to `include/`): toml11's 18,000-line toml.hpp took the first places from the
# headers it copies, and `copies` kept whichever copy ranked first
_AMALGAMATED = "single_include"
_KEPT_WITH_SCRIPTS = frozenset({"bin"})
_PACKAGE_TREE = re.compile(r"(?:^|/)src/[a-z][a-zA-Z]*/(?:java|kotlin|scala|groovy)/.+/")  # folders are packages
_SCRIPT_SUFFIXES = (".py", ".sh", ".bash")
# a library's release unpacked into the tree (yaml-cpp's `test/googletest-1.16.0/`, `lib/zlib-1.3.1/`): below
# the root only, where a whole project's own archive (`yaml-cpp-0.8.0/`) is the one folder; never the project's
# own sources for one version of its language or platform (upickle's `core/src-2.12/`, `scala-2.13/`)
_VERSIONED_SOURCES = frozenset({"src", "source", "sources", "main", "test", "scala", "java", "kotlin", "jvm", "js",
                                "native", "python", "py", "go", "rust", "swift", "dotnet", "net", "android", "ios"})
_BARE_VERSION = re.compile(r"^v?\d+(?:\.\d+){1,3}$")
_DOC_ROOTS = frozenset({"docs", "doc", "website", "site", "documentation"})
_RELEASE_COPY = re.compile(r"^[A-Za-z][A-Za-z0-9_.+]*(?:-[A-Za-z][A-Za-z0-9_.+]*)*-v?\d+(?:\.\d+){1,3}$")

MAX_ZIP_TOTAL_BYTES = 2_000_000_000
MAX_ZIP_FILES = 200_000
MAX_COMPRESSION_RATIO = 200
_RATIO_CHECK_ABOVE_BYTES = 10_000_000  # small archives of repetitive text compress well too
_MAX_GITIGNORE_BYTES = 1_000_000
_ASCII_PROBE = "# coding=x\ndef f(a): return [a, {'b': 1}]\n"
# Only these are written out of a zip: code, the documents and configuration files
# `formats.file_format` knows, a script whose name says nothing but whose first line is a `#!` of a
# language read, and `.gitignore`; nothing else is read, so nothing else can hurt.
_EXTRACTED_NAMES = frozenset({".gitignore"})
# A bad entry (name too long, a file where a folder must go) skips that entry, not the zip.
_ENTRY_ERRNOS = frozenset({errno.ENAMETOOLONG, errno.EEXIST, errno.EISDIR, errno.ENOTDIR, errno.EINVAL, errno.EILSEQ})


@dataclass(frozen=True)
class ZipLimits:
    """Caps that make a zip bomb fail fast, before anything is written."""

    total_bytes: int = MAX_ZIP_TOTAL_BYTES
    files: int = MAX_ZIP_FILES
    compression_ratio: float = MAX_COMPRESSION_RATIO
    ratio_check_above_bytes: int = _RATIO_CHECK_ABOVE_BYTES


@dataclass(frozen=True)
class SourceFile:
    rel_path: str  # posix path relative to the codebase root: the chunk id prefix
    abs_path: Path


@dataclass(frozen=True)
class Codebase:
    """A folder on disk holding the code, plus the name the user gave it."""

    root: Path
    origin: str  # what the user passed: the zip or the folder
    warnings: tuple[str, ...] = ()


def open_codebase(source: Path, work_dir: Path, limits: ZipLimits | None = None) -> Codebase:
    """Return a folder with the code: the folder itself, or the zip extracted into work_dir."""
    if not source.exists():
        raise SourceError(f"source not found: {source} - pass --source ZIP_OR_FOLDER")
    if source.is_dir():
        return Codebase(root=source.resolve(), origin=str(source))
    if not zipfile.is_zipfile(source):
        if _starts_like_a_zip(source):
            raise SourceError(f"zip {source} is corrupt or truncated (no central directory) - "
                              "re-create or re-download it")
        hint = (" (a workspace file needs a top-level [workspace] table: docs/repositories.md#a-workspace-file)"
                if source.suffix == ".toml" else "")
        raise SourceError(f"source is neither a folder nor a zip file: {source}{hint}")
    target = work_dir / "codebase"
    warnings = extract_zip_safely(source, target, limits or ZipLimits())
    return Codebase(root=_single_top_folder(target), origin=str(source), warnings=tuple(warnings))


def _starts_like_a_zip(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == b"PK\x03\x04"
    except OSError:
        return False


def extract_zip_safely(zip_path: Path, target: Path, limits: ZipLimits | None = None) -> list[str]:
    """Extract the files read of a zip under target; return warnings for skipped entries.

    Only the files `formats.file_format` knows and `.gitignore` are written; entries that would land outside target
    (`..`, absolute paths, drive letters), symlinks, duplicates, encrypted or unreadable
    entries are skipped with a warning. Caps are checked on the central directory first."""
    warnings: list[str] = []
    try:
        with zipfile.ZipFile(zip_path) as archive:
            members = archive.infolist()
            _check_zip_bomb(zip_path, members, limits or ZipLimits())
            seen: set[str] = set()
            for member in members:
                if member.is_dir():
                    continue
                reason = _unsafe_member_reason(member, seen)  # reported even for files we would not keep
                if reason is None and _wanted(archive, member):
                    reason = _extract_member(archive, member, target)
                if reason:
                    warnings.append(f"skipped zip entry {member.filename!r}: {reason}")
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError) as exc:
        raise SourceError(f"cannot read zip {zip_path}: {exc}") from exc
    return warnings


def _wanted(archive: zipfile.ZipFile, member: zipfile.ZipInfo) -> bool:
    base = member.filename.replace("\\", "/").rsplit("/", 1)[-1]
    if file_format(base) is not None or base in _EXTRACTED_NAMES:
        return True
    if not names_nothing(base):
        return False
    try:  # a name that says nothing: written out only when its first line is a script's `#!` (a binary never)
        with archive.open(member) as entry:
            return script_format(base, entry.read(SCRIPT_HEAD_BYTES)) is not None
    except (RuntimeError, NotImplementedError, zipfile.BadZipFile, EOFError, OSError, zlib_error):
        return False


def _extract_member(archive: zipfile.ZipFile, member: zipfile.ZipInfo, target: Path) -> str | None:
    """Write one entry; return why it was skipped, or None when it was written."""
    if member.flag_bits & 0x1:
        return "encrypted (a password is required)"
    destination = target.joinpath(*PurePosixPath(member.filename.replace("\\", "/")).parts)
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(member) as src, open(destination, "wb") as dst:
            _copy_capped(src, dst, member)
    except NotImplementedError:  # before RuntimeError: it is one
        return f"compression method {member.compress_type} is not supported"
    except RuntimeError as exc:  # zipfile's way of saying "encrypted, password required"
        return f"cannot be read ({exc})"
    except (zipfile.BadZipFile, EOFError, zlib_error) as exc:
        destination.unlink(missing_ok=True)
        return f"corrupt entry ({exc})"
    except OSError as exc:
        if exc.errno not in _ENTRY_ERRNOS:
            raise
        return f"cannot be written here ({exc.strerror})"
    return None


def _check_zip_bomb(zip_path: Path, members: list[zipfile.ZipInfo], limits: ZipLimits) -> None:
    total = sum(m.file_size for m in members)
    compressed = sum(m.compress_size for m in members) or 1
    if len(members) > limits.files:
        raise SourceError(f"zip {zip_path} has {len(members)} entries (limit {limits.files}) "
                          "- refusing a possible zip bomb")
    if total > limits.total_bytes:
        raise SourceError(f"zip {zip_path} unpacks to {total} bytes (limit {limits.total_bytes}) "
                          "- refusing a possible zip bomb")
    if total > limits.ratio_check_above_bytes and total / compressed > limits.compression_ratio:
        raise SourceError(
            f"zip {zip_path} has compression ratio {total / compressed:.0f}:1 ({total} bytes from "
            f"{compressed}; limit {limits.compression_ratio:g}:1) - refusing a possible zip bomb"
        )


def _unsafe_member_reason(member: zipfile.ZipInfo, seen: set[str]) -> str | None:
    name = member.filename.replace("\\", "/")
    path = PurePosixPath(name)
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "absolute path"
    if ".." in path.parts:
        return "path escapes the archive root"
    if not path.parts or path.parts == (".",):
        return "empty name"
    mode = member.external_attr >> 16
    if stat.S_ISLNK(mode):
        return "symbolic link"
    key = str(path)
    if key in seen:
        return "duplicate name"
    seen.add(key)
    return None


def _copy_capped(src: io.BufferedIOBase, dst: io.BufferedIOBase, member: zipfile.ZipInfo) -> None:
    """Copy at most the declared size: a lying header cannot inflate past it."""
    remaining = member.file_size
    while remaining > 0:
        block = src.read(min(remaining, 1 << 20))
        if not block:
            break
        dst.write(block)
        remaining -= len(block)


def _single_top_folder(root: Path) -> Path:
    """Zips of a project often wrap it in one folder: chunk ids start inside it."""
    if not root.exists():
        return root
    entries = [p for p in root.iterdir() if p.name != "__MACOSX"]
    if len(entries) == 1 and entries[0].is_dir() and not (entries[0] / "__init__.py").exists():
        return entries[0]
    return root


def iter_python_files(root: Path) -> Iterator[SourceFile]:
    """Yield the `.py` files under root in a stable order, minus skipped and ignored paths."""
    return iter_source_files(root, python_only=True)


def iter_source_files(root: Path, python_only: bool = False, vendored: list[str] | None = None) -> Iterator[SourceFile]:
    """Yield the files under root that are read (code, documents, configuration: see
    `formats.file_format`), minus skipped and ignored paths. As git does, each folder's own
    `.gitignore` applies below it: a workspace's repositories keep their own rules. `vendored`
    collects the vendored and build folders left out (`vendor/`, `target/`: VENDORED_DIRS)."""
    stack = [(root, "", _with_gitignore((), root, ""))]
    while stack:
        folder, prefix, ignores = stack.pop()
        try:  # scandir: the entry types come with the listing, no stat per entry
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name, reverse=True)
        except OSError:
            continue
        for entry in entries:
            rel = prefix + entry.name
            try:
                if entry.is_symlink():
                    continue
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = not is_dir and entry.is_file(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                path = Path(entry.path)
                if (is_skipped_folder(path) or is_build_output(path, rel) or _ignored_by(ignores, rel + "/")
                        or _is_index(path)):
                    continue
                if is_vendored(path, rel + "/"):
                    if vendored is not None:
                        vendored.append(rel + "/")
                    continue
                stack.append((path, rel + "/", _with_gitignore(ignores, path, rel + "/")))
            elif is_file and _read_as(Path(entry.path), python_only) and not _ignored_by(ignores, rel):
                yield SourceFile(rel_path=rel, abs_path=Path(entry.path))


def is_vendored(folder: Path, rel: str = "") -> bool:
    """Whether a folder is vendored code or build output (VENDORED_DIRS, a release copy), by its name (and, for bin/,
    whether it holds scripts: a repository's scripts are its own code). `rel`, its path below the root: a
    folder inside a JVM source set's package tree is a package of that name (javalin's
    `src/main/java/io/javalin/plugin/bundled/`, its own plugins)."""
    if folder.name.startswith(_SHADED) or _release_copy(folder.name, rel):
        return True
    if folder.name == _AMALGAMATED:
        return (folder.parent / "include").is_dir()  # alone, it is the library's only copy
    named = folder.name in VENDORED_DIRS or folder.name.lower() in _ANY_CASE_VENDORED
    if not named or _PACKAGE_TREE.search(rel):
        return False
    if folder.name in _KEPT_WITH_SCRIPTS:
        try:
            with os.scandir(folder) as listing:
                return not any(entry.name.endswith(_SCRIPT_SUFFIXES) or _is_script(Path(entry.path))
                               for entry in listing)
        except OSError:
            return True
    return True


# The .gitignore files that apply in a folder: (the folder's path below the root + "/", its rules).
Ignores = tuple[tuple[str, pathspec.PathSpec], ...]


def _with_gitignore(ignores: Ignores, folder: Path, rel_prefix: str) -> Ignores:
    spec = _load_gitignore(folder)
    return (*ignores, (rel_prefix, spec)) if spec is not None else ignores


def _ignored_by(ignores: Ignores, rel_path: str) -> bool:
    """Whether a .gitignore of a folder above rel_path (a path below the root) ignores it."""
    return any(rel_path.startswith(base) and spec.match_file(rel_path[len(base):]) for base, spec in ignores)


def _read_as(path: Path, python_only: bool) -> bool:
    fmt = read_format(path)
    return fmt == "python" if python_only else fmt is not None


def read_format(path: Path) -> str | None:
    """What a file is read as: `formats.file_format` by its name (a `.h` that is an Objective-C header by
    its head: `formats.header_format`), else, for a name that says nothing (`bin/asdf`), the language its
    `#!` line runs (`formats.script_format`); None: not read."""
    fmt = file_format(path.name)
    if fmt == "c" and path.name.lower().endswith(".h"):
        return _header_language(path) or fmt
    if fmt is not None or not names_nothing(path.name):
        return fmt
    return _script_language(path)


def _header_language(path: Path) -> str | None:
    head = _head(path, HEADER_HEAD_BYTES)
    return header_format(path.name, head.decode("utf-8", "replace")) if head is not None else None


def _is_script(path: Path) -> bool:
    return names_nothing(path.name) and _script_language(path) is not None


def _script_language(path: Path) -> str | None:
    head = _head(path, SCRIPT_HEAD_BYTES)
    return script_format(path.name, head) if head is not None else None


def _head(path: Path, size: int) -> bytes | None:
    """A file's first `size` bytes; None for what is no regular file (never open a FIFO or a device a
    watcher's event names) or cannot be read."""
    if not path.is_file():
        return None
    try:
        with open(path, "rb") as handle:
            return handle.read(size)
    except OSError:
        return None


def indexed_path_filter(root: Path) -> Callable[[Path], bool]:
    """Whether a path under root is (or, deleted, was) a file an index run reads: the same
    rules as `iter_source_files` (formats read, skipped folders, every .gitignore above it), for
    a watcher's events."""
    root = root.resolve()
    top = _with_gitignore((), root, "")

    def accepts(path: Path) -> bool:
        try:
            rel = PurePosixPath(Path(path).resolve().relative_to(root).as_posix())
        except ValueError:
            return False
        if not _read_as(Path(path), python_only=False) or any(part in SKIP_DIRS for part in rel.parts[:-1]):
            return False
        ignores = top
        for depth in range(1, len(rel.parts)):
            folder = "/".join(rel.parts[:depth]) + "/"
            if (_ignored_by(ignores, folder) or _is_index(root / folder) or is_skipped_folder(root / folder)
                    or is_build_output(root / folder, folder)
                    or is_vendored(root / folder, folder)):
                return False
            ignores = _with_gitignore(ignores, root / folder, folder)
        return not _ignored_by(ignores, str(rel))

    return accepts


def _is_index(folder: Path) -> bool:
    """A CodeLens index folder (an --db inside the codebase): its JSON is ours, not the project's."""
    return (folder / "index_metadata.json").is_file()


def list_python_files(root: Path) -> list[SourceFile]:
    return sorted(iter_python_files(root), key=lambda f: f.rel_path)


def list_source_files(root: Path) -> list[SourceFile]:
    """Every file that is read, Python and the rest, sorted by path."""
    return sorted(iter_source_files(root), key=lambda f: f.rel_path)


def _load_gitignore(root: Path) -> pathspec.PathSpec | None:
    gitignore = root / ".gitignore"
    try:
        info = gitignore.lstat()
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_GITIGNORE_BYTES:
        return None  # a symlink, a folder, or too large
    return _compiled_gitignore(str(gitignore), info.st_size, info.st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _compiled_gitignore(path: str, _size: int, _mtime_ns: int) -> pathspec.PathSpec:
    """Compiling a long .gitignore costs more than the walk it serves (~10 ms for 170 patterns):
    a process that walks the same folder again (serve's check before each search) compiles it
    once per version of the file."""
    lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    return pathspec.PathSpec.from_lines("gitignore", lines)


def read_source_text(raw: bytes) -> str | None:
    """Decode Python source (PEP 263 coding line, else UTF-8, else Latin-1); None if binary."""
    if b"\x00" in raw:
        return None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        # A cookie naming a codec that is not ASCII-compatible (utf-16...) decodes to garbage.
        if encoding == "utf-8-sig" or _ASCII_PROBE.encode(encoding) == _ASCII_PROBE.encode("ascii"):
            return raw.decode(encoding)
    except (SyntaxError, LookupError, UnicodeError):
        pass
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")
