"""Unpack a .zip or .tar.gz submission into a scratch folder, refusing anything that escapes it."""

from __future__ import annotations

import tarfile
import zipfile
from pathlib import Path, PurePosixPath

__all__ = ["ARCHIVE_SUFFIXES", "ArchiveError", "is_archive", "unpack"]

ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")
MAX_BYTES = 256 << 20  # unpacked size of one submission
MAX_FILES = 2000


class ArchiveError(ValueError):
    """An archive that cannot be unpacked safely; the message says why."""


def is_archive(path: Path) -> bool:
    """True for the archive kinds a submission may come as."""
    return path.name.lower().endswith(ARCHIVE_SUFFIXES)


def _safe(name: str, archive: Path) -> PurePosixPath:
    member = PurePosixPath(name.replace("\\", "/"))
    if member.is_absolute() or ".." in member.parts or name.startswith("/"):
        raise ArchiveError(f"{archive.name}: refused, member {name!r} points outside the archive")
    return member


def unpack(archive: Path, dest: Path, max_bytes: int = MAX_BYTES) -> list[Path]:
    """Extract the archive's regular files into dest; the archive itself is only read."""
    dest.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    total = 0
    try:
        if archive.name.lower().endswith(".zip"):
            with zipfile.ZipFile(archive) as zf:
                infos = zf.infolist()
                if len(infos) > MAX_FILES:
                    raise ArchiveError(f"{archive.name}: refused, more than {MAX_FILES} files")
                for info in infos:
                    member = _safe(info.filename, archive)
                    if (info.external_attr >> 16) & 0o170000 == 0o120000:
                        raise ArchiveError(f"{archive.name}: refused, {info.filename!r} is a symbolic link")
                    if info.is_dir():
                        continue
                    target = dest / member
                    target.parent.mkdir(parents=True, exist_ok=True)
                    with zf.open(info) as src, target.open("wb") as out:
                        total = _copy(src, out, total, max_bytes, archive)
                    written.append(target)
        else:
            with tarfile.open(archive, "r:*") as tf:
                members = tf.getmembers()
                if len(members) > MAX_FILES:
                    raise ArchiveError(f"{archive.name}: refused, more than {MAX_FILES} files")
                for info in members:
                    member = _safe(info.name, archive)
                    if info.issym() or info.islnk():
                        raise ArchiveError(f"{archive.name}: refused, {info.name!r} is a link")
                    if info.isdir():
                        continue
                    if not info.isfile():
                        raise ArchiveError(f"{archive.name}: refused, {info.name!r} is not a regular file")
                    target = dest / member
                    target.parent.mkdir(parents=True, exist_ok=True)
                    src = tf.extractfile(info)
                    with src, target.open("wb") as out:
                        total = _copy(src, out, total, max_bytes, archive)
                    written.append(target)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as exc:
        raise ArchiveError(f"{archive.name}: not a readable archive ({type(exc).__name__}: {exc})") from None
    return written


def _copy(src, out, total: int, max_bytes: int, archive: Path) -> int:
    while chunk := src.read(1 << 20):
        total += len(chunk)
        if total > max_bytes:
            raise ArchiveError(
                f"{archive.name}: refused, it expands past {max_bytes >> 20} MiB (a size bomb?)"
            )
        out.write(chunk)
    return total
