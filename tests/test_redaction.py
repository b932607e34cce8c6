"""Secrets never reach the index: the pure rules, then a real index of planted secrets."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codelens.index.build import build_index
from codelens.index.layout import IndexLayout
from codelens.index.metadata import read_stats
from codelens.ingest.chunker import chunk_file
from codelens.ingest.codebase import chunk_codebase
from codelens.ingest.redaction import REDACTION_VERSION, looks_random, redact, secret_kind_of_name, shannon_entropy
from codelens.search.filters import SearchFilters
from codelens.search.searcher import Searcher
from tests.conftest import FIXTURES, examples, settings_for

SECRETS_PROJECT = FIXTURES / "secrets_project"
# beside the project, not in it: a JSON file in the project is indexed now
PLANTED: list[str] = json.loads((FIXTURES / "secrets_planted.json").read_text())["secrets"]
EXPECTED_MASKS = {
    "access_key": 1, "api_key": 2, "aws_access_key_id": 1, "client_secret": 1, "github_token": 2,
    "high_entropy": 1, "jwt": 1, "password": 6, "private_key": 2, "secret": 1, "slack_token": 1,
    "slack_webhook": 1, "stripe_key": 1, "token": 4,
}


def masked(text: str) -> str:
    return redact(text).text


def lines(text: str) -> int:
    """Line count the chunker sees, counting a trailing line break too."""
    return len((text + "\x00").splitlines())


# ------------------------------------------------------------ named values


@pytest.mark.parametrize(("line", "expected"), [
    ('PASSWORD = "hunter2"', 'PASSWORD = "<secret:password>"'),
    ("DB_PASSWD: str = 'pw'", "DB_PASSWD: str = '<secret:password>'"),
    ('SECRET_KEY = "09d25e094faa6ca2556c818166b7a9563b93f7099f6f0f4caa6cf63b88e8d3e7"',
     'SECRET_KEY = "<secret:secret>"'),
    ('self.api_key = "k-123456"', 'self.api_key = "<secret:api_key>"'),
    ('clientSecret = "abcdef"', 'clientSecret = "<secret:client_secret>"'),
    ('PRIVATE_KEY = "fake-key-material"', 'PRIVATE_KEY = "<secret:private_key>"'),
    ('aws_access_key = "fake-access"', 'aws_access_key = "<secret:access_key>"'),
    ('connect(user="u", password="pw1")', 'connect(user="u", password="<secret:password>")'),
    ('def f(token: str | None = "t0k3n-value"): ...', 'def f(token: str | None = "<secret:token>"): ...'),
    ('{"password": "pw2", \'api_key\': "k"}', '{"password": "<secret:password>", \'api_key\': "<secret:api_key>"}'),
    ('os.environ["GITHUB_TOKEN"] = "tok-42x"', 'os.environ["GITHUB_TOKEN"] = "<secret:token>"'),
    ('if password == "letmein":', 'if password == "<secret:password>":'),
    ('h = {"Authorization": "Basic dXNlcjpwYXNz"}', 'h = {"Authorization": "Basic <secret:token>"}'),
    ("PASSWORD = '''multi\nline'''", "PASSWORD = '''<secret:password>\n'''"),
])
def test_values_of_secret_names_are_masked(line: str, expected: str) -> None:
    assert masked(line) == expected


@pytest.mark.parametrize("line", [
    'TOKEN_TYPE = "bearer"',
    'token_url = "/auth/token"',
    'password_hash = hash_password(password)',
    'PASSWORD_FIELD_HELP = "your password"',
    'headers = {"Authorization": f"Bearer {token}"}',
    'url = f"postgresql://{user}:{password}@{host}/db"',
    'print("password = " + pw + " end")',
    'x = getpass("Password: ").strip() or "default"',
    'password = ""',
    'api_key = "${API_KEY}"',
    'eos_token = "</s>"',
    'pad_token="[PAD]"',
    'sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"',
    'request_id = "123e4567-e89b-12d3-a456-426614174000"',
    'model = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"',
    'name = "V1beta1MutatingAdmissionPolicyBinding"',
])
def test_ordinary_code_is_left_alone(line: str) -> None:
    assert masked(line) == line


@pytest.mark.parametrize(("name", "kind"), [
    ("DB_PASSWORD", "password"), ("dbPassword", "password"), ("secret", "secret"),
    ("JWT_SECRET_KEY", "secret"), ("CLIENT_SECRET", "client_secret"), ("x-api-key", "api_key"),
    ("AWS_SECRET_ACCESS_KEY", "access_key"), ("refresh_token2", "token"), ("TOKEN_TYPE", None),
    ("password_hash", None), ("keyboard", None), ("tokenizer", None),
])
def test_the_last_word_of_a_name_decides(name: str, kind: str | None) -> None:
    assert secret_kind_of_name(name) == kind


# ---------------------------------------------------------- known formats


def test_connection_string_keeps_user_and_host() -> None:
    text = 'DATABASE_URL = "postgresql://app:s3cr%40t@db.example.com:5432/app"\nREDIS = "redis://:pw@cache:6379/0"'
    assert masked(text) == ('DATABASE_URL = "postgresql://app:<secret:password>@db.example.com:5432/app"\n'
                            'REDIS = "redis://:<secret:password>@cache:6379/0"')
    assert masked('URL = "http://example.com:8080/path@anchor"') == 'URL = "http://example.com:8080/path@anchor"'


def test_pem_block_keeps_its_lines_and_markers() -> None:
    text = ('KEY = """-----BEGIN RSA PRIVATE KEY-----\n'
            "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
            'VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----"""\n'
            "x = 1\n")
    result = redact(text)
    assert result.text == ('KEY = """-----BEGIN RSA PRIVATE KEY-----\n<secret:private_key>\n\n'
                           '-----END RSA PRIVATE KEY-----"""\nx = 1\n')
    assert result.counts == [("private_key", 1)]


def test_pem_split_over_literals_stays_valid_code() -> None:
    text = ('KEY = ("-----BEGIN PRIVATE KEY-----\\n"\n       "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIB\\n"\n'
            '       "-----END PRIVATE KEY-----\\n")\n'
            'CUT = "-----BEGIN EC PRIVATE KEY-----\\n" + \\\n    "MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oGUlXo9A"\n')
    result = redact(text)
    assert "MIIEvQIBADANBgkq" not in result.text and "MHcCAQEEIBkg4LVW" not in result.text
    assert result.counts == [("private_key", 2)]
    ast.parse(result.text)
    assert lines(result.text) == lines(text)


@pytest.mark.parametrize(("token", "kind"), [
    ("AKIAIOSFODNN7EXAMPLE", "aws_access_key_id"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt"),
    ("ghp_" + "a1B2c3D4e5" * 4, "github_token"),
    ("github_pat_" + "11ABCDEFG0" * 3, "github_token"),
    ("xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp", "slack_token"),
    ("https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "slack_webhook"),
    ("sk_live_" + "a1B2c3D4e5" * 3, "stripe_key"),
    ("AIza" + "SyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW", "google_api_key"),
    ("sk-proj-" + "a1B2c3D4e5" * 4, "openai_key"),
])
def test_token_formats_are_masked_in_code_strings_and_comments(token: str, kind: str) -> None:
    for text in (f'value = "{token}"', f"# see {token} for the sandbox", f'"""Use {token} locally."""'):
        result = redact(text)
        assert token not in result.text
        assert f"<secret:{kind}>" in result.text
        assert result.counts == [(kind, 1)]


def test_aws_secret_key_after_its_name_even_unquoted() -> None:
    text = "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
    assert masked(text) == "aws_secret_access_key = <secret:aws_secret_key>\n"


def test_jwt_split_over_two_literals() -> None:
    text = ('TOKEN_SAMPLE = (\n    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"\n'
            '    ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"\n)\n')
    result = redact(text)
    assert "eyJzdWIi" not in result.text and "dozjgNry" not in result.text
    assert result.counts == [("jwt", 1)]
    ast.parse(result.text)


# ------------------------------------------------------ high-entropy literals


def test_high_entropy_literals_are_masked_but_hex_digests_are_kept() -> None:
    assert masked('x = "q8Zr2LmX9vTb4Kp7Wn3Yc"') == 'x = "<secret:high_entropy>"'
    assert masked("b64 = 'c6b8hTg4EeGb2gQMztV1/g=='") == "b64 = '<secret:high_entropy>'"
    digest = "d41d8cd98f00b204e9800998ecf8427e"  # decided: hex is an identifier, not a credential
    assert masked(f'EXPECTED_MD5 = "{digest}"') == f'EXPECTED_MD5 = "{digest}"'


def test_entropy_helpers() -> None:
    assert shannon_entropy("") == 0.0
    assert shannon_entropy("aaaa") == 0.0
    assert shannon_entropy("abcd") == pytest.approx(2.0)
    assert not looks_random("short1A")
    assert not looks_random("get_current_active_user_v2")
    assert looks_random("N7vQ2kX9pL4mZ8wR3tY6bC1h")


# -------------------------------------------------------------- invariants


def test_counts_are_per_kind_and_sorted() -> None:
    text = 'PASSWORD = "a"\nTOKEN = "tok-1234"\nADMIN_PASSWORD = "b"\n'
    assert redact(text).counts == [("password", 2), ("token", 1)]
    assert redact("x = 1\n").counts == []


def test_masked_code_still_parses_and_keeps_line_numbers() -> None:
    for path in sorted(SECRETS_PROJECT.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        result = redact(text)
        ast.parse(result.text)
        assert lines(result.text) == lines(text), path
        before = [(c.chunk_id, c.start_line, c.end_line) for c in chunk_file(path.name, text).chunks]
        after = [(c.chunk_id, c.start_line, c.end_line) for c in chunk_file(path.name, result.text).chunks]
        assert after == before


def test_adversarial_long_inputs_finish() -> None:
    """Every pattern is anchored or bounded: these would take minutes if one backtracked."""
    size = 200_000
    for text in ("a" * size, "a." * (size // 2), "eyJ" * (size // 3), "'" * size, "password = " * (size // 11),
                 "a: b, " * (size // 6), "-----BEGIN RSA PRIVATE KEY-----\n" * (size // 32), "http://u:" * (size // 9),
                 'x = "' + "Ab1+" * (size // 4) + '"'):
        assert lines(redact(text).text) == lines(text)


_secretish = st.sampled_from([
    'PASSWORD = "pw"', "token='t0k3n-1'", "postgresql://u:p@h/db", "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMx", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx.sig",
    "AKIAIOSFODNN7EXAMPLE", '"q8Zr2LmX9vTb4Kp7Wn3Yc"', '"\n"', "\u2028", "\r\n", '"""', "'", "\\n", "f\"{x}\"",
])


@settings(max_examples=examples(200), deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_secretish, st.text(max_size=12)), max_size=30).map("".join))
def test_redaction_never_raises_keeps_lines_and_is_idempotent(text: str) -> None:
    once = redact(text)
    assert lines(once.text) == lines(text)
    twice = redact(once.text)
    assert twice.text == once.text and twice.counts == []


# -------------------------------------------- the real index of planted secrets


@pytest.fixture(scope="module")
def secrets_index(tmp_path_factory, embedder):
    db = tmp_path_factory.mktemp("secrets") / "chroma_db"
    settings = settings_for(db)
    with pytest.MonkeyPatch.context() as patch:  # its own shared embedding cache, looked at below
        patch.setenv("CODELENS_CACHE_DIR", str(db.parent / "user_cache"))
        build_index(SECRETS_PROJECT, settings, embedder=embedder)
    return settings


def _files_beside_and_inside(db_path: Path) -> list[Path]:
    """The index folder, the lock beside it, the shared embedding cache (and its WAL): everything a run wrote."""
    inside = [p for p in db_path.rglob("*") if p.is_file()]
    beside = [p for p in db_path.parent.glob(f".{db_path.name}*") if p.is_file()]
    shared = [p for p in (db_path.parent / "user_cache").rglob("*") if p.is_file()]
    return inside + beside + shared


def test_fixture_plants_secrets_in_every_chunk_field() -> None:
    raw = chunk_codebase(SECRETS_PROJECT, 1_000_000)
    texts = "\n".join(raw.sources.values())
    assert not [s for s in PLANTED if s in texts]  # chunk_codebase itself already masks
    assert dict(raw.secrets_masked) == EXPECTED_MASKS
    by_id = {c.chunk_id: c for c in raw.chunks}
    assert "<secret:password>" in by_id["billing/clients.py::connect_to_billing_database"].signature
    assert "<secret:token>" in by_id["billing/clients.py::charge_customer_card"].decorators[0]
    assert "<secret:github_token>" in by_id["billing/notifications.py::notify_failed_payment"].docstring


def test_no_planted_secret_on_disk(secrets_index) -> None:
    db_path = secrets_index.db_path
    files = _files_beside_and_inside(db_path)
    names = {p.name for p in files}
    assert "chroma.sqlite3" in names and "index_metadata.json" in names
    assert "embeddings.sqlite" in names and IndexLayout(db_path).embedding_cache.name not in names
    # Lexical indexes store lowercased pieces, not whole values: look for those too.
    pieces = {p.lower() for s in PLANTED for p in re.split(r"[^A-Za-z0-9]+", s) if len(p) >= 8 and not p.isdigit()}
    leaks = []
    for path in files:
        data = path.read_bytes()
        leaks += [(path.name, s) for s in PLANTED if s.encode() in data or s.encode("utf-16-le") in data]
        leaks += [(path.name, p) for p in pieces if p.encode() in data.lower()]
    assert leaks == []


def test_no_planted_secret_in_search_results(secrets_index, embedder) -> None:
    searcher = Searcher(secrets_index, embedder=embedder)
    everything = SearchFilters(include_tests=True)
    for query in ("password", "api key token secret", "private RSA key", "AWS access key",
                  "JWT sample", "slack webhook", "database url", *PLANTED[:5]):
        for hit in searcher.search(query, k=10, filters=everything):
            c = hit.chunk
            shown = "\n".join([c.code, c.signature, c.docstring, *c.decorators])
            assert not [s for s in PLANTED if s in shown], (query, c.chunk_id)


def test_code_around_secrets_is_still_found(secrets_index, embedder) -> None:
    searcher = Searcher(secrets_index, embedder=embedder)
    hits = searcher.search("open a connection to the billing database", k=3)
    assert hits[0].chunk_id == "billing/clients.py::connect_to_billing_database"
    assert 'password: str = "<secret:password>"' in hits[0].chunk.code
    settings_hit = searcher.search("postgresql database url of the billing service", k=5)
    module = next(h.chunk for h in settings_hit if h.chunk_id == "billing/settings.py::<module>")
    assert "postgresql://billing_app:<secret:password>@db.billing.internal:5432/billing" in module.code
    signing = searcher.search("sign a webhook payload with the private key", k=3)
    assert signing[0].chunk_id == "billing/keys.py::sign_webhook_payload"


def test_metadata_counts_the_masks(secrets_index) -> None:
    stats = read_stats(secrets_index.db_path)
    assert stats.secrets_masked == EXPECTED_MASKS
    assert stats.redaction_version == REDACTION_VERSION
    raw = json.loads((secrets_index.db_path / "index_metadata.json").read_text())
    assert raw["secrets_masked"]["password"] == 6


def test_index_built_before_redaction_is_rebuilt_in_full(tmp_path: Path, embedder) -> None:
    """SQLite keeps replaced text in free pages: an index stored under older rules (or none)
    must be rebuilt from an empty folder, not updated in place."""
    settings = settings_for(tmp_path / "chroma_db")
    build_index(SECRETS_PROJECT, settings, embedder=embedder)
    metadata = settings.db_path / "index_metadata.json"
    raw = json.loads(metadata.read_text())
    raw.pop("redaction_version")  # what an index from before this feature looks like
    metadata.write_text(json.dumps(raw))
    stats = build_index(SECRETS_PROJECT, settings, embedder=embedder)
    assert stats.run["mode"] == "full"
    assert build_index(SECRETS_PROJECT, settings, embedder=embedder).run["mode"] == "unchanged"
