"""The tune split of the real-world fixtures (issue 15): stores written in the styles real users
of the self-improving-agent skill write in, with what each author meant. Our own text, no one's
files. Rendered by ``../fixture_kit.py``; the product may be tuned on this split, never on dev."""

from __future__ import annotations

from fixture_kit import LATIN1_E, Entry, File, Problem, RoundTrip, Store, Text

FENCE = "```"
# The clock the bench pins (SELF_IMPROVE_TODAY): occurrences below fall in its 30-day window.
OCCURRENCES = "- Occurrences: 2026-05-12/a1b2c3d4, 2026-05-20/e5f6a7b8, 2026-05-27/a1b2c3d4"

STORES: list[Store] = []

# ---- 1. BOM + CRLF, the first entry right after the BOM; ERRORS.md without a final newline ------
STORES.append(Store(
    name="bom-crlf-webapp",
    styles=("utf-8 BOM before the first header", "CRLF", "no final newline", "CLAUDE.md with user text (CRLF)"),
    learnings={
        "LEARNINGS.md": File(bom=True, crlf=True, parts=(
            Entry(id="LRN-20260302-001", summary="Run `pnpm dev` from the repo root, not from apps/web",
                  status="pending", priority="medium", recurrence_count=2, pattern_key="tooling.dev-server", text="""\
## [LRN-20260302-001] best_practice

**Logged**: 2026-03-02T09:14:00Z
**Priority**: medium
**Status**: pending
**Area**: frontend

### Summary
Run `pnpm dev` from the repo root, not from apps/web

### Details
Starting the dev server inside apps/web skipped the workspace env loader, so every API call
went to localhost:3000 instead of the proxy.

### Suggested Action
Start the dev server with `pnpm dev` at the root; it wires the proxy for every app.

### Metadata
- Source: user_feedback
- Related Files: package.json, apps/web/vite.config.ts
- Tags: pnpm, dev-server
- Pattern-Key: tooling.dev-server
- Recurrence-Count: 2
- First-Seen: 2026-03-02
- Last-Seen: 2026-03-09

---

"""),
            Entry(id="LRN-20260305-002", summary="Tailwind classes built from string concatenation are purged in production",
                  status="resolved", priority="high", text="""\
## [LRN-20260305-002] knowledge_gap

**Logged**: 2026-03-05T16:40:00Z
**Priority**: high
**Status**: resolved
**Area**: frontend

### Summary
Tailwind classes built from string concatenation are purged in production

### Details
`bg-${color}-500` worked in dev and vanished in the production bundle.

### Suggested Action
Write full class names (`bg-red-500`), or add them to the safelist in tailwind.config.js.

### Metadata
- Source: error
- Tags: tailwind, css

---
"""),
        )),
        "ERRORS.md": File(crlf=True, final_newline=False, parts=(
            Text("# Errors\n\nCommand failures, exceptions, and unexpected behaviors.\n\n---\n\n"),
            Entry(id="ERR-20260306-001", summary="Vitest hangs when a test leaves a fake timer running",
                  status="resolved", priority="high", text=f"""\
## [ERR-20260306-001] vitest

**Logged**: 2026-03-06T10:02:00Z
**Priority**: high
**Status**: resolved
**Area**: tests

### Summary
Vitest hangs when a test leaves a fake timer running

### Error
{FENCE}
Error: Test timed out in 5000ms.
{FENCE}

### Context
`useFakeTimers()` in one describe block leaked into the next file of the same worker.

### Suggested Fix
Call `vi.useRealTimers()` in afterEach.

### Metadata
- Reproducible: yes
- Related Files: src/setupTests.ts
"""),
        )),
    },
    root={"CLAUDE.md": """\
# CLAUDE.md

This is the Acme web app. We use pnpm workspaces.

## Commands
- `pnpm dev` - start every app with the proxy
- `pnpm test` - vitest, watch mode off in CI

## Style
Prefer small components; no default exports.
"""},
    root_crlf=("CLAUDE.md",),
    round_trip=RoundTrip("LRN-20260302-001", "CLAUDE.md", "Run `pnpm dev` from the repo root, not from apps/web."),
))

# ---- 2. GBK-encoded Chinese learnings, UTF-8 Chinese errors, an empty AGENTS.md -------------------
STORES.append(Store(
    name="gbk-zh-service",
    promote_probes=("LRN-20260311-001",),
    styles=("GBK-encoded file", "Chinese entries: ### 问题 / ### 摘要 / ### 总结", "0-byte AGENTS.md"),
    learnings={
        "LEARNINGS.md": File(encoding="gbk", parts=(
            Text("# 学习记录\n\n记录开发过程中的纠正和经验。\n\n---\n\n", problems=(Problem("not-utf8", required=False),)),
            Entry(id="LRN-20260311-001", summary="修改配置后没有重启服务，导致新配置没有生效",
                  status="pending", priority="high", recurrence_count=2, pattern_key="ops.restart-after-config",
                  problems=(Problem("not-utf8", required=False),), text="""\
## [LRN-20260311-001] correction

**Logged**: 2026-03-11T10:20:00+08:00
**Priority**: high
**Status**: pending
**Area**: backend

### 问题
修改配置后没有重启服务，导致新配置没有生效

### 原因
服务只在启动时读取 config.yaml。

### 解决方案
修改 config.yaml 后执行 `systemctl restart order-svc`。

### Metadata
- Source: user_feedback
- Pattern-Key: ops.restart-after-config
- Recurrence-Count: 2
- First-Seen: 2026-03-11
- Last-Seen: 2026-03-20

---

"""),
            Entry(id="LRN-20260314-002", summary="数据库连接池默认只有 10 个连接，高峰期会排队",
                  status="resolved", priority="medium", problems=(Problem("not-utf8", required=False),), text="""\
## [LRN-20260314-002] knowledge_gap

**Logged**: 2026-03-14T16:02:00+08:00
**Priority**: medium
**Status**: resolved
**Area**: backend

### 摘要
数据库连接池默认只有 10 个连接，高峰期会排队

### 详情
压测时接口 P99 从 80ms 升到 2s，连接池耗尽。

### 建议
把 `pool_size` 调到 50，并加上连接数告警。

### Metadata
- Source: conversation
- Tags: 数据库, 性能

---
"""),
        )),
        "ERRORS.md": File(parts=(
            Text("# 错误记录\n\n"),
            Entry(id="ERR-20260318-001", summary="pip 安装依赖超时，需要使用国内镜像源",
                  status="pending", priority="medium", text=f"""\
## [ERR-20260318-001] pip_install

**Logged**: 2026-03-18T09:00:00Z
**Priority**: medium
**Status**: pending
**Area**: infra

### 总结
pip 安装依赖超时，需要使用国内镜像源

### 错误
{FENCE}
ReadTimeoutError: HTTPSConnectionPool(host='files.pythonhosted.org', port=443): Read timed out.
{FENCE}

### 建议修复
使用 `pip install -i https://pypi.tuna.tsinghua.edu.cn/simple` 安装依赖。

### Metadata
- Reproducible: yes
- Related Files: requirements.txt

---
"""),
        )),
    },
    root={"AGENTS.md": ""},
    round_trip=RoundTrip("ERR-20260318-001", "AGENTS.md", "Use the Tsinghua PyPI mirror when pip install times out."),
))

# ---- 3. summaries in the header title and in **What happened**; annotated counts; bold keys ------
STORES.append(Store(
    name="title-summaries-cli",
    styles=("summary only in the header title", "**What happened**: paragraphs", "Recurrence-Count 3+ / 8+ / 2 (…)",
            "bold **Pattern-Key**", "list - Pattern-Key outside ### Metadata"),
    learnings={
        "LEARNINGS.md": File(parts=(
            Text("# Learnings\n\n"),
            Entry(id="LRN-20260320-001", summary="Use pnpm not npm", status="pending", priority="high",
                  recurrence_count=3, pattern_key="tooling.package-manager", text="""\
## [LRN-20260320-001] Use pnpm not npm

**Logged**: 2026-03-20
**Priority**: high
**Status**: pending

The repo has a pnpm-lock.yaml; npm install created a second lockfile and broke CI.

**Pattern-Key**: tooling.package-manager
**Recurrence-Count**: 3+

---

"""),
            Entry(id="LRN-20260322-002", summary="Never commit .env.local", status="resolved",
                  recurrence_count=2, pattern_key="git.secrets", text="""\
## [LRN-20260322-002] Never commit .env.local

**What happened**: I staged .env.local with the Stripe test key while committing the checkout fix.
**Lesson**: .env.local is for local secrets only; it is in .gitignore for a reason.
**Status**: resolved

- Pattern-Key: git.secrets
- Recurrence-Count: 2 (this is the second occurrence)

---

"""),
            Entry(id="LRN-20260325-003", summary="The user asked for a dry run and I ran the migration for real.",
                  status="pending", priority="medium", recurrence_count=8, pattern_key="workflow.dry-run", text="""\
## [LRN-20260325-003] correction

**Logged**: 2026-03-25T11:40:00Z
**Priority**: medium
**Status**: pending

**What happened**: The user asked for a dry run and I ran the migration for real.
**Why it matters**: The staging database had to be restored from the nightly backup.
**Next time**: Pass `--dry-run` whenever the user says "dry run" or "just show me".

### Metadata
- Pattern-Key: workflow.dry-run
- Recurrence-Count: 8+
- Last-Seen: 2026-04-02
"""),
        )),
        "FEATURE_REQUESTS.md": File(parts=(
            Entry(id="FEAT-20260326-001", summary="A --json flag for `acme deploy`", status="pending", priority="low", text="""\
## [FEAT-20260326-001] A --json flag for `acme deploy`

**Logged**: 2026-03-26
**Priority**: low
**Status**: pending

### User Context
The release dashboard scrapes the human output today and breaks on every wording change.

### Complexity Estimate
simple
"""),
        )),
    },
))

# ---- 4. decorated statuses, Severity instead of Priority, timestamps in Seen fields ----------------
STORES.append(Store(
    name="decorated-statuses",
    styles=("decorated statuses (emoji, dates, parentheses, ✓)", "**Severity**: HIGH without Priority",
            "full timestamps in First-Seen / Last-Seen", "list - Pattern-Key"),
    learnings={
        "ERRORS.md": File(parts=(
            Text("# Errors\n\n---\n\n"),
            Entry(id="ERR-20260317-001", summary="Docker build fails on Apple Silicon because the base image is amd64-only",
                  status="resolved", priority="high", recurrence_count=4, pattern_key="docker.platform", text=f"""\
## [ERR-20260317-001] docker_build

**Logged**: 2026-03-17T14:10:00+08:00
**Severity**: HIGH
**Status**: ✅ resolved (2026-03-17 15:05)

### Summary
Docker build fails on Apple Silicon because the base image is amd64-only

### Error
{FENCE}
exec /bin/sh: exec format error
{FENCE}

### Suggested Fix
Build with `--platform linux/amd64`, or move to the multi-arch base image.

### Metadata
- Pattern-Key: docker.platform
- Recurrence-Count: 4
- First-Seen: 2026-03-10T08:12:44Z
- Last-Seen: 2026-03-17T14:10:00+08:00

---

"""),
            Entry(id="ERR-20260318-002", summary="`make test` fails when the Postgres container is still starting",
                  status="resolved", priority="medium", text="""\
## [ERR-20260318-002] make_test

**Logged**: 2026-03-18T09:30:00Z
**Priority**: Medium
**Status**: Resolved ✓

### Summary
`make test` fails when the Postgres container is still starting

### Suggested Fix
Wait on `pg_isready` in the Makefile before running the tests.

### Metadata
- First-Seen: 2026-03-18 09:30:00
- Last-Seen: 2026-03-18 09:30:00

---

"""),
            Entry(id="ERR-20260319-003", summary="The e2e job times out on the shared runner",
                  status="pending", priority="low", text="""\
## [ERR-20260319-003] ci

**Logged**: 2026-03-19T18:00:00Z
**Severity**: Low
**Status**: pending (waiting on CI)

### Summary
The e2e job times out on the shared runner

### Context
Only on the shared runner pool; the dedicated runners pass in 6 minutes.

---

"""),
            Entry(id="ERR-20260321-004", summary="Prisma migrate fails with P3006 on the shadow database",
                  status="in_progress", priority="high", pattern_key="db.prisma-shadow", text="""\
## [ERR-20260321-004] prisma

**Logged**: 2026-03-21T11:11:00Z
**Severity**: high
**Status**: 🔄 in progress

### Summary
Prisma migrate fails with P3006 on the shadow database

### Metadata
- Pattern-Key: db.prisma-shadow
- First-Seen: 2026-03-21T11:11:00Z
"""),
        )),
        "LEARNINGS.md": File(parts=(
            Entry(id="LRN-20260322-001", summary="The staging API rate-limits at 100 requests a minute",
                  status="wont_fix", priority="medium", text="""\
## [LRN-20260322-001] knowledge_gap

**Logged**: 2026-03-22T08:00:00Z
**Priority**: medium
**Status**: won't fix (upstream limit)

### Summary
The staging API rate-limits at 100 requests a minute

### Details
Load tests against staging need a token from the perf team; nothing we can change.

---
"""),
        )),
    },
))

# ---- 5. near-miss headers, a cut-off header, a preamble heading that is no entry -----------------
STORES.append(Store(
    name="near-miss-headers",
    styles=("## ID title (no brackets)", "### [ID] title", "cut-off ## [ line", "## heading in the preamble"),
    learnings={
        "LEARNINGS.md": File(parts=(
            Text("""\
# Learnings

## Status Definitions

| Status | Meaning |
|---|---|
| pending | not yet addressed |
| resolved | fixed or answered |

---

"""),
            Entry(id="LRN-20260408-001", summary="Feature flags are read once at boot, so a flip needs a restart",
                  status="pending", priority="medium", text="""\
## [LRN-20260408-001] insight

**Logged**: 2026-04-08T13:00:00Z
**Priority**: medium
**Status**: pending

### Summary
Feature flags are read once at boot, so a flip needs a restart

---

"""),
            Entry(id="LRN-20260410-001", summary="Always run the linter before pushing", status="pending",
                  problems=(Problem("near-miss-header"),), text="""\
## LRN-20260410-001 Always run the linter before pushing

**Logged**: 2026-04-10
**Status**: pending

### Details
The pre-push hook is not installed on fresh clones, so lint errors reached CI twice.

---

"""),
            Entry(id="LRN-20260410-002", summary="Prefer `rg` over `grep -r` in large repos", status="resolved", priority="low",
                  problems=(Problem("near-miss-header"),), text="""\
### [LRN-20260410-002] Prefer `rg` over `grep -r` in large repos

**Logged**: 2026-04-10
**Priority**: low
**Status**: resolved

`grep -r` walked node_modules and took a minute; rg respects .gitignore.

---

"""),
            Text("## [LRN-2026\n\n", problems=(Problem("cut-off-header"),)),
            Entry(id="LRN-20260412-001", summary="The Storybook build needs Node 20", status="pending", priority="low", text="""\
## [LRN-20260412-001] knowledge_gap

**Logged**: 2026-04-12T10:00:00Z
**Priority**: low
**Status**: pending

### Summary
The Storybook build needs Node 20

### Metadata
- Source: error
"""),
        )),
        "ERRORS.md": File(parts=(
            Entry(id="ERR-20260411-001", summary="npm ci fails with ERESOLVE after the React upgrade", status="pending",
                  priority="high", problems=(Problem("near-miss-header"),), text=f"""\
## ERR-20260411-001 npm ci fails with ERESOLVE after the React upgrade

**Priority**: high
**Status**: pending

{FENCE}
npm ERR! code ERESOLVE
npm ERR! ERESOLVE unable to resolve dependency tree
{FENCE}
"""),
        )),
    },
))

# ---- 6. a dated journal, no final newline ---------------------------------------------------------
STORES.append(Store(
    name="dated-journal",
    styles=("dated headers ## 2026-05-27 title", "dated header without a title + **What happened**", "no final newline"),
    learnings={
        "LEARNINGS.md": File(final_newline=False, parts=(
            Text("# Learnings log\n\nOne entry per day something bit us.\n\n"),
            Entry(id="2026-05-27", summary="Fixed the build", problems=(Problem("dated-header", required=False),), text="""\
## 2026-05-27 Fixed the build

**What happened**: The release build failed because `tsc` picked up the test files.
**Fix**: Excluded `**/*.test.ts` in tsconfig.build.json.

"""),
            Entry(id="2026-05-28", summary="Deploy script needs AWS_PROFILE", problems=(Problem("dated-header", required=False),), text="""\
## 2026-05-28 Deploy script needs AWS_PROFILE

The deploy script silently used the default profile and pushed to the sandbox account.
Always export `AWS_PROFILE=prod-deploy` first.

"""),
            Entry(id="2026-05-29", summary="Spent an hour on a flaky test that only fails when TZ is not UTC.",
                  problems=(Problem("dated-header", required=False),), text="""\
## 2026-05-29

**What happened**: Spent an hour on a flaky test that only fails when TZ is not UTC.
**Lesson**: Run `TZ=UTC pnpm test` before calling a test flaky.
"""),
        )),
        "ERRORS.md": File(parts=(
            Entry(id="ERR-20260526-001", summary="`terraform plan` fails: the state lock is held by a crashed run",
                  status="resolved", priority="medium", text="""\
## [ERR-20260526-001] terraform

**Logged**: 2026-05-26T07:45:00Z
**Priority**: medium
**Status**: resolved

### Summary
`terraform plan` fails: the state lock is held by a crashed run

### Suggested Fix
Check the lock's owner in DynamoDB, then `terraform force-unlock ID` only if that run is dead.
"""),
        )),
    },
))

# ---- 7. an OpenClaw workspace with hand-promoted entries -----------------------------------------
_PROMOTED_BY_HAND = "- **Promoted**: SOUL.md (安全规则已强化)"
STORES.append(Store(
    name="openclaw-workspace",
    styles=("OpenClaw workspace (SOUL.md, IDENTITY.md, AGENTS.md)", "hand-promoted entries: **Status**: promoted + ### Resolution",
            "Chinese entries"),
    learnings={
        "LEARNINGS.md": File(parts=(
            Text("# LEARNINGS\n\n"),
            Entry(id="LRN-20260301-001", summary="不要在群聊里泄露主人的日程和住址", status="promoted", priority="critical",
                  recurrence_count=2, pattern_key="privacy.group-chat", hand_promoted=True, text=f"""\
## [LRN-20260301-001] correction

**Logged**: 2026-03-01T20:11:00+08:00
**Priority**: critical
**Status**: promoted
**Area**: config

### Summary
不要在群聊里泄露主人的日程和住址

### Details
在群聊中回答"他明天在哪"时直接给出了酒店地址。

### Suggested Action
涉及主人隐私的问题一律先私聊确认。

### Resolution
- **Resolved**: 2026-03-02
{_PROMOTED_BY_HAND}
- **Notes**: 已写入 SOUL.md 的"边界"部分

### Metadata
- Source: user_feedback
- Pattern-Key: privacy.group-chat
- Recurrence-Count: 2
- First-Seen: 2026-03-01
- Last-Seen: 2026-03-01

---

"""),
            Entry(id="LRN-20260304-002", summary="Check the calendar skill's timezone before quoting a meeting time",
                  status="promoted", priority="high", hand_promoted=True, text="""\
## [LRN-20260304-002] best_practice

**Logged**: 2026-03-04T08:30:00+08:00
**Priority**: high
**Status**: promoted

### Summary
Check the calendar skill's timezone before quoting a meeting time

### Suggested Action
Convert every meeting time to the owner's timezone (Asia/Shanghai) before answering.

### Resolution
- **Resolved**: 2026-03-05
- **Promoted**: AGENTS.md
- **Notes**: added under "Every Session"

---

"""),
            Entry(id="LRN-20260402-003", summary="心跳检查时不要重复发送同一条提醒", status="pending", priority="medium", text="""\
## [LRN-20260402-003] correction

**Logged**: 2026-04-02T21:00:00+08:00
**Priority**: medium
**Status**: pending

### Summary
心跳检查时不要重复发送同一条提醒

### Suggested Action
发送提醒前先查 memory/heartbeat-state.json 里的上次发送时间。
"""),
        )),
    },
    root={
        "SOUL.md": """\
# SOUL.md - 我是谁

## 核心原则
- 真诚地帮忙，不表演。
- 可以有自己的看法，但要说明理由。

## 边界
- 私密的事情保持私密。
- 涉及主人隐私的问题一律先私聊确认。
""",
        "IDENTITY.md": """\
# IDENTITY.md

- **Name:** 小爪
- **Creature:** 住在终端里的猫
- **Vibe:** 安静、可靠
""",
        "AGENTS.md": """\
# AGENTS.md - The Workspace

This folder is home; keep it tidy.

## Every Session
1. Read `SOUL.md` and `USER.md`.
2. Read today's note in `memory/`.
3. Convert every meeting time to the owner's timezone (Asia/Shanghai) before answering.

## Safety
- Never send private data outside this machine.
- Prefer `trash` to `rm`.
""",
    },
    round_trip=RoundTrip("LRN-20260301-001", "AGENTS.md", "In group chats, never reveal the owner's schedule or address."),
    user_lines=(_PROMOTED_BY_HAND,),
))

# ---- 8. review candidates whose Suggested Action ends in a fence, a step or a note ---------------
STORES.append(Store(
    name="review-fragments",
    styles=("Suggested Action ending in a code fence", "a numbered step ('Then click …')", "'suggest writing this into memory'",
            "an action that is only a code block", "one clean rule", "CLAUDE.md with user text"),
    learnings={
        "LEARNINGS.md": File(parts=(
            Text("# Learnings\n\n---\n\n"),
            Entry(id="LRN-20260512-001", summary="A stale page after a deploy was the Next.js build cache, not the CDN",
                  status="pending", priority="medium", recurrence_count=3, pattern_key="nextjs.build-cache",
                  fragments=(FENCE, "rm -rf .next/cache"), text=f"""\
## [LRN-20260512-001] knowledge_gap

**Logged**: 2026-05-12T10:00:00Z
**Priority**: medium
**Status**: pending
**Area**: frontend

### Summary
A stale page after a deploy was the Next.js build cache, not the CDN

### Suggested Action
Clear the Next.js cache before debugging a stale page:
{FENCE}bash
rm -rf .next/cache
{FENCE}

### Metadata
- Pattern-Key: nextjs.build-cache
- Recurrence-Count: 3
- First-Seen: 2026-05-12
- Last-Seen: 2026-05-27
{OCCURRENCES}

---

"""),
            Entry(id="LRN-20260513-002", summary="The music player test clicks before the sidebar has rendered",
                  status="pending", priority="low", recurrence_count=3, pattern_key="e2e.sidebar-wait",
                  fragments=("Then click the first music item within that sidebar.",), text=f"""\
## [LRN-20260513-002] correction

**Logged**: 2026-05-13T15:20:00Z
**Priority**: low
**Status**: pending
**Area**: tests

### Summary
The music player test clicks before the sidebar has rendered

### Suggested Action
1. Open the sidebar with the hamburger button.
2. Wait until the playlist panel is visible.
3. Then click the first music item within that sidebar.

### Metadata
- Pattern-Key: e2e.sidebar-wait
- Recurrence-Count: 3
- First-Seen: 2026-05-12
- Last-Seen: 2026-05-27
{OCCURRENCES}

---

"""),
            Entry(id="LRN-20260514-003", summary="Date tests fail on laptops outside UTC",
                  status="pending", priority="medium", recurrence_count=3, pattern_key="tests.timezone",
                  fragments=("(suggest writing this into memory)", "suggest writing this into memory"), text=f"""\
## [LRN-20260514-003] best_practice

**Logged**: 2026-05-14T08:05:00Z
**Priority**: medium
**Status**: pending

### Summary
Date tests fail on laptops outside UTC

### Suggested Action
Set `TZ=UTC` in the test script so date tests are stable.

(suggest writing this into memory)

### Metadata
- Pattern-Key: tests.timezone
- Recurrence-Count: 3
- First-Seen: 2026-05-12
- Last-Seen: 2026-05-27
{OCCURRENCES}

---

"""),
            Entry(id="LRN-20260515-004", summary="Generated gRPC stubs drift when a .proto changes without `make proto`",
                  status="pending", priority="high", recurrence_count=3, pattern_key="build.proto-stubs", text=f"""\
## [LRN-20260515-004] best_practice

**Logged**: 2026-05-15T09:00:00Z
**Priority**: high
**Status**: pending

### Summary
Generated gRPC stubs drift when a .proto changes without `make proto`

### Suggested Action
Run `make proto` after editing any .proto file; the generated stubs are committed.

### Metadata
- Pattern-Key: build.proto-stubs
- Recurrence-Count: 3
- First-Seen: 2026-05-12
- Last-Seen: 2026-05-27
{OCCURRENCES}

---

"""),
            Entry(id="LRN-20260516-005", summary="Merge commits from `git pull` clutter the history",
                  status="pending", priority="low", recurrence_count=3, pattern_key="git.pull-rebase",
                  fragments=(FENCE, "git config --global pull.rebase true"), text=f"""\
## [LRN-20260516-005] best_practice

**Logged**: 2026-05-16T17:45:00Z
**Priority**: low
**Status**: pending

### Summary
Merge commits from `git pull` clutter the history

### Suggested Action
{FENCE}
git config --global pull.rebase true
{FENCE}

### Metadata
- Pattern-Key: git.pull-rebase
- Recurrence-Count: 3
- First-Seen: 2026-05-12
- Last-Seen: 2026-05-27
{OCCURRENCES}
"""),
        )),
    },
    root={"CLAUDE.md": """\
# Project notes

Monorepo: apps/ (Next.js), services/ (Go, gRPC), proto/.

- Run `make proto` before `go build ./...`.
- Tests: `pnpm test` for apps, `go test ./...` for services.
"""},
    round_trip=RoundTrip("LRN-20260515-004", "CLAUDE.md"),
))

# ---- 9. the problems lint must keep reporting ----------------------------------------------------
STORES.append(Store(
    name="lint-real-problems",
    styles=("duplicate IDs", "leftover template entry", "FR- id", "date id", "an entry with no summary anywhere"),
    learnings={
        "LEARNINGS.md": File(parts=(
            Text("# Learnings\n\n"),
            Entry(id="LRN-YYYYMMDD-XXX", summary=None, problems=(Problem("template-entry", span=True),), text="""\
## [LRN-YYYYMMDD-XXX] category

**Logged**: ISO-8601 timestamp
**Priority**: low | medium | high | critical
**Status**: pending
**Area**: frontend | backend | infra | tests | docs | config

### Summary
One line: what was learned

### Details
What happened, what was wrong, what is right

### Suggested Action
The fix or improvement to make

### Metadata
- Source: conversation | error | user_feedback
- Related Files: path/to/file.ext
- Tags: tag1, tag2

---

"""),
            Entry(id="LRN-20260402-001", summary="The CSV export must quote fields that contain a semicolon",
                  status="resolved", priority="medium", problems=(Problem("duplicate-id", group="LRN-20260402-001"),), text="""\
## [LRN-20260402-001] correction

**Logged**: 2026-04-02T10:00:00Z
**Priority**: medium
**Status**: resolved

### Summary
The CSV export must quote fields that contain a semicolon

---

"""),
            Entry(id="LRN-20260402-001", summary="Money is stored in cents; never divide before formatting",
                  status="pending", priority="high", problems=(Problem("duplicate-id", group="LRN-20260402-001"),), text="""\
## [LRN-20260402-001] knowledge_gap

**Logged**: 2026-04-02T15:30:00Z
**Priority**: high
**Status**: pending

### Summary
Money is stored in cents; never divide before formatting

### Suggested Action
Format with `formatCents()`; it divides once, at the edge.

---

"""),
            Entry(id="2026-04-05", summary="The staging seed script wipes the uploads bucket", status="pending", priority="high",
                  problems=(Problem("date-id"),), text="""\
## [2026-04-05] correction

**Logged**: 2026-04-05
**Priority**: high
**Status**: pending

### Summary
The staging seed script wipes the uploads bucket

---
"""),
        )),
        "ERRORS.md": File(parts=(
            Entry(id="ERR-20260406-001", summary=None, status="pending", priority="medium",
                  problems=(Problem("no-summary", required=False),), text=f"""\
## [ERR-20260406-001] build_failure

**Logged**: 2026-04-06T12:00:00Z
**Priority**: medium
**Status**: pending

### Error
{FENCE}
FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory
{FENCE}

---

"""),
            Entry(id="ERR-20260407-002", summary="`docker compose up` fails: port 5432 already in use",
                  status="resolved", priority="low", text="""\
## [ERR-20260407-002] docker

**Logged**: 2026-04-07T08:00:00Z
**Priority**: low
**Status**: resolved

### Summary
`docker compose up` fails: port 5432 already in use

### Suggested Fix
Stop the Homebrew Postgres (`brew services stop postgresql`) before starting the stack.
"""),
        )),
        "FEATURE_REQUESTS.md": File(parts=(
            Text("# Feature Requests\n\n"),
            Entry(id="FR-20260409-001", summary="Dark mode for the admin dashboard", status="pending", priority="low",
                  problems=(Problem("fr-id"),), text="""\
## [FR-20260409-001] dark_mode

**Logged**: 2026-04-09
**Priority**: low
**Status**: pending

### Requested Capability
Dark mode for the admin dashboard

### User Context
Support staff work night shifts on the dashboard.
"""),
        )),
    },
))

# ---- 10. Spanish and German section names, CRLF ---------------------------------------------------
STORES.append(Store(
    name="spanish-german",
    styles=("### Resumen (Spanish)", "### Zusammenfassung (German)", "CRLF"),
    learnings={
        "LEARNINGS.md": File(crlf=True, parts=(
            Entry(id="LRN-20260415-001", summary="Usar `npm ci` en CI en lugar de `npm install`", status="pending",
                  priority="high", recurrence_count=2, pattern_key="ci.npm-ci", text="""\
## [LRN-20260415-001] correction

**Logged**: 2026-04-15T10:00:00Z
**Priority**: high
**Status**: pending

### Resumen
Usar `npm ci` en CI en lugar de `npm install`

### Detalles
`npm install` reescribió package-lock.json en el runner y el build no era reproducible.

### Acción sugerida
Cambiar el paso de instalación del workflow a `npm ci`.

### Metadata
- Pattern-Key: ci.npm-ci
- Recurrence-Count: 2

---

"""),
            Entry(id="LRN-20260417-002", summary="Las fechas de la API vienen en UTC, no en hora local", status="resolved",
                  priority="medium", text="""\
## [LRN-20260417-002] knowledge_gap

**Logged**: 2026-04-17T09:00:00Z
**Priority**: medium
**Status**: resolved

### Resumen
Las fechas de la API vienen en UTC, no en hora local

---
"""),
        )),
        "ERRORS.md": File(crlf=True, parts=(
            Entry(id="ERR-20260416-001", summary="Gradle-Build schlägt fehl, weil JAVA_HOME auf JDK 8 zeigt",
                  status="resolved", priority="medium", text=f"""\
## [ERR-20260416-001] gradle

**Logged**: 2026-04-16T14:00:00Z
**Priority**: medium
**Status**: resolved

### Zusammenfassung
Gradle-Build schlägt fehl, weil JAVA_HOME auf JDK 8 zeigt

### Fehler
{FENCE}
Unsupported class file major version 61
{FENCE}

### Lösungsvorschlag
JAVA_HOME auf JDK 17 setzen, bevor `./gradlew build` läuft.
"""),
        )),
    },
))

# ---- 11. one Latin-1 byte in a UTF-8 file; an empty CLAUDE.md -------------------------------------
STORES.append(Store(
    name="latin1-byte",
    styles=("a stray Latin-1 byte in a UTF-8 file (undecodable)", "0-byte CLAUDE.md"),
    learnings={
        "ERRORS.md": File(parts=(
            Entry(id="ERR-20260420-001", summary='Snapshot tests fail on machines with a French locale — dates render as "20 avr."',
                  status="pending", priority="low", problems=(Problem("undecodable", offsets=(0, 15)),), text=f"""\
## [ERR-20260420-001] locale

**Logged**: 2026-04-20
**Priority**: low
**Status**: pending

### Summary
Snapshot tests fail on machines with a French locale — dates render as "20 avr."

### Error
{FENCE}
Expected: "Apr 20"  Received: "20 avr."
{FENCE}

### Context
The menu fixture says "caf{LATIN1_E} crème", pasted from a Windows-1252 export.

### Suggested Fix
Pin `LANG=en_US.UTF-8` in the test script.

---

"""),
            Entry(id="ERR-20260421-002", summary="`make docs` needs Graphviz for the diagrams", status="resolved",
                  priority="low", text="""\
## [ERR-20260421-002] make_docs

**Logged**: 2026-04-21
**Priority**: low
**Status**: resolved

### Summary
`make docs` needs Graphviz for the diagrams
"""),
        )),
    },
    root={"CLAUDE.md": ""},
    round_trip=RoundTrip("ERR-20260421-002", "CLAUDE.md", "Install Graphviz before running `make docs`."),
))

# ---- 12. GBK text in review candidates (the promote crash, garbled rules) --------------------------
STORES.append(Store(
    name="gbk-review",
    promote_probes=("LRN-20260512-001",),
    styles=("GBK-encoded review candidates", "'建议写入记忆' note", "AGENTS.md with Chinese user text"),
    learnings={
        "LEARNINGS.md": File(encoding="gbk", parts=(
            Entry(id="LRN-20260512-001", summary="提交代码前没有运行格式检查，CI 失败", status="pending", priority="high",
                  recurrence_count=3, pattern_key="ci.lint-before-commit", problems=(Problem("not-utf8", required=False),), text=f"""\
## [LRN-20260512-001] correction

**Logged**: 2026-05-12T09:00:00+08:00
**Priority**: high
**Status**: pending

### Summary
提交代码前没有运行格式检查，CI 失败

### Suggested Action
提交前先运行 `make lint`，CI 会拒绝格式不对的代码。

### Metadata
- Pattern-Key: ci.lint-before-commit
- Recurrence-Count: 3
- First-Seen: 2026-05-12
- Last-Seen: 2026-05-27
{OCCURRENCES}

---

"""),
            Entry(id="LRN-20260513-002", summary="用户说过回复要简短，我又写了长篇说明", status="pending", priority="medium",
                  recurrence_count=3, pattern_key="style.short-replies", fragments=("（建议写入记忆）", "建议写入记忆"),
                  problems=(Problem("not-utf8", required=False),), text=f"""\
## [LRN-20260513-002] correction

**Logged**: 2026-05-13T20:00:00+08:00
**Priority**: medium
**Status**: pending

### Summary
用户说过回复要简短，我又写了长篇说明

### Suggested Action
回复控制在三句话以内，除非用户要求详细说明。

（建议写入记忆）

### Metadata
- Pattern-Key: style.short-replies
- Recurrence-Count: 3
- First-Seen: 2026-05-12
- Last-Seen: 2026-05-27
{OCCURRENCES}

---

"""),
            Entry(id="LRN-20260514-003", summary="本地数据库迁移要先备份", status="pending", priority="high",
                  recurrence_count=3, pattern_key="db.backup-before-migrate", fragments=(FENCE, "pg_dump app > backup.sql"),
                  problems=(Problem("not-utf8", required=False),), text=f"""\
## [LRN-20260514-003] best_practice

**Logged**: 2026-05-14T10:00:00+08:00
**Priority**: high
**Status**: pending

### Summary
本地数据库迁移要先备份

### Suggested Action
{FENCE}
pg_dump app > backup.sql
{FENCE}

### Metadata
- Pattern-Key: db.backup-before-migrate
- Recurrence-Count: 3
- First-Seen: 2026-05-12
- Last-Seen: 2026-05-27
{OCCURRENCES}
"""),
        )),
    },
    root={"AGENTS.md": """\
# AGENTS.md

## 工作约定
- 所有回复使用中文。
- 修改代码后运行 `make test`。
"""},
    round_trip=RoundTrip("LRN-20260512-001", "AGENTS.md", "提交前先运行 `make lint`，CI 会拒绝格式不对的代码。"),
))
