"""The course's one repository setting, and every launch link built from it.

The setting is `[project.urls] Repository` in pyproject.toml (an installed wheel carries it as its
Project-URL metadata). The setup cells, `autograd-course links`, the README's badge table and the
site's launch buttons all read it here; a fork changes that one line (then runs
`autograd-course setup-cell --write`, `autograd-course generate` and `autograd-course links --markdown`).
Every command that makes links also takes `--repo URL`, which wins over the setting.
"""

from __future__ import annotations

import importlib.metadata as md
import re
import tomllib
from urllib.parse import quote, urlencode, urlparse

from autograd_course.course import checkout

__all__ = [
    "DIST",
    "GIT_SCHEMES",
    "binder_link",
    "colab_link",
    "course_version",
    "project_table",
    "repo_parts",
    "repository",
]

DIST = "autograd-debugging-course"
URL_KEYS = ("Repository", "Source", "Homepage")
GIT_SCHEMES = ("http", "https", "file", "ssh", "git")  # what nbgitpuller can clone on a hub
_SCP_LIKE = re.compile(r"^[\w.-]+@[\w.-]+:[^/].*/.+")  # git@gitlab.example.edu:group/course.git


def project_table() -> dict:
    """The checkout's pyproject.toml [project] table; {} in an installed wheel."""
    root = checkout()
    if root is None:
        return {}
    return tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8")).get("project", {})


def repository() -> str | None:
    """The course's public repository: [project.urls] Repository (or Source, Homepage), else None."""
    project = project_table()
    if project:
        urls = project.get("urls", {})
    else:
        try:
            entries = md.metadata(DIST).get_all("Project-URL") or []
        except md.PackageNotFoundError:
            entries = []
        urls = dict(tuple(part.strip() for part in e.split(",", 1)) for e in entries if "," in e)
    found = next((urls[k] for k in URL_KEYS if urls.get(k)), None)
    return found.rstrip("/") if found else None


def course_version() -> str:
    """The course's version ([project] version), which names its release tag v<version>."""
    return project_table().get("version") or md.version(DIST)


def repo_parts(repo: str) -> tuple[str, str | None]:
    """(repository URL without .git, "owner/name" on GitHub else None); ValueError for a non-URL.

    Any git URL serves a hub (GitHub, GitLab, a self-hosted server, file:// in tests).
    """
    text = repo.strip().rstrip("/")
    parsed = urlparse(text)
    path = parsed.path.strip("/")
    if not _SCP_LIKE.match(text) and (
        parsed.scheme not in GIT_SCHEMES
        or (parsed.scheme != "file" and not parsed.netloc)
        or path.count("/") < (0 if parsed.scheme == "file" else 1)
        or not path
    ):
        raise ValueError(
            "expected the repository as a git URL like https://github.com/OWNER/NAME, "
            f"https://gitlab.example.edu/GROUP/NAME.git or file:///path/to/course.git; got {repo!r}"
        )
    url = text.removesuffix(".git")
    github = parsed.scheme in ("http", "https") and parsed.netloc.lower() == "github.com"
    return url, urlparse(url).path.strip("/") if github else None


def colab_link(repo: str, ref: str, path: str) -> str:
    """Open-in-Colab for one notebook (path relative to the course root); "" off github.com."""
    _, slug = repo_parts(repo)
    return f"https://colab.research.google.com/github/{slug}/blob/{ref}/{path}" if slug else ""


def binder_link(repo: str, ref: str, path: str) -> str:
    """mybinder.org opening one notebook in JupyterLab (?labpath=); "" for a local or ssh repository."""
    url, slug = repo_parts(repo)
    if slug:
        base = f"https://mybinder.org/v2/gh/{slug}/{quote(ref, safe='')}"
    elif urlparse(url).scheme in ("http", "https"):
        base = f"https://mybinder.org/v2/git/{quote(url + '.git', safe='')}/{quote(ref, safe='')}"
    else:
        return ""  # mybinder.org cannot reach a local or ssh-only repository
    return f"{base}?{urlencode({'labpath': path})}"
