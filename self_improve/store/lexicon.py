"""Words for comparing one-line lessons (``store/profile.py``, ``store/duplicates.py``): data only, no imports.

- ``STOP``: function words of en, es, de, fr, pt, ru (and modal verbs, generic verbs such as
  "use" or "run") that say nothing about which lesson it is.
- ``CJK_STOP``: the same for Chinese and Japanese, as strings matched inside a run of CJK text.
- ``NEGATIONS`` / ``CJK_NEGATIONS``: cues after which a term is rejected ("not npm", "别用 npm"),
  and ``CONTRASTS``, the ones that also say what was preferred ("pnpm instead of npm").
- ``CONCEPTS``: a general glossary of software-development words, English and Chinese (a few
  Japanese), each group one concept: "delete", "remove", "删除" and "删掉" are one term, so
  that two wordings of a lesson, or the same lesson in two languages, share it. English words
  are matched by stem (``profile.stem``), CJK words as substrings of a CJK run, longest first.
  A concept written with a ``~`` weight prefix (``"~file"``) is generic and weighs less.

The lists are general vocabulary written for this purpose, not phrases of any test set.
"""

from __future__ import annotations

STOP_TEXT = """
a an the and or but of to in on at for with by from as is are was were be been being am it its it's
this that these those there here we our ours us you your yours i me my mine he she him her they them
their theirs do does did doing done have has had having will would shall should can could may might
must need needs needed ought so than then too very just also only even still yet already when while
where which who whom whose what how why if else because about into onto over under up down out off
again once all any both each every few more most other some such own same per via etc e.g i.e eg ie
always please sure remember one ones thing things something anything everything way ways lot
use uses used using run runs ran running call calls called calling get gets got getting let lets
put puts want wants like likes prefer prefers preferred try tries tried go goes going went gone
keep keeps kept new here's there's that's it's we're you're they're i'm let's able now today currently
anymore really actually basically simply instead either though although however yes execute executes
executed executing hoping hope everywhere anywhere somewhere elsewhere everyone anyone someone
el la los las un una unos unas y o pero de del al a en con por para como es son ser está están
que se lo le les su sus mi mis tu tus este esta estos estas ese esa eso antes después siempre usa
usar usa hacer haz
der die das den dem des ein eine einen einem einer und oder aber von zu im in am an auf mit für
als ist sind sein war wird werden es sie er wir ihr ich du dass vor nach immer erst dann jeden
jede jedes jedem benutze verwende verwenden nutzen lassen mit
le la les un une des et ou mais de du au aux en dans sur avec pour par comme est sont être il
elle ils elles nous vous je tu que qui ce cet cette ces son sa ses toujours utilise utiliser d l s
o a os as um uma uns umas e ou mas de do da dos das no na nos nas em com por para como é são ser
que se seu sua seus suas sempre antes depois use usar
и или но в во на с со к ко по для от до из у о об как это этот эта эти что чтобы то же всегда
используй использовать перед после в
"""

# Negation cues: a term right after one of these (up to the next clause boundary or preposition)
# is rejected. Multi-word cues are matched on the normalised text before tokens.
NEGATION_TEXT = """
not no never don't dont doesn't didn't isn't aren't wasn't won't shouldn't mustn't can't cannot
avoid avoids without stop nothing nor neither
nunca nada sin evita evitar ningún ninguna
nicht nie niemals kein keine keinen keinem ohne vermeide vermeiden
ne pas jamais sans évite éviter aucun aucune
não nunca sem evite evitar nenhum nenhuma
не нет никогда без избегай избегать нельзя
"""
# Cues that put the term after them on the rejected side and the one before on the preferred
# side ("pnpm instead of npm"). Phrases of several words.
CONTRASTS = (
    "instead of", "rather than", "in place of", "in lieu of", "en lugar de", "en vez de",
    "statt", "anstatt", "au lieu de", "plutôt que", "em vez de", "ao invés de", "вместо",
)
NEGATION_PHRASES = ("do not", "no longer", "is wrong", "are wrong", "not allowed", "no need")

CJK_NEGATIONS = (
    "而不是", "不是", "不要", "不用", "不再", "别再", "不能", "不准", "不可", "不得", "不许", "禁止", "避免", "别",
    "勿", "不", "没有", "无需", "ではなく", "しない", "しないこと", "ない", "禁止", "避ける", "使わない",
)
CJK_CONTRASTS = ("而不是", "不是", "ではなく", "代替", "改用", "换成", "替代")

CJK_STOP = (
    "的", "了", "是", "在", "和", "与", "及", "或", "也", "都", "就", "还", "要", "会", "能", "可以", "需要", "得",
    "请", "先", "再", "把", "被", "给", "让", "对", "这", "那", "这个", "那个", "一个", "一下", "每个", "所有",
    "任何", "统一", "一律", "一定", "必须", "应该", "记得", "注意", "时", "时候", "里", "中", "上", "下", "前",
    "后", "之前", "之后", "以后", "以前", "用", "使用", "采用", "通过", "走", "跑", "做", "写", "加", "搞",
    "执行", "运行", "进行", "的时候", "一下子", "点", "动手", "顺手",
    "我", "你", "我们", "他", "它", "它们", "咱们", "自己", "这里", "那里", "里面", "其", "等", "着", "过",
    "吧", "呢", "吗", "啊", "哦", "嗯", "还是", "只", "只能", "总是", "始终", "永远", "直接", "可", "才", "比如",
    "例如", "为", "为了", "因为", "所以", "但是", "但", "如果", "就是", "并", "并且", "而且", "同时", "一起",
    "个", "次", "些", "比", "更", "很", "太", "最", "下来", "起来", "进", "出", "到", "从", "向", "往", "于",
    "の", "は", "が", "を", "に", "で", "と", "も", "へ", "や", "する", "して", "した", "こと", "ます", "です",
    "る", "た", "て", "な", "だ", "から", "まで", "より", "毎", "常に", "必ず",
)

# A concept per line: its id, then its surfaces ("|"). English surfaces are stemmed when loaded;
# CJK ones are substrings. An id starting with "~" is a generic concept (lower weight).
CONCEPT_TEXT = """
delete|delete|deletes|deleted|deleting|deletion|remove|removes|removed|removing|removal|erase|rm|drop|drops|dropped|删除|删掉|删|移除|去掉|清掉|削除|消す|borrar|eliminar|elimina|löschen|lösche|entfernen|supprimer|supprime|apagar|remover|удалять|удали|удалить
ask|ask|asks|asked|asking|confirm|confirmation|approval|approve|approved|permission|consent|check with|without approval|clarify|clarifying|clarification|sign-off|go-ahead|问|询问|确认|同意|征得|批准|许可|擅自|未经允许|问清楚|澄清|確認|質問
install|install|installs|installed|installing|installation|安装|装|装上|インストール
dependency|dependency|dependencies|deps|dep|package|packages|library|libraries|lib|libs|third-party|依赖|包|库|第三方库|第三方|依存|パッケージ|ライブラリ
~file|file|files|文件|档案|ファイル|archivo|archivos|datei|dateien|fichier|fichiers|arquivo|arquivos|файл|файлы
directory|directory|directories|dir|dirs|folder|folders|目录|文件夹|ディレクトリ|フォルダ
test|test|tests|testing|tested|spec|specs|suite|测试|单测|用例|测例|テスト|prueba|pruebas|testes|teste|тест|тесты|tester|prüfen
unit|unit|单元
integration|integration|integrations|集成|結合
commit|commit|commits|committed|committing|提交|コミット|commitear|committen|коммит|коммитить
message|message|messages|msg|信息|消息|メッセージ
subject|subject|title|headline|标题|件名
branch|branch|branches|分支|ブランチ
push|push|pushes|pushed|pushing|推|推送|プッシュ|pushen|pushear|пушить
merge|merge|merges|merged|merging|合并|合入|マージ
rebase|rebase|rebases|rebasing|变基
force|force|forced|forcing|强制|強制
shared|shared|share|others|共享|公共|共有
review|review|reviews|reviewed|reviewer|审查|评审|review|レビュー
pr|pr|prs|pull request|pull requests|merge request|mr|合并请求
issue|issue|issues|ticket|tickets|工单|イシュー
link|link|links|linked|reference|references|referenced|关联|链接|引用|对应|紐付け
history|history|linear|历史|履歴
version|version|versions|versioning|release|版本|バージョン
pin|pin|pins|pinned|pinning|fixed|exact|lock|locked|固定|写死|锁定|锁|固定する
lockfile|lockfile|lockfiles|lock file|lock-file|锁文件|ロックファイル
image|image|images|镜像|イメージ
container|container|containers|containerized|容器|コンテナ
base|base|based|basis|基础|基于|ベース
small|small|smaller|tiny|size|lean|slim|小|体积|小さい
big|big|bigger|large|huge|bloated|massive|大|大规模|大型|大きい
build|build|builds|building|built|compile|compiles|compiled|compiling|构建|编译|打包|ビルド
fail|fail|fails|failed|failing|failure|break|breaks|broke|broken|error|errors|失败|报错|出错|挂|崩|错误|失敗|エラー
environment|environment|environments|env|环境|環境
variable|variable|variables|var|vars|变量|変数|variables|variablen|variável|variáveis|переменная|переменные|переменных
envvar|environment variable|environment variables|env var|env vars|环境变量|環境変数
prefix|prefix|prefixed|prefixes|start with|starts with|begin with|开头|前缀|打头|接頭辞
config|config|configs|configuration|configure|configured|settings|setting|配置|设置|設定
secret|secret|secrets|credential|credentials|password|passwords|token|tokens|api key|密钥|秘钥|密码|凭证|令牌|シークレット|パスワード
repository|repository|repositories|repo|repos|git|version control|仓库|代码库|版本库|リポジトリ
~code|code|codebase|source|代码|源码|コード
~command|command|commands|cmd|cmds|命令|指令|コマンド
~make|make|makes|made|making
migration|migration|migrations|migrate|migrated|migrating|迁移|マイグレーション
~project|project|projects|app|application|service|services|项目|工程|应用|服务|プロジェクト
local|local|locally|localhost|本地|本机|ローカル|lokal|localmente|localement|локально|локальный
copy|copy|copies|copied|复制|拷贝|コピー
clean|clean|cleans|cleaned|cleaning|cleanup|clear|purge|清理|清除|清空|掃除
artifact|artifact|artifacts|output|outputs|dist|产物|成果物
type|type|types|typed|typing|类型|型|tipo|tipos|typ|typen|тип|типы
strict|strict|strictly|strictness|严格|厳格
unknown|unknown
narrow|narrow|narrowing|收窄
log|log|logs|logged|logging|logger|loggers|日志|记日志|ログ|registro|protokoll|journal|registros|журнал|логи|логировать
print|print|prints|printed|printing|打印|输出|出力|imprimir|ausgeben|afficher|imprimir|печатать|вывод
debug|debug|debugging|diagnostic|diagnostics|调试|デバッグ
standard|standard|stdlib|builtin|built-in|标准|标准库|標準
time|time|times|timestamp|timestamps|datetime|datetimes|date|dates|时间|时间戳|日期|時刻|日時|時間
timezone|timezone|timezones|time zone|tz|aware|naive|timezone-aware|tz-aware|时区|带时区|タイムゾーン
store|store|stores|stored|storing|save|saves|saved|persist|persists|persisted|keep in|存储|储存|存|保存|持久化|保存する
database|database|databases|db|dbs|数据库|データベース|base de datos|datenbank|base de données|banco de dados|база данных|бд|бaзу
display|display|displays|show|shows|shown|render|renders|rendered|present|显示|展示|渲染|表示
convert|convert|converts|converted|conversion|转换|换算|変換
user|user|users|customer|customers|用户|使用者|ユーザー
interface|ui|interface|frontend|front-end|界面|前端|页面|画面|フロントエンド
compose|compose
sudo|sudo|root|admin|管理员|root权限
machine|machine|host|server|box|机器|主机|服务器|マシン|サーバー
endpoint|endpoint|endpoints|api|apis|route|routes|接口|端点|エンドポイント
paginate|paginate|paginated|pagination|page|pages|paging|next|分页|翻页|页|ページ
auth|auth|authentication|authorization|authorize|bearer|login|认证|鉴权|授权|认证头|認証
header|header|headers|头|响应头|请求头|ヘッダー
hardcode|hardcode|hardcoded|hard-code|literal|literals|inline|写死|硬编码|内联|行内|ハードコード
string|string|strings|text|texts|copy text|文案|文字|字符串|文本|文字列
translation|translation|translations|translate|i18n|localization|localize|l10n|国际化|翻译|多语言|翻訳
key|key|keys|键
node|node|nodejs|node.js
typescript|typescript|ts|tsx|tsconfig|tsc
kubernetes|kubernetes|k8s|kubectl|kube|helm
postgres|postgres|postgresql|psql|pg
python|python|python3|py|cpython|pypi
javascript|javascript|js|jsx|ecmascript
build-tool|bundler|bundle|bundling|打包工具
query|query|queries|sql|查询|クエリ
parameter|parameter|parameters|parameterized|parameterised|param|params|bind|bound|binding|placeholder|placeholders|参数|参数化|パラメータ
concatenate|concatenate|concatenation|concat|format into|interpolate|interpolation|拼接|拼|连接|拼字符串|連結
component|component|components|组件|コンポーネント
class|class|classes|class-based|类|クラス
function|function|functions|func|funcs|method|methods|函数|方法|関数|función|funciones|funktion|funktionen|fonction|fonctions|função|funções|функция|функции
hook|hook|hooks|钩子|フック
condition|condition|conditions|conditional|conditionally|unconditionally|loop|loops|if|条件|循环|条件分岐
description|description|descriptions|body|描述|说明|正文|説明
number|number|numbers|id|ids|编号|号|番号
squash|squash|squashed|squashing|压缩合并
tidy|tidy|tidied
vendor|vendor|vendored|vendoring|vendors
warning|warning|warnings|warn|warns|lint|linter|linting|警告|告警|警告する
error-type|exception|exceptions|异常|例外
catch|catch|catches|caught|catching|handle|捕获|捕捉|処理
swallow|swallow|swallows|swallowed|silence|silently|ignore|ignores|ignored|吞|吞掉|忽略|握りつぶす
chain|chain|chained|cause|wrap|wrapping|wrapped|保留原因|包装|链
generate|generate|generates|generated|generating|generation|regenerate|regenerated|codegen|生成|重新生成|自動生成
edit|edit|edits|edited|editing|modify|modifies|modified|change|changes|changed|changing|alter|hand-edit|touch|修改|改|改动|手改|动|编辑|変更|編集
manual|manual|manually|by hand|hand|手动|手工|人工|手動
root|root|top-level|根目录|根|ルート
subpackage|subpackage|subpackages|workspace|workspaces|monorepo|子包|子项目|工作区
timeout|timeout|timeouts|超时|タイムアウト
hang|hang|hangs|hanging|hung|forever|block|blocks|blocked|blocking|freeze|freezes|挂起|卡住|一直挂着|阻塞|卡死|ブロック
request|request|requests|call|http|请求|调用|リクエスト
legacy|legacy|old|outdated|deprecated|obsolete|gone|旧|老|过时|废弃|弃用|已废弃|古い|非推奨
money|money|amount|amounts|price|prices|currency|cents|cent|payment|金额|钱|价格|货币|金額|お金
float|float|floats|floating|floating-point|浮点|浮点数|浮動小数点
decimal|decimal|decimals|定点
integer|integer|integers|int|ints|整数
round|round|rounding|rounded|四舍五入|舍入|丸め
script|script|scripts|shell|bash|sh|脚本|スクリプト
newline|line ending|line endings|newline|newlines|crlf|lf|eol|换行|换行符|改行
shebang|shebang
feature|feature|features|functionality|capability|功能|特性|機能
flag|flag|flags|toggle|toggles|switch|开关|标志|フラグ
rollout|rollout|roll out|ship|ships|shipped|launch|launched|release|全量|上线|发布|リリース
unfinished|unfinished|incomplete|wip|未完成|没做完
style|style|styles|styling|css|样式|スタイル
utility|utility|utilities|util|utils|工具类
async|async|asynchronous|asyncio|await|异步|非同期
coroutine|coroutine|coroutines|协程|コルーチン
sleep|sleep|sleeps|sleeping
wait|wait|waits|waiting|waited|等待|等着|等我
list|list|lists|listing|listings|列表|清单|一覧|リスト
event-loop|event loop|事件循环|イベントループ
start|start|starts|started|starting|launch|entry point|entrypoint|boot|启动|开启|起動
production|production|prod|live|生产|生产环境|线上|本番|producción|produktion|produktiv|prod|producción|produção|продакшен|продакшн|прод
staging|staging|stage|pre-production|preprod|预发|预发布|测试环境|ステージング
deploy|deploy|deploys|deployed|deploying|deployment|deployments|部署|上线|发布|デプロイ
limit|limit|limits|limited|quota|限制|上限|制限
resource|resource|resources|cpu|memory|资源|内存|リソース
pod|pod|pods
coverage|coverage|覆盖率|覆盖|カバレッジ
bug|bug|bugs|defect|缺陷|バグ
fix|fix|fixes|fixed|fixing|repair|修|修复|修正|修理|直す
regression|regression|regressions|回归|リグレッション
reproduce|reproduce|reproduces|reproducing|reproducible|reproduction|repro|复现|重现|再現
document|document|documents|documented|documentation|docs|doc|readme|文档|说明文档|ドキュメント
changelog|changelog|release notes|changes file|更新日志|变更日志|変更履歴
cli|cli|command-line|command line|cmdline|命令行|コマンドライン
option|option|options|flag|argument|arguments|arg|args|参数|选项|オプション|引数
behaviour|behaviour|behavior|behaviours|behaviors|user-facing|visible|可见|行为|用户可见|挙動
import|import|imports|imported|importing|导入|引入|インポート
absolute|absolute|绝对|絶対
relative|relative|相对|相対
top|top|beginning|head|顶部|开头|顶层|先頭
module|module|modules|模块|模組|モジュール|módulo|módulos|modul|модуль|модули|модулях
indent|indent|indented|indentation|indenting|缩进|インデント
space|space|spaces|空格|スペース
tab|tab|tabs|制表符|タブ
line|line|lines|loc|行
long|long|longer|lengthy|verbose|长|长篇|冗長
short|short|shorter|brief|concise|succinct|terse|简短|简洁|短|精简|簡潔
answer|answer|answers|reply|replies|respond|response|responses|回答|回复|答复|返信|回答する
explain|explain|explains|explanation|explanations|why|reason|reasons|rationale|解释|说明|原因|理由|説明
summary|summary|summaries|recap|总结|摘要|まとめ
chinese|chinese|mandarin|中文|汉语|中国語
english|english|英文|英语|英語
comment|comment|comments|commented|docstring|docstrings|注释|コメント
identifier|identifier|identifiers|name|names|naming|named|variable name|命名|名字|名称|名前|nombre|nombres|namen|nom|noms|nome|nomes|имя|имена|названия
encoding|encoding|encodings|charset|utf-8|utf8|编码|文字コード
open|open|opens|opened|opening|打开|開く
path|path|paths|pathlib|路径|パス
background|background|backgrounded|detach|detached|nohup|daemon|后台|バックグラウンド
foreground|foreground|前台|フォアグラウンド
exit|exit|exits|exited|terminate|terminates|退出|终止|終了
server|server|servers|dev server|服务器|服务端|サーバー
port|port|ports|端口|ポート
listen|listen|listens|listening|监听
break-change|breaking|breaking change|breaking changes|incompatible|破坏性|不兼容|破壊的
sunset|sunset|deprecation|deprecate|deprecated|废弃|弃用|下线|非推奨
quote|quote|quotes|quoted|quoting|unquoted|double quotes|引号|双引号|クォート
fail-fast|fail fast|pipefail|set -e|errexit
expiry|expiry|expire|expires|expiration|ttl|过期|过期时间|有效期|有効期限
session|session|sessions|会话|セッション
cache|cache|caches|cached|caching|缓存|キャッシュ
slow|slow|slower|slowly|慢|遅い|lento|lentos|langsam|langsame|lent|lents|медленные|медленный
mark|mark|marks|marked|marker|markers|tag|tagged|标记|マーク|marcar|markieren|marquer|marcar|пометить|помечать
search|search|searches|searched|searching|grep|搜索|搜|查找|検索
find|find|finds|locate|locating|lookup|找|查找|探す
fast|fast|faster|quick|quicker|speed|快|更快|速い
parse|parse|parses|parsed|parsing|parser|解析|パース
json|json
regex|regex|regexes|regular expression|正则|正则表达式|正規表現
default|default|defaults|默认|デフォルト
name|called|named|naming|名|叫|名为|命名为
primary-key|primary key|primary keys|pk|主键|主キー
foreign-key|foreign key|foreign keys|fk|外键|外部キー
index|index|indexes|indices|indexed|索引|インデックス
autoincrement|autoincrement|auto-increment|auto increment|serial|sequential|自增|自动递增|連番
table|table|tables|表|テーブル
backup|backup|backups|back up|backed up|备份|バックアップ|copia de seguridad|sicherung|sauvegarde|cópia de segurança|резервная копия|бэкап
daily|daily|every day|each day|每天|每日|毎日|diario|diariamente|täglich|quotidien|diária|diariamente|ежедневно
connect|connect|connects|connected|connection|access|accessing|连|连接|访问|接続|アクセス|conectar|verbinden|connecter|conectar-se|подключаться|подключение
network|network|networking|internet|online|网络|联网|ネットワーク
mock|mock|mocks|mocked|mocking|stub|stubs|fake|fakes|模拟|打桩|モック
real|real|actual|genuine|真实|真的|実際
global|global|globals|globally|全局|グローバル|globales|globale|globais|глобальные|глобальный|глобального|глобальное
state|state|mutable|状态|状態|estado|zustand|état|состояние|состояния
constant|constant|constants|常量|定数|constante|constantes|konstante|konstanten|константа|константы
uppercase|uppercase|upper case|upper-case|capital|capitals|caps|大写|大文字|mayúsculas|großbuchstaben|majuscules|maiúsculas|заглавными
abbreviation|abbreviation|abbreviations|abbreviated|abbrev|单字母|single-letter|缩写|略語|abreviaturas|abkürzungen|abréviations|abreviações|сокращения
descriptive|descriptive|explicit|meaningful|clear|有意义|清晰|明確|explícitos|explícito|explizit|explicites|explicite|explícitas|понятные|говорящие
hint|hint|hints|annotation|annotations|annotate|annotated|类型注解|注解|型ヒント|注釈|anotación|anotaciones|anotações|annotation|аннотации|подсказки
public|public|exported|公开|公共|公開|pública|públicas|público|públicos|öffentlich|öffentliche|publique|publiques|публичные|публичный
skip|skip|skips|skipped|skipping|bypass|bypasses|circumvent|跳过|绕过|スキップ
clone|clone|clones|cloned|cloning|克隆|クローン
setup|setup|set up|bootstrap|onboarding|初始化|搭建|配好|セットアップ
release-branch|release branch|release branches|发布分支|リリースブランチ
domain|domain|domains|url|urls|hostname|address|域名|地址|网址|ドメイン
replace|replace|replaces|replaced|replacement|switch to|migrate to|替换|换成|改用|代わりに
upgrade|upgrade|upgrades|upgraded|upgrading|bump|update|updates|updated|updating|升级|更新|アップグレード
declare|declare|declares|declared|specify|specifies|specified|state|注明|写明|声明|指定
support|support|supports|supported|compatible|compatibility|兼容|支持|対応
syntax|syntax|语法|構文
guess|guess|guesses|guessed|guessing|assume|assumes|assumed|assumption|assumptions|speculate|invent|make up|猜|猜测|臆测|瞎猜|假设|推测|想当然|推測
unclear|unclear|ambiguous|ambiguity|vague|uncertain|unsure|confusing|unknown requirements|不清楚|不明确|不确定|歧义|模糊|不明|曖昧
requirement|requirement|requirements|spec|specs|specification|task|tasks|ticket|需求|要求|任务|要件|タスク
retry|retry|retries|retried|retrying|rerun|reruns|re-run|re-running|rerunning|rerunning|rebuild|重跑|重试|重新运行|再跑|リトライ|再実行
investigate|investigate|investigating|investigation|diagnose|diagnosis|root cause|find out why|troubleshoot|查原因|排查|调查|定位|分析原因|調査
flaky|flaky|flakiness|intermittent|intermittently|nondeterministic|unstable|不稳定|偶发|时好时坏|不安定
refactor|refactor|refactors|refactored|refactoring|restructure|rewrite|rewrites|cleanup|cleanups|clean up|drive-by|重构|重写|整理|リファクタ|リファクタリング
unrelated|unrelated|irrelevant|other code|无关|不相关|别的地方|無関係
minimal|minimal|minimum|smallest|focused|scoped|最小|最小化|尽量少|最小限
plan|plan|plans|planning|approach|proposal|propose|proposed|design|outline|方案|计划|设计|思路|計画|方針
mistake|mistake|mistakes|mistaken|wrong|incorrect|incorrectly|by mistake|弄错|搞错|错了|不对|失误|間違い
correct|corrected|correction|corrections|纠正|更正|指正|訂正
manage|manage|manages|managed|management|manager|managers|管理|管理する
format|format|formats|formatted|formatting|formatter|formatters|reformat|格式化|格式|フォーマット|整形
ci|ci|ci/cd|pipeline|pipelines|workflow|workflows|github actions|continuous integration|job|jobs|流水线|持续集成|パイプライン
layer|layer|layers|层|レイヤー
mask|mask|masks|masked|masking|redact|redacts|redacted|redaction|obfuscate|脱敏|打码|屏蔽|マスク
row|row|rows|record|records|one by one|per row|逐条|条|每条|一行一行|行ごと
performance|performance|perf|optimize|optimise|optimized|optimization|optimisation|slow down|性能|优化|提速|最適化|パフォーマンス
profile|profile|profiling|profiler|profiled|benchmark|benchmarks|性能分析|剖析|プロファイル
filter|filter|filters|filtering|filtered|where clause|过滤|筛选|フィルタ
column|column|columns|field|fields|attribute|字段|列|カラム
order|order|ordering|ordered|sequence|before the|顺序|先后|順番
percent|percent|percentage|%|百分之|процентов|por ciento|prozent|pour cent
verify|verify|verifies|verified|verifying|verification|validate|validates|validated|validation|double-check|sanity-check|验证|校验|核实|检验|検証
check|check|checks|checked|checking|inspect|inspects|look at|检查|查看|看一下|チェック
read|read|reads|reading|load|loads|loaded|loading|读|读取|加载|載入|読み込み
write|write|writes|written|writing|写入|书写|書き込み
create|create|creates|created|creating|creation|generate new|新建|创建|建立|作成
add|add|adds|added|adding|append|appends|insert|inserts|添加|增加|加上|新增|追加
rename|rename|renames|renamed|renaming|重命名|改名|名前変更
move|move|moves|moved|moving|relocate|移动|挪|迁走|移動
export|export|exports|exported|exporting|导出|エクスポート
return|return|returns|returned|returning|返回|戻り値
send|send|sends|sent|sending|post|发送|推送消息|送信
schema|schema|schemas|model|models|orm|数据模型|模型|表结构|スキーマ
permission|permission|permissions|role|roles|rbac|privilege|privileges|access control|权限|角色|権限
queue|queue|queues|queued|worker|workers|background job|队列|消息队列|キュー
schedule|schedule|scheduled|cron|crontab|timer|定时|定时任务|计划任务|スケジュール
metric|metric|metrics|monitoring|alert|alerts|alerting|dashboard|指标|监控|告警|報警|監視
snapshot|snapshot|snapshots|golden|goldens|快照|スナップショット
fixture|fixture|fixtures|seed|seeds|test data|测试数据|夹具|フィクスチャ
cookie|cookie|cookies
response|response|responses|reply body|payload|响应|返回值|レスポンス
handler|handler|handlers|middleware|controller|controllers|处理器|中间件|控制器
cluster|cluster|clusters|namespace|namespaces|集群|命名空间|クラスタ
leak|leak|leaks|leaked|leaking|exposure|expose|exposed|泄露|泄漏|暴露|漏洩
crash|crash|crashes|crashed|crashing|panic|panics|segfault|崩溃|闪退|宕机|クラッシュ
warning-free|clean build|zero warnings|无警告
path-separator|backslash|backslashes|forward slash|反斜杠|斜杠
exit-code|exit code|exit status|return code|退出码|返回码|終了コード
stdout|stdout|stderr|standard output|标准输出|标准错误
argument-order|positional|keyword argument|kwargs|位置参数|关键字参数
deprecated-api|removed in|gone in|no longer exists|被移除|已移除|不再存在
upgrade-major|major version|breaking release|大版本|主版本
lowercase|lowercase|lower case|lower-case|小写|小文字
camelcase|camelcase|camel case|snake case|snake_case|kebab case|驼峰|下划线命名
empty|empty|blank|none|null|nil|空|空值|为空
duplicate|duplicate|duplicates|duplicated|twice|重复|两次|重複
offline|offline|no network|air-gapped|离线|断网|オフライン
proxy|proxy|proxies|mirror|mirrors|registry|代理|镜像源|源|プロキシ
license|license|licenses|licence|licensing|许可证|协议|ライセンス
security|security|secure|insecure|vulnerability|vulnerabilities|cve|安全|漏洞|脆弱性
"""

NEGATIONS = frozenset(NEGATION_TEXT.split())
STOP = frozenset(STOP_TEXT.split()) - NEGATIONS
