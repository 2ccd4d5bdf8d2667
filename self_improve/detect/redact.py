"""Strip secrets from text before it is stored.  (STUB: the detect helper owns this file.)

    def redact(text: str) -> str
"""
