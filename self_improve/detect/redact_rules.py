"""The secret rules of self_improve.detect.redact, as data: (name, label, pattern, judge).

Every pattern here must stay LINEAR on any input, because tool output is untrusted:
- a rule starts either at a literal (a vendor prefix, a keyword) or after a negative lookbehind
  that lets it start only at the beginning of a run of its characters, never inside one;
- every unbounded repetition is possessive (``*+``, ``++``), so a failed attempt never re-scans;
- a repetition of a group is bounded (``{0,4}+``) and its items cannot overlap the separators.
tests/detect/test_redact_linear.py feeds runs of what these constructs loop on; bench/redaction.py
times the same inputs and their growth at 4x length.

``label`` None replaces the secret with ``[REDACTED]`` (its key said it is secret), else with
``[REDACTED:label]`` (its shape said so).  ``judge`` (optional) takes the match and returns the
(start, end) spans to hide, or () when the match is not a secret after all; without one, the
first matched group named s, s1, s2 ... (or the whole match) is the secret.
"""

from __future__ import annotations

from self_improve import rx as re  # re, with compiled programs cached across processes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    Spans = Sequence[tuple[int, int]]
    Judge = Callable[[re.Match[str]], Spans]

_TAG_AHEAD = r"(?!\[REDACTED)"  # never re-redact our own tag: redact() is idempotent

# A value after a key or a flag: quoted (the span is inside the quotes) or bare.
_BARE_END = r"\s\"'\\&<>,;)}\]"
VALUE = (
    r"(?:\\\"" + _TAG_AHEAD + r"(?P<s1>(?:[^\"\\\n]|\\[^\"\n])*+)\\\"?"  # \"value\" inside a JSON string
    r"|\"" + _TAG_AHEAD + r"(?P<s2>[^\"\n]*+)\"?"
    r"|'" + _TAG_AHEAD + r"(?P<s3>[^'\n]*+)'?"
    r"|" + _TAG_AHEAD + rf"(?P<s4>[^{_BARE_END}\[{{(=](?:[^{_BARE_END}]|[,;)}}\]](?=[^{_BARE_END}]))*+))"
)
FLAG_VALUE = (r"(?:\"" + _TAG_AHEAD + r"(?P<s1>[^\"\n]*+)\"|'" + _TAG_AHEAD + r"(?P<s2>[^'\n]*+)'|"
              + _TAG_AHEAD + r"(?P<s3>[^\s\"'-][^\s\"']*+))")
ATTACHED = (r"(?:\"" + _TAG_AHEAD + r"(?P<s1>[^\"\n]++)\"|'" + _TAG_AHEAD + r"(?P<s2>[^'\n]++)'|"
            + _TAG_AHEAD + r"(?P<s3>[^\s\"'][^\s\"']*+))")

# Keys whose value is secret.  A key must END with one of them: "tokens", "password_hash",
# "TOKEN_URL" and "PWD" (the working directory) are not secrets, "MYSQL_PWD" and "auth_token" are.
SECRET_WORDS = (
    r"(?:password|passwd|passphrase|[_.-]pwd|[_.-]pass|storepass|keypass|secret|token"
    r"|api[_-]?key|apikey|access[_-]?key|secret[_-]?key(?:[_-]?base)?|private[_-]?key|credentials?"
    r"|[_.-]creds|account[_-]?key|shared[_-]?access[_-]?key"
    r"|(?:primary|secondary|master|encryption|signing|subscription|license)[_-]?key"
    r"|(?<![A-Za-z0-9])auth|[_.-]?signature)"
)
# Literals of which every key SECRET_WORDS matches holds one, whatever its case (checked
# alternative by alternative in tests/detect/test_redact_gates.py). ``patterns.needle`` cannot
# read them off the pattern (an alternative starts with a class), and without them the rule
# built on SECRET_WORDS would run on every text (``redact._gates``).
SECRET_WORD_NEEDLES = ("pass", "pwd", "secret", "token", "key", "cred", "auth", "signature")
# Values that say "no value" (lower case, as programs print them): not secrets.  Short on
# purpose: "changeme" or "UNDEFINED" may well be someone's password.
_PLACEHOLDERS = frozenset("none null nil true false * ** *** **** ***** ****** ******* ******** xxx xxxx".split())
_WEAK_KEYS = frozenset({"token", "secret", "auth", "credential", "credentials", "signature"})
_VARIABLE = re.compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*+\}?|\{\{[^{}]*+\}\}|%\(?\w*+\)?s|<[^<>]*+>|\*++")
_LOWER_WORD = re.compile(r"[a-z]{1,12}")


def first_group(match: re.Match[str]) -> Spans:
    """The first matched group named s, s1, s2 ...; the whole match if the rule has none."""
    names = [name for name in match.re.groupindex if name[0] == "s" and name[1:].isdigit() or name == "s"]
    for name in names:
        if match.group(name) is not None:
            return ((match.start(name), match.end(name)),) if match.end(name) > match.start(name) else ()
    return () if names else ((match.start(), match.end()),)


def _assignment(match: re.Match[str]) -> Spans:
    """key = value: not a placeholder ($VAR, ***, none), and not prose ("token: punc")."""
    spans = first_group(match)
    if not spans:
        return ()
    value = match.group(0)[spans[0][0] - match.start(): spans[0][1] - match.start()]
    if value in _PLACEHOLDERS or _VARIABLE.fullmatch(value):
        return ()
    key = match.group("key").lower().strip("\"'\\-")
    if key in _WEAK_KEYS and match.group("s4") is not None and _LOWER_WORD.fullmatch(value):
        return ()
    return spans


def _url_credentials(match: re.Match[str]) -> Spans:
    """scheme://user:password@host: the password is what lies between the first ':' of the
    userinfo and the LAST '@' of the authority (a password may hold '@'; a user name may not)."""
    authority = match.group("auth")  # up to the first '/': a password may hold '?' or '#' too
    at = authority.rfind("@")
    colon = authority.find(":", 0, at if at >= 0 else 0)
    if at < 0 or colon < 0 or colon + 1 == at or authority.startswith("[REDACTED", colon + 1):
        return ()
    before_query = re.split(r"[?#]", authority[colon + 1:at], maxsplit=1)
    if len(before_query) > 1 and before_query[0].isdigit():
        return ()  # host:8080?next=a@b is a port and a query, not user:password
    base = match.start("auth")
    return ((base + colon + 1, base + at),)


def _basic_credentials(match: re.Match[str]) -> Spans:
    """"Basic <base64>" is a secret only when it decodes to user:password."""
    import base64
    import binascii

    blob = match.group("s")
    try:
        decoded = base64.b64decode(blob + "=" * (-len(blob) % 4), validate=True).decode("ascii")
    except (binascii.Error, ValueError):
        return ()
    return first_group(match) if ":" in decoded and decoded.isprintable() else ()


KEY_VALUE = (
    r"(?<![A-Za-z0-9_.-])(?P<key>\\?[\"']?[A-Za-z0-9_.-]{0,60}?" + SECRET_WORDS + r"\\?[\"']?)"
    r"[ \t]*+(?:=>|:=|\?=|[:=])[ \t]*+" + VALUE
)

# Commands that take a password as an argument: (name, command, flag part).  Each allows at
# most 12 other arguments before the flag (bounded, and an argument never holds a blank).
_ARGS = r"(?:[ \t]++(?!{flag})[^\s|;&]++){{0,12}}+[ \t]++"
COMMANDS: tuple[tuple[str, str, str, str], ...] = (
    ("mysql-password-flag", r"(?:mysql|mariadb)[\w-]{0,12}+", "-p", r"-p" + ATTACHED),
    ("sshpass-password", r"sshpass", "-p", r"-p[ \t]*+" + ATTACHED),
    ("registry-login-password", r"(?:docker|podman|nerdctl|buildah|skopeo|oras|crane|helm[ \t]++registry)[ \t]++login",
     "-p", r"-p[ \t]*+" + ATTACHED),
    ("redis-cli-password", r"redis-cli", "-a", r"-a[ \t]*+" + ATTACHED),
    ("mongo-password", r"mongo(?:sh)?", "-p", r"-p[ \t]++" + FLAG_VALUE),
    ("sqlcmd-password", r"(?:sqlcmd|bcp|osql)", "-P", r"-P[ \t]*+" + ATTACHED),
    ("ldap-password", r"ldap[a-z]{3,10}+", "-w", r"-w[ \t]*+" + ATTACHED),
    ("curl-user-password", r"curl", "-u|--user|--proxy-user|-U",
     r"(?:-u|--user|--proxy-user|-U)(?:[ \t]++|=)?[\"']?[^\s:\"']*+:" + ATTACHED),
    ("smbclient-password", r"smbclient", "-U", r"-U[ \t]*+[^\s%]++%" + ATTACHED),
)


def _command_rules() -> list[tuple[str, str | None, str, Judge | None]]:
    rules: list[tuple[str, str | None, str, Judge | None]] = []
    for name, command, flag, value in COMMANDS:
        pattern = rf"(?<![\w./-]){command}(?![\w.-])" + _ARGS.format(flag=f"(?:{flag})") + value
        rules.append((name, None, pattern, None))
    return rules


# Vendor token shapes (gitleaks' families).  Each entry: (name, label, pattern).  The lookbehind
# keeps a token from starting inside a longer word; possessive tails keep the scan linear.
_W = r"(?<![A-Za-z0-9_])"
_E = r"(?![A-Za-z0-9_])"
SHAPES: tuple[tuple[str, str | None, str], ...] = (
    ("age-secret-key", "private-key", r"AGE-SECRET-KEY-1[0-9A-Z]{50,}+"),
    ("github-token", "github-token", _W + r"(?:gh[pousr]_[A-Za-z0-9]{20,}+|github_pat_[A-Za-z0-9_]{20,}+)"),
    ("gitlab-token", "api-key", _W + r"(?:gl(?:pat|dt|ptt|rt|soat|cbt|imt|ft|agent|oas|ffct|ddt)-[A-Za-z0-9_-]{20,}+"
     r"|GR1348941[A-Za-z0-9_-]{20,}+)"),
    ("slack-token", "slack-token", _W + r"(?:xox[abeoprs]-[A-Za-z0-9-]{6,}+|xoxe\.xox[bp]-[A-Za-z0-9-]{10,}+"
     r"|xapp-[A-Za-z0-9-]{10,}+)"),
    ("webhook-url", "webhook", r"(?:https?://)?(?:hooks\.slack\.com/(?:services|workflows|triggers)/"
     r"|discord(?:app)?\.com/api/webhooks/|[A-Za-z0-9-]{1,63}+\.webhook\.office\.com/webhook(?:b2)?/"
     r"|hooks\.zapier\.com/hooks/catch/)[A-Za-z0-9@/_+=-]{8,}+"),
    ("aws-access-key-id", "aws-key", r"(?<![A-Z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])"),
    ("anthropic-key", "api-key", _W + r"sk-ant-[A-Za-z0-9]{2,8}+-[A-Za-z0-9_-]{20,}+"),
    ("openai-key", "api-key", _W + r"sk-(?:[A-Za-z0-9]{2,10}+-)?[A-Za-z0-9_-]{20,}+"),
    ("stripe-key", "api-key", _W + r"(?:[sr]k_(?:live|test|prod)_[A-Za-z0-9]{10,}+|whsec_[A-Za-z0-9+/=]{20,}+)"),
    ("google-api-key", "api-key", _W + r"AIza[0-9A-Za-z_-]{35}"),
    ("google-oauth", "api-key",
     _W + r"(?:GOCSPX-[A-Za-z0-9_-]{20,}+|ya29\.[0-9A-Za-z_-]{20,}+|1//0[0-9A-Za-z_-]{30,}+)"),
    ("azure-ad-client-secret", "api-key", r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,}+"),
    ("azure-sas-signature", None, r"[?&;](?:sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature"
     r"|x-goog-credential|x-amz-credential)=" + _TAG_AHEAD + r"(?P<s>[^&\s#\"'<>]++)"),
    ("huggingface-token", "api-key", _W + r"(?:hf_[A-Za-z0-9]{30,}+|api_org_[A-Za-z0-9]{30,}+)"),
    ("discord-bot-token", "api-key",
     r"(?<![A-Za-z0-9_.-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}+"),
    ("twilio-api-key", "api-key", r"(?<![A-Za-z0-9])SK[0-9a-fA-F]{32}(?![0-9a-fA-F])"),
    ("npm-token", "api-key", _W + r"npm_[A-Za-z0-9]{30,}+"),
    ("pypi-token", "api-key", _W + r"pypi-Ag[A-Za-z0-9_-]{40,}+"),
    ("rubygems-token", "api-key", _W + r"rubygems_[a-f0-9]{40,}+"),
    ("shopify-token", "api-key", _W + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32,}+"),
    ("sendgrid-key", "api-key", _W + r"SG\.[A-Za-z0-9_-]{16,}+\.[A-Za-z0-9_-]{16,}+"),
    ("mailgun-key", "api-key", _W + r"(?:key-[0-9a-f]{32}|[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8})" + _E),
    ("mailchimp-key", "api-key", r"(?<![A-Za-z0-9])[0-9a-f]{32}-us\d{1,2}" + _E),
    ("sendinblue-key", "api-key", _W + r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    ("square-token", "api-key", _W + r"(?:sq0(?:atp|csp|idp)-[A-Za-z0-9_-]{22,}+|EAA[A-Za-z0-9_-]{40,}+)"),
    ("heroku-key", "api-key", _W + r"HRKU-[A-Za-z0-9_-]{20,}+"),
    ("digitalocean-token", "api-key", _W + r"do[opr]_v1_[a-f0-9]{64}"),
    ("telegram-bot-token", "api-key", r"(?:(?<=/bot)|(?<![A-Za-z0-9_]))[0-9]{5,16}:A[A-Za-z0-9_-]{30,}+"),
    ("vault-token", "api-key", _W + r"(?:hv[sbr]\.[A-Za-z0-9_-]{20,}+|s\.[A-Za-z0-9]{24}" + _E + ")"),
    ("terraform-token", "api-key", _W + r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{40,}+"),
    ("databricks-token", "api-key", _W + r"dapi[a-f0-9]{32}(?:-\d)?"),
    ("dynatrace-token", "api-key", _W + r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),
    ("newrelic-key", "api-key", _W + r"NR(?:AK|JS|II|AA)-[A-Za-z0-9]{20,}+"),
    ("sentry-token", "api-key", _W + r"sntr[ysu]_[A-Za-z0-9+/=_-]{30,}+"),
    ("grafana-token", "api-key", _W + r"(?:glc|glsa)_[A-Za-z0-9_+/=-]{30,}+"),
    ("doppler-token", "api-key", _W + r"dp\.(?:pt|st|ct|sa|scim|audit)\.(?:[a-z]{2,8}\.)?[A-Za-z0-9]{30,}+"),
    ("planetscale-token", "api-key", _W + r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9=._-]{30,}+"),
    ("pulumi-token", "api-key", _W + r"pul-[a-f0-9]{40}"),
    ("postman-key", "api-key", _W + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    ("linear-key", "api-key", _W + r"lin_(?:api|oauth)_[A-Za-z0-9]{40}"),
    ("notion-token", "api-key", _W + r"(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,}+)" + _E),
    ("airtable-token", "api-key", _W + r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    ("supabase-token", "api-key", _W + r"(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{20,}+)"),
    ("atlassian-token", "api-key", _W + r"(?:ATATT|ATCTT|ATBB)[A-Za-z0-9_=.-]{24,}+"),
    ("jfrog-key", "api-key", _W + r"(?:AKCp[A-Za-z0-9]{60,}+|cmVmdGtu[A-Za-z0-9]{50,}+)"),
    ("alibaba-key", "api-key", _W + r"LTAI[A-Za-z0-9]{20}" + _E),
    ("onepassword-token", "api-key", _W + r"ops_eyJ[A-Za-z0-9+/=_-]{40,}+"),
    ("circleci-token", "api-key", _W + r"CCIPAT_[A-Za-z0-9]{20,}+_[a-f0-9]{40}"),
    ("docker-hub-token", "api-key", _W + r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}+"),
    ("flyio-token", "api-key", _W + r"fm[12][ar]?_[A-Za-z0-9+/=_-]{40,}+"),
    ("ai-provider-key", "api-key", _W + r"(?:gsk_[A-Za-z0-9]{40,}+|r8_[A-Za-z0-9]{30,}+|xai-[A-Za-z0-9]{40,}+"
     r"|pplx-[A-Za-z0-9]{40,}+)"),
    ("misc-prefixed-key", "api-key", _W + r"(?:sgp_[A-Za-z0-9_]{30,}+|tfp_[A-Za-z0-9_.=-]{40,}+|pnu_[A-Za-z0-9]{36}"
     r"|rdme_[a-z0-9]{70}|ico-[A-Za-z0-9]{32}|fio-u-[A-Za-z0-9_=-]{60,}+|EZ[AT]K[A-Za-z0-9]{54}"
     r"|duffel_(?:test|live)_[A-Za-z0-9_=-]{40,}+|FLW(?:SECK|PUBK)_TEST-[a-h0-9]{32}-X"
     r"|shippo_(?:live|test)_[a-f0-9]{40}"
     r"|CLOJARS_[a-z0-9]{60}|bkua_[a-f0-9]{40}|nfp_[A-Za-z0-9]{36,}+|rnd_[A-Za-z0-9]{28,}+|CFPAT-[A-Za-z0-9_-]{43}"
     r"|sha256~[A-Za-z0-9_-]{43}|AKID[A-Za-z0-9]{32}|AQVN[A-Za-z0-9_-]{35,38})"),
    ("braintree-token", "api-key", r"access_token\$production\$[a-z0-9]{16}\$[a-f0-9]{32}"),
    ("jwt", "jwt", r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}+\.[A-Za-z0-9_-]{5,}+(?:\.[A-Za-z0-9_-]*+)?"),
)


# Needles of the rules whose pattern ``patterns.needle`` cannot read, proved by hand (as above).
NEEDLES: dict[str, tuple[str, ...]] = {"secret-assignment": SECRET_WORD_NEEDLES}


def context_rules() -> list[tuple[str, str | None, str, Judge | None]]:
    """Secrets named by their context, in priority order (an overlap takes the first's tag)."""
    return [
        ("private-key", "private-key",
         r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
         r"(?:-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|\Z)", None),
        ("url-password", None,
         r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,30}+://(?P<auth>[^\s/\"'<>\\]*+)", _url_credentials),
        ("authorization-header", None,
         r"(?i)(?<![\w-])(?:proxy-)?authorization\\?[\"']?[ \t]*+[:=][ \t]*+\\?[\"']?" + _TAG_AHEAD +
         r"(?:(?:basic|bearer|token|digest|negotiate|ntlm|apikey|sso-key|aws4-hmac-sha256)[ \t]++)?+"
         + _TAG_AHEAD + r"(?P<s>[^\s\"',;\\]++)", None),
        ("bearer-token", None, r"(?i)(?<![\w-])bearer[ \t]++" + _TAG_AHEAD + r"(?P<s>[A-Za-z0-9._~+/-]{8,}+=*+)", None),
        ("basic-credentials", None, r"(?i)(?<![\w-])basic[ \t]++(?P<s>[A-Za-z0-9+/]{8,}+={0,2})", _basic_credentials),
        ("cookie-header", None, r"(?im)(?<![\w-])(?:set-)?cookie[ \t]*+:[ \t]*+" + _TAG_AHEAD + r"(?P<s>[^\s][^\n]*+)",
         None),
        ("secret-assignment", None, "(?i)" + KEY_VALUE, _assignment),
        ("secret-flag", None, r"(?i)(?<![\w-])--?(?P<key>[a-z0-9_-]{0,40}?(?:password|passwd|passphrase|pass|token"
         r"|secret|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|auth))[ \t]++" + FLAG_VALUE, _assignment_flag),
        ("openssl-pass", None, r"(?<![\w-])-pass(?:in|out)?[ \t]++pass:" + ATTACHED, None),
        ("netrc-password", None,
         r"(?<![\w-])(?:machine[ \t]++\S++|default)(?:[ \t]++(?:login|account|port|protocol)[ \t]++\S++){0,4}+"
         r"[ \t]++password[ \t]++" + FLAG_VALUE, None),
        ("netrc-password-block", None,
         r"(?<![\w-])(?:machine[ \t]++\S++|default)[ \t]*+\n(?:[ \t]*+(?:login|account|port|protocol)[ \t]++\S++"
         r"[ \t]*+\n){0,4}+[ \t]*+password[ \t]++" + FLAG_VALUE, None),
        ("heroku-key", None, r"(?i)heroku[A-Za-z0-9_ .-]{0,20}?[ \t'\"]{0,3}(?:=|:|=>)[ \t'\"]{0,5}"
         r"(?P<s>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})", None),
        *_command_rules(),
    ]


def _assignment_flag(match: re.Match[str]) -> Spans:
    value_spans = first_group(match)
    if not value_spans:
        return ()
    value = match.string[value_spans[0][0]: value_spans[0][1]]
    return () if value in _PLACEHOLDERS or _VARIABLE.fullmatch(value) else value_spans
