"""How many tokens a text costs an agent's context window, as every tool counts them: ceil(characters / 4).

Model-independent and deterministic; close to what BPE tokenizers give for English prose and
code (denser scripts, such as Chinese, cost more tokens per character than this says).
"""

from __future__ import annotations

import math

CHARS_PER_TOKEN = 4


def count_tokens(text: str) -> int:
    """Tokens of ``text``: ceil(characters / 4)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)
