"""Find credentials in transcript text and replace them with `[REDACTED:<kind>]`.

Runs on every block at index time, so it is built for speed: the text is lower-cased once and
searched for each detector's trigger substrings, and only detectors whose trigger occurs run
their regex; validation (placeholders, entropy, JWT headers, PEM bodies) runs only on matches.
Detectors favour precision: a provider's key format is matched anywhere, a generic value only
when it is bound to a secret-named key on the same line, looks machine-made, and is not code (a
call, a dotted or constant name, an env var name, an enum spelling its key) or a documentation
example, because tool outputs are mostly source files (bench/redaction_fp.py --haystack).
Text is handled both raw and JSON-escaped (`\\n`, `\\"`), as transcripts hold both. Only the
secret value is replaced; the key name around it stays, so a redacted chunk still reads (and is
found) as "the GITHUB_TOKEN was set".
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str
    start: int
    end: int


def redact(text: str) -> tuple[str, list[Finding]]:
    """`text` with every finding replaced by `[REDACTED:<kind>]`, and the findings (offsets into
    the original text). Redacting redacted text finds nothing more."""
    findings = scan(text)
    if not findings:
        return text, findings
    pieces: list[str] = []
    cursor = 0
    for finding in findings:
        pieces.append(text[cursor : finding.start])
        pieces.append(f"[REDACTED:{finding.kind}]")
        cursor = finding.end
    pieces.append(text[cursor:])
    return "".join(pieces), findings


def scan(text: str) -> list[Finding]:
    """Non-overlapping findings in `text`, in order; the first listed detector wins a tie."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a few non-ASCII letters grow when lower-cased
        lowered = text.translate(_ASCII_LOWER)
    found: list[tuple[int, int, int, str]] = []
    for priority, detector in enumerate(_DETECTORS):
        for start, end in detector.find(text, lowered):
            found.append((start, -(end - start), priority, detector.kind))
    found.sort()
    findings: list[Finding] = []
    covered_to = -1
    for start, negative_length, _, kind in found:
        if start >= covered_to:
            findings.append(Finding(kind, start, start - negative_length))
            covered_to = start - negative_length
    return findings


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

# --- value checks ---------------------------------------------------------------------------

# Token characters: a match that continues into one of these is part of a longer string (a
# base64 image, a hash), not a credential.
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/")
_PLACEHOLDER_WORDS = (
    "redacted",
    "example",
    "your",
    "xxxx",
    "placeholder",
    "changeme",
    "change_me",
    "dummy",
    "sample",
    "replace",
    "insert",
    "fake",
    "secret_here",
    "token_here",
    "key_here",
    "here>",
    "...",
    "…",
    "***",
    *("${", "$(", "{{", "#{", "%(", "<%"),  # templates and variable references
)
_PLACEHOLDER_VALUES = frozenset(
    (
        *("password", "passwd", "secret", "token", "key", "apikey", "api_key", "value"),
        *("none", "null", "nil", "true", "false", "undefined", "empty", "string", "str"),
        *("test", "foo", "bar", "baz", "required", "optional", "todo", "tbd", "n/a"),
        *("pass", "user", "username", "login", "guest", "anonymous"),
    )
)


# Documentation passwords hold one of these words ("secret123", "my-password"); a sequence such
# as "12345" or "abcdef" is typed by a person writing an example, not generated.
_EXAMPLE_WORDS = ("secret", "password", "passwd")
_SEQUENCES = ("0123456789", "abcdefghijklmnopqrstuvwxyz", "qwertyuiop", "asdfghjkl")


def _is_placeholder(value: str) -> bool:
    """A variable reference, template, elided or documentation value, not a credential."""
    stripped = value.strip("\"'`")
    if len(stripped) < 4 or stripped[0] in "$%<{[(@*":
        return True
    low = stripped.lower()
    if low in _PLACEHOLDER_VALUES or any(word in low for word in _PLACEHOLDER_WORDS):
        return True
    return len(set(low)) <= 2  # "aaaa", "0000", "x-x-x"


def _is_example(value: str) -> bool:
    """A value a person wrote for documentation ("secret123", "abcdef12345"), for detectors that
    take any value bound to a secret-named key; a provider's key format is matched regardless."""
    low = value.lower()
    return any(word in low for word in _EXAMPLE_WORDS) or _has_sequence(low)


_RUN = 5
_SEQUENCE_RUNS = frozenset(
    sequence[i : i + _RUN] for sequence in _SEQUENCES for i in range(len(sequence) - _RUN + 1)
)


def _has_sequence(low: str) -> bool:
    """Five or more characters in keyboard or alphabet order: "12345", "abcde", "qwert"."""
    return any(low[i : i + _RUN] in _SEQUENCE_RUNS for i in range(len(low) - _RUN + 1))


def _class_changes(value: str) -> float:
    """Letter↔digit and lower→upper changes per character, inside each run of letters and
    digits. Generated keys change class at about every other character (0.4-0.6); names written
    by people (`lexer2.inlineTokens`, `SOCKS5_AUTH`, `__classPrivateFieldGet`) rarely (< 0.2)."""
    changes = 0
    alnum = 0
    previous = ""
    for char in value:
        if not char.isalnum():
            previous = ""
            continue
        alnum += 1
        if previous and (
            previous.isdigit() != char.isdigit() or (previous.islower() and char.isupper())
        ):
            changes += 1
        previous = char
    return changes / alnum if alnum else 0.0


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _looks_random(value: str) -> bool:
    """Machine-generated: long enough, letters and digits mixed, high per-character entropy.
    Identifiers (`getApiKeyForModel`) have no digits; prose has low entropy."""
    if len(value) < 16 or _is_placeholder(value) or _is_example(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    return has_digit and has_alpha and _entropy(value) >= 3.2 and _class_changes(value) >= 0.2


def _has_digit(value: str) -> bool:
    return any(c.isdigit() for c in value) and not _is_placeholder(value)


def _mixed_case(value: str) -> bool:
    return value.lower() != value and value.upper() != value and not _is_placeholder(value)


def _is_jwt(token: str) -> bool:
    header = token.split(".", 1)[0]
    try:
        decoded = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
    except (ValueError, binascii.Error):
        return False
    return isinstance(decoded, dict) and "alg" in decoded


def _is_basic_credential(value: str) -> bool:
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode()
    except (ValueError, binascii.Error):
        return False
    _user, colon, password = decoded.partition(":")
    return bool(colon and password) and decoded.isprintable() and not _is_placeholder(password)


def _is_password(value: str) -> bool:
    """Any value but a placeholder or a path (`"PWD": "/home/me"` is a working directory)."""
    if _is_placeholder(value) or _is_example(value):
        return False
    return not re.fullmatch(r"~?/[\w.\-/]+", value)


def _is_env_value(value: str) -> bool:
    """An env-style value: not a reference, not a number/boolean/enum word like `false`, not
    the name of another variable (`"AWS_ACCESS_KEY_ID"`), a version or OID, or a file path."""
    if _is_placeholder(value) or _is_example(value) or value.isdigit():
        return False
    if re.fullmatch(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+", value):  # a constant's or env var's name
        return False
    if re.fullmatch(r"\d+(?:\.\d+)+", value):  # 1.3.6.1.5.5.7.3.1, 2.0.1
        return False
    if re.fullmatch(r"(?:~|\.{1,2})?/[\w.\-/]*", value):  # where a credentials file is
        return False
    return not re.fullmatch(r"[a-z]+(?:\.[a-z]+)*", value)  # `none`, `os.environ`, `disabled`


def _echoes_name(name: str, value: str) -> bool:
    """`USE_CREDENTIALS = 'use-credentials'`, `OAUTH = "OAUTH"`: an enum whose value spells its
    own name is not a secret."""
    squash = re.compile(r"[^a-z0-9]")
    name, value = squash.sub("", name.lower()), squash.sub("", value.lower())
    return len(value) >= 3 and (value == name or name.endswith(value))


def _name_before(text: str, start: int) -> str:
    """The identifier that ends at `start` (a key word can be the tail of `X_AWS_..._TOKEN`)."""
    begin = start
    while begin > 0 and (text[begin - 1].isalnum() or text[begin - 1] in "_-."):
        begin -= 1
    return text[begin:start]


def _is_code_reference(text: str, start: int, end: int) -> bool:
    """An unquoted value that is code: a call or index (`base64.b64encode(`, `tokens[`), a dotted
    name (`credentials_1.Credentials`) or a bare identifier (`SOCKS5_NO_ACCEPTABLE_AUTH`)."""
    if start > 0 and text[start - 1] in "\"'`":
        return False
    if end < len(text) and text[end] in "([":
        return True
    value = text[start:end]
    return bool(re.fullmatch(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*", value)) and (
        "." in value or "_" in value or value.isalpha()
    )


# --- detectors ------------------------------------------------------------------------------
# Speed: a pattern that opens on a literal (`ghp_`, `AIza`, `://`) is searched directly, as fast
# as a substring test. Any other pattern runs only if one of its trigger substrings occurs, or,
# for key-bound secrets, is matched only where its key word occurs (`_Keyed`): scanning a
# pattern that opens on a character class or a case-insensitive word costs ~0.1 µs a character.


def _inside_token(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] sits inside a longer token (a token character touches it)."""
    return (start > 0 and text[start - 1] in _TOKEN_CHARS) or (
        end < len(text) and text[end] in _TOKEN_CHARS
    )


@dataclass(frozen=True)
class _Regex:
    """A pattern whose `secret` group (or whole match) is the credential."""

    kind: str
    pattern: re.Pattern[str]
    validate: Callable[[str], bool] | None = None
    triggers: tuple[str, ...] = ()  # lower-case substrings, one of which must occur; () = any
    bounded: bool = True  # the whole match must not sit inside a longer token
    check_match: Callable[[re.Match[str]], bool] | None = None  # a test needing other groups

    def find(self, text: str, lowered: str) -> list[tuple[int, int]]:
        if self.triggers and not any(trigger in lowered for trigger in self.triggers):
            return []
        first = self.pattern.search(text)  # the common case: no match, no iterator set up
        if first is None:
            return []
        group = "secret" if "secret" in self.pattern.groupindex else 0
        spans = []
        for match in self.pattern.finditer(text, first.start()):
            if self.bounded and _inside_token(text, *match.span()):
                continue
            if (self.validate is None or self.validate(match.group(group))) and (
                self.check_match is None or self.check_match(match)
            ):
                spans.append(match.span(group))
        return spans


@dataclass(frozen=True)
class _Keyed:
    """A value bound to a key word: the pattern starts at the word and is matched only where one
    of `roots` (lower-case) occurs; words before a root are checked with look-behinds."""

    kind: str
    roots: tuple[str, ...]
    pattern: re.Pattern[str]
    validate: Callable[[str], bool]
    # Skip a value that merely spells the key's own name (enums, env var name constants).
    names: bool = False
    # Skip an unquoted value that is code (a call, a dotted or bare identifier), as in source
    # files where `auth = base64.b64encode(auth)` binds a secret-named variable to an expression.
    code: bool = False

    def find(self, text: str, lowered: str) -> list[tuple[int, int]]:
        spans = []
        for root in self.roots:
            at = lowered.find(root)
            while at >= 0:
                match = self.pattern.match(text, at)
                if match and self.validate(match["secret"]) and self._keeps(text, match):
                    spans.append(match.span("secret"))
                at = lowered.find(root, at + 1)
        return spans

    def _keeps(self, text: str, match: re.Match[str]) -> bool:
        start, end = match.span("secret")
        if self.code and _is_code_reference(text, start, end):
            return False
        if self.names:
            name = _name_before(text, match.start()) + text[match.start() : start]
            if _echoes_name(name, match["secret"]):
                return False
        return True


_PEM_BEGIN = re.compile(r"-----BEGIN (?P<label>(?:[A-Z0-9]+ ){0,2}PRIVATE KEY(?: BLOCK)?)-----")
_PEM_END = re.compile(r"(?:[A-Za-z0-9+/=]{16,}(?:\s|\\+[nr])+)+-----END (?:[A-Z0-9]+ ){0,2}PRIVATE")
# What may sit between PEM lines: newlines raw or JSON-escaped (once or more), RFC 1421 headers.
_PEM_NOISE = re.compile(
    r"\\+[nrt]|\s|\\*[\"']|(?:Proc-Type|DEK-Info|Version|Comment|Hash):[^\n\\]*"
)
_BASE64_START = re.compile(r"[A-Za-z0-9+/=]{40}")


@dataclass(frozen=True)
class _PrivateKey:
    """PEM private-key blocks (RSA, EC, DSA, OPENSSH, PKCS#8, PGP), raw or JSON-escaped. A block
    cut off before its END line is redacted to the end of the text; a tail without BEGIN up to
    its END line. Code that merely names the marker (`startswith("-----BEGIN ...")`) survives:
    the marker must be followed by base64."""

    kind: str = "private_key"

    def find(self, text: str, lowered: str) -> list[tuple[int, int]]:
        if "private key" not in lowered:
            return []
        spans = []
        covered = 0
        for begin in _PEM_BEGIN.finditer(text):
            if begin.start() < covered:
                continue
            end_marker = f"-----END {begin['label']}-----"
            end = text.find(end_marker, begin.end(), begin.end() + 65536)
            body = text[begin.end() : end if end >= 0 else begin.end() + 512]
            if not _BASE64_START.match(_PEM_NOISE.sub("", body)):
                continue
            covered = end + len(end_marker) if end >= 0 else len(text)
            spans.append((begin.start(), covered))
        if covered == 0:
            for tail in _PEM_END.finditer(text):
                end = text.find("-----", tail.end())
                spans.append((tail.start(), end + 5 if end >= 0 else len(text)))
        return spans


_Q = r"\\{0,3}[\"'`]"  # a quote, raw or JSON-escaped once or twice
_SEP = r"[ \t]*(?:=>|:=|=|:)[ \t]*"  # on one line: a key at a line's end binds nothing
# Words that make `<word>_key` a secret name (`primary_key`, `cache_key` are not).
_KEY_WORDS = (
    *("api", "access", "secret", "private", "signing", "encryption", "master", "auth"),
    *("client", "account", "license"),
)


def _key_after(separators: tuple[str, ...], upper: bool) -> str:
    """`KEY` preceded by one of the secret key words, e.g. `(?<=API_)KEY`, for matching at a
    `key` root."""
    words = [w.upper() if upper else w for w in _KEY_WORDS]
    behinds = "|".join(f"(?<={re.escape(w + sep)})" for w in words for sep in separators)
    return f"(?:{behinds})" + ("KEY" if upper else "key")


def _literal(pattern: str) -> tuple[str, ...]:
    """The lower-cased literal a pattern opens with, as its trigger: a substring test on the
    lower-cased text costs far less than even a literal-prefixed regex search."""
    literal = re.match(r"(?:[A-Za-z0-9_\-]|\\\.)+", pattern)
    return (literal.group().replace("\\", "").lower(),) if literal else ()


@dataclass(frozen=True)
class _Prefixed:
    """Many patterns, each opening on a literal, as one detector: a pattern runs only when its
    literal (lower-cased) occurs in the lower-cased text."""

    kind: str
    patterns: tuple[str, ...]

    def __post_init__(self) -> None:
        compiled = tuple((_literal(p)[0], re.compile(p)) for p in self.patterns)
        object.__setattr__(self, "_compiled", compiled)

    def find(self, text: str, lowered: str) -> list[tuple[int, int]]:
        spans = []
        for literal, pattern in self._compiled:  # type: ignore[attr-defined]
            if literal not in lowered:
                continue
            for match in pattern.finditer(text):
                if _inside_token(text, *match.span()):
                    continue
                if _has_digit(match.group()[len(literal) :]):  # the prefix says what it is
                    spans.append(match.span())
        return spans


@dataclass(frozen=True)
class _Tail:
    """A credential found from a literal in its middle (fast to search for), whose head is
    checked against the text just before it: `head` must match up to the literal."""

    kind: str
    tail: re.Pattern[str]
    head: re.Pattern[str]
    validate: Callable[[str], bool] = lambda value: _looks_random(value.replace(".", "")[-32:])

    def find(self, text: str, lowered: str) -> list[tuple[int, int]]:
        spans = []
        for match in self.tail.finditer(text):
            start = match.start()
            head = self.head.search(text, max(0, start - 64), start)
            if head is not None and self.validate(text[head.start() : match.end()]):
                spans.append((head.start(), match.end()))
        return spans


_DETECTORS: tuple[_Regex | _Keyed | _PrivateKey | _Prefixed | _Tail, ...] = (
    _PrivateKey(),
    _Regex(
        "aws_access_key",
        re.compile(r"(?:A3T[A-Z0-9]|A(?:KIA|SIA|BIA|CCA|GPA|IDA|ROA|IPA|NPA|NVA|PKA))[0-9A-Z]{16}"),
        validate=lambda v: not _is_placeholder(v),
    ),
    _Keyed(
        "aws_secret_key",
        ("aws",),
        re.compile(
            rf"(?i)aws[a-z_.\- ]{{0,20}}(?:secret|key|token|pass(?:word)?|pwd|pw)[a-z_.\- ]{{0,20}}"
            rf"(?:{_Q})?{_SEP}(?:{_Q})?"
            r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        validate=_looks_random,
    ),
    _Regex(
        "github_token",
        re.compile(r"gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{50,255}"),
        validate=_has_digit,
    ),
    _Regex(
        "gitlab_token",
        re.compile(r"gl(?:pat|dt|rt|ptt|soat|cbt|ft|oas|imt|agent|ffct)-[A-Za-z0-9_\-.]{20,}"),
        validate=_has_digit,
    ),
    _Regex(
        "gitlab_token",  # runner registration token
        re.compile(r"GR1348941[A-Za-z0-9_\-]{20,50}"),
        validate=_has_digit,
        triggers=("gr1348941",),
    ),
    _Regex(
        "slack_token",
        re.compile(
            r"xox(?:[abposr]|e(?:\.xox[bp])?)-[A-Za-z0-9\-]{10,}|xapp-\d-[A-Za-z0-9\-]{20,}"
        ),
        validate=_has_digit,
    ),
    _Regex(
        "slack_webhook",
        re.compile(
            r"hooks\.slack\.com/(?P<secret>(?:services|workflows|triggers)/[A-Za-z0-9/_+\-]{20,})"
        ),
        validate=_has_digit,
        bounded=False,
    ),
    _Regex(
        "discord_webhook",
        re.compile(r"discord(?:app)?\.com/api/webhooks/\d+/(?P<secret>[A-Za-z0-9_\-]{60,})"),
        bounded=False,
    ),
    _Regex(
        "stripe_key",
        re.compile(r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}|whsec_[A-Za-z0-9+/]{32,}"),
        validate=_has_digit,
        triggers=("_live_", "_test_", "whsec_"),
    ),
    _Regex(
        "anthropic_key",
        re.compile(r"sk-ant-[a-z]{3,6}\d{2}-[A-Za-z0-9_\-]{40,}"),
        validate=_has_digit,
    ),
    _Regex(
        "openai_key",
        re.compile(
            r"sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{40,}"
            r"|[A-Za-z0-9_\-]{16,}T3BlbkFJ[A-Za-z0-9_\-]{16,})"
        ),
        validate=_has_digit,
    ),
    _Regex(
        "api_key",  # OpenRouter, DeepSeek and other `sk-` keys
        re.compile(r"sk-(?:or-v1-[0-9a-f]{64}|[A-Za-z0-9]{32,})"),
        validate=_looks_random,
    ),
    _Regex(
        "api_key",  # other providers with a recognisable prefix
        re.compile(
            r"gsk_[A-Za-z0-9]{48,}|xai-[A-Za-z0-9]{60,}|csk-[a-z0-9]{40,}|r8_[A-Za-z0-9]{37}"
            r"|pplx-[A-Za-z0-9]{40,}|dop_v1_[0-9a-f]{64}|dapi[0-9a-f]{32}|lin_api_[A-Za-z0-9]{40}"
            r"|ntn_[A-Za-z0-9]{40,}|shp(?:at|ss)_[0-9a-fA-F]{32}"
        ),
        validate=_looks_random,
        triggers=(
            "gsk_",
            "xai-",
            "csk-",
            "r8_",
            "pplx-",
            "dop_v1_",
            "dapi",
            "lin_api_",
            "ntn_",
            "shpat_",
            "shpss_",
        ),
    ),
    _Regex(
        "huggingface_token",
        re.compile(r"(?:hf|api_org)_[A-Za-z0-9]{30,}"),
        validate=_mixed_case,
        triggers=("hf_", "api_org_"),
    ),
    _Regex("google_api_key", re.compile(r"AIza[0-9A-Za-z_\-]{35}"), validate=_has_digit),
    _Regex(
        "google_oauth",
        re.compile(r"GOCSPX-[A-Za-z0-9_\-]{28}|ya29\.[0-9A-Za-z_\-]{20,}|1//0[0-9A-Za-z_\-]{40,}"),
        validate=_has_digit,
        triggers=("gocspx-", "ya29.", "1//0"),
    ),
    _Regex(
        "gcp_private_key_id",
        re.compile(rf"private_key_id{_Q}?{_SEP}{_Q}?(?P<secret>[0-9a-f]{{40}})"),
        bounded=False,
    ),
    _Keyed(
        "azure_storage_key",
        ("accountkey", "sharedaccesskey"),
        re.compile(
            r"(?i)(?:AccountKey|SharedAccessKey)\s*=\s*(?P<secret>[A-Za-z0-9+/]{20,}={0,2})"
        ),
        validate=_has_digit,
    ),
    _Keyed(
        "azure_sas_signature",
        ("sig=",),
        re.compile(r"(?<=[?&])sig=(?P<secret>[A-Za-z0-9%+/]{30,}(?:=|%3D){0,2})"),
        validate=_has_digit,
    ),
    _Regex(
        "azure_client_secret",
        re.compile(r"[A-Za-z0-9_.\-]{3}\dQ~[A-Za-z0-9_.~\-]{31,34}"),
        validate=_has_digit,
        triggers=("q~",),
    ),
    _Regex("twilio_key", re.compile(r"SK[0-9a-f]{32}"), validate=_has_digit),
    _Keyed(
        "twilio_key",
        ("twilio",),
        re.compile(
            rf"(?i)twilio[a-z_]{{0,10}}(?:auth_?token|secret){_Q}?{_SEP}{_Q}?"
            r"(?P<secret>[0-9a-f]{32})(?![0-9a-zA-Z])"
        ),
        validate=_has_digit,
    ),
    _Regex("sendgrid_key", re.compile(r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}")),
    # More formats that detect-secrets' plugins and gitleaks' rules know, each searched only when
    # its opening literal occurs (one alternation of them all would scan ~10x slower). Each
    # literal costs ~1 µs per KB of text, so only widely used services are listed.
    _Prefixed(
        "api_key",
        (
            r"AKC[A-Za-z0-9]{10,}",  # Artifactory
            r"sq0(?:csp|atp)-[0-9A-Za-z_\-]{22,43}",  # Square
            r"dckr_pat_[A-Za-z0-9_\-]{27,}",  # Docker Hub
            r"hvs\.[A-Za-z0-9_\-]{90,}",  # HashiCorp Vault
            r"glsa_[A-Za-z0-9_]{32,}",  # Grafana service account
            r"glc_[A-Za-z0-9+/=_]{32,}",  # Grafana cloud
            r"sntry[su]_[A-Za-z0-9+/=_]{40,}",  # Sentry
            r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}",  # Doppler
            r"PMAK-[0-9a-f]{24}-[0-9a-f]{34}",  # Postman
            r"NRAK-[A-Z0-9]{27}",  # New Relic
            r"ATATT3[A-Za-z0-9_\-=]{100,}",  # Atlassian
            r"AGE-SECRET-KEY-1[0-9A-Z]{58}",
        ),
    ),
    _Tail(
        "api_key",  # Mailchimp: <32>-us<N>; searched from "-us"
        re.compile(r"-us\d{1,2}(?![0-9a-z])"),
        re.compile(r"(?<![0-9a-z])[0-9a-z]{32}$"),
        validate=lambda value: _looks_random(value[:32]),
    ),
    _Tail(
        "discord_bot_token",  # <id as base64>.<6>.<27+>; searched from its first dot
        re.compile(r"\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}(?![A-Za-z0-9_\-])"),
        re.compile(r"(?<![A-Za-z0-9_\-])[MNO][A-Za-z0-9_\-]{23,25}$"),
    ),
    _Tail(
        "telegram_bot_token",  # <bot id>:<35>; searched from its colon
        re.compile(r":[A-Za-z0-9_\-]{35}(?![A-Za-z0-9_\-])"),
        re.compile(r"(?<![0-9A-Za-z])\d{8,10}$"),
    ),
    _Regex("npm_token", re.compile(r"npm_[A-Za-z0-9]{36}"), validate=_has_digit),
    _Keyed(
        "npm_token",
        ("_authtoken",),
        re.compile(r"_authToken\s*=\s*(?P<secret>[^\s\"'`\\]{8,})"),
        validate=_is_env_value,
    ),
    _Regex("pypi_token", re.compile(r"pypi-AgE[A-Za-z0-9_\-]{50,}")),
    _Regex(
        "jwt",
        re.compile(r"eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]*"),
        validate=_is_jwt,
    ),
    _Regex(
        "url_password",
        re.compile(
            r"://(?P<user>[^\s:/@\"'`<>\\]{0,128}):(?P<secret>[^\s/@\"'`<>\\]{1,256})@"
            r"(?=[A-Za-z0-9\[])"
        ),
        validate=_is_password,
        bounded=False,
        check_match=lambda m: not any(w in m["user"].lower() for w in ("your", "example")),
    ),
    _Keyed(
        "bearer_token",
        ("bearer",),
        re.compile(r"(?i:bearer)\s+(?P<secret>[A-Za-z0-9._~+/\-]{16,}=*)"),
        validate=_looks_random,
    ),
    _Keyed(
        "basic_auth",
        ("basic",),
        re.compile(r"(?i:basic)\s+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})"),
        validate=_is_basic_credential,
    ),
    # KEY=value as in .env files and shells: upper-case names that end in a secret word.
    _Keyed(
        "env_secret",
        ("pass", "secret", "token", "credential", "auth", "key"),
        re.compile(
            r"(?:PASSWORD|PASSWD|(?<![A-Z])PASS|SECRET|TOKEN|CREDENTIALS?|AUTH"
            rf"|{_key_after(('_', ''), upper=True)})"
            rf"(?:_[0-9]+)?(?:=|{_SEP}(?={_Q}))(?:{_Q})?"
            # quoted: up to the closing quote; bare: up to shell punctuation
            r"(?P<secret>(?<=[\"'`])[^\s\"'`\\]+|[^\s\"'`\\#;|&,)]+)"
        ),
        validate=_is_env_value,
        names=True,
    ),
    # "password": "hunter2" in JSON, YAML, code: any quoted value that is not a placeholder,
    # however short, because people pick weak passwords.
    _Keyed(
        "password",
        ("pass", "pwd"),
        re.compile(
            rf"(?i)(?:pass(?:word|wd)|pwd)(?:{_Q})?{_SEP}(?P<q>{_Q})"
            r"(?P<secret>[^\s\"'`\\]{4,128})(?P=q)"
        ),
        validate=_is_password,
    ),
    # Any key named like a secret (`client_secret`, `accessToken`, `--api-key`) bound to a
    # machine-generated value; the key word must end the name (`tokenizer` is not a key).
    _Keyed(
        "generic_secret",
        ("token", "secret", "pass", "credential", "auth", "key"),
        re.compile(
            r"(?i)(?:token|secret|pass(?:word|wd)|credential|auth"
            rf"|{_key_after(('_', '-', ''), upper=False)})s?"
            rf"(?:{_Q})?{_SEP}(?:{_Q})?(?P<secret>[A-Za-z0-9_\-+/.=~]{{16,}})"
        ),
        validate=_looks_random,
        code=True,
    ),
)

KINDS: tuple[str, ...] = tuple(dict.fromkeys(d.kind for d in _DETECTORS))
