"""The secret gate: nothing leaves the machine without two independent scanners agreeing it is
clean, on whole blocks (a secret split across two chunks is reassembled before it is scanned).

Scanners: funes's built-in detectors (`funes.index.redact.scan`) and detect-secrets (in-process,
its credential plugins; its entropy and IP plugins are left out because every commit hash, UUID
and base64 image in a coding transcript trips them). Each block is scanned as stored and, when it
holds JSON escapes, unescaped too. `data:` base64 payloads are elided first. Fail closed: a
scanner that cannot be imported or raises stops the push (`ScannerFailed`); nothing is published.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

BlockKey = tuple[str, str, int]  # (session_id, turn_uuid, block_idx)

DATA_URI = re.compile(r"data:[\w.+/-]+;base64,[A-Za-z0-9+/=\s]{16,}")
JSON_ESCAPES = (
    ("\\n", "\n"),
    ("\\r", "\r"),
    ("\\t", "\t"),
    ('\\"', '"'),
    ("\\/", "/"),
    ("\\\\", "\\"),
)

# detect-secrets plugins that look for credentials by shape or by keyword; the two
# high-entropy plugins and IPPublicDetector are deliberately absent (see module doc).
DETECT_SECRETS_PLUGINS = (
    "ArtifactoryDetector",
    "AWSKeyDetector",
    "AzureStorageKeyDetector",
    "BasicAuthDetector",
    "CloudantDetector",
    "DiscordBotTokenDetector",
    "GitHubTokenDetector",
    "GitLabTokenDetector",
    "IbmCloudIamDetector",
    "IbmCosHmacDetector",
    "JwtTokenDetector",
    "KeywordDetector",
    "MailchimpDetector",
    "NpmDetector",
    "OpenAIDetector",
    "PrivateKeyDetector",
    "PypiTokenDetector",
    "SendGridDetector",
    "SlackDetector",
    "SoftlayerDetector",
    "SquareOAuthDetector",
    "StripeDetector",
    "TelegramBotTokenDetector",
    "TwilioKeyDetector",
)


class ScannerFailed(Exception):
    """A secret scanner is missing or crashed: the gate cannot vouch for anything."""


@dataclass
class HeldBack:
    rows: int = 0
    blocks: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)
    sessions: set[str] = field(default_factory=set)
    # Where a session ran (funes.sync.published_paths): rows held for a path with a secret that
    # does not redact clean, and paths published redacted.
    path_rows: int = 0
    paths_redacted: int = 0

    def summary(self) -> str:
        """`AWS×2, PrivateKey×1`, sorted by kind."""
        return ", ".join(f"{kind}×{n}" for kind, n in sorted(self.by_kind.items()))


def scan_variants(text: str) -> list[str]:
    """What is scanned for one block: the text with data: payloads elided, and its JSON-unescaped
    form when it has escapes."""
    text = DATA_URI.sub("data:;base64,[elided]", text)
    variants = [text]
    if "\\" in text:
        unescaped = text
        for escaped, plain in JSON_ESCAPES:
            unescaped = unescaped.replace(escaped, plain)
        variants.append(unescaped)
    return variants


def builtin_kinds(text: str) -> list[str]:
    try:
        from funes.index.redact import scan
    except Exception as err:  # missing module or broken import: fail closed
        raise ScannerFailed(f"built-in secret detectors unavailable: {err}") from err
    try:
        return [finding.kind for finding in scan(text)]
    except Exception as err:
        raise ScannerFailed(f"built-in secret detectors crashed: {err}") from err


_detect_secrets_lock = threading.Lock()  # detect-secrets keeps its settings in module globals


def detect_secrets_kinds(texts: list[str]) -> list[list[str]]:
    """detect-secrets' findings (secret types) for each text."""
    try:
        from detect_secrets.core.scan import scan_line
        from detect_secrets.settings import transient_settings
    except Exception as err:
        raise ScannerFailed(f"detect-secrets unavailable: {err}") from err
    config = {"plugins_used": [{"name": name} for name in DETECT_SECRETS_PLUGINS]}
    out: list[list[str]] = []
    try:
        with _detect_secrets_lock, transient_settings(config):
            for text in texts:
                kinds: list[str] = []
                for line in text.splitlines():
                    if line.strip():
                        kinds.extend(secret.type for secret in scan_line(line))
                out.append(kinds)
    except Exception as err:
        raise ScannerFailed(f"detect-secrets crashed: {err}") from err
    return out


def scan_block(text: str) -> list[str]:
    """Every finding's kind in one reassembled block (empty = clean). Raises ScannerFailed."""
    variants = scan_variants(text)
    kinds: list[str] = []
    for variant in variants:
        kinds.extend(builtin_kinds(variant))
    for found in detect_secrets_kinds(variants):
        kinds.extend(f"detect-secrets:{kind}" for kind in found)
    return kinds


def reassemble_blocks(rows: Iterable[dict[str, Any]]) -> dict[BlockKey, str]:
    """Whole block texts from chunk rows (any order), stitching splits back together."""
    from funes.index.chunking import stitch

    pieces: dict[BlockKey, list[tuple[int, str]]] = {}
    for row in rows:
        key = (row["session_id"], row["turn_uuid"], int(row["block_idx"]))
        pieces.setdefault(key, []).append((int(row["split_idx"]), row["text"] or ""))
    return {key: stitch([t for _, t in sorted(parts)]) for key, parts in pieces.items()}


def block_key(row: dict[str, Any]) -> BlockKey:
    return (row["session_id"], row["turn_uuid"], int(row["block_idx"]))


def find_dirty_blocks(
    blocks: dict[BlockKey, str], progress: Callable[[int, int], None] | None = None
) -> dict[BlockKey, list[str]]:
    """The blocks with at least one finding, with their kinds."""
    dirty: dict[BlockKey, list[str]] = {}
    for done, (key, text) in enumerate(blocks.items(), 1):
        kinds = scan_block(text)
        if kinds:
            dirty[key] = kinds
        if progress is not None and done % 500 == 0:
            progress(done, len(blocks))
    return dirty
