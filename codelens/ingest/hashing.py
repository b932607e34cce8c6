"""A file's content hash: what the manifest records and every freshness check compares."""

from __future__ import annotations

import hashlib


def file_hash(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()[:32]
