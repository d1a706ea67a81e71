"""Where a graded release keeps its secret: an instructor-only file outside the release folder.

The release folder is what learners pull, so the secret never goes in it. By default it is
`OUT.secret.json` beside OUT; an existing file is reused (a re-release for a changed roster keeps
every learner's variant). Beside it, `OUT.tokens.json` holds each roster id's token (learner_token),
which the instructor hands to that learner's kernel (AUTOGRAD_COURSE_TOKEN: docs/classroom.md).
"""

from __future__ import annotations

import json
from pathlib import Path

from autograd_instructor.challenge.secret import (
    SecretError,
    learner_token,
    new_secret,
    read_secret,
    write_secret,
)

__all__ = ["default_secret_path", "release_secret", "tokens_path"]


def default_secret_path(out: Path) -> Path:
    """OUT.secret.json, beside the release folder OUT."""
    out = Path(out).resolve()
    return out.parent / f"{out.name}.secret.json"


def release_secret(out: Path, path: Path | None, roster_ids: list[str]) -> tuple[str, Path]:
    """(the secret, its file): read from path when it exists, else made and written there.

    SecretError (a ValueError) when path is inside the release or is not a secret file.
    """
    target = Path(path).resolve() if path is not None else default_secret_path(out)
    if target.is_relative_to(Path(out).resolve()):
        raise SecretError(f"--secret {target} is inside the release {out}: learners would receive it")
    secret = read_secret(target) if target.exists() else new_secret()
    write_secret(target, secret)
    tokens = tokens_path(target)
    if tokens.is_relative_to(Path(out).resolve()):
        raise SecretError(f"{tokens} is inside the release {out}: learners would receive every token")
    tokens.touch(mode=0o600, exist_ok=True)
    tokens.write_text(json.dumps({i: learner_token(secret, i) for i in roster_ids}, indent=1) + "\n")
    return secret, target


def tokens_path(secret_path: Path) -> Path:
    """The learners' tokens file beside the secret file: OUT.secret.json -> OUT.tokens.json."""
    name = secret_path.name.removesuffix(".json").removesuffix(".secret")
    return secret_path.with_name(f"{name}.tokens.json")
