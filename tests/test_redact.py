"""Secret redaction: real-shaped credentials are removed; hashes, ids, images and code survive.

Every credential is assembled at run time from a seeded generator, so the repository itself holds
no credential-shaped literal (push protection would flag one).
"""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path

import pytest

from funes.index.redact import KINDS, redact, scan

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
ALNUM = string.ascii_letters + string.digits
rng = random.Random(20250601)


def rand(n: int, alphabet: str = ALNUM) -> str:
    """Random text; with both letters and digits when the alphabet has both, as real keys do."""
    mixed = any(c.isdigit() for c in alphabet) and any(c.isalpha() for c in alphabet)
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
        if not mixed or (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
            return value


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def pem(label: str) -> tuple[str, str]:
    body = "\n".join(rand(64, ALNUM + "+/") for _ in range(6))
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----\n", body.splitlines()[2]


def jwt() -> str:
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = b64url(json.dumps({"sub": rand(10), "iat": 1700000000}).encode())
    return f"{header}.{payload}.{b64url(rng.randbytes(32))}"


def planted() -> list[tuple[str, str, str]]:
    """(kind, text holding the secret, the secret itself)."""
    cases: list[tuple[str, str, str]] = []

    def add(kind: str, template: str, secret: str) -> None:
        cases.append((kind, template.format(secret), secret))

    add(
        "aws_access_key",
        "aws configure set aws_access_key_id {}",
        "AK" + "IA" + rand(16, string.ascii_uppercase + "234567"),
    )
    add("aws_secret_key", "aws_secret_access_key = {}\n", rand(40, ALNUM + "/+"))
    add(
        "github_token",
        "git clone https://x-access-token@github.com/o/r # {}",
        "gh" + "p_" + rand(36),
    )
    add("github_token", "GH_PAT: {}", "github" + "_pat_" + rand(22) + "_" + rand(59))
    add("gitlab_token", "curl -H 'PRIVATE-TOKEN: {}' gitlab.com/api", "gl" + "pat-" + rand(20))
    add(
        "slack_token",
        "slack token is {} ok",
        "xo" + "xb-" + rand(12, string.digits) + "-" + rand(13, string.digits) + "-" + rand(24),
    )
    add(
        "slack_webhook",
        "post to https://hooks.slack.com/{}",
        "services/T"
        + rand(8, string.ascii_uppercase + string.digits)
        + "/B"
        + rand(10, string.ascii_uppercase + string.digits)
        + "/"
        + rand(24),
    )
    add("stripe_key", "stripe.api_key = '{}'", "sk" + "_live_" + rand(24))
    add("openai_key", 'client = OpenAI(api_key="{}")', "sk-" + "proj-" + rand(48, ALNUM + "_-"))
    add("anthropic_key", "use {} for claude", "sk-" + "ant-api03-" + rand(93, ALNUM + "_-") + "AA")
    add("api_key", "OPENROUTER key {}", "sk-" + "or-v1-" + rand(64, "0123456789abcdef"))
    add(
        "huggingface_token",
        "huggingface-cli login --token {}",
        "hf" + "_" + rand(34, string.ascii_letters),
    )
    add("google_api_key", "maps?key={}&v=3", "AI" + "za" + rand(35, ALNUM + "_-"))
    add("google_oauth", "client secret {}", "GOC" + "SPX-" + rand(28, ALNUM + "_-"))
    add("twilio_key", "twilio api key sid {}", "SK" + rand(32, "0123456789abcdef"))
    add(
        "sendgrid_key",
        "sendgrid: {}",
        "SG." + rand(22, ALNUM + "_-") + "." + rand(43, ALNUM + "_-"),
    )
    add("npm_token", "//registry.npmjs.org/ token {}", "np" + "m_" + rand(36))
    add("pypi_token", "password = {}", "py" + "pi-AgEIcHlwaS5vcmc" + rand(60, ALNUM + "_-"))
    add("jwt", "cookie session={}; Path=/", jwt())
    add("url_password", "DATABASE_URL=postgres://admin:{}@db.internal:5432/app", rand(14))
    add("env_secret", "DB_HOST=db\nDB_PASSWORD={}\nDEBUG=1", "hunter2" + rand(3, string.digits))
    add("env_secret", 'SECRET_KEY = "{}"', "dj-" + rand(30, ALNUM + "!@#%^&*(-_=+)"))
    add("bearer_token", "curl -H 'Authorization: Bearer {}' api", rand(40, ALNUM + "._-"))
    add(
        "basic_auth",
        "Authorization: Basic {}",
        base64.b64encode(f"admin:{rand(12)}".encode()).decode(),
    )
    add("password", 'login(user="bob", password="{}")', "Tr0ub4dor&3")
    add("generic_secret", '{{"client_secret": "{}"}}', rand(32, ALNUM + "_-"))
    add(
        "azure_storage_key",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={};EndpointSuffix=core.windows.net",
        rand(86, ALNUM + "+/") + "==",
    )
    add(
        "azure_sas_signature",
        "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig={}",
        rand(43, ALNUM + "%") + "%3D",
    )
    upper_digits = string.ascii_uppercase + string.digits
    # AWS key ids in detect-secrets' [0-9A-Z]{16} form (digits 0, 1, 8, 9 are not base32).
    add("aws_access_key", "AWS_ACCESS_KEY_ID={}", "AK" + "IA" + "0189" + rand(12, upper_digits))
    add("aws_access_key", "key: {}", "AS" + "IA" + rand(15, upper_digits) + "8")
    add("aws_secret_key", 'aws_key = "{}"', rand(40, ALNUM + "/+"))  # no "secret" in the name
    add("api_key", "artifactory: {}", "AK" + "C" + rand(70))
    add("api_key", "square secret {}", "sq0" + "csp-" + rand(43, ALNUM + "_-"))
    add("api_key", "mailchimp {} ok", rand(32, string.ascii_lowercase + string.digits) + "-us6")
    add("api_key", "docker login -p {}", "dckr" + "_pat_" + rand(27, ALNUM + "_-"))
    add("api_key", "VAULT_TOKEN:{}", "hv" + "s." + rand(95, ALNUM + "_-"))
    add("api_key", "grafana {}", "gl" + "sa_" + rand(32) + "_" + rand(8, "0123456789abcdef"))
    add(
        "api_key",
        "postman {}",
        "PM" + "AK-" + rand(24, "0123456789abcdef") + "-" + rand(34, "0123456789abcdef"),
    )
    add("api_key", "newrelic {}", "NR" + "AK-" + rand(27, upper_digits))
    add("api_key", "age key {}", "AGE-" + "SECRET-KEY-1" + rand(58, upper_digits))
    add("gitlab_token", "runner {}", "GR" + "1348941" + rand(20, ALNUM + "_-"))
    add("gitlab_token", "incoming mail {}", "gl" + "imt-" + rand(25, ALNUM + "_-"))
    add("slack_token", "{}", "xo" + "xo-" + rand(10, string.digits) + "-" + rand(20, string.digits))
    add(
        "discord_bot_token",
        "DISCORD={}",
        "M" + rand(23, ALNUM) + "." + rand(6, ALNUM + "_-") + "." + rand(27, ALNUM + "_-"),
    )
    add(
        "telegram_bot_token",
        "bot {} started",
        rand(9, string.digits) + ":" + rand(35, ALNUM + "_-"),  # without the usual AA
    )
    key, line = pem("RSA PRIVATE KEY")
    cases.append(("private_key", f"here is the key:\n{key}done", line))
    key, line = pem("OPENSSH PRIVATE KEY")
    cases.append(("private_key", json.dumps({"content": key}), line))
    key, line = pem("PGP PRIVATE KEY BLOCK")
    cases.append(("private_key", key, line))
    return cases


PLANTED = planted()


def test_plants_cover_twenty_kinds() -> None:
    kinds = {kind for kind, _, _ in PLANTED}
    assert len(kinds) >= 20
    assert kinds <= set(KINDS)


@pytest.mark.parametrize(("kind", "text", "secret"), PLANTED, ids=[c[0] for c in PLANTED])
def test_each_planted_credential_is_redacted(kind: str, text: str, secret: str) -> None:
    cleaned, findings = redact(text)
    assert secret not in cleaned
    assert f"[REDACTED:{kind}]" in cleaned
    assert kind in {f.kind for f in findings}


def test_findings_point_at_the_secret_in_the_original_text() -> None:
    text = "export GITHUB_TOKEN=" + "gh" + "p_" + rand(36) + " && gh repo list"
    (finding,) = scan(text)
    assert text[finding.start : finding.end].startswith("gh" + "p_")
    assert redact(text)[0] == "export GITHUB_TOKEN=[REDACTED:github_token] && gh repo list"


def test_redaction_is_idempotent() -> None:
    everything = "\n".join(text for _, text, _ in PLANTED)
    once, findings = redact(everything)
    assert len(findings) >= len(PLANTED)
    assert redact(once) == (once, [])


def test_json_escaped_text_is_redacted() -> None:
    """A transcript line as stored: the credential sits inside an escaped JSON string."""
    key, line = pem("EC PRIVATE KEY")
    service_account = {
        "type": "service_account",
        "private_key_id": rand(40, "0123456789abcdef"),
        "private_key": key,
    }
    password = "s3cr3t-" + rand(6)
    record = json.dumps(
        {"tool_input": json.dumps(service_account) + f'\n{{"password": "{password}"}}'}
    )
    cleaned, findings = redact(record)
    assert line not in cleaned and password not in cleaned
    assert service_account["private_key_id"] not in cleaned
    assert {"private_key", "gcp_private_key_id", "password"} <= {f.kind for f in findings}
    assert "service_account" in cleaned  # only the secrets go


def test_truncated_private_key_is_redacted_to_the_end() -> None:
    key, _ = pem("PRIVATE KEY")
    text = "cat id: " + key[: len(key) // 2]
    cleaned, _ = redact(text)
    assert cleaned == "cat id: [REDACTED:private_key]"


SURVIVORS = {
    "git sha": "commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 (HEAD -> main)",
    "sha256": "sha256:" + "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "uuid": '"uuid": "550e8400-e29b-41d4-a716-446655440000", "parentUuid": null',
    "code": 'const apiKey = await getApiKeyForModel(this.model);\nif (!apiKey) throw Error("no")',
    "python": 'token = os.environ["GITHUB_TOKEN"]\npassword = getpass.getpass("Password: ")',
    "env refs": "ANTHROPIC_API_KEY=sk-ant-...\nGH_TOKEN=${{ secrets.GH_TOKEN }}\nAPI_KEY=$KEY",
    "placeholders": '{"apiKey": "<your-api-key>", "password": "changeme"}\nTOKEN=your_token_here',
    "numbers": "MAX_TOKENS=4096\nTOKENIZERS_PARALLELISM=false\ninput_tokens: 1234567890123456789",
    "key names": '{"tokenizer_name": "sentence-transformers/all-MiniLM-L6-v2", "primary_key": 1}',
    "pem marker in code": 'if line.startswith("-----BEGIN RSA PRIVATE KEY-----"):\n    ok = 1',
    "url without password": "see https://user@github.com/o/r.git and ssh://git@host:22/x",
    "prose": "The bearer of this token should pass the secret handshake; basic auth is off.",
    # Source code from real libraries, which a coding agent's tool output is full of.
    "call": 'auth = base64.b64encode(auth)\nauth = base64.encodebytes(auth).decode("utf-8")',
    "method call": "tokens: lexer2.inlineTokens(text)\ntokens: tokenize(text)",
    "private field": "max_tokens: tslib_1.__classPrivateFieldGet(this, _state, 'f')",
    "dotted name": "Vaults.Credentials = credentials_1.Credentials;",
    "chained exports": "exports.SOCKS5_NO_ACCEPTABLE_AUTH = exports.SOCKS5_CUSTOM_AUTH_END = 1",
    "env var names": 'AWS_ACCESS_KEY: "AWS_ACCESS_KEY_ID",\nENV_SECRET = "AWS_SECRET_ACCESS_KEY"',
    "enum spelling its name": "USE_CREDENTIALS = 'use-credentials'\nOAUTH = \"OAUTH\"",
    "header name": 'X_AWS_EC2_METADATA_TOKEN = "x-aws-ec2-metadata-token";',
    "oid": "SERVER_AUTH = '1.3.6.1.5.5.7.3.1'\nCLIENT_AUTH = '1.3.6.1.5.5.7.3.2'",
    "credentials file": "export GOOGLE_APPLICATION_CREDENTIALS=/path/to/service-account.json",
    "doc passwords": "password: '<placeholder>',\npassword: 'secret123',\npassword=\"guest\"",
    "doc url": "new SocksProxyAgent('socks://your-name%40gmail.com:abcdef12345124@host.com')",
    "doc url 2": "new Socks5ProxyAgent('socks5://user:pass@localhost:1080')",
    "working dir": '"PWD": "/Users/maciej",',
    "key at line end": "if not have_password:\nparse.py:200:                password = x",
}


@pytest.mark.parametrize("text", SURVIVORS.values(), ids=SURVIVORS.keys())
def test_ordinary_text_survives(text: str) -> None:
    assert redact(text) == (text, [])


def test_base64_image_survives() -> None:
    image = base64.b64encode(b"\x89PNG\r\n\x1a\n" + rng.randbytes(60_000)).decode()
    block = json.dumps({"type": "image", "source": {"data": image, "media_type": "image/png"}})
    assert scan(block) == []


# Credential forms detect-secrets' shape plugins know (the push gate runs them): whatever they
# hold back must never be in the local memory either.
DETECT_SECRETS_FORMS = {
    "AWSKeyDetector": "AK" + "IA" + rand(16, string.ascii_uppercase + string.digits),
    "ArtifactoryDetector": "AK" + "C" + rand(40),
    "DiscordBotTokenDetector": "N" + rand(24) + "." + rand(6) + "." + rand(27),
    "GitHubTokenDetector": "gh" + "s_" + rand(36),
    "GitLabTokenDetector": "gl" + "ptt-" + rand(40),
    "MailchimpDetector": rand(32, string.ascii_lowercase + string.digits) + "-us12",
    "OpenAIDetector": "sk-" + rand(20) + "T3Blbk" + "FJ" + rand(20),
    "SlackDetector": "xo" + "xp-" + rand(11, string.digits) + "-" + rand(12, string.digits),
    "SquareOAuthDetector": "sq0" + "csp-" + rand(43),
    "StripeDetector": "rk" + "_live_" + rand(24),
    "TelegramBotTokenDetector": rand(10, string.digits) + ":" + rand(35),
    "TwilioKeyDetector": "SK" + rand(32, "0123456789abcdef"),
}


@pytest.mark.parametrize("secret", DETECT_SECRETS_FORMS.values(), ids=DETECT_SECRETS_FORMS.keys())
def test_what_detect_secrets_holds_back_is_redacted_at_index_time(secret: str) -> None:
    from funes.sync.gate import detect_secrets_kinds

    text = f"the value is {secret} here"
    assert detect_secrets_kinds([text])[0], "detect-secrets itself must flag this form"
    cleaned, findings = redact(text)
    assert secret not in cleaned and findings


def corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS.rglob("*") if p.suffix in {".jsonl", ".json"})


@pytest.mark.skipif(not CORPUS.is_dir(), reason="needs the shared corpus")
def test_real_corpus_has_no_findings() -> None:
    """The corpus is public and holds no live credential; its SHAs, UUIDs, signatures,
    encrypted reasoning and base64 images must all pass untouched (JSON-escaped, as stored)."""
    flagged = []
    for path in corpus_files():
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            flagged.extend(
                f"{path.name}:{number} {f.kind} {line[max(0, f.start - 30) : f.end + 10]!r}"
                for f in scan(line)
            )
    assert flagged == []
