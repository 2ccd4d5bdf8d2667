"""self_improve.detect.corrections_zh: the general forms added for issue 13 (Chinese: house norms, version facts, praise then 不过, polite disagreement, reproach, 你…把…了 with adverbs, contrast without a comma, restating, Traditional characters), each
pinned to the pattern that names it, and the hard negatives their vetoes keep out (sentences
written for these tests, in no data file)."""

from __future__ import annotations

import pytest

from self_improve.detect.corrections import CorrectionHit
from tests.detect.pattern_hits import pattern_hit


@pytest.mark.parametrize(("text", "pattern"), [
    ('我们组里的 proto 文件必须放在 api/ 下面，你放到 internal 了', 'zh.house-norm'),
    ('所有的 SQL 都走 sqlc 生成，手写的那几条删掉', 'zh.house-norm'),
    ('已经发布过的 migration 不能再改，重新加一个', 'zh.house-norm'),
    ('照着隔壁 payment 模块的写法来，别另起炉灶', 'zh.house-norm'),
    ('WebGL 2 以后这个扩展就不需要了，内置了', 'zh.factual-2'),
    ('这个 hook 只有 React 18 才有，我们还在 17', 'zh.factual-2'),
    ('你那个 nginx 配置是 1.18 的写法，现在是 1.25', 'zh.factual-2'),
    ('代码挺干净的，不过有一处把 i/o 放在了主线程', 'zh.after-praise-2'),
    ('思路是对的，问题是并发下会重复写', 'zh.after-praise-2'),
    ('可能是我没说清楚，要的是按周聚合', 'zh.hedged-4'),
    ('冒昧问一句，这个锁真的会释放吗', 'zh.hedged-3'),
    ('这个重试我不太认同，接口本身不是幂等的', 'zh.hedged-4'),
    ('把超时设成 2 秒有点短了，冷启动都不止', 'zh.hedged-4'),
    ('都没编译你就说改好了？', 'zh.reproach-2'),
    ('谁跟你说要兼容 Python 3.6 的', 'zh.reproach-2'),
    ('我哪里说过要删掉旧接口？', 'zh.reproach-2'),
    ('你刚刚把 .gitignore 整个覆盖了', 'zh.you-did-2'),
    ('你这次压根没跑 e2e', 'zh.you-did-2'),
    ('你改完以后 CI 变成红的了', 'zh.you-did-2'),
    ('是 int64 不是 int32', 'zh.contrast-2'),
    ('按我刚才说的来，只动 parser', 'zh.restate-2'),
    ('需求里写得很清楚，导出要带时区', 'zh.restate-2'),
    ('我說過了，不要動 vendor 目錄', 'zh.trad-2'),
    ('這樣不對，時間要用 UTC', 'zh.trad'),
    ('我们这边一律用 UTC 存时间，你刚才写的是本地时间，改一下。', 'zh.house-rule'),
    ('按仓库现有的风格，常量都放在 consts.go 里，你这里又单独建了文件。', 'zh.house-rule'),
    ('我觉得加三层抽象有点过头了', 'zh.hedged'),
    # issue 13 (train6): the vetoes of new work after a rule and of 没有，<fact> leave these alone
    ('我们这边接口一律返回 ISO 时间，你刚才写的接口返回的是时间戳，改一下。', 'zh.house-rule'),
    ('项目里不准用 lombok，你又加上了，删掉。', 'zh.dont'),
    ('不是的，是 UTC，不是本地时间，你写错了。', 'zh.wrong'),
    ('没必要这么复杂，就一个函数就行。', 'zh.still-broken'),
    # issue 13 (train7): the vetoes of rules before new work, of reported advice and of questions leave these alone
    ('金额字段我们统一用 decimal，你建的退款表用了 float，改掉。', 'zh.house-rule'),
    ('发布后的稿件链接不许再改，你刚才的改动把链接也改了。', 'zh.dont'),
    ('日志统一放在 /var/log/app/ 下面，你写的配置放到 /tmp 了。', 'zh.house-rule'),
    ('不要用 ORM，你又引入了 gorm，删掉。', 'zh.dont'),
    ('我们从来不硬删客户数据，你写的注销接口直接 DELETE 了。', 'zh.house-rule'),
    ('基础镜像一律按 digest 锁定，你的 Dockerfile 用了 latest。', 'zh.house-rule'),
    # issue 13 (train8): a fact or a rule, then the agent's work named; reproach and hedges of other shapes
    ('航班号是 IATA 的两位码，你返回的是 ICAO 三位码', 'zh.then-yours'),
    ('结算必须 T+2，你对账程序按当天算了', 'zh.rule-then-you'),
    ('时间戳要毫秒，你存成了秒', 'zh.then-yours'),
    ('关掉告警也算解决？', 'zh.more-2'),
    ('自从你重构了调度器，夜间任务就不跑了', 'zh.more-2'),
    ('感觉为这点数据上消息队列太重了', 'zh.hedged-5'),
    ('页面挺好看的，可惜移动端按钮点不到', 'zh.after-praise-3'),
    # issue 13 (train9): the vetoes of asking about an error, of somebody else's work and of
    # 没必要…，先… leave these alone
    ('你写的导出日期全错了，帮我查一下', 'zh.wrong'),
    ('说好的不用第三方库呢？', 'zh.still-broken'),
    ('你把接口搞坏了，先回滚', 'zh.still-broken'),
    ('我们从不在前端存 token，你写的登录把 token 放 localStorage 了', 'zh.house-rule'),
    # issue 13 (train10): naming the agent's work, or a fact it got wrong, keeps them corrections
    ('我们的规范是金额保留两位小数，你写的报表保留了四位', 'zh.house-rule'),
    ('那是 boto2 的老接口，boto3 里没有', 'zh.factual'),
    ('第一版没必要做导出，你先把列表页做完就行。', 'zh.still-broken'),
    # round 11: a replacement named by its tool names, a name or version fact, a leading No with a
    # prohibition or replacement, the same failure after the change
    ('时间戳用 int64 而不是 int32，2038 年会溢出', 'zh.instead-3'),
    ('用 zod 代替 joi 吧', 'zh.instead-3'),
    ('队列用 kafka，不要 rabbitmq', 'zh.instead-3'),
    ('改用 ruff format 吧，black 太慢了', 'zh.instead-3'),
    ('k8s 里那个选项叫 imagePullPolicy', 'zh.factual-3'),
    ('那个 api 在 3.11 才加入，我们线上是 3.9', 'zh.factual-3'),
    ('不是，这个表名不能改，报表都在查它', 'zh.no-2'),
    ('不是，用 staging 那个', 'zh.no-2'),
    ('不是这个原因，内存是被缓存吃掉的', 'zh.no-2'),
    ('重启了还是连不上数据库', 'zh.still-after'),
])
def test_general_forms(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "zh")


@pytest.mark.parametrize("text", [
    '帮我写个 ETL 脚本，我们所有表都按日期分区',
    '我们的服务必须支持 ipv6 吗？',
    '同事说我这个 reducer 写法不对，你看看',
    '老代码里分页算错了，应该是从 0 开始，帮我修',
    '测试说导出的 Excel 不对，列顺序乱了',
    '思路没问题，但是我想先跑个 benchmark',
    '不用搞得太复杂，写个 cron 就行',
    '这种情况用 dict 快还是用 list 快？',
    # issue 13 (train5_b): house rules before the coming work, questions, answers, no-need up front
    '这是我们的规矩：接口都要有鉴权。先帮我把用户模块搭起来。',
    '我们组向来不用 ORM，待会儿写的报表查询直接用 SQL。',
    '有什么理由不把这些配置放到 etcd 里？',
    '是不是应该加个重试？',
    '不是，是内部的 harbor，不是 docker hub。',
    '不是正式库，是我本地的，随便清。',
    '没必要弄得太复杂，来一个最简单的版本。',
    '没必要上 k8s，写个 docker-compose 就好',
    '你刚才把哪个配置改了？',
    '可能是我理解错了，能讲讲 raft 的选主吗？',
    '好的，完美，就是这个',
    '升级到 go 1.22 以后 loopvar 有什么变化？',
    # issue 13 (train6): a request at a later sentence start, 没有，<fact>, a supplied artefact, 没必要…就行
    '我们这边接口一律返回 ISO 时间。写个查询工单的接口。',
    '项目里不准用 lombok，帮我写用户实体类。',
    '团队约定日志都走 stdout，给新的计费服务建一份 logback 配置。',
    '没有，测试机上没有 GPU，先用 CPU 跑。',
    '不是的，证书是运维那边签发的，不是我们自己生成。',
    '外包交付的 SDK 里签名算法写错了，帮我封一层修正。',
    '没必要做成插件，直接写死在 main 里就行。',
    # issue 13 (train7): a rule, then new work at a later sentence (现在要新建…, 接下来给…做, 给…配一份, 你先…搭起来);
    # a request opener without a measure word; advice reported from others; a question about the user's plan;
    # somebody else's docs judged
    '我们的规范是所有金额字段都用 decimal(18,2)。现在要新建一张退款流水表。',
    '发布后的稿件链接不许再改，这是编辑部定的。接下来给专题页做一个聚合列表。',
    '日志统一放在 /var/log/app/ 下面，按天切分。给对账服务配一份 logrotate。',
    '所有设备上报都要带签名，这个是安全组要求的，新接的温控器你先把对接搭起来。',
    '开发一个工时统计模块，不要用 ORM。',
    '为什么网上都说不要用 float 存钱？',
    '晚上跑全量同步会不会有问题？',
    '支付宝开放平台的文档写得有问题，退款金额单位是分不是元，封装层按分来。',
    '我们这边客户数据从来不硬删，只做软删除。账号注销的接口要加一下。',
    '基础镜像一律按 digest 锁定。新的地理编码服务的 Dockerfile 麻烦出一份。',
    '提醒一下，我们不用 moment.js，全部 date-fns。排班日历组件交给你了。',
    '上游维护者说这个参数 3.2 就废弃了，把我们的配置迁到新参数上。',
    '测试发现用两次优惠券的时候总额算错了，帮忙找下 bug。',
    '老版本的导出脚本把时区搞错了，统一改成 UTC。',
    # issue 13 (train8): a rule before new work, somebody's data judged, praise of the agent's work, the user's own plan
    '结算必须 T+2。你帮我写个对账程序',
    'OSM 上这片小区的门牌号都不对，加一份人工校正表',
    '好的，你的方案可以，继续',
    '接口是分页的，你的客户端要读响应头里的 next',
    '所有接口都要鉴权，你设计的时候注意一下',
    '没问题，你的 PR 我晚点看',
    '我们预算有限，你用了 GPU 的话成本会很高，先用 CPU 方案',
    '我打算把老数据一次性全迁过去，会不会有点激进？',
    '用 Rust 写个限流中间件，不要 unsafe',
    # issue 13 (train9): an error of the user's own to investigate, somebody else broke it, "not needed now,
    # do X first", a rule before work on something new
    '同事写的对账脚本金额全错了，帮我看看 recon.py',
    '导出的 Excel 日期格式不对，能修一下吗',
    '供应商把接口搞坏了，先加个重试',
    '现阶段没必要做多租户，先只做单个园区的版本。',
    '我们从不在前端存 token，给小程序写登录的时候注意一下。',
    # issue 13 (train10): the user's own code, legacy code, a rule before a request (请在…里实现; X那块，做一个…),
    # "not needed in v1" before a new request
    '我这边的对账脚本好像哪里算错了，附上日志',
    '老的排班模块把节假日写死了，早就不对了，规划一下重构',
    '结算系统规定：退款只能原路返回。请在 refund.py 里实现部分退款。',
    '排班那块，做一个按月汇总的视图。我们的规范是工时保留一位小数。',
    '第一版没必要做导出，失败了记日志就行。做一个列表页。',
    # round 11: "instead" for new work, a rule before a request (记住这一点 / 帮我把…拆成), 客户端 is a program
    '新的日志模块用 loguru 而不是 logging',
    '用 httpx 而不是 requests 写一个新的爬虫',
    '我们从不在日志里打手机号。记住这一点，给短信服务加上埋点',
    '这个仓库的提交信息一律用英文，帮我把这些改动拆成三个提交',
    '新表的主键字段叫 order_id',
    # round 12: what was agreed introduces the next task, a rule of legal or compliance, the user's own doubt, a rename asked for
    '按上次商量好的，接下来做消息中心，先出接口文档。',
    '和昨天定好的一样，现在开始写导入脚本。',
    '合规要求日志里一律不能出现身份证号，写审计模块时注意。',
    '我怀疑是索引没建好，帮我看看慢查询日志。',
    '帮我把 order_service 重命名为 billing_service。',
])
def test_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None


# round 12: the same shapes where the agent's work is wrong stay corrections.
@pytest.mark.parametrize(("text", "pattern"), [
    ("说好的不加新依赖，你却装了 lodash", "zh.still-broken"),
    ("我们团队一律不用 var，你写的全是 var", "zh.house-rule"),
    ("这个参数在 2.0 里已经重命名为 max_retries 了", "zh.factual"),
])
def test_round12_corrections(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "zh")


# round 13: a refusal that judges the proposal, stop as the first word, more than needed, the failure
# still there, "其实，" with a comma.
@pytest.mark.parametrize(("text", "pattern"), [
    ("不行，这种写法会导致死锁", "zh.no-reject"),
    ("不要，那个库太老了，换一个", "zh.no-reject"),
    ("停下，我先看看日志", "zh.stop-2"),
    ("用不着这么多层封装，一个函数够了", "zh.unneeded-2"),
    ("依然闪退，日志和刚才一样", "zh.still-2"),
    ("照样 502，nginx 那边没变化", "zh.still-2"),
    ("其实，接口名还是用单数吧", "zh.actually"),
])
def test_round13_corrections(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "zh")


# round 13: the user's own doubt about what they did, a 不是 answering which environment, a request for a
# chart up front, the user's own failure to investigate: no pattern hit.
@pytest.mark.parametrize("text", [
    "我是不是把端口写错了？连不上数据库",
    "不知道是不是我把证书放错目录了，帮我检查一下",
    "是我漏装了什么依赖吗？",
    "不是生产服务器，是我自己的开发机",
    "帮我画张各部门预算的饼图，不要用 plotly",
    "测试环境依然报错，帮我排查一下",
    "照样可以用，不影响",
])
def test_round13_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None
