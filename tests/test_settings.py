"""Settings from one table (settings.SETTING_ROWS): each setting's flag, environment variable,
parser and help declared once, and one precedence: a given flag > the environment > the default."""

from __future__ import annotations

from pathlib import Path

import pytest

from codelens.cli.common import settings_of
from codelens.cli.main import build_parser
from codelens.settings import SETTING_ROWS, Settings, setting_row

BOTH = [row for row in SETTING_ROWS if row.flag and row.env and row.name != "db_path"]  # --db: locations.py


@pytest.mark.parametrize("row", BOTH, ids=lambda row: row.name)
def test_a_flag_beats_the_environment_which_beats_the_default(row) -> None:
    default = getattr(Settings(), row.name)
    assert getattr(Settings.resolve({}, {}), row.name) == default
    assert getattr(Settings.resolve({}, {row.env: "from-env"}), row.name) == "from-env"
    assert getattr(Settings.resolve({row.dest: "from-flag"}, {row.env: "from-env"}), row.name) == "from-flag"
    # a flag given empty was not given: the environment stays
    assert getattr(Settings.resolve({row.dest: ""}, {row.env: "from-env"}), row.name) == "from-env"


def test_from_env_is_the_table_without_flags() -> None:
    env = {"CODELENS_DB": "/tmp/x", "CODELENS_MODEL": "st:m", "CODELENS_COLLECTION": "team",
           "CODELENS_CHROMA_URL": "http://h:1", "CODELENS_ENGLISH_MODEL": "mpnet", "CODELENS_PROGRESSIVE": "no"}
    assert Settings.from_env(env) == Settings(db_path=Path("/tmp/x"), model="st:m", collection="team",
                                              chroma_url="http://h:1", english_model="mpnet", progressive=False)
    assert Settings.from_env({"CODELENS_PROGRESSIVE": "1"}).progressive


def test_the_index_flags_become_settings(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("CODELENS_MODEL", raising=False)
    args = build_parser().parse_args(["index", "--db", str(tmp_path), "--max-file-kb", "2", "--quiet",
                                      "--batch-size", "8", "--ray", "auto", "--ray-worker-cpus", "3",
                                      "--english-model", "mpnet", "--model", "st:m"])
    settings = settings_of(args)
    assert (settings.db_path, settings.max_file_bytes, settings.show_progress, settings.batch_size) == (
        tmp_path, 2000, False, 8)
    assert (settings.ray_address, settings.ray_worker_cpus, settings.english_model, settings.model) == (
        "auto", 3, "mpnet", "st:m")
    untouched = settings_of(build_parser().parse_args(["index", "--db", str(tmp_path)]))
    assert (untouched.max_file_bytes, untouched.show_progress, untouched.batch_size) == (1_000_000, True, 32)


def test_every_flag_of_a_setting_is_the_one_its_row_declares() -> None:
    index = build_parser()._subparsers._group_actions[0].choices["index"]
    by_flag = {option: action for action in index._actions for option in action.option_strings}
    for row in SETTING_ROWS:
        if row.flag:
            assert by_flag[row.flag].help == row.help, row.flag
            assert by_flag[row.flag].dest == row.dest


def test_a_bad_collection_name_from_a_flag_or_the_environment_is_refused() -> None:
    from codelens.errors import BadInput

    with pytest.raises(BadInput):
        Settings.resolve({"collection": "../up"}, {})
    with pytest.raises(BadInput):
        Settings.from_env({"CODELENS_COLLECTION": "a/b"})
    assert setting_row("collection").parse("ok-name") == "ok-name"


def test_only_the_table_and_its_documented_exceptions_read_the_environment() -> None:
    """`grep -rn os.environ codelens`: settings.py, and the modules its docstring names with a reason."""
    import codelens.settings

    package = Path(codelens.settings.__file__).parent
    readers = {path.relative_to(package).as_posix() for path in package.rglob("*.py")
               if "os.environ" in path.read_text(encoding="utf-8")}
    documented = {line.split(":")[0].removeprefix("- ").strip()
                  for line in (codelens.settings.__doc__ or "").splitlines() if line.startswith("- ")}
    named = {part.strip() for entry in documented for part in entry.split(",")}
    assert readers - {"settings.py"} == named


def test_a_value_handed_down_beats_the_environment(monkeypatch) -> None:
    from codelens.index.embed_cache import DEFAULT_CAP_MB, cache_cap_bytes
    from codelens.models.runtime import int8_ships
    from codelens.serve.lifetime import IDLE_EXIT_S, idle_exit_s

    monkeypatch.setenv("CODELENS_IDLE_EXIT_S", "7")
    monkeypatch.setenv("CODELENS_PRECISION", "fp32")
    monkeypatch.setenv("CODELENS_EMBED_CACHE_MB", "1")
    assert (idle_exit_s(), idle_exit_s(3.0)) == (7.0, 3.0)
    assert not int8_ships("multilingual-e5-small") and int8_ships("multilingual-e5-small", precision="")
    assert (cache_cap_bytes(), cache_cap_bytes(2.0)) == (1024 * 1024, 2 * 1024 * 1024)
    monkeypatch.setenv("CODELENS_IDLE_EXIT_S", "soon")  # unreadable: the default, as before
    monkeypatch.setenv("CODELENS_EMBED_CACHE_MB", "lots")
    assert (idle_exit_s(), cache_cap_bytes()) == (float(IDLE_EXIT_S), DEFAULT_CAP_MB * 1024 * 1024)
    resolved = Settings.from_env({"CODELENS_IDLE_EXIT_S": "7", "CODELENS_AUTOSERVE": "off",
                                  "CODELENS_ALLOWED_ROOTS": "/srv/a"})
    assert (resolved.idle_exit_s, resolved.autoserve) == (7.0, False)
    assert resolved.allowed_roots == (Path("/srv/a").resolve(),)
