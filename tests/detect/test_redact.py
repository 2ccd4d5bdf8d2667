"""self_improve.detect.redact: every secret form, exact outputs, and properties."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from self_improve.detect.redact import find_secret, redact, shorten

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
# Random hex longer than a git SHA-1 (filler such as "000…" or a long decimal number is kept).
hex_blobs = st.binary(min_size=21, max_size=64).map(bytes.hex).filter(lambda h: len(set(h)) >= 8 and not h.isdigit())
git_ids = st.text(alphabet="0123456789abcdef", min_size=7, max_size=40)


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
    assume(not re.search(r"(sha\d*|md5|blake2[bs]|digest|hash|checksum|commit|object|oid)\W?$", before.lower()))
    assert blob not in redact(f"{before} {blob} end")


@settings(max_examples=200, deadline=None)
@given(sha=git_ids)
def test_git_object_ids_are_kept(sha: str) -> None:
    # A deliberate choice (see the module docstring): 7-40 hex digits in one case are what git
    # prints for commits and trees; they are no secret, and the excerpt needs them.
    line = f"error: could not apply {sha}... fix the parser"
    assert redact(line) == line


fragments = st.sampled_from(["API_KEY=", "token: ", '"password": "', "Bearer ", "ghp_", "xoxb-", "AKIA", "eyJ",
                             "https://", "mysql -p", "sshpass -p ", "machine h login u password ", "\\\"", "?sig=",
                             "Authorization: ", "Basic ", "Cookie: ", "@", "sk-ant-", "SK", "-u ", "curl ", "x8Q~",
                             "Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8", "+/", "==", "sha256:", "[REDACTED:api-key]", "docker login ",
                             "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", "https://a:b@",
                             "[REDACTED]", "[REDACTED:hex]", "=", ":", " ", "\n", "'", '"', "--password ",
                             "0123456789abcdef" * 2, "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNk"])
mixed = st.lists(st.one_of(fragments, st.text(max_size=12)), max_size=20).map("".join)


@settings(max_examples=1500, deadline=None)
@given(text=st.one_of(st.text(), mixed))
def test_redact_is_idempotent_and_never_raises(text: str) -> None:
    once = redact(text)
    assert redact(once) == once
    assert find_secret(once) is None


# ---------------------------------------------------------------------------------------------
# False positives: ordinary tool output must come back byte for byte

ORDINARY_OUTPUTS = {
    "python-traceback": (
        "Traceback (most recent call last):\n"
        '  File "/home/dev/src/self_improve/detect/classify.py", line 1092, in detect\n'
        "    return Detection(found.key, rules.title(found.key), _excerpt(text, found.offset))\n"
        "ModuleNotFoundError: No module named 'self_improve.harnesses.openclaw_transcripts'"),
    "pip-hashes": (
        "Collecting numpy==1.26.4\n"
        "  Downloading numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl (18.3 MB)\n"
        "ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE.\n"
        "    numpy==1.26.4 from https://files.pythonhosted.org/packages/3a/d0/numpy-1.26.4.whl:\n"
        "        Expected sha256 666dbfb6ec68962c033a450943ded891bed2d54e6755e35e5835d63f4f6931d5\n"
        "             Got        sha256:b3ce300f3644fb06443ee2222c2201dd3a89ea6040541412b8fa189341847218\n"
        "    --hash=sha256:2a02aba9ed12e4ac4eb3ea9421c420301a0c6460d9830d74a9df87efa4912010"),
    "git-log": (
        "commit 1e5f19f3a8b2c4d6e8f0a1b3c5d7e9f1a3b5c7d9\n"
        "Author: Ada Lovelace <ada@example.com>\n"
        "Date:   Mon Nov 30 10:12:01 2026 +0000\n\n"
        "    Fix the parser (closes #12)\n\n"
        "error: could not apply 9fceb02... Revert \"Add feature\"\n"
        "hint: Resolve all conflicts manually, then run \"git rebase --continue\"\n"
        "CONFLICT (content): Merge conflict in src/parser.py"),
    "npm-integrity": (
        "npm ERR! code EINTEGRITY\n"
        "npm ERR! sha512-Ty3l4Cr7Yx3ZqmTQyUVNLaZLBSXkf4xUBgNlsjzqkn2sfLXw9tV0mZo8hEQ5LPYnLt0LnyjqB0Ro6wJS6HugTg=="
        " integrity checksum failed when using sha512: wanted sha512-AbC+dEf/GhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEf== but got"
        " sha512-Ty3l4Cr7Yx3ZqmTQyUVNLaZLBSXkf4xUBgNlsjzqkn2sfLXw9tV0mZo8hEQ5LPYnLt0LnyjqB0Ro6wJS6HugTg==. (51234 bytes)\n"
        "npm ERR! A complete log of this run can be found in: /root/.npm/_logs/2026-11-29T13_35_23_318Z-debug-0.log"),
    "docker-digest": (
        "Digest: sha256:4bf7a2e0c4c1f6f2b9d8f1d4e1e9a3b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7\n"
        "Status: Downloaded newer image for python:3.11-slim-bookworm\n"
        "docker: Error response from daemon: Conflict. The container name \"/web-7d4b9c8f6-x2kq9\" is already in use."),
    "cloud-ids": (
        "An error occurred (UnauthorizedOperation) when calling the RunInstances operation on"
        " arn:aws:ec2:eu-west-1:123456789012:instance/i-0abcdef1234567890 in vpc-06cbefa9ee907e1c0"
        " (subnet-0123456789abcdef0, sg-0a1b2c3d4e5f67890); request id 8f7e6d5c-4b3a-2910-8f7e-6d5c4b3a2910"),
    "jvm-trace": (
        "java.lang.NullPointerException: Cannot invoke \"String.length()\"\n"
        "\tat com.example.service.AbstractSingletonProxyFactoryBean.findById(AbstractSingletonProxyFactoryBean.java:42)\n"
        "\tat org.springframework.aop.framework.CglibAopProxy$DynamicAdvisedInterceptor.intercept(CglibAopProxy.java:688)"),
    "native-symbols": (
        "/usr/bin/ld: main.o: in function `main':\n"
        "main.cpp:(.text+0x2a): undefined reference to `_ZNSt6vectorIiSaIiEE9push_backEOiRKNS_9allocatorIiEE'\n"
        "  = note: _ZN4core3fmt9Formatter3pad17h0123456789abcdefE\n"
        "error[E0308]: mismatched types\n --> src/main.rs:4:5"),
    "go-and-versions": (
        "--- FAIL: TestParseErrorCodeWithAVeryLongDescriptiveName (0.00s)\n"
        "    github.com/stretchr/testify@v1.8.4/assert/assertions.go:1234: not equal\n"
        "go: downloading golang.org/x/sys v0.0.0-20231121090524-66d8ce5ce8a3\n"
        "semver 1.2.3-beta.4+build.567 python3.11 node-v24.11.0-linux-x64"),
    "urls-and-prose": (
        "GET https://api.github.com/repos/org/repo/pulls?page=2&per_page=100&sort=desc 404\n"
        "see https://docs.example.com/en/latest/errors.html#unexpected-token for help\n"
        "SyntaxError: Unexpected token: punc (})\n"
        "the password is wrong, try again; token expired at 10:42; auth: required"),
    "env-dump": (
        "PWD=/home/dev/src/app\nOLDPWD=/home/dev\nPATH=/usr/local/bin:/usr/bin:/bin\n"
        "TOKEN_URL=https://auth.example.com/oauth/token\nPASSWORD_FILE=/run/secrets/db_password\n"
        "MAX_TOKENS=4096\nDB_PASSWORD=${DB_PASSWORD}\nAPI_KEY=<your key here>"),
    "ssh": (
        "The ECDSA key fingerprint is SHA256:p2QAMXNIC1TJYWeIOttrVc98/R1BUFWu3/LiyKgUfQM.\n"
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ada@laptop"),
    "base64-of-prose": "payload VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw== rejected",
    "pytest": (
        "FAILED tests/detect/test_errors.py::test_parse_error_code_with_a_very_long_descriptive_name - AssertionError\n"
        "=========== 1 failed, 311 passed in 7.30s ==========="),
}


@pytest.mark.parametrize("text", ORDINARY_OUTPUTS.values(), ids=ORDINARY_OUTPUTS.keys())
def test_ordinary_output_is_kept_byte_for_byte(text: str) -> None:
    assert redact(text) == text
    assert find_secret(text) is None


# ---------------------------------------------------------------------------------------------
# The forms the audit found stored in full (issue 9, finding 14), each with its exact output

XAPP = "xapp-1-A0123ABCDEF-4567890123456-" + "0a1b2c3d4e5f" * 4
HOOK = "https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/aB3dE5gH7jK9mN1pQ3sT5vW7"
DISCORD = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789ab"
AGE = "AGE-SECRET-KEY-1" + "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"socket mode: {XAPP} rejected", "socket mode: [REDACTED:slack-token] rejected"),
        (f"POST {HOOK} 404", "POST [REDACTED:webhook] 404"),
        ("Your webhook signing secret is whsec_" + "Ab1" * 11, "Your webhook signing secret is [REDACTED:api-key]"),
        ("created 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", "created [REDACTED:api-key]"),
        ("redis://:s3cr3t-Pw@cache:6379/0", "redis://:[REDACTED]@cache:6379/0"),
        ("mysql://root:p@ss@w0rd@db:3306/app", "mysql://root:[REDACTED]@db:3306/app"),
        ("mongodb://admin:pa#ss?word@h/db", "mongodb://admin:[REDACTED]@h/db"),
        ("MYSQL_PWD=Tr0ub4dor mysql -u root", "MYSQL_PWD=[REDACTED] mysql -u root"),
        ("GET https://a.blob.core.windows.net/c/x?sv=2022-11-02&sp=r&sig=AbC%2Bd%2FeF12345678%3D 403",
         "GET https://a.blob.core.windows.net/c/x?sv=2022-11-02&sp=r&sig=[REDACTED] 403"),
        ("token hf_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH", "token [REDACTED:api-key]"),
        (f"Improper token has been passed: {DISCORD}", "Improper token has been passed: [REDACTED:api-key]"),
        (f"# public key: age1xyz\n{AGE}", "# public key: age1xyz\n[REDACTED:private-key]"),
        ("twilio SK0123456789abcdef0123456789abcdef ok", "twilio [REDACTED:api-key] ok"),
        ("mysql -u root -pHunter2! -h db app", "mysql -u root -p[REDACTED] -h db app"),
        ("mysql -ppassword", "mysql -p[REDACTED]"),
        ("mysqldump -uroot -p'a b' app", "mysqldump -uroot -p'[REDACTED]' app"),
        ("mysql -p app", "mysql -p app"),  # -p alone prompts; "app" is the database
        ("sshpass -p Hunter2 ssh bob@h", "sshpass -p [REDACTED] ssh bob@h"),
        ("machine api.example.com login ada password Hunter2", "machine api.example.com login ada password [REDACTED]"),
        ("machine h\n  login ada\n  password Hunter2\n", "machine h\n  login ada\n  password [REDACTED]\n"),
        ("docker login -u ci -p Hunter2 ghcr.io", "docker login -u ci -p [REDACTED] ghcr.io"),
        ('{"auths": {"ghcr.io": {"auth": "YWRhOkh1bnRlcjI="}}}', '{"auths": {"ghcr.io": {"auth": "[REDACTED]"}}}'),
        ("redis-cli -h h -a Hunter2 ping", "redis-cli -h h -a [REDACTED] ping"),
        ("curl -u admin:Hunter2 https://ci", "curl -u admin:[REDACTED] https://ci"),
        ("openssl pkcs12 -passout pass:Hunter2 -out c.p12", "openssl pkcs12 -passout pass:[REDACTED] -out c.p12"),
        ("> Cookie: sessionid=abc123; csrftoken=x", "> Cookie: [REDACTED]"),
        ("Authorization: Basic YWRhOkh1bnRlcjI=", "Authorization: Basic [REDACTED]"),
        ("sent Basic YWRhOkh1bnRlcjI= upstream", "sent Basic [REDACTED] upstream"),
        ("basic configuration loaded", "basic configuration loaded"),
        ('{\\"password\\": \\"Hunter2\\"}', '{\\"password\\": \\"[REDACTED]\\"}'),
        ("Config{password=Hunter2, user=ada}", "Config{password=[REDACTED], user=ada}"),
        ("pypi-AgEIcHlwaS5vcmc" + "Ab1_" * 15, "[REDACTED:api-key]"),
        ("sk-ant-api03-" + "aB3-" * 24 + "AA", "[REDACTED:api-key]"),
        ("SG." + "aB3dE5gH7jK9mN1pQ3sT5v" + "." + "x" * 43, "[REDACTED:api-key]"),
        ("telegram 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0 x", "telegram [REDACTED:api-key] x"),
        ("AWS_SECRET=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS_SECRET=[REDACTED]"),
        ("signature mismatch for wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY9", "signature mismatch for [REDACTED:base64]"),
    ],
)
def test_the_forms_that_leaked(text: str, expected: str) -> None:
    assert redact(text) == expected
    assert find_secret(text) is not None or text == expected
    assert find_secret(expected) is None


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("key " + GHP, "github-token"),
        ("password: hunter2", "secret-assignment"),
        ("https://a:b@h", "url-password"),
        (PEM, "private-key"),
        (AGE, "age-secret-key"),
        ("sshpass -p x ssh h", "sshpass-password"),
        ("see README.md", None),
        ("[REDACTED] [REDACTED:api-key] password=[REDACTED] https://u:[REDACTED]@h", None),
    ],
)
def test_find_secret_names_the_first_rule_that_matches(text: str, name: str | None) -> None:
    assert find_secret(text) == name


# ---------------------------------------------------------------------------------------------
# Windows and cuts: a secret across an edge is hidden whole, never in part

KEY = "ghp_" + "Zq9xW2" * 6


def test_a_secret_across_the_window_start_is_replaced_whole() -> None:
    text = f"log: {KEY} done"
    start = text.index(KEY) + 10  # the window starts inside the token
    assert redact(text, window=(start, len(text))) == "[REDACTED:github-token] done"


def test_a_secret_across_the_window_end_is_replaced_whole() -> None:
    text = f"upload token={KEY} failed"
    end = text.index(KEY) + 5
    assert redact(text, window=(0, end)) == "upload token=[REDACTED]"


def test_a_window_sees_the_key_before_it() -> None:
    text = "password:\t" + "x" * 10 + "Hunter2 and more"  # the key is outside the window
    start = text.index("x")
    assert redact(text, window=(start, len(text))) == "[REDACTED] and more"


def test_a_window_inside_a_pem_block_hides_its_lines() -> None:
    text = "note\n" + PEM + "\nafter"
    inside = text.index("Zp0k")
    assert redact(text, window=(inside, len(text))) == "[REDACTED:private-key]\nafter"


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("short", 10, "short"),
        ("a" * 20, 10, "a" * 9 + "…"),
        ("see [REDACTED:api-key] now", 12, "see…"),  # the cut would fall inside the tag
        ("see [REDACTED] and more", 16, "see [REDACTED]…"),
        ("word " * 10, 12, "word word w…"),  # as before: a plain word may be cut
    ],
)
def test_shorten_never_cuts_inside_a_tag(text: str, limit: int, expected: str) -> None:
    assert shorten(text, limit) == expected
