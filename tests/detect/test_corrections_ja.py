"""self_improve.detect.corrections_ja: the general forms added for issue 13 (Japanese: 運用/約束/統一してます, version facts, praise then ただ, polite hedges, reproach, passive reports of what was done), each
pinned to the pattern that names it, and the hard negatives their vetoes keep out (sentences
written for these tests, in no data file)."""

from __future__ import annotations

import pytest

from self_improve.detect.corrections import CorrectionHit
from tests.detect.pattern_hits import pattern_hit


@pytest.mark.parametrize(("text", "pattern"), [
    # issue 13 (train7): the vetoes above leave these corrections alone
    ('配送伝票のテンプレート、ゼロ埋めが消えてますよ。うちでは伝票番号は8桁ゼロ埋めすることになってます。', 'ja.house'),
    ('いいえ、単価を上書きしないでと言いました。元の値は残して', 'ja.you-did'),
    ('いや、さっきのは違う。配送は平日だけです', 'ja.no'),
    ('API のレスポンスは snake_case で統一してます', 'ja.house-norm'),
    ('ここで直接 DB を叩くことはありません。リポジトリ層経由で', 'ja.house-norm'),
    ('Python 3.12 からは distutils は使えません', 'ja.factual-2'),
    ('その API は旧 SDK の書き方ですね', 'ja.factual-2'),
    ('その設定はもう古いです', 'ja.factual-2'),
    ('いい感じです。でも dark mode でコントラストが足りないです', 'ja.after-praise-2'),
    ('2 時間キャッシュするのはちょっと長すぎるかもしれません', 'ja.hedged-3'),
    ('もしかして、テスト用の DB に本番の URL を入れていませんか？', 'ja.hedged-3'),
    ('私の勘違いだったら申し訳ないのですが、ここは 0 始まりです', 'ja.hedged-3'),
    ('この再試行はあまり賛成できないです', 'ja.hedged-3'),
    ('本番で force push するのは怖いです', 'ja.hedged-3'),
    ('本気ですか？ secret を README に書くなんて', 'ja.reproach-2'),
    ('何をしたの？ステージングが全部落ちてる', 'ja.reproach-2'),
    ('どこに行ったの、あの設定ファイル', 'ja.reproach-2'),
    ('ちゃんとテストしました？', 'ja.reproach-2'),
    ('CHANGELOG まで上書きされてます', 'ja.you-did-2'),
    ('このやり方だとメモリリークします', 'ja.you-did-2'),
    ('全体のリファクタはお願いしてないです', 'ja.not-asked-2'),
    ('うちではログを JSON で出すルールです。さっき入れた print は消してください。', 'ja.house'),
    ('またログを消してますね。', 'ja.you-did'),
    ('print は使わないで、logging を使ってください', 'ja.instead'),
    # issue 13 (train6): the same rule AFTER the agent broke it; "No" answers that reject
    ('さっき作ってくれた Webhook、ログをマスクしてないですよね。決済ログはマスクする決まりです。', 'ja.house'),
    ('作ってもらった関数、pytest じゃなくて unittest で書かれてます。うちは pytest のみです。', 'ja.instead'),
    ('いや、まだ同じエラーが出ます。', 'ja.still'),
    ('いいえ、CSV じゃなくて Parquet って言いましたよね。', 'ja.restate'),
    ('これは壊れてるんじゃないですか。', 'ja.wrong'),
    # issue 13 (train8): facts without a judgement word, what the change did, hedges, praise then …けど,
    # reproach, a house rule followed by a request to redo the work
    ('バッファサイズの単位はバイトです。キロバイトではありません', 'ja.factual-3'),
    ('`strict_mode` はありません。`strict` です', 'ja.factual-3'),
    ('緯度と経度の順番が逆', 'ja.factual-3'),
    ('変換テーブルが旧の版のままです', 'ja.factual-3'),
    ('書き出しのフラグを取り違えてない？', 'ja.you-did-3'),
    ('さっきの変更で CSV の列が入れ替わってる', 'ja.you-did-3'),
    ('例外をにぎりつぶしてますね', 'ja.you-did-3'),
    ('このキャッシュ、期限切れても残る気がするんですが', 'ja.hedged-4'),
    ('わざわざ Celery 入れなくてもいいのでは', 'ja.hedged-4'),
    ('cron で十分回せば済むような気もします', 'ja.hedged-4'),
    ('よし、通った…けど、警告が 40 件出てます', 'ja.after-praise-3'),
    ('見た目はいいんですが、ダークモードで文字が消えます', 'ja.after-praise-3'),
    ('マジでこれを本番に出すつもり？', 'ja.reproach-3'),
    ('毎回 HTTP クライアントを生成してる。', 'ja.you-did-4'),
    ('今の説明は少し間違ってます。', 'ja.you-did-4'),
    ('その正規表現は全然効かない', 'ja.you-did-4'),
    # issue 13 (train9): the new vetoes leave the same forms alone where they point at the agent's work
    ('さっき追加したリトライ、ループの中で毎回クライアントを作ってます。外に出して', 'ja.you-did-4'),
    ('作ってくれたバッチ、毎回 DB に接続してますよね。プールを使って', 'ja.you-did-3'),
    ('本気でこれを本番に流すつもり？', 'ja.reproach-3'),
    ('いいですね、ただ座席番号がずれてます', 'ja.after-praise'),
    ('テストを飛ばしてますね', 'ja.you-did'),
    # issue 13 (train10): the new vetoes leave the same forms alone where they point at the agent's work
    ('さっき作ってくれた集計、まだ同じエラーが出ます', 'ja.still'),
    ('あなたの書いたテスト、後片付けを忘れてます', 'ja.you-did'),
    ('それって本当ですか？', 'ja.hedged'),
    ('いいえ、違います。さっき言ったとおり Drone です', 'ja.wrong'),
])
def test_general_forms(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "ja")


@pytest.mark.parametrize("text", [
    '認証は JWT のみで、新しいログイン API を作ってください',
    'Python 3.12 で distutils を使う方法はありますか？',
    'ユーザーから CSV がおかしいと報告がありました。調べてもらえますか',
    'このライブラリって本当に必要ですか？自分では判断できなくて',
    'テストは書かなくて大丈夫です。プロトタイプを作ってください',
    'いや、今日はもう大丈夫です',
    # issue 13 (train5_b): house rules before the coming work, third-party docs, answers
    'うちはテストなしでマージしないので、これから書く PR テンプレートにチェック欄を入れてください。',
    '弊社ではログを JSON で出すのがルールです。まずは logger の設定を作ってください。',
    '公式ドキュメントの例が古くて動きません。動く例を書いてください。',
    'いや、古いテーブルなので消して構いません。',
    'いや、Docker Hub じゃなくて自社のレジストリです',
    'いや、このサーバーには Python 3.8 しかないです',
    'キャッシュは 1 時間で自動的に期限切れになります',
    'この書き方だと速くなりますか？',
    '次は設定画面を実装します。デザインは Figma を見てください',
    'ログを無視していいか教えて',
    # issue 13 (train6): a rule, then a request in another form (もらえますか, をお願いします, したいです,
    # 書くときも); answers about the user's setup; a question that ends in 。
    '決済のログはマスクして出すのが決まりです。Webhook の受信処理を実装してもらえますか。',
    '画像は WebP に統一しています。サムネイル生成のバッチをお願いします。',
    '社内ルールで API キーは Vault で管理しています。Slack 通知のスクリプトを作りたいです。',
    'メールは必ずキュー経由で送る方針なので、パスワード再設定の処理を書くときもそうしてください。',
    'ジョブは夜間しか回さないことになっています。再集計のバッチを設計してください。',
    'いや、そのマシンは Ubuntu 20.04 のままです。',
    'いや、Node 18 が入ってます。',
    'いや、まだ検証用の端末が届いてません。',
    'いいえ、データは CSV じゃなくて Parquet で届きます。',
    '依存ライブラリが壊れてるんでしょうか。',
    'ログ出力はいらないので、変換だけする CLI を書いてください。',
    # issue 13 (train7): the rule's own ことになってる/約束になっています, じゃなくて inside the rule, a request in
    # other forms (考えてもらえますか, 下さい, 書いて。, もらいたい, いただけますか); answers (だけ, スコープ外, いいえ、…はいらない);
    # a maker's driver judged; 上書きしないのが (a rule, no report of an overwrite)
    '在庫データは必ず論理削除にするルールなので、入荷取消の処理を作ってくれますか',
    '請求書番号は年度ごとに採番し直すのが決まりです。採番サービスを組んでもらいたいです',
    '受講データは個人を特定できない形でしか外に出さない方針なので、集計レポートを作っていただけますか',
    '通知は Slack じゃなくて Teams に送る方針なので、アラートの送信処理を作ってください',
    '監査ログは 1 年で消すことになってるので、アーカイブ用のジョブを設計するときもそのつもりで。',
    '端末の時刻は全部 UTC で送る約束になっています。受信側のパーサーを実装して下さい。',
    'CSV の区切りはタブにするのが決まりです。エクスポート用のスクリプトを書いて',
    '帳票の原本は上書きしないのが鉄則なので、押印済みの版は別名で保存する形で作って。',
    'いや、配送は平日だけ。土日はないです',
    'いや、多言語対応は今回のスコープ外。まずは日本語だけ',
    'ううん、管理画面には CSV 出力はいらない。閲覧だけ',
    '計量器メーカー提供の SDK、単位の変換が全部ずれてる。補正テーブルを作りたい',
    # issue 13 (train8): answers, a rule or fact before new work, a colleague's code, questions, praise then the next request
    'いいえ、ステージングのバケットには古いデータはありません',
    'この SDK は古い書き方のままです、とベンダーから聞きました。新しい API のラッパーを作って',
    'ロック順序が逆だとデッドロックしますか？',
    'ループの中で毎回 DB を開いてるのって遅いですか？',
    'チャット機能はいいです。ただ次は通知を作ってください',
    'この端末だと古い TLS は使えません。TLS1.2 対応の HTTP クライアントを書いてください',
    'うちの倉庫に冷凍庫はありません。常温在庫の管理画面を作って',
    '同僚の実装で、ループの中で毎回 SparkSession 作ってる。直し方を教えて',
    '認証画面は要らないです。まずは一覧ページを作ってください',
    # issue 13 (train9): praise then the next request or a pause; a state of the world to confirm; context up
    # front (前提として, 参考までに, はい、); what a new piece of work does without; the user's own system looked
    # into (原因を調べて, 手順を教えて, 直したい); a new or outside rule; somebody else's code (前任者が書いた)
    'いい感じですね、ただ次は PDF 出力もお願いします',
    '良さそうです。でも今日はここまでで、続きは明日',
    'おお、動いた…けど今日はここまで。明日続きやろう',
    'このライブラリって C++17 必須になってますよね？',
    '前提として、うちのサーバーは全部 ARM で動いてますよね。なので arm64 でビルドして',
    'はい、使えますよ。続けてください',
    'いいえ、そのテストは昨日も落ちてましたよ。今回の作業とは無関係です',
    '変更後、全部のテストを走らせてください',
    'この変更で何が壊れるか洗い出してほしい',
    'テストは必要ないと思うので、本体だけ書いて',
    'わざわざクラスにしなくてもいいので、関数で書いてください',
    'ログの量が多すぎる気がするんですが、減らす方法ありますか',
    '本番だけタイムアウトしてるのはおかしい。原因を調べて',
    'CI が Node 16 になってて通らない。Node 20 に上げる手順を教えて',
    '既存のバッチはループの中で毎回 DB に接続してます。これを直したい',
    '月次の売上集計が会計システムの値と 2% ずれてる。どこで差が出てるか追ってほしい',
    '本気でこのサービスを海外展開するつもりなので、i18n 前提で設計して',
    'このライブラリ、いつから Python 3.12 対応するようになったか知ってる',
    '法改正で保存期間のルールが変わったので、アーカイブ処理を直してください',
    '監査の指摘で、ログに個人情報を出さない決まりになりました。既存のロガーを直してください',
    '来月から社内ルールで Python 3.12 必須になるので、CI の設定を合わせて',
    '前任者が書いた配車ロジック、例外処理がめちゃくちゃです。読んで整理してもらえますか',
    '公式の SDK サンプル、引数の順番が逆になってるっぽい。ラッパー側で吸収して',
    'ベンダーのドキュメントだと v3 で廃止されたって書いてあるけど、本当？',
    'いいね、でも急ぎじゃないので、時間あるときに型ヒントも足してほしい',
    '古いダッシュボードは変更後、全部新しい URL に飛ばしてください',
    # issue 13 (train10): answers about the user's setup, rules then new work, no-need up front, third parties
    'いいえ、CI は GitLab じゃなくて Drone で回してます',
    'いや、その cron は今は誰も見てない',
    'いや、本番は Aurora をそのまま使ってます',
    'はい、Python は 3.11 です。pip じゃなくて uv を使ってます',
    'PR は必ずテンプレートに沿って書く決まりなので、その前提でリリース手順をまとめてください',
    '本番の接続情報はコードに書かないのが鉄則なので、設定ローダーを最初から入れておいてください',
    'うちでは手作業のデプロイは厳禁なので、GitHub Actions でリリースを自動化したいです',
    '共通化する必要はないです。この店舗専用の集計スクリプトを書いてください',
    '夜間バッチがまだ落ちてるけど、原因は DB のメンテっぽい。待つ間に監視スクリプトを書いて',
    '再起動後もまだ同じエラーが出てるようで、インフラチームが見てくれてます',
    '先輩の書いたテスト、モックの後片付けを忘れてるっぽい',
    'このデータセット、単位が逆になってる行があるので検出ツールがほしい',
    '隣のチームの SDK、エラーを握りつぶしてる。薄いラッパーを作りたい',
    '「型ヒントを付けると遅くなる」というのは本当ですか？',
    'いや、ログ収集は Loki で回してる',
    'SDK の changelog に「v4 では非推奨」と書いてあるけど、移行先が分からない。調べてもらえますか',
])
def test_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None
