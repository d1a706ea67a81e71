"""`autograd-course links --repo URL`: Colab, Binder and nbgitpuller links for every notebook."""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from urllib.parse import quote, urlencode, urlparse

from autograd_course.course import course_notebooks, exercise_notebooks

NAME = "links"
HELP = "print Open-in-Colab, Binder and JupyterHub (nbgitpuller) links for your fork of the course"

COLAB_BADGE = "https://colab.research.google.com/assets/colab-badge.svg"
BINDER_BADGE = "https://mybinder.org/badge_logo.svg"


@dataclass(frozen=True)
class NotebookLinks:
    """The links that open one course notebook on each platform ("" where one does not apply)."""

    path: str
    colab: str
    binder: str
    hub: str

    def __repr__(self) -> str:
        return f"NotebookLinks({self.path})"


GIT_SCHEMES = ("http", "https", "file", "ssh", "git")  # what nbgitpuller can clone on a hub
_SCP_LIKE = re.compile(r"^[\w.-]+@[\w.-]+:[^/].*/.+")  # git@gitlab.example.edu:group/course.git


def _repo_parts(repo: str) -> tuple[str, str | None]:
    """(repository URL without .git, "owner/name" on GitHub else None); ValueError for a non-URL.

    Any git URL serves the hub (GitHub, GitLab, a self-hosted server, file:// in tests).
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


def _hub_link(hub: str, clone: str, ref: str, path: str) -> str:
    """The nbgitpuller link: clone (or merge into) ~/<repo name>/ on the hub, then open path in JupyterLab.

    nbgitpuller names the folder after the URL's last part, .git included: name it without .git.
    """
    default = clone.rsplit("/", 1)[-1]
    folder = default.removesuffix(".git")
    query = {"repo": clone, "branch": ref}
    if folder != default:
        query["targetpath"] = folder
    query["urlpath"] = f"lab/tree/{folder}/{path}"
    return f"{hub.rstrip('/')}/hub/user-redirect/git-pull?{urlencode(query)}"


def notebook_links(repo: str, ref: str = "main", hub: str | None = None) -> list[NotebookLinks]:
    """Links for every lesson (notebooks/) and exercise (exercises/), in course order."""
    url, slug = _repo_parts(repo)
    clone = url if slug else repo.strip().rstrip("/")  # .git is optional on GitHub only; keep it elsewhere
    paths = [f"notebooks/{p.name}" for p in course_notebooks()]
    paths += [f"exercises/{p.name}" for p in exercise_notebooks()]
    binder_base = (
        f"https://mybinder.org/v2/gh/{slug}/{quote(ref, safe='')}"
        if slug
        else f"https://mybinder.org/v2/git/{quote(url + '.git', safe='')}/{quote(ref, safe='')}"
        if urlparse(url).scheme in ("http", "https")
        else ""  # mybinder.org cannot reach a local or ssh-only repository
    )
    out = []
    for path in paths:
        colab = f"https://colab.research.google.com/github/{slug}/blob/{ref}/{path}" if slug else ""
        binder = f"{binder_base}?{urlencode({'labpath': path})}" if binder_base else ""
        pull = _hub_link(hub, clone, ref, path) if hub else ""
        out.append(NotebookLinks(path, colab, binder, pull))
    return out


def markdown_table(links: list[NotebookLinks]) -> str:
    """The links as a README table of badges."""
    hub = any(link.hub for link in links)
    head = "| notebook | Colab | Binder |" + (" JupyterHub |" if hub else "")
    rows = [head, "|---|---|---|" + ("---|" if hub else "")]
    for link in links:
        colab = f"[![Open In Colab]({COLAB_BADGE})]({link.colab})" if link.colab else "-"
        binder = f"[![Binder]({BINDER_BADGE})]({link.binder})" if link.binder else "-"
        row = f"| `{link.path}` | {colab} | {binder} |"
        rows.append(row + (f" [open]({link.hub}) |" if hub else ""))
    return "\n".join(rows)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--repo, --ref, --hub, --markdown."""
    parser.add_argument(
        "--repo", required=True, help="your repository (fork), e.g. https://github.com/OWNER/NAME"
    )
    parser.add_argument("--ref", default="main", help="branch, tag or commit the links open (default: main)")
    parser.add_argument(
        "--hub", help="your JupyterHub's URL, for nbgitpuller links (e.g. https://hub.example.edu)"
    )
    parser.add_argument("--markdown", action="store_true", help="print a badge table for a README")


def main(args: argparse.Namespace) -> int:
    """Print the links; exit 2 for a repository or hub that is not an https URL."""
    if args.hub and urlparse(args.hub).scheme not in ("http", "https"):
        print(
            f"error: expected --hub as an https URL like https://hub.example.edu; got {args.hub!r}",
            file=sys.stderr,
        )
        return 2
    try:
        links = notebook_links(args.repo, args.ref, args.hub)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if links and not links[0].colab:
        print("no Colab links: Colab opens notebooks from github.com only", file=sys.stderr)
    if args.markdown:
        print(markdown_table(links))
        return 0
    for link in links:
        print(link.path)
        for label, url in (("Colab", link.colab), ("Binder", link.binder), ("JupyterHub", link.hub)):
            if url:
                print(f"  {label:<10} {url}")
    return 0
