"""A one-line lesson as weighted terms (``store/profile.py``): what ``store/duplicates.py`` compares."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from self_improve.store.profile import normalise, profile, searchable, stem


def test_profiles() -> None:
    p = profile("Use pnpm, not npm, to install dependencies in this repo")
    assert p.terms == {"pnpm": 2.0, "npm": 2.0, "=install": 1.5, "=dependency": 1.5, "=repository": 1.5}
    assert (p.rejected, p.negated) == (frozenset({"npm"}), True)
    zh = profile("这个仓库用 pnpm 装依赖，别用 npm")
    assert zh.terms == {"=repository": 1.5, "pnpm": 2.0, "=install": 1.5, "=dependency": 1.5, "npm": 2.0}
    assert zh.rejected == frozenset({"npm"})
    tech = profile("Use .venv/bin/python, not the system python3.11")
    assert tech.anchors == frozenset({".venv/bin/python", "python3.11"})
    assert tech.rejected == frozenset({"system", "python3.11", "3", "11"})  # a token's parts go with it
    assert profile("Test coverage must stay above 90%").anchors == frozenset({"90"})


@given(st.text(alphabet=st.characters(categories=("L", "N")), max_size=20))
def test_a_stem_is_a_prefix_of_its_word(word: str) -> None:
    # The scan searches a store's summary lines for stems as substrings: a stem that were not a
    # prefix would never be found in the line that holds its word.
    assert word.startswith(stem(word)) and len(stem(word)) <= 6


def test_searchable_is_normalise_where_nfkc_changes_a_letter() -> None:
    assert searchable("Ｕｓｅ ＰＮＰＭ") == normalise("Ｕｓｅ ＰＮＰＭ") == "use pnpm"
    # Elsewhere it only case-folds: NFKC of a large store would be slow, and changes no needle.
    assert searchable("Use PNPM, ½ of the time") == "use pnpm, ½ of the time"
    assert normalise("Use PNPM, ½ of the time") == "use pnpm, 1⁄2 of the time"
