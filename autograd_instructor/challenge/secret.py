"""The release's secret: what a graded class's draws and hidden seeds are keyed by.

`autograd-course release --graded` makes a secret (`new_secret`) and keeps it in an instructor-only
file outside the release (`write_secret`); `grade --secret FILE` and the Gradescope bundle read it
(`read_secret`). A learner's graded draw identity is HMAC-SHA256(secret, learner id) (`graded_key`):
variant_for and hidden_runs take it in place of the id, so without the secret nobody can compute a
learner's graded variant or hidden seeds from the id and the public code. Practice mode has no
secret: its draws follow from the id (its solutions are public anyway).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from pathlib import Path

__all__ = ["SecretError", "graded_key", "learner_token", "new_secret", "read_secret", "write_secret"]

_FORMAT = "autograd-course release secret"


class SecretError(ValueError):
    """A secret file that cannot be read or written; the message says why."""


def new_secret() -> str:
    """A fresh secret: 32 random bytes, hex."""
    return secrets.token_hex(32)


def graded_key(secret: str, learner: str) -> str:
    """A learner's graded draw identity: HMAC-SHA256(secret, id), hex (not computable without secret)."""
    if not secret:
        raise SecretError("a graded draw needs the release's secret")
    return hmac.new(secret.encode(), learner.strip().encode(), hashlib.sha256).hexdigest()


def learner_token(secret: str, learner: str) -> str:
    """The token that opens one learner's sealed entry (autograd_course/sealed.py): HMAC(secret, ...) of
    the id, distinct from graded_key, so a learner who holds it still cannot compute their hidden seeds."""
    return graded_key(secret, f"entry token\x1f{learner.strip()}")


def write_secret(path: Path, secret: str) -> Path:
    """Write the instructor's secret file, readable by its owner only."""
    data = {"format": _FORMAT, "secret": secret}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600, exist_ok=True)
    path.chmod(0o600)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return path


def read_secret(path: Path) -> str:
    """The secret in a file `write_secret` wrote; SecretError saying why for anything else."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SecretError(f"cannot read the release secret {path}: {exc}") from None
    secret = data.get("secret") if isinstance(data, dict) else None
    if (
        not isinstance(data, dict)
        or data.get("format") != _FORMAT
        or not isinstance(secret, str)
        or not secret
    ):
        raise SecretError(f"{path} is not a release secret (the file `release --graded` wrote)")
    return secret
