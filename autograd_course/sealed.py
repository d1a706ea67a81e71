"""Sealed entries of a graded release's variants file: only the learner who holds the token reads one.

Each learner's entry in `graded-variants.json` is stored under entry_key(token) and sealed with the
token (a keystream from SHAKE-256 of the token, XORed with the entry's JSON; each token seals one
entry, once). The token is HMAC(release secret, learner id), made by the instructor's install; the
learner's kernel gets only its own (AUTOGRAD_COURSE_TOKEN). Without it, the file tells nobody which
entry is whose, nor what any entry holds. Standard library only: the learners' install reads it.
"""

from __future__ import annotations

import base64
import hashlib
import json

__all__ = ["entry_key", "seal", "unseal"]


def entry_key(token: str) -> str:
    """Where a token's entry is stored in the variants file."""
    return hashlib.sha256(f"entry key\x1f{token.strip()}".encode()).hexdigest()


def _stream(token: str, size: int) -> bytes:
    return hashlib.shake_256(f"entry seal\x1f{token.strip()}".encode()).digest(size)


def seal(entry: dict, token: str) -> str:
    """The entry's JSON, sealed with the token (base64 text)."""
    data = json.dumps(entry).encode()
    return base64.b64encode(bytes(a ^ b for a, b in zip(data, _stream(token, len(data))))).decode()


def unseal(sealed: str, token: str) -> dict:
    """The entry seal() sealed with this token; ValueError when the token is not the one."""
    data = base64.b64decode(sealed)
    plain = bytes(a ^ b for a, b in zip(data, _stream(token, len(data))))
    try:
        return json.loads(plain.decode())
    except (UnicodeDecodeError, ValueError):
        raise ValueError("this token does not open this entry") from None
