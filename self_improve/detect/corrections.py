"""Is a user prompt a correction of the agent?  (STUB: the detect helper owns this file.)

    @dataclass(frozen=True)
    class CorrectionHit:
        pattern: str   # name of the pattern that matched, e.g. "en.thats-wrong"
        language: str  # "en" | "zh"

    def detect_correction(prompt: Prompt) -> CorrectionHit | None
"""
