"""self-improve: learn from an agent's own mistakes, without touching model weights."""

__version__ = "0.1.0"
