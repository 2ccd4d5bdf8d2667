"""Is a finished shell command an error, and which one?  (STUB: the detect helper owns this file.)

Public API, relied on by the hooks and the OpenClaw watcher:

    @dataclass(frozen=True)
    class Detection:
        pattern_key: str      # "area.symptom", e.g. "deps.module-not-found"; "generic.error" fallback
        title: str            # short human summary in OUR words, e.g. "Python module not found"
        excerpt: str          # <= 200 chars of the output around the hit, secrets redacted

    def load_rules(overrides: Mapping[str, Any] | None = None) -> Rules
        # packaged rules.toml merged with the [detect] table of the user's .learnings/config.toml
    def detect(result: ToolResult, rules: Rules | None = None) -> Detection | None
"""
