"""What the correction patterns alone say of a prompt: the one call the per-language tests pin
(tests/detect/test_corrections_<lang>.py), with the model left out so a pin names a pattern."""

from __future__ import annotations

from self_improve.detect.corrections import CorrectionHit, detect_correction_by_patterns
from self_improve.events import Prompt


def pattern_hit(text: str) -> CorrectionHit | None:
    return detect_correction_by_patterns(Prompt(text, "session-1", "/tmp/project"))
