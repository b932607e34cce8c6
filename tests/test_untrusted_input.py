"""A codebase is untrusted input: hostile zips, odd files, bad flags and foreign folders.

Each case ends in a skipped entry with a warning, or a one-line error with its exit code,
and never in a traceback, a file written outside the work folder, or a changed index.
(Basic zip-slip and the plain error exits are in test_engine.py.)
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import json
import os
import shutil
import struct
import subprocess
import zipfile
from pathlib import Path

import pytest

from codelens.errors import SourceError
from codelens.index.build import build_index
from codelens.index.metadata import read_stats
from codelens.ingest.codebase import chunk_codebase
from codelens.ingest.source import ZipLimits, list_python_files, open_codebase, read_source_text
from tests.conftest import copy_index, run_cli, settings_for


def one_error_line(result: subprocess.CompletedProcess) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def snapshot(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def write_zip(path: Path, entries: dict[str, bytes | str], method: int = zipfile.ZIP_STORED) -> Path:
    with zipfile.ZipFile(path, "w", method) as archive:
        for name, data in entries.items():
            archive.writestr(zipfile.ZipInfo(name), data, compress_type=method)
    return path


def _patch_headers(data: bytearray, name: str, local_offset: int, central_offset: int, value: int, mask: bool) -> None:
    """Rewrite a 2-byte field of one entry in both its local and central headers."""
    encoded = name.encode()
    for signature, name_len_at, name_at, field_at in ((b"PK\x03\x04", 26, 30, local_offset),
                                                       (b"PK\x01\x02", 28, 46, central_offset)):
        start = 0
        while (i := data.find(signature, start)) >= 0:
            name_len = struct.unpack("<H", data[i + name_len_at : i + name_len_at + 2])[0]
            if data[i + name_at : i + name_at + name_len] == encoded:
                old = struct.unpack("<H", data[i + field_at : i + field_at + 2])[0]
                data[i + field_at : i + field_at + 2] = struct.pack("<H", old | value if mask else value)
            start = i + 4


# ------------------------------------------------------------------ zip entries


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_hostile_zip_entries_are_skipped_with_a_reason(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in ("../up.py", "..\\..\\win_up.py", "pkg/../../deep_up.py", "/etc/abs.py", "C:\\win_abs.py",
                     "D:drive_relative.py", "pkg/ok.py", "pkg/ok.py", "pkg/" + "n" * 300 + ".py",
                     "clash.py", "clash.py/inner.py", "enc.py", "odd_method.py"):
            archive.writestr(zipfile.ZipInfo(name), "def fine():\n    return 1\n")
        link = zipfile.ZipInfo("pkg/link.py")
        link.external_attr = 0o120777 << 16
        archive.writestr(link, "/etc/passwd")
        archive.writestr(zipfile.ZipInfo("../notes.txt"), "not python, still reported")
        archive.writestr(zipfile.ZipInfo("data/blob.bin"), b"\x00" * 100)
        archive.writestr("pkg/corrupt.py", "def f():\n    return 1\n" * 50, compress_type=zipfile.ZIP_DEFLATED)
    data = bytearray(buffer.getvalue())
    _patch_headers(data, "enc.py", 6, 8, 0x1, mask=True)  # "encrypted" flag
    _patch_headers(data, "odd_method.py", 8, 10, 99, mask=False)  # AES / unknown compression
    name_end = data.find(b"pkg/corrupt.py") + len("pkg/corrupt.py")
    data[name_end + 2 : name_end + 12] = b"\xff" * 10  # garbage inside the deflate stream
    archive_path = tmp_path / "hostile.zip"
    archive_path.write_bytes(bytes(data))

    work = tmp_path / "work"
    codebase = open_codebase(archive_path, work)
    reasons = {w.split("'")[1]: w.split(": ", 1)[1] for w in codebase.warnings}
    assert reasons == {
        "../up.py": "path escapes the archive root",
        "..\\\\..\\\\win_up.py": "path escapes the archive root",
        "pkg/../../deep_up.py": "path escapes the archive root",
        "/etc/abs.py": "absolute path",
        "C:\\\\win_abs.py": "absolute path",
        "D:drive_relative.py": "absolute path",
        "pkg/ok.py": "duplicate name",
        "pkg/" + "n" * 300 + ".py": "cannot be written here (File name too long)",
        "clash.py/inner.py": "cannot be written here (File exists)",
        "enc.py": "encrypted (a password is required)",
        "odd_method.py": "compression method 99 is not supported",
        "pkg/link.py": "symbolic link",
        "../notes.txt": "path escapes the archive root",
        "pkg/corrupt.py": reasons["pkg/corrupt.py"],
    }
    assert reasons["pkg/corrupt.py"].startswith("corrupt entry")
    written = sorted(p.relative_to(work).as_posix() for p in work.rglob("*") if p.is_file())
    assert written == ["codebase/clash.py", "codebase/pkg/ok.py"]  # only Python, only inside
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hostile.zip", "work"]


def test_zip_bomb_by_compression_ratio_is_refused_with_the_numbers(tmp_path: Path) -> None:
    bomb = write_zip(tmp_path / "bomb.zip", {"pkg/bomb.py": b"\n" * 20_000_000}, zipfile.ZIP_DEFLATED)
    assert bomb.stat().st_size < 100_000  # a real, highly compressed archive
    with pytest.raises(SourceError) as info:
        open_codebase(bomb, tmp_path / "work")
    message = str(info.value)
    assert "compression ratio" in message and "20000000 bytes" in message and "limit 200:1" in message
    assert not (tmp_path / "work").exists()  # refused before anything was written


@pytest.mark.parametrize(("limits", "entries", "expected"), [
    (ZipLimits(files=50), {f"m{i}.py": "x = 1\n" for i in range(60)}, "has 60 entries (limit 50)"),
    (ZipLimits(total_bytes=1000), {"big.py": "x = 1\n" * 400}, "unpacks to 2400 bytes (limit 1000)"),
    (ZipLimits(compression_ratio=5, ratio_check_above_bytes=0), {"flat.py": "x = 1\n" * 400},
     "limit 5:1"),
])
def test_zip_caps_are_configurable_and_say_the_numbers(tmp_path: Path, limits, entries, expected: str) -> None:
    archive = write_zip(tmp_path / "a.zip", entries, zipfile.ZIP_DEFLATED)
    with pytest.raises(SourceError, match="refusing a possible zip bomb") as info:
        open_codebase(archive, tmp_path / "work", limits)
    assert expected in str(info.value)


def test_truncated_zip_is_called_corrupt(tmp_path: Path, mini_project: Path) -> None:
    from tests.conftest import zip_folder

    whole = zip_folder(mini_project, tmp_path / "whole.zip").read_bytes()
    truncated = tmp_path / "cut.zip"
    truncated.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(SourceError, match="corrupt or truncated"):
        open_codebase(truncated, tmp_path / "work")


# ------------------------------------------------------------- folder sources


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs symlinks and FIFOs")
def test_folder_symlinks_and_special_files_are_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "stolen.py").write_text("def stolen():\n    return 'outside'\n")
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "real.py").write_text("def real():\n    return 1\n")
    (project / "pkg" / "link_file.py").symlink_to(outside / "stolen.py")
    (project / "pkg" / "link_dir").symlink_to(outside, target_is_directory=True)
    (project / "pkg" / "loop").symlink_to(project, target_is_directory=True)
    (project / ".gitignore").symlink_to(outside / "stolen.py")  # not read as ignore rules
    os.mkfifo(project / "pkg" / "pipe.py")  # reading it would block forever
    assert [f.rel_path for f in list_python_files(project)] == ["pkg/real.py"]
    assert [c.chunk_id for c in chunk_codebase(project, 1_000_000).chunks] == ["pkg/real.py::real"]


# ------------------------------------------------------------------ odd files


def _odd_project(root: Path) -> Path:
    files: dict[str, bytes] = {
        "cp1251.py": b"# -*- coding: cp1251 -*-\ndef privet():\n    return '" + "Привет".encode("cp1251") + b"'\n",
        "latin1.py": b"def cafe():\n    return 'caf\xe9'\n",
        "bad_cookie.py": b"# coding: no-such-codec\ndef bad_cookie():\n    return 1\n",
        "utf16_cookie.py": b"# coding: utf-16\ndef utf16_cookie():\n    return 1\n",
        "bom.py": b"\xef\xbb\xbfdef with_bom():\n    return 1\n",
        "binary.py": b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256)),
        "utf16_file.py": "def wide():\n    return 1\n".encode("utf-16"),
        "empty.py": b"",
        "comments.py": b"# nothing but a comment\n",
        "long_line.py": b"BLOB = '" + b"ab" * 200_000 + b"'\ndef after_long_line():\n    return 1\n",
        "nested_ifs.py": b"def deep():\n" + b"".join(b"    " * (i + 1) + b"if x%d:\n" % i for i in range(200))
                         + b"    " * 201 + b"return 1\n",
        "long_expr.py": b"TOTAL = " + b" + ".join([b"1"] * 100_000) + b"\ndef after_expr():\n    return 1\n",
        "deep_parens.py": b"X = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\ndef after_parens():\n    return 1\n",
        "broken.py": b"def broken(:\n    return )\nclass Half\n",
        "huge.py": b"# big\n" + b"x = 1\n" * 400_000,
    }
    root.mkdir()
    for name, data in files.items():
        (root / name).write_bytes(data)
    return root


def test_odd_files_are_indexed_or_skipped_with_a_warning(tmp_path: Path) -> None:
    result = chunk_codebase(_odd_project(tmp_path / "odd"), max_file_bytes=1_000_000)
    by_id = {c.chunk_id: c for c in result.chunks}
    assert "Привет" in by_id["cp1251.py::privet"].code  # PEP 263 respected
    assert "café" in by_id["latin1.py::cafe"].code  # no cookie, not UTF-8: Latin-1
    for chunk_id in ("bad_cookie.py::bad_cookie", "utf16_cookie.py::utf16_cookie", "bom.py::with_bom",
                     "long_line.py::after_long_line", "long_expr.py::after_expr", "deep_parens.py::after_parens",
                     "nested_ifs.py::deep"):
        assert chunk_id in by_id, chunk_id
    assert by_id["nested_ifs.py::deep"].end_line == 202
    assert not [c for c in result.chunks if c.path in ("empty.py", "comments.py")]
    assert any(c.path == "broken.py" for c in result.chunks)
    assert sorted(result.warnings) == [
        "binary.py: skipped, binary content (NUL bytes)",
        "huge.py: skipped, 2400006 bytes is over the 1000000-byte limit",
        "utf16_file.py: skipped, binary content (NUL bytes)",
    ]
    assert len(by_id) == len(result.chunks)


@pytest.mark.parametrize(("raw", "expected"), [
    (b"", ""),
    (b"x = 1\n", "x = 1\n"),
    (b"\xef\xbb\xbfx = 1\n", "x = 1\n"),
    (b"# coding: latin-1\nx = '\xe9'\n", "# coding: latin-1\nx = 'é'\n"),
    (b"# coding: utf-8\nx = '\xe9'\n", "# coding: utf-8\nx = 'é'\n"),  # lying cookie: fall back
    (b"# vim: set fileencoding=utf-16 :\nx = 1\n", "# vim: set fileencoding=utf-16 :\nx = 1\n"),
    (b"# coding: rot13\nx = 1\n", "# coding: rot13\nx = 1\n"),
    (b"x = 1\x00\n", None),
])
def test_read_source_text(raw: bytes, expected: str | None) -> None:
    assert read_source_text(raw) == expected


def test_the_whole_pipeline_survives_odd_files(tmp_path: Path, embedder) -> None:
    project = _odd_project(tmp_path / "odd")
    stats = build_index(project, settings_for(tmp_path / "db"), embedder=embedder)
    assert stats.files == 15 and stats.total_chunks > 10
    assert len(stats.warnings) == 3


def test_max_file_kb_flag_skips_big_files_with_a_warning(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "small.py").write_text("def small():\n    return 1\n")
    (project / "big.py").write_text("def big():\n    return 1\n" + "# padding\n" * 500)
    db = tmp_path / "db"
    result = run_cli("index.py", "--source", str(project), "--db", str(db), "--quiet", "--max-file-kb", "2")
    assert result.returncode == 0, result.stderr
    assert "big.py: skipped, 5024 bytes is over the 2000-byte limit" in result.stdout
    stats = read_stats(db)
    assert stats.total_chunks == 1 and stats.warnings == ["big.py: skipped, 5024 bytes is over the 2000-byte limit"]
    bad = run_cli("index.py", "--source", str(project), "--db", str(db), "--max-file-kb", "0")
    assert bad.returncode != 0 and "expected a positive whole number" in bad.stderr


# --------------------------------------------------------- never executed


@pytest.mark.slow  # a real index run in a child process, the models loaded there
def test_indexed_code_is_never_imported_or_executed(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    project = tmp_path / "evil"
    (project / "pkg").mkdir(parents=True)

    def trap(name: str) -> str:
        return (f"import os, sys\nopen({str(markers / name)!r}, 'w').write('ran')\n"
                f"os._exit(97)\nsys.exit(98)\n\ndef {name.replace('.', '_')}():\n    return 1\n")

    for name in ("pkg/__init__.py", "pkg/__main__.py", "setup.py", "conftest.py", "sitecustomize.py",
                 "usercustomize.py", "pkg/module.py"):
        (project / name).write_text(trap(Path(name).stem + "_" + str(len(name))))
    (project / "pkg" / "spin.py").write_text("while True:\n    pass\n")
    (project / "pkg" / "codec.py").write_text("# -*- coding: evil_codec -*-\nx = 1\n")
    db = tmp_path / "db"
    # a process of its own: a trap that ran would end it (os._exit)
    result = run_cli("index.py", "--source", str(project), "--db", str(db), "--quiet", timeout=240, fresh_process=True)
    assert result.returncode == 0, result.stderr
    assert list(markers.iterdir()) == []
    assert read_stats(db).files == 9


# ------------------------------------------------ errors leave the index alone


@pytest.fixture(scope="module")
def baseline(tmp_path_factory, mini_index) -> Path:
    """A copy of the mini index that the failed runs below must leave alone."""
    return copy_index(mini_index, tmp_path_factory.mktemp("baseline") / "chroma_db").db_path


def _bad_sources(root: Path, mini_project: Path) -> dict[str, Path]:
    from tests.conftest import zip_folder

    root.mkdir(exist_ok=True)
    no_python = root / "docs_only"
    no_python.mkdir(exist_ok=True)
    (no_python / "README.md").write_text("# nothing to index\n")
    only_binary = root / "only_binary"
    only_binary.mkdir(exist_ok=True)
    (only_binary / "blob.py").write_bytes(b"\x00\x01\x02")
    whole = zip_folder(mini_project, root / "whole.zip").read_bytes()
    (root / "cut.zip").write_bytes(whole[: len(whole) // 3])
    write_zip(root / "bomb.zip", {"bomb.py": b"\n" * 20_000_000}, zipfile.ZIP_DEFLATED)
    write_zip(root / "no_python.zip", {"proj/README.md": "hi", "proj/setup.cfg": "[x]"})
    return {"missing": root / "missing", "docs_only": no_python, "only_binary": only_binary,
            "cut.zip": root / "cut.zip", "bomb.zip": root / "bomb.zip", "no_python.zip": root / "no_python.zip"}


@pytest.mark.parametrize(("case", "message"), [
    ("missing", "source not found"),
    ("docs_only", "no Python code found"),
    ("only_binary", "no Python code found"),
    ("cut.zip", "is corrupt or truncated"),
    ("bomb.zip", "compression ratio 1"),
    ("no_python.zip", "no Python code found"),
])
def test_bad_source_exits_3_and_leaves_the_index(case: str, message: str, baseline: Path, tmp_path: Path,
                                                 mini_project: Path) -> None:
    before = snapshot(baseline)
    source = _bad_sources(tmp_path / "sources", mini_project)[case]
    result = run_cli("index.py", "--source", str(source), "--db", str(baseline), "--quiet")
    assert result.returncode == 3
    assert message in one_error_line(result)
    assert snapshot(baseline) == before


def test_bad_db_targets_exit_4(tmp_path: Path, mini_project: Path) -> None:
    foreign = tmp_path / "photos"
    foreign.mkdir()
    (foreign / "cat.jpg").write_bytes(b"meow")
    cases = [(foreign, "not a CodeLens index"), (Path("/proc/codelens_db"), "cannot write the index")]
    for db, message in cases:
        result = run_cli("index.py", "--source", str(mini_project), "--db", str(db), "--quiet")
        assert result.returncode == 4 and message in one_error_line(result)
    assert snapshot(foreign) == {"cat.jpg": hashlib.sha256(b"meow").hexdigest()}


def test_a_second_index_run_on_the_same_db_is_refused(baseline: Path, mini_project: Path) -> None:
    before = snapshot(baseline)
    with open(baseline.parent / f".{baseline.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        result = run_cli("index.py", "--source", str(mini_project), "--db", str(baseline), "--quiet")
    assert result.returncode == 4 and "another index run is writing" in one_error_line(result)
    assert snapshot(baseline) == before


def test_index_of_another_model_is_a_clear_error(baseline: Path) -> None:
    before = snapshot(baseline)
    result = run_cli("-m", "codelens", "search", "login", "--db", str(baseline), "--model", "st:all-MiniLM-L6-v2")
    assert result.returncode == 5
    assert "built with model 'multilingual-e5-small'" in one_error_line(result)
    assert snapshot(baseline) == before


def test_index_of_an_older_format_is_refused_for_search_and_rebuilt_by_index(
        baseline: Path, tmp_path: Path, mini_project: Path) -> None:
    old = tmp_path / "old_db"
    shutil.copytree(baseline, old)
    metadata = old / "index_metadata.json"
    raw = json.loads(metadata.read_text())
    raw["format_version"] = 0
    metadata.write_text(json.dumps(raw))
    before = snapshot(old)
    for command in (["-m", "codelens", "search", "login"], ["-m", "codelens", "stats"]):
        result = run_cli(*command, "--db", str(old))
        assert result.returncode == 4
        assert "has format 0" in one_error_line(result) and f"python index.py --db {old} --full" in result.stderr
    assert snapshot(old) == before
    rebuilt = run_cli("index.py", "--source", str(mini_project), "--db", str(old), "--quiet")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "Run: full" in rebuilt.stdout and read_stats(old).total_chunks == 10
