"""The nbval sanitizers (nbval_sanitize.cfg beside this module: the rules the tests' strict nbval uses too),
applied outside pytest to compare outputs."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from nbval.plugin import get_sanitize_patterns

__all__ = ["Sanitizer", "default_sanitize_config"]


def default_sanitize_config() -> Path:
    """The sanitizer file the test suite gives nbval."""
    return Path(__file__).with_name("nbval_sanitize.cfg")


@dataclass(frozen=True)
class Sanitizer:
    """Regex replacements that blank out what differs between runs without meaning anything."""

    patterns: tuple[tuple[str, str], ...]
    source: str = ""

    def __repr__(self) -> str:
        return f"Sanitizer({len(self.patterns)} patterns from {self.source or 'memory'})"

    @classmethod
    def from_file(cls, path: Path | None = None) -> Sanitizer:
        """Read the patterns the way nbval reads them (`regex:` / `replace:` line pairs)."""
        path = Path(path) if path is not None else default_sanitize_config()
        if not path.is_file():
            raise FileNotFoundError(
                f"sanitizer config {path} not found (expected nbval's regex/replace file)"
            )
        patterns = tuple(get_sanitize_patterns(path.read_text(encoding="utf-8")))
        for regex, _ in patterns:
            re.compile(regex)  # a broken pattern fails here, naming nothing else
        return cls(patterns, str(path))

    def __call__(self, text: str) -> str:
        """The text with every pattern replaced, in file order (as nbval does)."""
        for regex, replace in self.patterns:
            text = re.sub(regex, replace, text)
        return text
