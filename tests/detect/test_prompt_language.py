"""Which languages' patterns a prompt is tried in (self_improve/detect/prompt_language.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from self_improve.detect import corrections, prompt_language


@pytest.mark.parametrize(
    ("text", "languages"),
    [
        ("please refactor the parser and keep the tests green", ("en",)),
        ("帮我把这个函数重构一下", ("zh",)),
        ("この関数をリファクタリングして", ("ja",)),
        ("Перепиши этот модуль", ("ru",)),
        ("Por favor, refactoriza el parser y mantén los tests en verde", ("es",)),
        ("Bitte refaktoriere den Parser und halte die Tests grün", ("de",)),
        ("Refactorise le parseur et garde les tests au vert, s'il te plaît", ("fr",)),
        ("Por favor, refatora o parser e mantém os testes passando", ("pt",)),
        ("lgtm", ("en", "es", "pt", "fr", "de")),  # no function word, short: every Latin language
    ],
)
def test_the_language_decides_which_patterns_are_tried(text: str, languages: tuple[str, ...]) -> None:
    assert prompt_language.languages(corrections._normalise(text)) == languages


@given(st.text(max_size=400))
def test_every_prompt_is_tried_in_at_least_one_known_language_each_once(text: str) -> None:
    found = prompt_language.languages(corrections._normalise(text))
    assert found and len(set(found)) == len(found) and set(found) <= set(corrections.LANGUAGES)
