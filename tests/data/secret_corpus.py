"""Generate the redaction corpus, tests/data/secrets.jsonl: fake but correctly shaped secrets.

    .venv/bin/python tests/data/secret_corpus.py > tests/data/secrets.jsonl

Each kind is a small generator that draws a fresh random value (seeded: the file is the same on
every run) and places it in a line as a tool's output would show it (an env dump, a config file,
a command line, a log line).  Every kind yields EXAMPLES_PER_KIND records with different values.

Kinds alternate between two splits: "dev" (the redactor was tuned on it) and "held-out" (written
with the dev half, before any redactor result was looked at; its score is reported apart by
bench/redaction.py).  A record is {"id", "kind", "split", "line", "secrets"}: ``secrets`` lists
the strings that must not survive (a PEM key lists each line of its body).
"""

from __future__ import annotations

import base64
import json
import random
import string
import sys
from collections.abc import Callable, Iterator

SEED = 20261201
EXAMPLES_PER_KIND = 2

Generated = tuple[str, list[str]]  # (the line(s) as output shows them, the secrets in them)

LOWER, UPPER, DIGITS = string.ascii_lowercase, string.ascii_uppercase, string.digits
ALNUM = LOWER + UPPER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
PUNCT = "!#%^*@-_.~"


def draw(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def mixed(rng: random.Random, alphabet: str, n: int) -> str:
    """Random, but with at least one char of each class the alphabet has (as real keys do)."""
    while True:
        value = draw(rng, alphabet, n)
        classes = [c for c in (LOWER, UPPER, DIGITS) if set(c) & set(alphabet)]
        if all(set(value) & set(c) for c in classes):
            return value


def password(rng: random.Random, n: int = 14, punct: str = PUNCT) -> str:
    return mixed(rng, ALNUM, n - 3) + draw(rng, punct, 2) + draw(rng, DIGITS, 1)


def b64_of(rng: random.Random, nbytes: int) -> str:
    return base64.b64encode(bytes(rng.randrange(256) for _ in range(nbytes))).decode()


def host(rng: random.Random) -> str:
    return rng.choice(["db.internal", "10.0.3.17", "prod-db-1.example.com", "localhost", "cache.svc.cluster.local"])


KINDS: dict[str, Callable[[random.Random], Generated]] = {}


def kind(name: str) -> Callable[[Callable[[random.Random], Generated]], Callable[[random.Random], Generated]]:
    def register(fn: Callable[[random.Random], Generated]) -> Callable[[random.Random], Generated]:
        KINDS[name] = fn
        return fn
    return register


def simple(name: str, template: str, make: Callable[[random.Random], str]) -> None:
    """A kind whose secret is one value placed in ``template`` at {s}."""
    def generate(rng: random.Random) -> Generated:
        value = make(rng)
        return template.format(s=value, h=host(rng)), [value]
    KINDS[name] = generate


# --- cloud providers -----------------------------------------------------------------------------
simple("aws-access-key-id", "export AWS_ACCESS_KEY_ID={s}", lambda r: "AKIA" + draw(r, UPPER + "234567", 16))
simple("aws-secret-key-env", "AWS_SECRET_ACCESS_KEY={s}", lambda r: mixed(r, B64, 40))
simple("aws-secret-key-ini", "aws_secret_access_key = {s}", lambda r: mixed(r, B64, 40))
simple("aws-session-token", "aws_session_token={s}", lambda r: "IQoJb3JpZ2luX2VjE" + mixed(r, B64, 180))
simple("aws-sts-key-id", "Credentials: AccessKeyId {s} expired", lambda r: "ASIA" + draw(r, UPPER + "234567", 16))


@kind("gcp-service-account-json")
def _gcp_sa(rng: random.Random) -> Generated:
    body = [mixed(rng, B64, 64) for _ in range(3)]
    key = "-----BEGIN PRIVATE KEY-----\\n" + "\\n".join(body) + "\\n-----END PRIVATE KEY-----\\n"
    return '{"type": "service_account", "private_key_id": "' + draw(rng, HEX, 40) + '", "private_key": "' + key + '"}', body


simple("gcp-api-key", "GET https://maps.googleapis.com/maps/api/geocode/json?key={s} 403", lambda r: "AIza" + mixed(r, B64URL, 35))
simple("google-oauth-client-secret", "client_secret: {s}", lambda r: "GOCSPX-" + mixed(r, B64URL, 28))
simple("google-oauth-secret-bare", "OAuth client created: GOCSPX-{s}", lambda r: mixed(r, B64URL, 28))
simple("google-oauth-access-token", "using token ya29.{s} for drive", lambda r: "a0A" + mixed(r, B64URL, 120))
simple("azure-storage-key", "DefaultEndpointsProtocol=https;AccountName=prodstore;AccountKey={s};EndpointSuffix=core.windows.net",
       lambda r: b64_of(r, 64))
simple("azure-sas-sig", "PUT https://prodstore.blob.core.windows.net/c/x.bin?sv=2022-11-02&ss=b&srt=o&sp=rw&se=2026-12-31&sig={s} 403",
       lambda r: b64_of(r, 32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D"))
simple("azure-ad-client-secret", "AZURE_CLIENT_SECRET={s}", lambda r: draw(r, ALNUM, 3) + "8Q~" + mixed(r, ALNUM + "_~.-", 34))
simple("azure-ad-secret-bare", "created secret {s} (expires 2027)", lambda r: draw(r, ALNUM, 3) + "8Q~" + mixed(r, ALNUM, 34))
simple("azure-servicebus", "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={s}",
       lambda r: b64_of(r, 32))
simple("digitalocean-pat", "doctl auth init -t {s}", lambda r: "dop_v1_" + draw(r, HEX, 64))
simple("digitalocean-oauth", "DIGITALOCEAN_TOKEN={s}", lambda r: "doo_v1_" + draw(r, HEX, 64))
simple("heroku-api-key-uuid", "HEROKU_API_KEY={s}", lambda r: "-".join(draw(r, HEX, n) for n in (8, 4, 4, 4, 12)))
simple("heroku-new-token", "heroku token: {s}", lambda r: "HRKU-AA" + mixed(r, B64URL, 58))
simple("alibaba-access-key", "ALIBABA_CLOUD_ACCESS_KEY_ID={s}", lambda r: "LTAI" + mixed(r, ALNUM, 20))
simple("cloudflare-api-token", "CLOUDFLARE_API_TOKEN={s}", lambda r: mixed(r, B64URL, 40))
simple("vault-token", "export VAULT_TOKEN={s}", lambda r: "hvs." + mixed(r, B64URL, 90))
simple("terraform-cloud", 'credentials "app.terraform.io" {{ token = "{s}" }}',
       lambda r: draw(r, ALNUM, 14) + ".atlasv1." + mixed(r, B64URL, 67))
simple("databricks", "DATABRICKS_TOKEN={s}", lambda r: "dapi" + draw(r, HEX, 32))
simple("flyio", "FLY_API_TOKEN={s}", lambda r: "FlyV1 fm2_" + mixed(r, B64, 100))

# --- source hosting, CI, registries --------------------------------------------------------------
simple("github-pat-classic", "remote: Invalid username or token {s}", lambda r: "ghp_" + mixed(r, ALNUM, 36))
simple("github-fine-grained", "GH_TOKEN={s} gh pr list", lambda r: "github_pat_11" + mixed(r, ALNUM, 20) + "_" + mixed(r, ALNUM, 59))
simple("github-oauth", "oauth_token: {s}", lambda r: "gho_" + mixed(r, ALNUM, 36))
simple("github-app-install", "git clone https://x-access-token:{s}@github.com/org/repo.git", lambda r: "ghs_" + mixed(r, ALNUM, 36))
simple("gitlab-pat", 'curl --header "PRIVATE-TOKEN: {s}" https://gitlab.example.com/api/v4/projects', lambda r: "glpat-" + mixed(r, B64URL, 20))
simple("gitlab-runner", "Registering runner... token={s}", lambda r: "glrt-" + mixed(r, B64URL, 20))
simple("gitlab-deploy-token", "CI_DEPLOY_PASSWORD {s} rejected", lambda r: "gldt-" + mixed(r, B64URL, 20))
simple("bitbucket-app-password", "git push https://ada:{s}@bitbucket.org/team/repo.git", lambda r: "ATBB" + mixed(r, ALNUM, 28))
simple("npm-token", "//registry.npmjs.org/:_authToken={s}", lambda r: "npm_" + mixed(r, ALNUM, 36))
simple("npm-token-bare", "npm ERR! 403 token npm_{s} is not valid", lambda r: mixed(r, ALNUM, 36))
simple("pypi-token", "twine upload -u __token__ -p {s} dist/*", lambda r: "pypi-AgEIcHlwaS5vcmc" + mixed(r, B64URL, 70))
simple("pypi-token-env", "TWINE_PASSWORD={s}", lambda r: "pypi-AgEIcHlwaS5vcmc" + mixed(r, B64URL, 60))
simple("rubygems", "GEM_HOST_API_KEY: {s}", lambda r: "rubygems_" + draw(r, HEX, 48))
simple("docker-hub-pat", "docker login -u ada -p {s}", lambda r: "dckr_pat_" + mixed(r, B64URL, 27))
simple("docker-login-password", "docker login registry.example.com -u deploy -p {s}", password)
simple("docker-login-password-long", "podman login --username ci --password {s} quay.io", password)


@kind("docker-config-auth")
def _docker_auth(rng: random.Random) -> Generated:
    value = base64.b64encode(f"ada:{password(rng)}".encode()).decode()
    return '{"auths": {"ghcr.io": {"auth": "' + value + '"}}}', [value]


simple("circleci-token", "CIRCLE_TOKEN={s}", lambda r: "CCIPAT_" + mixed(r, ALNUM, 22) + "_" + draw(r, HEX, 40))
simple("jfrog-api-key", "JFROG_API_KEY={s}", lambda r: "AKCp" + mixed(r, ALNUM, 69))
simple("atlassian-api-token", "JIRA_API_TOKEN={s}", lambda r: "ATATT3xFfGF0" + mixed(r, B64URL, 180))

# --- chat, mail, payments, SaaS --------------------------------------------------------------
simple("slack-bot-token", "slack: invalid_auth for {s}", lambda r: "xoxb-" + draw(r, DIGITS, 12) + "-" + draw(r, DIGITS, 13) + "-" + mixed(r, ALNUM, 24))
simple("slack-user-token", "SLACK_TOKEN={s}", lambda r: "xoxp-" + draw(r, DIGITS, 12) + "-" + draw(r, DIGITS, 12) + "-" + draw(r, DIGITS, 13) + "-" + draw(r, HEX, 32))
simple("slack-app-token", "socket mode failed: {s}", lambda r: "xapp-1-A" + draw(r, UPPER + DIGITS, 10) + "-" + draw(r, DIGITS, 13) + "-" + draw(r, HEX, 64))
simple("slack-webhook", "POST {s} -> 404 no_service",
       lambda r: "https://hooks.slack.com/services/T" + draw(r, UPPER + DIGITS, 8) + "/B" + draw(r, UPPER + DIGITS, 10) + "/" + mixed(r, ALNUM, 24))
simple("slack-workflow-webhook", "curl -X POST {s}", lambda r: "https://hooks.slack.com/triggers/T" + draw(r, UPPER + DIGITS, 8) + "/" + draw(r, DIGITS, 13) + "/" + draw(r, HEX, 32))
simple("discord-bot-token", "discord.errors.LoginFailure: Improper token has been passed: {s}",
       lambda r: r.choice("MN") + mixed(r, ALNUM, 25) + "." + mixed(r, B64URL, 6) + "." + mixed(r, B64URL, 38))
simple("discord-bot-env", "DISCORD_BOT_TOKEN={s}", lambda r: r.choice("MN") + mixed(r, ALNUM, 23) + "." + mixed(r, B64URL, 6) + "." + mixed(r, B64URL, 27))
simple("discord-webhook", "webhook {s} returned 401",
       lambda r: "https://discord.com/api/webhooks/" + draw(r, DIGITS, 18) + "/" + mixed(r, B64URL, 68))
simple("teams-webhook", "TEAMS_WEBHOOK={s}",
       lambda r: "https://acme.webhook.office.com/webhookb2/" + "-".join(draw(r, HEX, n) for n in (8, 4, 4, 4, 12)) + "/IncomingWebhook/" + draw(r, HEX, 32) + "/" + draw(r, HEX, 8))
simple("telegram-bot", "telegram.error.InvalidToken: {s}", lambda r: draw(r, DIGITS, 10) + ":AA" + mixed(r, B64URL, 33))
simple("telegram-bot-url", "GET https://api.telegram.org/bot{s}/getMe 401", lambda r: draw(r, DIGITS, 9) + ":AA" + mixed(r, B64URL, 33))
simple("twilio-api-key", "TWILIO_API_KEY={s}", lambda r: "SK" + draw(r, HEX, 32))
simple("twilio-api-key-bare", "twilio: authenticate with SK{s} failed", lambda r: draw(r, HEX, 32))
simple("twilio-auth-token", "TWILIO_AUTH_TOKEN={s}", lambda r: draw(r, HEX, 32))
simple("sendgrid", "SENDGRID_API_KEY={s}", lambda r: "SG." + mixed(r, B64URL, 22) + "." + mixed(r, B64URL, 43))
simple("sendgrid-bare", "python_http_client.exceptions.UnauthorizedError: key SG.{s}", lambda r: mixed(r, B64URL, 22) + "." + mixed(r, B64URL, 43))
simple("mailgun-key", "MAILGUN_API_KEY=key-{s}", lambda r: draw(r, HEX, 32))
simple("mailgun-bare", "api:{s} 401 Forbidden", lambda r: "key-" + draw(r, HEX, 32))
simple("mailchimp", "mailchimp3.MailChimpError: key {s}", lambda r: draw(r, HEX, 32) + "-us" + str(r.randrange(1, 21)))
simple("sendinblue", "BREVO_KEY={s}", lambda r: "xkeysib-" + draw(r, HEX, 64) + "-" + mixed(r, ALNUM, 16))
simple("stripe-secret", "stripe.error.AuthenticationError: Invalid API Key provided: {s}", lambda r: "sk_live_" + mixed(r, ALNUM, 99))
simple("stripe-test", "STRIPE_SECRET_KEY={s}", lambda r: "sk_test_" + mixed(r, ALNUM, 24))
simple("stripe-restricted", "using restricted key {s}", lambda r: "rk_live_" + mixed(r, ALNUM, 24))
simple("stripe-webhook-secret", "STRIPE_WEBHOOK_SECRET={s}", lambda r: "whsec_" + mixed(r, ALNUM, 32))
simple("stripe-webhook-bare", "stripe listen: Ready! Your webhook signing secret is {s}", lambda r: "whsec_" + mixed(r, ALNUM, 32))
simple("square-access", "SQUARE_ACCESS_TOKEN={s}", lambda r: "EAAA" + mixed(r, B64URL, 60))
simple("square-oauth", "square oauth secret {s}", lambda r: "sq0csp-" + mixed(r, B64URL, 43))
simple("shopify-access", "X-Shopify-Access-Token: {s}", lambda r: "shpat_" + draw(r, HEX, 32))
simple("shopify-shared", "SHOPIFY_API_SECRET={s}", lambda r: "shpss_" + draw(r, HEX, 32))
simple("paypal-braintree", "BRAINTREE_TOKEN={s}", lambda r: "access_token$production$" + draw(r, LOWER + DIGITS, 16) + "$" + draw(r, HEX, 32))
simple("postman", "postman api key {s}", lambda r: "PMAK-" + draw(r, HEX, 24) + "-" + draw(r, HEX, 34))
simple("linear", "LINEAR_API_KEY={s}", lambda r: "lin_api_" + mixed(r, ALNUM, 40))
simple("notion", "NOTION_TOKEN={s}", lambda r: "secret_" + mixed(r, ALNUM, 43))
simple("airtable-pat", "airtable: 401 with {s}", lambda r: "pat" + mixed(r, ALNUM, 14) + "." + draw(r, HEX, 64))
simple("sentry-auth", "SENTRY_AUTH_TOKEN={s}", lambda r: "sntrys_" + mixed(r, B64, 120))
simple("newrelic", "NEW_RELIC_API_KEY={s}", lambda r: "NRAK-" + draw(r, UPPER + DIGITS, 27))
simple("grafana-sa", "GRAFANA_TOKEN={s}", lambda r: "glsa_" + mixed(r, ALNUM, 32) + "_" + draw(r, HEX, 8))
simple("dynatrace", "DT_API_TOKEN={s}", lambda r: "dt0c01." + draw(r, UPPER + DIGITS, 24) + "." + draw(r, UPPER + DIGITS, 64))
simple("doppler", "DOPPLER_TOKEN={s}", lambda r: "dp.st.prd." + mixed(r, ALNUM, 43))
simple("planetscale", "PLANETSCALE_PASSWORD={s}", lambda r: "pscale_pw_" + mixed(r, B64URL, 43))
simple("pulumi", "PULUMI_ACCESS_TOKEN={s}", lambda r: "pul-" + draw(r, HEX, 40))
simple("okta", "okta api token {s} invalid", lambda r: "00" + mixed(r, B64URL, 40))
simple("supabase", "SUPABASE_ACCESS_TOKEN={s}", lambda r: "sbp_" + draw(r, HEX, 40))
simple("age-secret-key", "# created: 2026-11-30\n{s}", lambda r: "AGE-SECRET-KEY-1" + draw(r, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58))
simple("onepassword-sa", "OP_SERVICE_ACCOUNT_TOKEN={s}", lambda r: "ops_eyJ" + mixed(r, B64, 200))

# --- AI providers --------------------------------------------------------------------------------
simple("openai-project", "export OPENAI_API_KEY={s}", lambda r: "sk-proj-" + mixed(r, B64URL, 156))
simple("openai-legacy", "openai.AuthenticationError: Incorrect API key provided: {s}", lambda r: "sk-" + mixed(r, ALNUM, 20) + "T3BlbkFJ" + mixed(r, ALNUM, 20))
simple("openai-svcacct", "OPENAI_KEY: {s}", lambda r: "sk-svcacct-" + mixed(r, B64URL, 120))
simple("anthropic", "anthropic.AuthenticationError: invalid x-api-key {s}", lambda r: "sk-ant-api03-" + mixed(r, B64URL, 93) + "AA")
simple("anthropic-admin", "ANTHROPIC_ADMIN_KEY={s}", lambda r: "sk-ant-admin01-" + mixed(r, B64URL, 93) + "AA")
simple("huggingface", "huggingface_hub.errors.HfHubHTTPError: 401 token {s}", lambda r: "hf_" + mixed(r, LOWER + UPPER, 34))
simple("huggingface-env", "HF_TOKEN={s}", lambda r: "hf_" + mixed(r, LOWER + UPPER, 34))
simple("groq", "GROQ_API_KEY={s}", lambda r: "gsk_" + mixed(r, ALNUM, 52))
simple("replicate", "replicate: token {s} rejected", lambda r: "r8_" + mixed(r, ALNUM, 37))
simple("xai", "XAI_API_KEY={s}", lambda r: "xai-" + mixed(r, ALNUM, 80))
simple("perplexity", "pplx key {s} expired", lambda r: "pplx-" + mixed(r, ALNUM, 48))
simple("cohere-env", "CO_API_KEY={s}", lambda r: mixed(r, ALNUM, 40))
simple("mistral-json", '{{"api_key": "{s}"}}', lambda r: mixed(r, ALNUM, 32))

# --- generic forms: keys, headers, URLs, command lines --------------------------------------------
simple("jwt", "jwt.exceptions.ExpiredSignatureError for {s}",
       lambda r: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJ" + mixed(r, B64URL, 60) + "." + mixed(r, B64URL, 43))
simple("bearer-header", "curl -H 'Authorization: Bearer {s}' https://api.example.com/v1/me", lambda r: mixed(r, B64URL + ".", 48))
simple("basic-header", "> Authorization: Basic {s}", lambda r: base64.b64encode(f"deploy:{password(r)}".encode()).decode())
simple("token-header", "Authorization: token {s}", lambda r: mixed(r, ALNUM, 40))
simple("api-key-header", "curl -H 'X-API-Key: {s}' https://api.example.com", lambda r: mixed(r, ALNUM, 32))
simple("cookie-header", "> Cookie: sessionid={s}; csrftoken=abc", lambda r: mixed(r, LOWER + DIGITS, 32))
simple("url-password", "fatal: unable to access 'https://ada:{s}@git.example.com/r.git/': 403", password)
simple("url-password-at", "sqlalchemy.exc.OperationalError: mysql://root:{s}@{h}:3306/app", lambda r: password(r, 12, "@!") + "@" + draw(r, ALNUM, 4))
simple("url-password-colon", "psql postgresql://app:{s}@{h}:5432/app", lambda r: draw(r, ALNUM, 6) + ":" + mixed(r, ALNUM, 8))
simple("redis-url-no-user", "redis.exceptions.AuthenticationError: redis://:{s}@{h}:6379/0", password)
simple("amqp-url", "CELERY_BROKER_URL=amqp://guest:{s}@{h}:5672//", password)
simple("mongodb-srv", "MongoServerError: bad auth mongodb+srv://admin:{s}@cluster0.abcde.mongodb.net/test", password)
simple("password-env", "DB_PASSWORD={s}", password)
simple("password-yaml", "  password: {s}", password)
simple("password-json", '{{"username": "ada", "password": "{s}"}}', lambda r: password(r) + " " + draw(r, LOWER, 4))
simple("mysql-pwd", "MYSQL_PWD={s} mysql -u root", password)
simple("mysql-p-attached", "mysql -u root -p{s} -h {h} app", lambda r: password(r, 14, "!#%^*"))
simple("mysqldump-p", "mysqldump -uroot -p{s} app > dump.sql", lambda r: password(r, 13, "#%"))
simple("sshpass", "sshpass -p {s} ssh deploy@{h}", password)
simple("sshpass-quoted", "sshpass -p '{s}' scp a.tar deploy@{h}:/tmp", lambda r: password(r) + " " + draw(r, ALNUM, 5))
simple("netrc-line", "machine api.example.com login ada password {s}", password)


@kind("netrc-multiline")
def _netrc_block(rng: random.Random) -> Generated:
    value = password(rng)
    return f"machine git.example.com\n  login ada\n  password {value}", [value]


simple("redis-cli-a", "redis-cli -h {h} -a {s} ping", password)
simple("curl-user", "curl -u admin:{s} https://jenkins.example.com/api/json", password)
simple("flag-password", "./deploy --db-password {s} --env prod", password)
simple("flag-token-eq", "terraform apply -var token={s}", lambda r: mixed(r, ALNUM, 30))
simple("openssl-pass", "openssl pkcs12 -export -passout pass:{s} -out cert.p12", password)
simple("pgpassword", "PGPASSWORD={s} psql -h {h} -U app", password)
simple("client-secret-yaml", "client_secret: {s}", lambda r: mixed(r, B64URL, 40))
simple("secret-key-base", "SECRET_KEY_BASE={s}", lambda r: draw(r, HEX, 128))
simple("django-secret", "SECRET_KEY = '{s}'", lambda r: "django-insecure-" + draw(r, LOWER + DIGITS + "!@#$%^&*(-_=+)", 50))
simple("generic-api-key-env", "MY_SERVICE_API_KEY={s}", lambda r: mixed(r, ALNUM, 32))
simple("private-key-hex", "ETH_PRIVATE_KEY=0x{s}", lambda r: draw(r, HEX, 64))
simple("unlabelled-base64", "loaded credentials blob {s} from cache", lambda r: b64_of(r, 48))
simple("unlabelled-aws-secret", "aws: error: signature mismatch for {s}", lambda r: mixed(r, B64, 40))
simple("unlabelled-alnum", "server replied 401 for key {s}", lambda r: mixed(r, ALNUM, 40))


@kind("pem-rsa")
def _pem_rsa(rng: random.Random) -> Generated:
    body = [mixed(rng, B64, 64) for _ in range(4)] + [mixed(rng, B64, 24) + "=="]
    return "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(body) + "\n-----END RSA PRIVATE KEY-----", body


@kind("pem-openssh")
def _pem_openssh(rng: random.Random) -> Generated:
    body = ["b3BlbnNzaC1rZXktdjEAAAAA" + mixed(rng, B64, 46)] + [mixed(rng, B64, 70) for _ in range(3)]
    return "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(body) + "\n-----END OPENSSH PRIVATE KEY-----", body


@kind("pem-ec-no-end")
def _pem_truncated(rng: random.Random) -> Generated:
    body = [mixed(rng, B64, 64) for _ in range(2)]
    return "-----BEGIN EC PRIVATE KEY-----\n" + "\n".join(body), body


# --- placements: where a secret sits in a failing command's output ----------------------------

ERROR_LINE = "ERROR: deploy failed: "
_FILLER = "step {n}: synced 14 files to staging in 0.{n}s (cache warm)"


def _filler_words(rng: random.Random, n: int) -> str:
    words = ["lorem", "ipsum", "retrying", "upload", "of", "the", "bundle", "to", "the", "mirror", "took", "long"]
    out = ""
    while len(out) < n:
        out += rng.choice(words) + " "
    return out[:n - 1].ljust(n)  # ends with a blank: the secret's line is not glued to a word


def placements(record_id: str, line: str, secrets: list[str]) -> dict[str, str]:
    """The outputs of a failing command (exit 1) that hold ``line``, by placement name."""
    rng = random.Random(f"{SEED}:place:{record_id}")
    log = [_FILLER.format(n=n) for n in range(1, 800)]  # ~45 KB: more than detect() scans (40 KB)
    first = min(line.find(s) for s in secrets if s in line)
    boundary: dict[str, str] = {}
    # Straddling the 200-char excerpt: the secret begins before char 200 and ends after it
    # (half-way across, and with only its first characters inside).
    for name, inside in (("boundary-half", max(1, len(secrets[0]) // 2)), ("boundary-start", 8)):
        pad = max(0, 200 - inside - first - len(ERROR_LINE))
        boundary[name] = ERROR_LINE + _filler_words(rng, pad) + line + "\nhint: see the log"
    return {
        "error-line": ERROR_LINE + line + "\n  at deploy.sh:12",
        "next-line": ERROR_LINE + "remote rejected\n" + line + "\n",
        "last-line": "\n".join(log[:5]) + "\n" + line + "\n",
        "middle": "\n".join(log[:400]) + "\n" + line + "\n" + "\n".join(log[400:]) + "\n" + ERROR_LINE + "exit 3",
        **boundary,
    }


def leaks(text: str, output: str, secrets: list[str]) -> list[str]:
    """The secrets that ``text`` shows in full or in part (10 consecutive chars of one that the
    output holds nowhere else)."""
    background = output
    for secret in secrets:
        background = background.replace(secret, "")
    found = []
    for secret in secrets:
        if secret in text:
            found.append(f"full {secret!r}")
            continue
        for i in range(len(secret) - 9):
            part = secret[i:i + 10]
            if part in text and part not in background:
                found.append(f"part {part!r} of {secret!r}")
                break
    return found


def records() -> Iterator[dict[str, object]]:
    for index, (name, generate) in enumerate(sorted(KINDS.items())):
        split = "dev" if index % 2 == 0 else "held-out"
        for n in range(EXAMPLES_PER_KIND):
            rng = random.Random(f"{SEED}:{name}:{n}")
            line, secrets = generate(rng)
            yield {"id": f"{name}-{n}", "kind": name, "split": split, "line": line, "secrets": secrets}


def main() -> None:
    for record in records():
        sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
