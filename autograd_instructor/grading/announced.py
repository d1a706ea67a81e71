"""The earlier cells an answer needs, each announced as it starts (runs in the grader's kernel).

Sent to the kernel as source text (it cannot import the course), so it uses the standard library only.
The harness runs an answer's earlier cells by iterating over what it is given (run_earlier); given an
`Announced`, each cell's number is written to a file beside the run's output as that cell starts, and
"answer" once they all ran. When the part times out, the grader reads which cell the run was in
(grading/hangs.py). The file is opened before the answer's run, so the run's audit of the files an
answer opens sees no opening.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

__all__ = ["ANSWER", "Announced"]

ANSWER = "answer"  # written once every earlier cell ran


class Announced:
    """(cell number, code) pairs to iterate over, writing each number to path as its cell starts."""

    def __init__(self, cells: list, path: str) -> None:
        self.cells = list(cells)
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)

    def __repr__(self) -> str:
        return f"Announced({[n for n, _ in self.cells]})"

    def __len__(self) -> int:
        return len(self.cells)

    def __iter__(self) -> Iterator[tuple]:
        for number, code in self.cells:
            self._say(str(int(number)))
            yield number, code
        self._say(ANSWER)

    def _say(self, text: str) -> None:
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, text.encode(), 0)
