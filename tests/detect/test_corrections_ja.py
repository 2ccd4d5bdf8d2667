"""self_improve.detect.corrections_ja: the general forms added for issue 13 (Japanese: 運用/約束/統一してます, version facts, praise then ただ, polite hedges, reproach, passive reports of what was done), each
pinned to the pattern that names it, and the hard negatives their vetoes keep out (sentences
written for these tests, in no data file)."""

from __future__ import annotations

import pytest

from self_improve.detect.corrections import CorrectionHit, detect_correction_by_patterns
from self_improve.events import Prompt


def hit(text: str) -> CorrectionHit | None:
    return detect_correction_by_patterns(Prompt(text, "session-1", "/tmp/project"))


@pytest.mark.parametrize(("text", "pattern"), [
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
])
def test_general_forms(text: str, pattern: str) -> None:
    assert hit(text) == CorrectionHit(pattern, "ja")


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
])
def test_hard_negatives(text: str) -> None:
    assert hit(text) is None
