"""The Gradescope autograder bundle: setup.sh, run_autograder, the course as a wheel and its pins.

The bundle is built from the course this process runs, however it was installed: the wheel is packed
from the imported packages (`autograd_course`, `helpers`), the lessons and exercises (never the
solutions) and the installed distribution's metadata, so a non-editable `[grade]` install builds the
same bundle a checkout does. Nothing is written unless the bundle holds everything setup.sh installs.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata as md
import os
import tempfile
import zipfile
from pathlib import Path

import autograd_course
import autograd_instructor
import helpers
from autograd_course.course import PACKAGED, checkout, content_dir
from autograd_instructor.challenge.secret import SecretError, read_secret
from autograd_instructor.grading.overrides import OVERRIDES_NAME, OverrideError, read_overrides

SECRET_NAME = "release-secret.json"  # in the bundle: /autograder/source/release-secret.json
__all__ = ["PROJECT", "SECRET_NAME", "BundleError", "build_bundle", "bundle_wheel_name", "setup_sh"]

PROJECT = "autograd-debugging-course"
SOURCE = "/autograder/source"
RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission; results go to $AUTOGRADER_ROOT/results/results.json.
set -uo pipefail
root="${AUTOGRADER_ROOT:-/autograder}"
exec "$root/venv/bin/python" -m autograd_instructor.grading.gradescope --root "$root"
"""
# Files the grader cannot work without, checked in the wheel before the bundle is written.
REQUIRED = (
    "autograd_course/__init__.py",
    "autograd_course/cli.py",
    "autograd_instructor/grading/gradescope.py",
    "autograd_instructor/challenge/catalogue.py",
    "helpers/__init__.py",
)


class BundleError(RuntimeError):
    """A bundle that could not be made complete; the message says what is missing."""


def setup_sh(wheel: str) -> str:
    """setup.sh: runs once when Gradescope builds the image; installs the bundled wheel with its pins."""
    return f"""#!/usr/bin/env bash
# Runs once when Gradescope builds the autograder image.
set -euo pipefail
apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv bubblewrap >/dev/null
python3 -m venv /autograder/venv
# torch's CPU build (PyPI's default Linux wheel is the multi-GB CUDA one).
/autograder/venv/bin/pip install -q --extra-index-url https://download.pytorch.org/whl/cpu \\
  -c {SOURCE}/constraints.txt "{SOURCE}/{wheel}[grade]"
"""


def _distribution() -> md.Distribution:
    try:
        return md.distribution(PROJECT)
    except md.PackageNotFoundError:
        raise BundleError(
            f"the course is not installed as a distribution ({PROJECT}): install it with "
            "`pip install -c constraints.txt '.[grade]'` (or `-e`) and run the command again"
        ) from None


def bundle_wheel_name(version: str) -> str:
    """The wheel's file name (PEP 427): a pure-Python wheel for any Python 3."""
    return f"{PROJECT.replace('-', '_')}-{version}-py3-none-any.whl"


def _package_files(package) -> dict[str, Path]:
    """{path in the wheel: file} of one imported package, without caches, dotfiles or course content."""
    top = Path(package.__file__).resolve().parent
    found = {}
    for path in sorted(top.rglob("*")):
        rel = path.relative_to(top)
        skip = "__pycache__" in rel.parts or any(p.startswith(".") for p in rel.parts)
        if path.is_file() and not skip and path.suffix != ".pyc" and rel.parts[0] != "content":
            found[f"{top.name}/{rel.as_posix()}"] = path
    return found


def _constraints() -> Path:
    """The course's pins: the checkout's constraints.txt, or the copy an installed wheel carries."""
    for candidate in ([checkout() / "constraints.txt"] if checkout() else []) + [
        PACKAGED / "constraints.txt"
    ]:
        if candidate.is_file():
            return candidate
    raise BundleError(
        "constraints.txt (the course's tested pins, which setup.sh installs with) is not in this install; "
        "reinstall the course from a release or checkout that ships it"
    )


def _content_files() -> dict[str, Path]:
    """The lessons and exercises (never the solutions) as autograd_course/content/ in the wheel."""
    found = {}
    for folder in ("notebooks", "exercises"):
        for path in sorted(content_dir(folder).glob("*.ipynb")):
            found[f"autograd_course/content/{folder}/{path.name}"] = path
    return found


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _wheel_bytes(dist: md.Distribution, files: dict[str, Path], out: Path) -> None:
    """Write the wheel: the files, then METADATA, entry points, WHEEL and RECORD in its .dist-info."""
    version = dist.version
    info = f"{PROJECT.replace('-', '_')}-{version}.dist-info"
    meta = {
        # a checkout's .egg-info (found first when run from the checkout) names it PKG-INFO
        f"{info}/METADATA": (dist.read_text("METADATA") or dist.read_text("PKG-INFO") or "").encode(),
        f"{info}/entry_points.txt": (dist.read_text("entry_points.txt") or "").encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: autograd-course\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
    }
    if not meta[f"{info}/METADATA"] or not meta[f"{info}/entry_points.txt"]:
        raise BundleError(f"the installed {PROJECT} has no METADATA or entry points to build its wheel from")
    record = []
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, path in sorted(files.items()):
            data = path.read_bytes()
            zf.writestr(name, data)
            record.append(_record_line(name, data))
        for name, data in meta.items():
            zf.writestr(name, data)
            record.append(_record_line(name, data))
        record.append(f"{info}/RECORD,,")
        zf.writestr(f"{info}/RECORD", "\n".join(record) + "\n")


def _check_complete(files: dict[str, Path]) -> None:
    missing = [name for name in REQUIRED if name not in files]
    if not any(name.startswith("autograd_course/content/exercises/") for name in files):
        missing.append("autograd_course/content/exercises/*.ipynb")
    if missing:
        raise BundleError(f"the course found here lacks {', '.join(missing)}; nothing was written")


def build_bundle(out: Path, overrides: Path | None = None, secret: Path | None = None) -> Path:
    """Write autograder.zip (setup.sh, run_autograder, the course's wheel, constraints.txt), or raise.

    The zip is written beside `out` and moved into place only when complete: BundleError leaves
    nothing behind.
    """
    if overrides is not None:
        try:
            read_overrides(overrides)
        except OverrideError as exc:
            raise BundleError(str(exc)) from None
    if secret is not None:
        try:
            read_secret(secret)
        except SecretError as exc:
            raise BundleError(f"--secret: {exc}") from None
    dist = _distribution()
    files = (
        _package_files(autograd_course)
        | _package_files(autograd_instructor)
        | _package_files(helpers)
        | _content_files()
    )
    _check_complete(files)
    constraints = _constraints()
    wheel = bundle_wheel_name(dist.version)
    with tempfile.TemporaryDirectory(prefix=".autograder-", dir=out.parent) as tmp:
        _wheel_bytes(dist, files, Path(tmp) / wheel)
        partial = Path(tmp) / "autograder.zip"
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, text in (("setup.sh", setup_sh(wheel)), ("run_autograder", RUN_AUTOGRADER)):
                info = zipfile.ZipInfo(name)
                info.external_attr = 0o100755 << 16
                zf.writestr(info, text)
            zf.write(Path(tmp) / wheel, wheel)
            zf.write(constraints, "constraints.txt")
            if overrides is not None:  # run_autograder applies the rows of each submission's learner
                zf.write(overrides, OVERRIDES_NAME)
            if secret is not None:  # run_autograder draws graded notebooks' variants with it
                zf.write(secret, SECRET_NAME)
        os.replace(partial, out)
    return out
