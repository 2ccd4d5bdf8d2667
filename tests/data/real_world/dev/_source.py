"""The dev split of the real-world fixtures (issue 15): HELD OUT. The same real-world styles as
tune, with other content and other combinations. Do not tune the product on this file or on the
stores it renders (``../fixture_kit.py``); only the acceptance figures are to be read from it."""

from __future__ import annotations

from fixture_kit import LATIN1_E, Entry, File, Problem, RoundTrip, Store, Text

FENCE = "```"
TILDES = "~~~"
# In the 30-day window of the pinned clock (2026-06-01), three sightings over two sessions.
OCCURRENCES = "- Occurrences: 2026-05-08/9f8e7d6c, 2026-05-19/0badcafe, 2026-05-30/9f8e7d6c"

STORES: list[Store] = []

# ---- 1. BOM (first entry right after it), no final newline, What happened, Severity; 0-byte CLAUDE.md
STORES.append(Store(
    name="bom-ml-pipeline",
    styles=("utf-8 BOM before the first header", "no final newline", "**What happened**:", "**Severity**: critical",
            "0-byte CLAUDE.md"),
    learnings={
        "LEARNINGS.md": File(bom=True, final_newline=False, parts=(
            Entry(id="LRN-20260403-001", summary="The training job silently resumed from a stale checkpoint.",
                  status="resolved", priority="critical", pattern_key="ml.checkpoint-resume", text="""\
## [LRN-20260403-001] correction

**Logged**: 2026-04-03T07:00:00Z
**Severity**: critical
**Status**: resolved

**What happened**: The training job silently resumed from a stale checkpoint.
**Root cause**: `--resume auto` picks the newest folder by name, and the names sort by run id.

### Suggested Action
Pass the checkpoint path explicitly with `--resume PATH`.

### Metadata
- Pattern-Key: ml.checkpoint-resume

---

"""),
            Entry(id="LRN-20260405-002", summary="Tokenizer files must ship with the model artifact",
                  status="pending", priority="medium", recurrence_count=3, text="""\
## [LRN-20260405-002] knowledge_gap

**Logged**: 2026-04-05T12:30:00Z
**Priority**: medium
**Status**: pending

### Summary
Tokenizer files must ship with the model artifact

### Metadata
- Recurrence-Count: 3
"""),
        )),
    },
    root={"CLAUDE.md": ""},
    round_trip=RoundTrip("LRN-20260405-002", "CLAUDE.md", "Ship the tokenizer files inside every model artifact."),
))

# ---- 2. CRLF Chinese, ### 总结 and ### 问题, a decorated status -----------------------------------
STORES.append(Store(
    name="crlf-zh-docs",
    styles=("CRLF", "Chinese entries: ### 总结 / ### 问题", "decorated status ✅ resolved", "full timestamp in Last-Seen"),
    learnings={
        "LEARNINGS.md": File(crlf=True, parts=(
            Text("# 经验教训\n\n"),
            Entry(id="LRN-20260406-001", summary="文档站点的相对链接在子路径部署后全部失效", status="resolved", priority="medium",
                  recurrence_count=2, pattern_key="docs.base-path", text="""\
## [LRN-20260406-001] insight

**Logged**: 2026-04-06T09:10:00+08:00
**Priority**: medium
**Status**: ✅ resolved

### 总结
文档站点的相对链接在子路径部署后全部失效

### 细节
站点部署在 /handbook/ 下，但 `base` 配置还是 `/`。

### 建议措施
在 vitepress 配置里设置 `base: '/handbook/'`。

### Metadata
- Pattern-Key: docs.base-path
- Recurrence-Count: 2
- Last-Seen: 2026-04-09T18:22:10+08:00

---

"""),
            Entry(id="LRN-20260408-002", summary="截图里的中文字体在 CI 上显示成方块", status="pending", priority="low", text="""\
## [LRN-20260408-002] knowledge_gap

**Logged**: 2026-04-08T15:00:00+08:00
**Priority**: low
**Status**: pending

### 问题
截图里的中文字体在 CI 上显示成方块

### 解决
在 CI 镜像里安装 fonts-noto-cjk。
"""),
        )),
    },
))

# ---- 3. GBK errors with ### 摘要 and an annotated count -------------------------------------------
STORES.append(Store(
    name="gbk-zh-bot",
    promote_probes=("ERR-20260409-001",),
    styles=("GBK-encoded file", "### 摘要", "Recurrence-Count 2 (…) annotation in Chinese", "list - Pattern-Key"),
    learnings={
        "ERRORS.md": File(encoding="gbk", parts=(
            Entry(id="ERR-20260409-001", summary="机器人发消息时报 429，请求太频繁", status="pending", priority="high",
                  recurrence_count=2, pattern_key="bot.rate-limit", problems=(Problem("not-utf8", required=False),), text=f"""\
## [ERR-20260409-001] send_message

**Logged**: 2026-04-09T11:00:00+08:00
**Priority**: high
**Status**: pending

### 摘要
机器人发消息时报 429，请求太频繁

### 错误信息
{FENCE}
HTTP 429 Too Many Requests
{FENCE}

### 建议修复
给发送队列加上每秒 5 条的限速。

### Metadata
- Pattern-Key: bot.rate-limit
- Recurrence-Count: 2 (第二次出现)

---

"""),
            Entry(id="ERR-20260411-002", summary="定时任务在夏令时切换那天跑了两次", status="resolved", priority="medium",
                  problems=(Problem("not-utf8", required=False),), text="""\
## [ERR-20260411-002] cron

**Logged**: 2026-04-11T02:30:00+08:00
**Priority**: medium
**Status**: resolved

### 摘要
定时任务在夏令时切换那天跑了两次
"""),
        )),
        "LEARNINGS.md": File(parts=(
            Entry(id="LRN-20260412-001", summary="群消息要先判断是否被 @ 再回复", status="pending", priority="medium", text="""\
## [LRN-20260412-001] correction

**Logged**: 2026-04-12T10:00:00+08:00
**Priority**: medium
**Status**: pending

### 问题
群消息要先判断是否被 @ 再回复
"""),
        )),
    },
))

# ---- 4. header titles in ERRORS and FEATURE_REQUESTS, other annotated counts, bold fields ------------
STORES.append(Store(
    name="title-and-counts-api",
    styles=("summary only in the header title", "Recurrence-Count 5+ / 3 (…)", "bold **Pattern-Key** and **Recurrence-Count**",
            "**What happened**: with a category header"),
    learnings={
        "ERRORS.md": File(parts=(
            Entry(id="ERR-20260413-001", summary="uvicorn reload loops forever inside Docker", status="pending", priority="medium",
                  recurrence_count=5, pattern_key="python.uvicorn-reload", text="""\
## [ERR-20260413-001] uvicorn reload loops forever inside Docker

**Logged**: 2026-04-13T09:00:00Z
**Priority**: medium
**Status**: pending

The bind-mounted .venv changes on every import, so the reloader restarts the app in a loop.

**Pattern-Key**: python.uvicorn-reload
**Recurrence-Count**: 5+

---

"""),
            Entry(id="ERR-20260414-002", summary="Alembic autogenerate dropped the audit table", status="resolved", priority="high",
                  recurrence_count=3, pattern_key="db.alembic-autogenerate", text="""\
## [ERR-20260414-002] Alembic autogenerate dropped the audit table

**Logged**: 2026-04-14
**Priority**: high
**Status**: resolved

The audit table lives in another schema that the env.py does not include.

- Pattern-Key: db.alembic-autogenerate
- Recurrence-Count: 3 (third time this month)
"""),
        )),
        "LEARNINGS.md": File(parts=(
            Entry(id="LRN-20260415-001", summary="I answered from memory about the API limits and quoted last year's numbers.",
                  status="pending", recurrence_count=4, pattern_key="knowledge.check-docs", text="""\
## [LRN-20260415-001] knowledge_gap

**Status**: pending

**What happened**: I answered from memory about the API limits and quoted last year's numbers.
**Takeaway**: Check docs/limits.md before quoting any limit.

**Pattern-Key**: knowledge.check-docs
**Recurrence-Count**: 4
"""),
        )),
        "FEATURE_REQUESTS.md": File(parts=(
            Text("# Feature Requests\n\n---\n\n"),
            Entry(id="FEAT-20260416-001", summary="Pagination cursors for /v2/orders", status="pending", priority="medium", text="""\
## [FEAT-20260416-001] Pagination cursors for /v2/orders

**Logged**: 2026-04-16
**Priority**: medium
**Status**: pending

### User Context
The mobile app fetches 5000 orders at once on first sync.
"""),
        )),
    },
))

# ---- 5. near-miss headers in ERRORS and FEATURE_REQUESTS, a cut-off header, a preamble heading -----
STORES.append(Store(
    name="near-miss-mixed",
    styles=("## ID title (no brackets)", "### [ID] title", "cut-off ## [ line", "## heading in the preamble"),
    learnings={
        "ERRORS.md": File(parts=(
            Text("""\
# Errors

## Quick Reference

- Log every non-zero exit here.
- One entry per distinct failure.

---

"""),
            Entry(id="ERR-20260502-001", summary="`cargo build` fails: linker `cc` not found in the slim image", status="resolved",
                  priority="medium", problems=(Problem("near-miss-header"),), text=f"""\
## ERR-20260502-001 `cargo build` fails: linker `cc` not found in the slim image

**Priority**: medium
**Status**: resolved

{FENCE}
error: linker `cc` not found
{FENCE}

---

"""),
            Text("## [ERR-20\n", problems=(Problem("cut-off-header"),)),
            Entry(id="ERR-20260504-002", summary="Integration tests leak ports when a test panics", status="pending", priority="low", text="""\
## [ERR-20260504-002] tests

**Logged**: 2026-05-04T16:00:00Z
**Priority**: low
**Status**: pending

### Summary
Integration tests leak ports when a test panics
"""),
        )),
        "FEATURE_REQUESTS.md": File(parts=(
            Entry(id="FEAT-20260503-001", summary="Export traces as OTLP", status="pending", priority="low",
                  problems=(Problem("near-miss-header"),), text="""\
### [FEAT-20260503-001] Export traces as OTLP

**Logged**: 2026-05-03
**Priority**: low
**Status**: pending

Ops wants the traces in Grafana Tempo without a sidecar.

---

"""),
            Entry(id="FEAT-20260505-002", summary="A `--since` filter for the audit log command", status="pending", priority="medium",
                  problems=(Problem("near-miss-header"),), text="""\
## FEAT-20260505-002 A `--since` filter for the audit log command

**Priority**: medium
**Status**: pending
"""),
        )),
    },
))

# ---- 6. a dated ops journal with CRLF, reference learnings beside it -------------------------------
STORES.append(Store(
    name="dated-headers-ops",
    styles=("dated headers ## 2026-04-02 title", "dated header without a title + **What happened**", "CRLF"),
    learnings={
        "LEARNINGS.md": File(crlf=True, parts=(
            Text("# Ops journal\n\n"),
            Entry(id="2026-04-02", summary="Rolled back the migration", problems=(Problem("dated-header", required=False),), text="""\
## 2026-04-02 Rolled back the migration

The new index locked the orders table for 40 seconds at peak.
Next time: create indexes with `CONCURRENTLY`.

"""),
            Entry(id="2026-04-09", summary="The on-call phone had notifications muted during the outage.",
                  problems=(Problem("dated-header", required=False),), text="""\
## 2026-04-09

**What happened**: The on-call phone had notifications muted during the outage.
**Action**: Test the pager at every handover.

"""),
            Entry(id="2026-04-10", summary="Certificate renewal needs port 80 open", problems=(Problem("dated-header", required=False),), text="""\
## 2026-04-10 — Certificate renewal needs port 80 open

certbot's HTTP challenge failed after the firewall change.

"""),
            Entry(id="LRN-20260411-001", summary="Grafana alerts need a `for:` of at least 5 minutes to stop flapping",
                  status="pending", priority="medium", text="""\
## [LRN-20260411-001] best_practice

**Logged**: 2026-04-11T08:00:00Z
**Priority**: medium
**Status**: pending

### Summary
Grafana alerts need a `for:` of at least 5 minutes to stop flapping
"""),
        )),
    },
))

# ---- 7. an OpenClaw workspace (Chinese), hand-promoted to AGENTS.md and SOUL.md ---------------------
_PROMOTED_TO_AGENTS = "- **Promoted**: AGENTS.md (工作流已更新)"
_PROMOTED_TO_SOUL = "- **Promoted**: SOUL.md (语气规则)"
STORES.append(Store(
    name="openclaw-zh",
    styles=("OpenClaw workspace (SOUL.md, IDENTITY.md, AGENTS.md, USER.md)", "hand-promoted entries with ### Resolution",
            "**Status**: Promoted (capitalised)"),
    learnings={
        "LEARNINGS.md": File(parts=(
            Entry(id="LRN-20260320-001", summary="整理邮件前要先确认是否允许删除", status="promoted", priority="high",
                  hand_promoted=True, text=f"""\
## [LRN-20260320-001] correction

**Logged**: 2026-03-20T22:00:00+08:00
**Priority**: high
**Status**: promoted

### Summary
整理邮件前要先确认是否允许删除

### Suggested Action
只归档，不删除；删除前必须得到主人明确同意。

### Resolution
- **Resolved**: 2026-03-21
{_PROMOTED_TO_AGENTS}

---

"""),
            Entry(id="LRN-20260322-002", summary="Don't use exclamation marks in replies to the owner's boss",
                  status="promoted", priority="medium", hand_promoted=True, text=f"""\
## [LRN-20260322-002] correction

**Logged**: 2026-03-22T09:00:00+08:00
**Priority**: medium
**Status**: Promoted

### Summary
Don't use exclamation marks in replies to the owner's boss

### Resolution
{_PROMOTED_TO_SOUL}

---

"""),
            Entry(id="LRN-20260501-003", summary="天气查询要带上城市名，默认城市经常不对", status="pending", priority="low", text="""\
## [LRN-20260501-003] insight

**Logged**: 2026-05-01T07:30:00+08:00
**Priority**: low
**Status**: pending

### Summary
天气查询要带上城市名，默认城市经常不对
"""),
        )),
    },
    root={
        "SOUL.md": """\
# SOUL.md

## 语气
- 对主人的上司保持正式，不用感叹号。
- 不确定的时候直接说不确定。
""",
        "IDENTITY.md": "# IDENTITY.md\n\n- **Name:** 阿福\n- **Vibe:** 稳重的管家\n",
        "USER.md": "# USER.md\n\n- 称呼：老板\n- 时区：Asia/Shanghai\n",
        "AGENTS.md": """\
# AGENTS.md

## 邮件
- 只归档，不删除；删除前必须得到明确同意。

## Memory
- Write what matters to `memory/YYYY-MM-DD.md`.
""",
    },
    round_trip=RoundTrip("LRN-20260320-001", "SOUL.md", "整理邮件时只归档，不删除。"),
    user_lines=(_PROMOTED_TO_AGENTS, _PROMOTED_TO_SOUL),
))

# ---- 8. review candidates: a tilde fence, a continuation, a Chinese memory note, a bare command ----
STORES.append(Store(
    name="review-fragments-2",
    styles=("Suggested Action ending in a ~~~ fence", "a continuation line ('and then restart …')",
            "a '建议写入记忆' note after the rule", "a numbered step", "one clean rule"),
    learnings={
        "ERRORS.md": File(parts=(
            Entry(id="ERR-20260508-001", summary="Celery workers keep the old code after a deploy",
                  status="pending", priority="high", recurrence_count=3, pattern_key="deploy.celery-restart",
                  fragments=("and then restart the worker pool.", "and then restart the worker pool"), text=f"""\
## [ERR-20260508-001] deploy

**Logged**: 2026-05-08T10:00:00Z
**Priority**: high
**Status**: pending

### Summary
Celery workers keep the old code after a deploy

### Suggested Fix
After a deploy, send the HUP signal to the supervisor
and then restart the worker pool.

### Metadata
- Pattern-Key: deploy.celery-restart
- Recurrence-Count: 3
- First-Seen: 2026-05-08
- Last-Seen: 2026-05-30
{OCCURRENCES}

---

"""),
            Entry(id="ERR-20260509-002", summary="Redis evicts session keys when maxmemory is reached",
                  status="pending", priority="medium", recurrence_count=3, pattern_key="redis.eviction",
                  fragments=(TILDES, "CONFIG SET maxmemory-policy volatile-lru"), text=f"""\
## [ERR-20260509-002] redis

**Logged**: 2026-05-09T11:00:00Z
**Priority**: medium
**Status**: pending

### Summary
Redis evicts session keys when maxmemory is reached

### Suggested Fix
Switch the eviction policy so only keys with a TTL go:
{TILDES}
CONFIG SET maxmemory-policy volatile-lru
{TILDES}

### Metadata
- Pattern-Key: redis.eviction
- Recurrence-Count: 3
- First-Seen: 2026-05-08
- Last-Seen: 2026-05-30
{OCCURRENCES}
"""),
        )),
        "LEARNINGS.md": File(parts=(
            Entry(id="LRN-20260510-001", summary="用户要求先给结论再给细节", status="pending", priority="medium",
                  recurrence_count=3, pattern_key="style.conclusion-first", fragments=("建议写入记忆。", "建议写入记忆"), text=f"""\
## [LRN-20260510-001] correction

**Logged**: 2026-05-10T09:00:00+08:00
**Priority**: medium
**Status**: pending

### Summary
用户要求先给结论再给细节

### Suggested Action
每次回答先用一句话给出结论，再展开细节。
建议写入记忆。

### Metadata
- Pattern-Key: style.conclusion-first
- Recurrence-Count: 3
- First-Seen: 2026-05-08
- Last-Seen: 2026-05-30
{OCCURRENCES}

---

"""),
            Entry(id="LRN-20260511-002", summary="The settings test must open the page before it toggles anything",
                  status="pending", priority="low", recurrence_count=3, pattern_key="e2e.settings-open",
                  fragments=("3. Then toggle the dark mode switch.", "Then toggle the dark mode switch."), text=f"""\
## [LRN-20260511-002] correction

**Logged**: 2026-05-11T14:00:00Z
**Priority**: low
**Status**: pending

### Summary
The settings test must open the page before it toggles anything

### Suggested Action
1. Click the avatar in the top bar.
2. Choose "Settings" in the menu.
3. Then toggle the dark mode switch.

### Metadata
- Pattern-Key: e2e.settings-open
- Recurrence-Count: 3
- First-Seen: 2026-05-08
- Last-Seen: 2026-05-30
{OCCURRENCES}

---

"""),
            Entry(id="LRN-20260512-003", summary="Feature branches must be rebased on main before the release cut",
                  status="pending", priority="medium", recurrence_count=3, pattern_key="git.rebase-before-cut", text=f"""\
## [LRN-20260512-003] best_practice

**Logged**: 2026-05-12T08:00:00Z
**Priority**: medium
**Status**: pending

### Summary
Feature branches must be rebased on main before the release cut

### Suggested Action
Rebase feature branches on main before the release cut, so the changelog sees every commit.

### Metadata
- Pattern-Key: git.rebase-before-cut
- Recurrence-Count: 3
- First-Seen: 2026-05-08
- Last-Seen: 2026-05-30
{OCCURRENCES}
"""),
        )),
    },
    root={"AGENTS.md": """\
# AGENTS.md

## Workflow
- Open a draft PR early.
- Release cut: every Thursday at 14:00 UTC.
"""},
    round_trip=RoundTrip("LRN-20260512-003", "AGENTS.md"),
))

# ---- 9. the problems lint must keep reporting, spread over other files -----------------------------
STORES.append(Store(
    name="lint-problems-2",
    styles=("duplicate IDs in ERRORS.md", "leftover template entries (ERR and FEAT)", "FR- id", "date id"),
    learnings={
        "ERRORS.md": File(parts=(
            Text("# Errors\n\n"),
            Entry(id="ERR-20260419-001", summary="`go test ./...` fails: the embedded assets were never generated",
                  status="resolved", priority="medium", problems=(Problem("duplicate-id", group="ERR-20260419-001"),), text="""\
## [ERR-20260419-001] go_test

**Logged**: 2026-04-19T08:00:00Z
**Priority**: medium
**Status**: resolved

### Summary
`go test ./...` fails: the embedded assets were never generated

---

"""),
            Entry(id="ERR-YYYYMMDD-XXX", summary=None, problems=(Problem("template-entry", span=True),), text=f"""\
## [ERR-YYYYMMDD-XXX] skill_or_command_name

**Logged**: ISO-8601 timestamp
**Priority**: high
**Status**: pending
**Area**: frontend | backend | infra | tests | docs | config

### Summary
Short description of what failed

### Error
{FENCE}
Actual error message or output
{FENCE}

### Context
- Command/operation attempted
- Input or parameters used

### Suggested Fix
If identifiable, what might resolve this

---

"""),
            Entry(id="ERR-20260419-001", summary="golangci-lint times out on the generated protobuf code",
                  status="pending", priority="low", problems=(Problem("duplicate-id", group="ERR-20260419-001"),), text="""\
## [ERR-20260419-001] lint

**Logged**: 2026-04-19T17:20:00Z
**Priority**: low
**Status**: pending

### Summary
golangci-lint times out on the generated protobuf code

### Suggested Fix
Exclude `gen/` in .golangci.yml.
"""),
        )),
        "FEATURE_REQUESTS.md": File(parts=(
            Entry(id="FEAT-YYYYMMDD-XXX", summary=None, problems=(Problem("template-entry", span=True),), text="""\
## [FEAT-YYYYMMDD-XXX] capability_name

**Logged**: ISO-8601 timestamp
**Priority**: medium
**Status**: pending

### Requested Capability
What the user wanted to do

### Complexity Estimate
simple | medium | complex

---

"""),
            Entry(id="FR-20260420-002", summary="Webhook retries with exponential backoff", status="pending", priority="medium",
                  problems=(Problem("fr-id"),), text="""\
## [FR-20260420-002] webhook_retries

**Logged**: 2026-04-20
**Priority**: medium
**Status**: pending

### Requested Capability
Webhook retries with exponential backoff
"""),
        )),
        "LEARNINGS.md": File(parts=(
            Entry(id="20260418-01", summary="The vendored SDK pins an old TLS library", status="pending", priority="medium",
                  problems=(Problem("date-id"),), text="""\
## [20260418-01] knowledge_gap

**Logged**: 2026-04-18
**Priority**: medium
**Status**: pending

### Summary
The vendored SDK pins an old TLS library
"""),
        )),
    },
))

# ---- 10. German learnings, Spanish errors, decorated statuses beside them ---------------------------
STORES.append(Store(
    name="german-spanish-2",
    styles=("### Zusammenfassung (German)", "### Resumen (Spanish)", "pending (waiting on review)", "**Status**: Resolved ✓",
            "**Severity**: HIGH"),
    learnings={
        "LEARNINGS.md": File(parts=(
            Entry(id="LRN-20260421-001", summary="Umlaute im Dateinamen brechen den S3-Upload", status="pending", priority="medium",
                  text="""\
## [LRN-20260421-001] knowledge_gap

**Logged**: 2026-04-21T10:00:00Z
**Priority**: medium
**Status**: pending (waiting on review)

### Zusammenfassung
Umlaute im Dateinamen brechen den S3-Upload

### Empfohlene Maßnahme
Dateinamen vor dem Upload mit `slugify` normalisieren.

---

"""),
            Entry(id="LRN-20260423-002", summary="Die Staging-Datenbank wird jede Nacht zurückgesetzt", status="resolved", priority="low",
                  text="""\
## [LRN-20260423-002] insight

**Logged**: 2026-04-23T07:00:00Z
**Priority**: low
**Status**: Resolved ✓

### Zusammenfassung
Die Staging-Datenbank wird jede Nacht zurückgesetzt
"""),
        )),
        "ERRORS.md": File(parts=(
            Entry(id="ERR-20260422-001", summary="El build de Android falla por falta de memoria en Gradle", status="pending",
                  priority="high", pattern_key="android.gradle-heap", text=f"""\
## [ERR-20260422-001] android_build

**Logged**: 2026-04-22T13:00:00Z
**Severity**: HIGH
**Status**: pending

### Resumen
El build de Android falla por falta de memoria en Gradle

### Error
{FENCE}
java.lang.OutOfMemoryError: Java heap space
{FENCE}

### Solución sugerida
Subir `org.gradle.jvmargs` a `-Xmx4g` en gradle.properties.

### Metadata
- Pattern-Key: android.gradle-heap
"""),
        )),
    },
))

# ---- 11. an undecodable byte in LEARNINGS.md; an empty AGENTS.md next to a full CLAUDE.md ---------
STORES.append(Store(
    name="latin1-byte-2",
    styles=("a stray Latin-1 byte in a UTF-8 file (undecodable)", "0-byte AGENTS.md", "CLAUDE.md with user text"),
    learnings={
        "LEARNINGS.md": File(parts=(
            Entry(id="LRN-20260424-001", summary="Price strings from the Lyon supplier are Windows-1252 — decode before parsing",
                  status="pending", priority="medium", problems=(Problem("undecodable", offsets=(0, 10)),), text=f"""\
## [LRN-20260424-001] knowledge_gap

**Logged**: 2026-04-24
**Priority**: medium
**Status**: pending

### Summary
Price strings from the Lyon supplier are Windows-1252 — decode before parsing

### Details
Their feed says "Pr{LATIN1_E}sident 12,50 EUR" and our UTF-8 parser dropped the row.

---

"""),
            Entry(id="LRN-20260425-002", summary="The nightly import must run after the supplier's 02:00 upload",
                  status="resolved", priority="low", text="""\
## [LRN-20260425-002] insight

**Logged**: 2026-04-25
**Priority**: low
**Status**: resolved

### Summary
The nightly import must run after the supplier's 02:00 upload
"""),
        )),
    },
    root={"AGENTS.md": "", "CLAUDE.md": "# Import service\n\nPython 3.12, uv. Run `uv run pytest`.\n"},
    round_trip=RoundTrip("LRN-20260425-002", "AGENTS.md", "Schedule the nightly import after the supplier's 02:00 upload."),
))

# ---- 12. GBK learnings in an OpenClaw workspace, with review candidates ------------------------------
STORES.append(Store(
    name="gbk-openclaw",
    promote_probes=("LRN-20260509-001",),
    styles=("GBK-encoded review candidates", "OpenClaw workspace (SOUL.md, IDENTITY.md)", "### 问题 in a candidate",
            "an action that is only a code block"),
    learnings={
        "LEARNINGS.md": File(encoding="gbk", parts=(
            Text("# 学习记录\n\n", problems=(Problem("not-utf8", required=False),)),
            Entry(id="LRN-20260509-001", summary="提醒事项没有写时区，主人出差时提醒时间错了", status="pending", priority="high",
                  recurrence_count=3, pattern_key="reminder.timezone", problems=(Problem("not-utf8", required=False),), text=f"""\
## [LRN-20260509-001] correction

**Logged**: 2026-05-09T08:00:00+08:00
**Priority**: high
**Status**: pending

### 问题
提醒事项没有写时区，主人出差时提醒时间错了

### Suggested Action
创建提醒时总是写明时区。

### Metadata
- Pattern-Key: reminder.timezone
- Recurrence-Count: 3
- First-Seen: 2026-05-08
- Last-Seen: 2026-05-30
{OCCURRENCES}

---

"""),
            Entry(id="LRN-20260510-002", summary="清理下载目录前没有列出要删除的文件", status="pending", priority="critical",
                  recurrence_count=3, pattern_key="files.list-before-delete", fragments=(FENCE, "ls -la ~/Downloads"),
                  problems=(Problem("not-utf8", required=False),), text=f"""\
## [LRN-20260510-002] correction

**Logged**: 2026-05-10T21:00:00+08:00
**Priority**: critical
**Status**: pending

### Summary
清理下载目录前没有列出要删除的文件

### Suggested Action
{FENCE}
ls -la ~/Downloads
{FENCE}

### Metadata
- Pattern-Key: files.list-before-delete
- Recurrence-Count: 3
- First-Seen: 2026-05-08
- Last-Seen: 2026-05-30
{OCCURRENCES}
"""),
        )),
    },
    root={
        "SOUL.md": "# SOUL.md\n\n- 做事之前先想清楚后果。\n- 删除任何东西之前先问。\n",
        "IDENTITY.md": "# IDENTITY.md\n\n- **Name:** 小满\n",
    },
    round_trip=RoundTrip("LRN-20260509-001", "SOUL.md", "创建提醒时总是写明时区。"),
))
