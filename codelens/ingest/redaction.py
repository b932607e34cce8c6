"""Secrets out before anything is embedded or stored.

`redact(text)` masks credentials in source text with a visible placeholder
(`"<secret:password>"`) and counts the masks per kind. It runs on a whole file's text
before chunking, so every chunk field (code, signature, docstring, decorators), the
embedded text and the sidecars see the same masked text.

Rules, applied in this order (a value masked by one rule is not masked again):
1. Known formats anywhere (code, strings, comments): PEM private key blocks, AWS access
   key ids, AWS secret keys after their name, JWTs, GitHub / Slack / Stripe / Google /
   OpenAI-style tokens, Slack webhooks.
2. Passwords inside connection strings: `postgresql://user:<secret:password>@host`
   (user and host stay searchable).
3. String literals assigned to a secret-looking name: `PASSWORD = "..."`,
   `api_key: str = "..."`, `connect(token="...")`, `{"client_secret": "..."}`,
   `def f(password="...")`, `if password == "..."`, `os.environ["API_KEY"] = "..."`.
   The name decides (its last word: password, secret, token, api_key, ...), so
   `TOKEN_TYPE = "bearer"` and `token_url = "/auth"` stay. f-strings that interpolate
   (`f"Bearer {token}"`) hold no literal secret and stay.
4. High-entropy string literals: at least `MIN_ENTROPY_LENGTH` characters from a
   base64 or url-safe alphabet, letters and digits mixed, few word-like runs and vowels,
   Shannon entropy at least `ENTROPY_THRESHOLD` bits per character. Pure hex strings (digests, commit ids, UUIDs)
   are left alone on purpose: they are identifiers far more often than credentials, and
   tests compare against them; a hex secret is still masked when its name says so
   (rule 3: `SECRET_KEY = "09d25e..."`).

Documents, configuration and build files (`redact(text, plain_values=True)`) also get:
5. Values, quoted or not, of secret-looking names at the start of a line: `.env` and shell
   `KEY=value` (`export`, Dockerfile `ENV`/`ARG` too), YAML `key: value`, TOML and INI
   `key = value`, dotted keys (`db.password = ...`), and YAML block scalars (`secret: |`)
   under such names. Templates (`${DB_PASSWORD}`, `{{ secrets.TOKEN }}`) stay.
6. Secret-looking parameters of query strings and forms: `...&password=hunter2&...`.
7. XML: the text of an element under a secret-looking name (`<password>hunter2</password>`) and the
   `value` beside a secret-looking `name` / `key` (Spring's `<property name="password" value="..."/>`).

Known limits: unquoted values in Python code or its docstrings (`PASSWORD=hunter2` in a
docstring) are only caught by the format rules; secrets built by concatenation are not seen.

Every replacement keeps the line breaks of what it replaced, so line numbers of chunks
never move, and the placeholder sits inside the original quotes, so code stays valid.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from typing import NamedTuple

# Bump when the rules change: an index built under older rules is rebuilt in full,
# because SQLite keeps replaced text in free pages until the file is rewritten.
REDACTION_VERSION = 3  # 2: rules 5-6 for the files beside the code (issue 25); 3: rule 7, XML (issue 44)
MIN_ENTROPY_LENGTH = 20
ENTROPY_THRESHOLD = 3.7
PLACEHOLDER_PREFIX = "<secret:"

# Everything str.splitlines() treats as a line break: keeping them keeps line numbers.
_BREAK_CHARS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_LINE_BREAKS = frozenset(_BREAK_CHARS)


class Redaction(NamedTuple):
    text: str
    counts: list[tuple[str, int]]  # (kind, masks), sorted by kind; empty when nothing was masked


def placeholder(kind: str) -> str:
    return f"{PLACEHOLDER_PREFIX}{kind}>"


def redact(text: str, plain_values: bool = False) -> Redaction:
    """Mask every secret in text; return the masked text and the masks per kind.
    plain_values: the text is a document, configuration or build file (rules 5-6 too)."""
    counts: Counter[str] = Counter()
    for rule in _RULES + (_PLAIN_RULES if plain_values else ()):
        text = rule(text, counts)
    return Redaction(text, sorted(counts.items()))


def _line_breaks(original: str) -> str:
    return "".join(ch for ch in original if ch in _LINE_BREAKS)


# Where one literal ends and the next begins: "abc"\n    "def" (implicit concatenation).
_JUNCTION = r"""["'][ \t]*\+?[ \t]*(?:\\?\r?\n[ \t]*)?["']"""
_JUNCTION_SPLIT = re.compile(f"({_JUNCTION})")


def _masked(kind: str, original: str, counts: Counter[str]) -> str:
    """The placeholder, the line breaks of original, and any quotes that joined literals
    inside it (a key split over several literals stays valid code)."""
    counts[kind] += 1
    pieces = _JUNCTION_SPLIT.split(original)
    if len(pieces) == 1:
        lead = original[: len(original) - len(original.lstrip(_BREAK_CHARS))]  # keeps a "\r" + "\n" pair one break
        return lead + placeholder(kind) + _line_breaks(original[len(lead):])
    # pieces alternate text, junction, text...: the placeholder goes in the first literal
    return "".join(
        piece if i % 2 else (placeholder(kind) if i == 0 else "") + _line_breaks(piece)
        for i, piece in enumerate(pieces)
    )


# ------------------------------------------------------------ 1. known formats

_PEM_LABEL = r"[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?"
_PEM_BLOCK = re.compile(
    rf"(?P<begin>-----BEGIN {_PEM_LABEL}-----)"
    r"(?P<body>(?:(?!-----(?:BEGIN|END) )[\s\S]){0,20000}?)"
    rf"(?P<end>-----END {_PEM_LABEL}-----)"
)
# A block cut short (no END line): mask the base64 lines that follow the BEGIN line.
_PEM_TRUNCATED = re.compile(
    rf"(?P<begin>-----BEGIN {_PEM_LABEL}-----)"
    r"(?P<body>(?:(?:[ \t\r\n\"'+]|\\[nr]|\\\r?\n)*[A-Za-z0-9+/=]{16,})+)"
)
_PEM_LEAD = re.compile(r"(?:\s|\\[nr])*")
_PEM_TRAIL = re.compile(r"(?:\s|\\[nr])*$")


def _mask_pem(text: str, counts: Counter[str]) -> str:
    """Keep the BEGIN/END lines (they say what was there), mask the key material."""

    def complete(match: re.Match[str]) -> str:
        body = match["body"]
        lead = _PEM_LEAD.match(body).group()  # type: ignore[union-attr]
        trail = _PEM_TRAIL.search(body, len(lead)).group()  # type: ignore[union-attr]
        middle = body[len(lead) : len(body) - len(trail)]
        if not middle.strip(" \t\"'+") or PLACEHOLDER_PREFIX in middle:
            return match.group()  # no key material (or already masked)
        return match["begin"] + lead + _masked("private_key", middle, counts) + trail + match["end"]

    def truncated(match: re.Match[str]) -> str:
        body = match["body"]
        lead = _PEM_LEAD.match(body).group()  # type: ignore[union-attr]
        return match["begin"] + lead + _masked("private_key", body[len(lead):], counts)

    text = _PEM_BLOCK.sub(complete, text)
    return _PEM_TRUNCATED.sub(truncated, text)


_JWT_PART = rf"[A-Za-z0-9_-]+(?:{_JUNCTION}[A-Za-z0-9_-]+)*"
_AWS_KEY_PREFIXES = ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "AROA", "APKA", "ASCA")
# (kind, markers, pattern): the whole match is the secret, and holds one of the markers, so a text
# without any is not scanned (a lookbehind-led pattern tries every position: on SymPy's 26 MB of Python
# these eight scans took 4.6 s, more than parsing it). Left-anchored so a long run of word characters
# is scanned once, not once per position.
_TOKEN_FORMATS: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = (
    ("jwt", ("eyJ",), re.compile(
        rf"(?<![\w-])eyJ{_JWT_PART}(?:{_JUNCTION})?\.(?:{_JUNCTION})?eyJ{_JWT_PART}(?:{_JUNCTION})?\.(?:{_JWT_PART})?")),
    ("aws_access_key_id", _AWS_KEY_PREFIXES, re.compile(
        rf"(?<![A-Za-z0-9])(?:{'|'.join(_AWS_KEY_PREFIXES)})[A-Z0-9]{{16}}(?![A-Za-z0-9])")),
    ("github_token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
     re.compile(r"(?<![\w])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})")),
    ("slack_token", ("xox",), re.compile(r"(?<![\w-])xox[abposr]-[A-Za-z0-9-]{10,250}")),
    ("slack_webhook", ("https://hooks.slack.com/services/",),
     re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9_/-]{10,250}")),
    ("stripe_key", ("k_live_", "k_test_"), re.compile(r"(?<![\w])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,250}")),
    ("google_api_key", ("AIza",), re.compile(r"(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])")),
    ("openai_key", ("sk-",), re.compile(r"(?<![\w-])sk-(?:proj-)?(?=[A-Za-z0-9_-]{0,250}\d)[A-Za-z0-9_-]{20,250}")),
)
_AWS_SECRET = re.compile(
    r"(?i)(?P<name>aws_?secret_?(?:access_?)?key[\"']?\s*[:=]\s*[\"']?)"
    r"(?P<value>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
)


def _mask_token_formats(text: str, counts: Counter[str]) -> str:
    for kind, markers, pattern in _TOKEN_FORMATS:
        if any(marker in text for marker in markers):
            text = pattern.sub(lambda m, kind=kind: _masked(kind, m.group(), counts), text)
    if "secret" not in text.lower():  # `aws_secret_access_key` in any case
        return text
    return _AWS_SECRET.sub(lambda m: m["name"] + _masked("aws_secret_key", m["value"], counts), text)


# ------------------------------------------------------ 2. connection strings

_CONNECTION = re.compile(
    r"(?P<head>(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,30}://[^\s:/@'\"]{0,256}:)"
    r"(?P<password>[^\s/@'\"]{1,256})@"
)
_TEMPLATE = re.compile(r"^(?:\{[^{}]*\}|\$\{?\w+\}?|%\(\w+\)s|<[^<>]*>)$")


def _mask_connection_passwords(text: str, counts: Counter[str]) -> str:
    if "://" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        password = match["password"]
        if _TEMPLATE.match(password) or password.startswith(PLACEHOLDER_PREFIX):
            return match.group()
        return match["head"] + _masked("password", password, counts) + "@"

    return _CONNECTION.sub(replace, text)


# --------------------------------------------------- 3. secret-looking names

_ASSIGNED_LITERAL = re.compile(
    # a quoted dict key or subscript ("password": ..., ["API_KEY"] = ...), or a bare name
    r"(?:(?P<open>[\"'])|(?<![\w\"'-]))(?P<name>[A-Za-z_][\w-]{0,200})"
    r"(?P<sep>(?(open)(?P=open)\]?[ \t]*[:=]|[ \t]*(?::[ \t]*[\w\[\]., |]{1,80}?[ \t]*)?(?:==|!=|:=|=))[ \t]*)"
    r"(?P<prefix>[rRbBuUfF]{0,2})"
    r"(?P<literal>\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')"
)
# Between two literals of one line ("password=" + pw + "!") sits code, not a value.
_CODE_BETWEEN_LITERALS = re.compile(r"^\s*[-+%,)\].*]|[-+%,(\[.*]\s*$")
_SECRET_NAME = re.compile(
    r"(?:^|_)(?P<word>password|passwd|pwd|passphrase|client_?secret|secret_?key|secret|tokens?|"
    r"api_?key|private_?key|access_?key|signing_?key|encryption_?key|master_?key|auth_?key|"
    r"credentials?|authorization)$"
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_KIND_OF_WORD = {
    "password": "password", "passwd": "password", "pwd": "password", "passphrase": "password",
    "clientsecret": "client_secret", "secret": "secret", "secretkey": "secret", "signingkey": "secret",
    "encryptionkey": "secret", "masterkey": "secret", "authkey": "secret", "credential": "secret",
    "credentials": "secret", "token": "token", "tokens": "token", "authorization": "token",
    "apikey": "api_key", "privatekey": "private_key", "accesskey": "access_key",
}


def secret_kind_of_name(name: str) -> str | None:
    """The kind of secret a name announces (`DB_PASSWORD` -> password), else None."""
    words = _CAMEL.sub("_", name).lower().replace("-", "_").rstrip("_0123456789")
    match = _SECRET_NAME.search(words)
    return _KIND_OF_WORD[match["word"].replace("_", "")] if match else None


# Every name secret_kind_of_name knows holds one of these (lowercased): a text without any has no
# secret-looking name, and is not scanned for assigned literals
_SECRET_NAME_MARKERS = ("pass", "pwd", "secret", "token", "key", "credential", "authorization")


def _mask_named_literals(text: str, counts: Counter[str]) -> str:
    lowered = text.lower()
    if not any(marker in lowered for marker in _SECRET_NAME_MARKERS):
        return text

    def replace(match: re.Match[str]) -> str:
        kind = secret_kind_of_name(match["name"])
        literal = match["literal"]
        quote = literal[:3] if literal[:3] in ('"""', "'''") else literal[0]
        value = literal[len(quote) : len(literal) - len(quote)]
        if kind is None or not _is_literal_secret(value, match["prefix"], kind):
            return match.group()
        scheme = _AUTH_SCHEME.match(value)
        if scheme:  # "Basic dXNlcjpwYXNz": keep the scheme word, mask the credential
            masked_value = scheme["scheme"] + _masked(kind, scheme["credential"], counts)
        else:
            masked_value = _masked(kind, value, counts)
        return (match["open"] or "") + match["name"] + match["sep"] + match["prefix"] + quote + masked_value + quote

    return _ASSIGNED_LITERAL.sub(replace, text)


_AUTH_SCHEME = re.compile(r"^(?P<scheme>(?:Bearer|Basic|Token|Digest)\s+)(?P<credential>\S+)$", re.I)
# Values a token/key-like name holds that are not credentials: special tokens of NLP
# vocabularies ("[PAD]", "</s>"), dotted names ("gen_ai.output_token"), flags, a bare
# auth scheme ("Bearer " + create_token()).
_NOT_A_KEY = re.compile(
    r"^(?:[<\[].*[>\]]|[A-Za-z_]+(?:\.[A-Za-z_]+)+|true|false|none|null|yes|no|bearer|basic|token|digest)$", re.I)


def _is_literal_secret(value: str, prefix: str, kind: str) -> bool:
    stripped = value.strip()
    if not stripped or PLACEHOLDER_PREFIX in stripped or _TEMPLATE.match(stripped):
        return False
    if _CODE_BETWEEN_LITERALS.search(value):
        return False
    if "f" in prefix.lower() and "{" in stripped:
        return False  # interpolated: the secret comes from elsewhere
    if kind == "password":  # passphrases may hold spaces, and short ones are still passwords
        return True
    if _AUTH_SCHEME.match(value):
        return True
    return not (any(c.isspace() for c in value) or _NOT_A_KEY.match(stripped))


# ------------------------------------------------- 4. high-entropy literals

_CANDIDATE_LITERAL = re.compile(
    rf"(?P<quote>[\"'])(?P<value>[A-Za-z0-9+/=_-]{{{MIN_ENTROPY_LENGTH},}})(?P=quote)"
)
_HEX = re.compile(r"^(?:0x)?[0-9a-fA-F-]+$")
_WORD_RUN = re.compile(r"[a-z]{4,}|[A-Z]{4,}")
_MAX_WORD_FRACTION = 0.3
_MAX_VOWEL_RATIO = 0.35


def shannon_entropy(value: str) -> float:
    """Bits per character of value's own character distribution."""
    if not value:
        return 0.0
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in Counter(value).values())


def looks_random(value: str) -> bool:
    """A credential-like literal: long, one base64 alphabet, letters and digits mixed,
    few word-like runs and vowels (identifiers and model names have many), high entropy.

    Measured on ~100k candidate literals of this venv's site-packages plus the demo: about
    100 distinct false positives (mostly random test data and names like `Qwen3VLMoeTextConfig`);
    random base62/base64 tokens of 20-40 characters are caught 75-90% of the time.
    Lowercase+digit tokens are mostly missed: their names or formats must catch them."""
    if len(value) < MIN_ENTROPY_LENGTH or _HEX.match(value):
        return False
    if any(c in value for c in "+/") and any(c in value for c in "-_"):
        return False  # mixes standard and url-safe base64: a path or a model name
    letters = [c for c in value if c.isalpha()]
    if not letters or not any(c.isdigit() for c in value):
        return False
    if sum(map(len, _WORD_RUN.findall(value))) > _MAX_WORD_FRACTION * len(value):
        return False
    if sum(c in "aeiouAEIOU" for c in letters) >= _MAX_VOWEL_RATIO * len(letters):
        return False
    return shannon_entropy(value) >= ENTROPY_THRESHOLD


def _mask_high_entropy(text: str, counts: Counter[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        if not looks_random(match["value"]):
            return match.group()
        return match["quote"] + _masked("high_entropy", match["value"], counts) + match["quote"]

    return _CANDIDATE_LITERAL.sub(replace, text)


_RULES: tuple[Callable[[str, Counter[str]], str], ...] = (
    _mask_pem, _mask_token_formats, _mask_connection_passwords, _mask_named_literals, _mask_high_entropy,
)


# ------------------------------------- 5-6. unquoted values in configuration files

_ASSIGNED_VALUE = re.compile(
    r"(?m)^(?P<lead>[ \t]*(?:-[ \t]+)?(?:(?:export|ENV|ARG|set)[ \t]+)?[\"']?)"
    r"(?P<name>[A-Za-z_][\w.-]{0,200}?)"
    r"(?P<sep>[\"']?[ \t]*(?:=|:(?![/\\]))[ \t]*)(?P<value>[^\r\n]*)$"
)
_BLOCK_SCALAR = re.compile(
    r"(?m)^(?P<head>(?P<indent>[ \t]*)[\"']?(?P<name>[A-Za-z_][\w.-]{0,200})[\"']?"
    r"[ \t]*:[ \t]*[|>][+-]?[ \t]*(?:#.*)?\r?\n)"
    r"(?P<body>(?:(?P=indent)[ \t]+\S[^\r\n]*(?:\r?\n|$)|[ \t]*\r?\n)+)"
)
_QUERY_PARAMETER = re.compile(r"(?P<head>(?<=[?&])(?P<name>[A-Za-z_][\w.-]{0,100})=)(?P<value>[^&\s'\"#<>]+)")
_TRAILING = re.compile(r"(?:[ \t]+[#;].*|[ \t]*\\|[ \t]*,)$")  # an inline comment, a line continuation, a JSON comma
_CALL = re.compile(r"^[A-Za-z_][\w.]*\s*[(\[]")  # `token = make_token()`: code, not a value
_PLAIN_TEMPLATE = re.compile(r"^(?:\$\{\{?[^}]*\}\}?|\{\{[^}]*\}\}|\$[A-Za-z_]\w*|%\(\w+\)s|<[^<>]*>|\*+|x+|\.\.\.)$")
_EMPTYISH = frozenset({"", "|", ">", "|-", ">-", "~", "null", "none", "true", "false", "[]", "{}", "''", '""'})


def _plain_secret_kind(name: str) -> str | None:
    return secret_kind_of_name(name.rsplit(".", 1)[-1])


def _mask_assigned_values(text: str, counts: Counter[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        kind = _plain_secret_kind(match["name"])
        raw = match["value"]
        if kind is None:
            return match.group()
        value = _TRAILING.sub("", raw)
        quote = value[0] if value[:1] in "\"'" and len(value) > 1 and value[-1] == value[0] else ""
        inner = value[1:-1] if quote else value
        if not _is_plain_secret(inner.strip(), kind):
            return match.group()
        start = raw.index(inner) if inner else 0
        masked = raw[:start] + _masked(kind, inner, counts) + raw[start + len(inner):]
        return match["lead"] + match["name"] + match["sep"] + masked

    return _ASSIGNED_VALUE.sub(replace, text)


def _is_plain_secret(value: str, kind: str) -> bool:
    if value.lower() in _EMPTYISH or PLACEHOLDER_PREFIX in value or _PLAIN_TEMPLATE.match(value):
        return False
    if kind == "password":
        return True
    return not (_CALL.match(value) or _NOT_A_KEY.match(value) or " " in value.strip())


def _mask_block_scalars(text: str, counts: Counter[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        kind = _plain_secret_kind(match["name"])
        body = match["body"]
        if kind is None or not body.strip() or PLACEHOLDER_PREFIX in body:
            return match.group()
        first, *rest = body.splitlines(keepends=True)
        indent = first[: len(first) - len(first.lstrip(" \t"))]
        counts[kind] += 1  # the first line holds the placeholder, the others stay as blank lines
        ends = [line[len(line.rstrip("\r\n")):] for line in rest]
        return match["head"] + indent + placeholder(kind) + first[len(first.rstrip("\r\n")):] + "".join(ends)

    return _BLOCK_SCALAR.sub(replace, text)


def _mask_query_parameters(text: str, counts: Counter[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        kind = _plain_secret_kind(match["name"])
        value = match["value"]
        if kind is None or not _is_plain_secret(value, kind):
            return match.group()
        return match["head"] + _masked(kind, value, counts)

    return _QUERY_PARAMETER.sub(replace, text)


_XML_ELEMENT = re.compile(r"<(?P<tag>[A-Za-z_][\w.:-]{0,200})(?:[ \t][^<>]*)?>(?P<value>[^<>\r\n]+)</(?P=tag)>")
_XML_NAMED_VALUE = re.compile(
    r"(?P<head>\b(?:name|key)[ \t]*=[ \t]*(?P<q1>[\"'])(?P<name>[^\"'<>]{1,200})(?P=q1)[ \t\r\n]+value[ \t]*=[ \t]*"
    r"(?P<q2>[\"']))(?P<value>[^\"'<>\r\n]*)(?P=q2)")


def _mask_xml_values(text: str, counts: Counter[str]) -> str:
    """`<password>hunter2</password>` and Spring's `<property name="password" value="hunter2"/>`."""
    def element(match: re.Match[str]) -> str:
        kind = _plain_secret_kind(match["tag"].rsplit(":", 1)[-1])
        if kind is None or not _is_plain_secret(match["value"].strip(), kind):
            return match.group()
        head = match.group()[: match.start("value") - match.start()]
        return head + _masked(kind, match["value"], counts) + f"</{match['tag']}>"

    def named(match: re.Match[str]) -> str:
        kind = _plain_secret_kind(match["name"])
        if kind is None or not _is_plain_secret(match["value"].strip(), kind):
            return match.group()
        return match["head"] + _masked(kind, match["value"], counts) + match["q2"]

    return _XML_NAMED_VALUE.sub(named, _XML_ELEMENT.sub(element, text))


_PLAIN_RULES: tuple[Callable[[str, Counter[str]], str], ...] = (
    _mask_block_scalars, _mask_assigned_values, _mask_query_parameters, _mask_xml_values,
)
