"""A regex approximation of gitleaks' default rules (v8 gitleaks.toml), for bench/redaction.py.

No gitleaks binary is installable here (the registries this project reaches only carry wrappers
that download a release binary), so this transcribes, from gitleaks' published config, the
rules that apply to the corpus's families, with their secret group and the generic rule's
entropy threshold (3.5).  Python `re` stands in for Go's RE2; the few RE2-only constructs are
rewritten.  It is an approximation: gitleaks also applies allowlists and stopwords.
"""

from __future__ import annotations

import math
import re
from collections import Counter

_PRE = r"(?:[0-9a-z\-_\t .]{0,20})(?:[\s|']|[\s|\"]){0,3}(?:=|>|:{1,3}=|\|\|:|<=|=>|:|\?=)(?:'|\"|\s|=|`){0,5}"
_END = r"(?:['|\"\n\r\s`;]|$)"


def _kw(keyword: str, body: str) -> str:
    return rf"(?i)\b(?:{keyword}){_PRE}({body}){_END}"


RULES: list[tuple[str, str, float]] = [  # (name, pattern with group 1 = secret, min entropy)
    ("age-secret-key", r"(AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})", 0),
    ("aws-access-token", r"\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b", 3),
    ("anthropic-api-key", r"\b(sk-ant-api03-[a-zA-Z0-9_\-]{93}AA)(?:[\x60'\"\s;]|\\[nr]|$)", 0),
    ("anthropic-admin-api-key", r"\b(sk-ant-admin01-[a-zA-Z0-9_\-]{93}AA)(?:[\x60'\"\s;]|\\[nr]|$)", 0),
    ("openai-api-key", r"\b(sk-(?:proj|svcacct|admin)-(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})T3BlbkFJ"
     r"(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})\b|sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20})", 3),
    ("azure-ad-client-secret", r"(?:^|[\\'\"\x60\s>=:(,)])([a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34})(?:$|[\\'\"\x60\s<),])", 3),
    ("alibaba-access-key-id", r"\b(LTAI(?i:[a-z0-9]{20}))(?:[\x60'\"\s;]|\\[nr]|$)", 3),
    ("databricks-api-token", r"\b(dapi[a-f0-9]{32}(?:-\d)?)(?:[\x60'\"\s;]|\\[nr]|$)", 3),
    ("digitalocean", r"\b(do[opr]_v1_[a-f0-9]{64})(?:[\x60'\"\s;]|\\[nr]|$)", 3),
    ("discord-client-secret", _kw("discord", r"[a-z0-9=_\-]{32}"), 0),
    ("doppler-api-token", r"(dp\.pt\.(?i:[a-z0-9]{43}))", 2),
    ("dynatrace-api-token", r"(dt0c01\.(?i:[a-z0-9]{24})\.[a-z0-9]{64})", 4),
    ("flyio-access-token", r"\b((?:fo1_[\w-]{43}|fm1[ar]_[a-zA-Z0-9+\/]{100,}={0,3}|fm2_[a-zA-Z0-9+\/]{100,}={0,3}))", 4),
    ("gcp-api-key", r"\b(AIza[\w-]{35})(?:[\x60'\"\s;]|\\[nr]|$)", 4),
    ("github-pat", r"(ghp_[0-9a-zA-Z]{36})", 3),
    ("github-fine-grained-pat", r"(github_pat_\w{82})", 3),
    ("github-oauth", r"(gho_[0-9a-zA-Z]{36})", 3),
    ("github-app-token", r"((?:ghu|ghs)_[0-9a-zA-Z]{36})", 3),
    ("gitlab-pat", r"(glpat-[\w-]{20})", 3),
    ("gitlab-runner-token", r"(glrt-[0-9a-zA-Z_\-]{20})", 3),
    ("gitlab-deploy-token", r"(gldt-[0-9a-zA-Z_\-]{20})", 3),
    ("grafana-service-account-token", r"(glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})", 3),
    ("hashicorp-tf-api-token", r"(?i)([a-z0-9]{14}\.(?-i:atlasv1)\.[a-z0-9\-_=]{60,70})", 3.5),
    ("heroku-api-key", _kw("heroku", r"[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}"), 0),
    ("huggingface-access-token", r"\b(hf_(?i:[a-z]{34}))(?:[\x60'\"\s;]|\\[nr]|$)", 0),
    ("jwt", r"\b(ey[a-zA-Z0-9]{17,}\.ey[a-zA-Z0-9\/\\_-]{17,}\.(?:[a-zA-Z0-9\/\\_-]{10,}={0,2})?)(?:[\x60'\"\s;]|\\[nr]|$)", 3),
    ("linear-api-key", r"(lin_api_(?i:[a-z0-9]{40}))", 2),
    ("mailchimp-api-key", _kw("MailchimpSDK.initialize|mailchimp", r"[a-f0-9]{32}-us\d\d"), 0),
    ("mailgun-private-api-token", _kw("mailgun", r"key-[a-f0-9]{32}"), 0),
    ("new-relic-user-api-key", _kw("new-relic|newrelic|new_relic", r"NRAK-[a-z0-9]{27}"), 0),
    ("npm-access-token", r"(?i)\b(npm_[a-z0-9]{36})(?:[\x60'\"\s;]|\\[nr]|$)", 2),
    ("planetscale-password", r"(?i)\b(pscale_pw_(?i:[\w=\-.]{32,64}))(?:[\x60'\"\s;]|\\[nr]|$)", 3),
    ("postman-api-token", r"\b(PMAK-(?i:[a-f0-9]{24}-[a-f0-9]{34}))(?:[\x60'\"\s;]|\\[nr]|$)", 3),
    ("private-key", r"(?i)(-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S-]{64,}?KEY(?: BLOCK)?-----)", 0),
    ("pulumi-api-token", r"\b(pul-[a-f0-9]{40})(?:[\x60'\"\s;]|\\[nr]|$)", 2),
    ("pypi-upload-token", r"(pypi-AgEIcHlwaS5vcmc[\w-]{50,1000})", 3),
    ("rubygems-api-token", r"\b(rubygems_[a-f0-9]{48})(?:[\x60'\"\s;]|\\[nr]|$)", 2),
    ("sendgrid-api-token", r"\b(SG\.(?i:[a-z0-9=_\-\.]{66}))(?:[\x60'\"\s;]|\\[nr]|$)", 2),
    ("sendinblue-api-token", r"\b(xkeysib-[a-f0-9]{64}-(?i:[a-z0-9]{16}))(?:[\x60'\"\s;]|\\[nr]|$)", 2),
    ("sentry-user-token", r"\b(sntr[ysu]_[a-zA-Z0-9+/=_-]{40,})", 3.5),
    ("shopify-access-token", r"(shpat_[a-fA-F0-9]{32})", 2),
    ("shopify-shared-secret", r"(shpss_[a-fA-F0-9]{32})", 2),
    ("slack-bot-token", r"(xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*)", 3),
    ("slack-user-token", r"(xox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34})", 2),
    ("slack-app-token", r"(?i)(xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+)", 2),
    ("slack-webhook-url", r"((?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56})", 0),
    ("square-access-token", r"\b((?:EAAA|sq0atp-)[\w-]{22,60})(?:[\x60'\"\s;]|\\[nr]|$)", 2),
    ("square-secret", r"\b(sq0csp-[\w-]{43})", 2),
    ("stripe-access-token", r"\b((?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{10,99})(?:[\x60'\"\s;]|\\[nr]|$)", 2),
    ("telegram-bot-api-token", _kw("telegr", r"[0-9]{5,16}:(?-i:A)[a-z0-9_\-]{34}"), 0),
    ("twilio-api-key", r"(SK[0-9a-fA-F]{32})", 3),
    ("vault-service-token", r"\b(hvs\.[\w-]{90,120})", 3.5),
    ("atlassian-api-token", r"(ATATT3[A-Za-z0-9_\-=]{186})", 3.5),
    ("1password-service-account-token", r"(ops_eyJ[a-zA-Z0-9+/]{250,}={0,3})", 4),
    ("curl-auth-user", r"\bcurl\b(?:.*|.*(?:[\r\n]{1,2}.*){1,5})[ \t\n\r](?:-u|--user)(?:=|[ \t]{0,5})(\"(?:[^:\"]{3,}:[^\"]{3,})\"|'(?:[^:']{3,}:[^']{3,})'|(?:[\"'][^:\"'\s]{3,}:[^\"'\s]{3,}[\"']|[^:\"'\s]{3,}:[^\"'\s]{3,}))", 2),
    ("curl-auth-header", r"\bcurl\b(?:.*?|.*?(?:[\r\n]{1,2}.*?){1,5})[ \t\n\r](?:-H|--header)(?:=|[ \t]{0,5})[\"']?(?i:Authorization:[ \t]{0,5}(?:Basic[ \t]([a-z0-9+/]{8,}={0,3})|(?:Bearer|(?:Api-)?Token)[ \t]([\w=~@.+/-]{8,})|([\w=~@.+/-]{8,})))", 2.75),
    ("generic-api-key", r"(?i)[\w.-]{0,50}?(?:access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token)"
     r"(?:[ \t\w.-]{0,20})[\s'\"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'\"\s=]{0,5}([\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3})"
     r"(?:[\x60'\"\s;]|\\[nr]|$)", 3.5),
]


def _entropy(s: str) -> float:
    counts = Counter(s)
    return -sum(n / len(s) * math.log2(n / len(s)) for n in counts.values())


_COMPILED: list[tuple[str, re.Pattern[str], float]] = []


def findings(text: str) -> list[str]:
    """The secrets the approximated rules report in ``text``."""
    if not _COMPILED:
        _COMPILED.extend((name, re.compile(pattern), entropy) for name, pattern, entropy in RULES)
    found = []
    for _name, pattern, entropy in _COMPILED:
        for match in pattern.finditer(text):
            secret = next((g for g in match.groups() if g), match.group(0))
            if _entropy(secret) >= entropy:
                found.append(secret)
    return found
