"""Where a graded release keeps its secret: an instructor-only file outside the release folder.

The release folder is what learners pull, so the secret never goes in it. By default it is
`OUT.secret.json` beside OUT; an existing file is reused (a re-release for a changed roster keeps
every learner's variant), and each roster id's graded key is added to it (the instructor's record).
"""

from __future__ import annotations

from pathlib import Path

from autograd_course.challenge.secret import SecretError, graded_key, new_secret, read_secret, write_secret

__all__ = ["default_secret_path", "release_secret"]


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
    write_secret(target, secret, {learner: graded_key(secret, learner) for learner in roster_ids})
    return secret, target
