"""What a sandbox refusal looks like from inside: the errors a refused file, network, memory or process
request raises, and what each means for the instructor. The grader's executor and its hidden runs share it."""

from __future__ import annotations

__all__ = ["REFUSED", "refused"]

# Errors in a learner's cell that mean the sandbox refused something (or a limit was hit):
# the submission is graded `error` with that reason.
REFUSED = {
    "MemoryError": "ran out of memory",
    "OutOfMemoryError": "ran out of memory",
    "PermissionError": "was refused a file or resource",
    "FileNotFoundError": "opened a file outside its own folder",
    "ConnectionError": "tried to use the network",
    "ConnectionRefusedError": "tried to use the network",
    "gaierror": "tried to use the network",
    "BlockingIOError": "hit the process limit",
    "OSError": "was refused a system resource",
}


_NETWORK = ("Network is unreachable", "Temporary failure in name resolution", "Name or service not known")


def refused(name: str, message: str) -> str:
    """What the sandbox (or a limit) refused, when a cell error is of that kind; else ''."""
    if "can't allocate memory" in message:
        return REFUSED["MemoryError"]
    if any(w in message for w in _NETWORK):
        return REFUSED["ConnectionError"]
    return REFUSED.get(name, "")
