"""self_improve.detect.redact: every secret form, exact outputs, and properties."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from self_improve.detect.redact import redact

GHP = "ghp_a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ12"
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFkYSJ9."
       "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
PEM = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1c7+9z5Pad7OejecsQ0bu3aozN3tihPmljnnudb9G3HecYPO\n"
       "Zp0kqZ9x3cK0H6XW2yMnAx0vT3xM3lb6Iz9n\n-----END RSA PRIVATE KEY-----")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # key = value assignments, in the forms of env files, YAML, JSON, Python and shells
        ("API_KEY=abc123def456", "API_KEY=[REDACTED]"),
        ("export GITHUB_TOKEN=abc123", "export GITHUB_TOKEN=[REDACTED]"),
        ("api_key: sk_abc", "api_key: [REDACTED]"),
        ("apiKey=xyz789", "apiKey=[REDACTED]"),
        ("password: hunter2", "password: [REDACTED]"),
        ('{"password": "correct horse", "user": "ada"}', '{"password": "[REDACTED]", "user": "ada"}'),
        ("{'secret': 'xyz'}", "{'secret': '[REDACTED]'}"),
        ("DB_PASSWORD='p@ss w0rd' ./run", "DB_PASSWORD='[REDACTED]' ./run"),
        ("client_secret = abcdef", "client_secret = [REDACTED]"),
        ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI", "AWS_SECRET_ACCESS_KEY=[REDACTED]"),
        ("auth_token => abc", "auth_token => [REDACTED]"),
        ("passphrase:\tletmein", "passphrase:\t[REDACTED]"),
        # command-line flags
        ("mytool --password hunter2 --user bob", "mytool --password [REDACTED] --user bob"),
        ("mytool --token=abc123", "mytool --token=[REDACTED]"),
        ("mytool --api-key abc123", "mytool --api-key [REDACTED]"),
        # HTTP authorisation
        ("Authorization: Bearer abc.def.ghi", "Authorization: Bearer [REDACTED]"),
        ("authorization: Basic dXNlcjpwYXNz", "authorization: Basic [REDACTED]"),
        ("curl -H 'Authorization: token abc123' x", "curl -H 'Authorization: token [REDACTED]' x"),
        ("sent bearer abcdefgh12345678 upstream", "sent bearer [REDACTED] upstream"),
        # vendor token shapes
        (f"token {GHP} used", "token [REDACTED:github-token] used"),
        ("gho_" + "x" * 36, "[REDACTED:github-token]"),
        ("ghs_" + "Ab1" * 12, "[REDACTED:github-token]"),
        ("github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "[REDACTED:github-token]"),
        ("xoxb-1234567890-abcdefghij", "[REDACTED:slack-token]"),
        ("xoxp-1-2-3-abcdefabcdef", "[REDACTED:slack-token]"),
        ("xoxa-2-abcdefghijk and xoxr-9-abcdefghijk", "[REDACTED:slack-token] and [REDACTED:slack-token]"),
        ("key AKIAIOSFODNN7EXAMPLE in env", "key [REDACTED:aws-key] in env"),
        ("ASIAY34FZKBOKMUTVV7A", "[REDACTED:aws-key]"),
        ("sk-proj-abcdefghijklmnopqrstuvwx", "[REDACTED:api-key]"),
        ("sk_live_abcdefghijklmnop1234", "[REDACTED:api-key]"),
        (f"jwt {JWT}.", "jwt [REDACTED:jwt]."),
        # private keys, with and without their END line
        (f"before\n{PEM}\nafter", "before\n[REDACTED:private-key]\nafter"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n(truncated", "[REDACTED:private-key]"),
        ("-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----", "[REDACTED:private-key]"),
        # credentials in URLs: the user name stays, the password goes
        ("git clone https://bob:s3cret@example.com/x.git", "git clone https://bob:[REDACTED]@example.com/x.git"),
        ("postgres://app:pw@db:5432/app", "postgres://app:[REDACTED]@db:5432/app"),
        # long blobs
        ("hash 0123456789abcdef0123456789ABCDEF01234567 ok", "hash [REDACTED:hex] ok"),
        ("b64 QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODk=",
         "b64 [REDACTED:base64]"),
        ("urlsafe dGhpcy1pcy1hLXZlcnktbG9uZy1zZWNyZXQtdmFsdWUtMTIzNDU2Nzg5MA_x", "urlsafe [REDACTED:base64]"),
    ],
)
def test_secret_forms(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "the password is wrong, try again",
        "max_tokens=100 tokens: 5 password_hash=bcrypt",
        "npm error A complete log of this run can be found in: /home/dev/.npm/_logs/2026-11-29T13_35_23_318Z-debug-0.log",
        "/home/dev/src/projectname/subdirectory/another/deeper/level/file.py",
        "test_parse_error_code_with_a_very_long_descriptive_name_for_clarity",
        "uuid 123e4567-e89b-12d3-a456-426614174000 and short hex deadbeefcafe",
        "git 1e5f19f (short sha) and 0123456789abcdef0123456789abcde (31 hex digits)",
        "https://example.com/path?q=1 and user@example.com",
        "Password: ",
        "Traceback (most recent call last):\n  File \"app.py\", line 3",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text) == text


def test_already_redacted_text_is_stable() -> None:
    once = redact(f"API_KEY={GHP} Authorization: Bearer {JWT} https://u:p@h/ {PEM}")
    assert once == "API_KEY=[REDACTED] Authorization: Bearer [REDACTED] https://u:[REDACTED]@h/ [REDACTED:private-key]"
    assert redact(once) == once


# ---------------------------------------------------------------------------------------------
# Properties

ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
values = st.text(alphabet=ALNUM, min_size=8, max_size=40)
hex_blobs = st.text(alphabet="0123456789abcdef", min_size=32, max_size=64)


def planted(kind: str, value: str) -> tuple[str, str]:
    """(text holding a secret of this kind, the secret that must not survive)."""
    forms = {
        "env": (f"export MY_API_KEY={value}", value),
        "yaml": (f"password: {value}", value),
        "json": (f'{{"client_secret": "{value}"}}', value),
        "flag": (f"--token {value}", value),
        "bearer": (f"Authorization: Bearer {value}", value),
        "url": (f"https://deploy:{value}@git.example.com/r.git", value),
        "github": ("ghp_" + (value * 5)[:36], "ghp_" + (value * 5)[:36]),
        "slack": (f"xoxb-{value}", f"xoxb-{value}"),
        "jwt": (f"eyJ{value}.eyJ{value}.{value}", f"eyJ{value}.eyJ{value}.{value}"),
        "pem": (f"-----BEGIN EC PRIVATE KEY-----\n{value}\n-----END EC PRIVATE KEY-----", value),
    }
    return forms[kind]


@settings(max_examples=300, deadline=None)
@given(kind=st.sampled_from(["env", "yaml", "json", "flag", "bearer", "url", "github", "slack", "jwt", "pem"]),
       value=values, before=st.text(max_size=60), after=st.text(max_size=60))
def test_a_planted_secret_never_survives(kind: str, value: str, before: str, after: str) -> None:
    text, secret = planted(kind, value)
    assume(secret not in before and secret not in after)
    out = redact(f"{before}\n{text}\n{after}")
    assert secret not in out


@settings(max_examples=200, deadline=None)
@given(blob=hex_blobs, before=st.text(max_size=40))
def test_long_hex_never_survives(blob: str, before: str) -> None:
    assume(blob not in before)
    assert blob not in redact(f"{before} {blob} end")


fragments = st.sampled_from(["API_KEY=", "token: ", '"password": "', "Bearer ", "ghp_", "xoxb-", "AKIA", "eyJ",
                             "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", "https://a:b@",
                             "[REDACTED]", "[REDACTED:hex]", "=", ":", " ", "\n", "'", '"', "--password ",
                             "0123456789abcdef" * 2, "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNk"])
mixed = st.lists(st.one_of(fragments, st.text(max_size=12)), max_size=20).map("".join)


@settings(max_examples=500, deadline=None)
@given(text=st.one_of(st.text(), mixed))
def test_redact_is_idempotent_and_never_raises(text: str) -> None:
    once = redact(text)
    assert redact(once) == once
