"""`autograd-course links [--repo URL]`: Colab, Binder and nbgitpuller links for every notebook.

The repository defaults to the course's one setting, [project.urls] Repository (autograd_course.repository).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from urllib.parse import urlencode, urlparse

from autograd_course.course import course_notebooks, exercise_notebooks
from autograd_course.protocol import CommandError
from autograd_course.repository import binder_link, colab_link, repo_parts, repository

NAME = "links"
AUDIENCE = "instructor"
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
    url, slug = repo_parts(repo)
    clone = url if slug else repo.strip().rstrip("/")  # .git is optional on GitHub only; keep it elsewhere
    paths = [f"notebooks/{p.name}" for p in course_notebooks()]
    paths += [f"exercises/{p.name}" for p in exercise_notebooks()]
    out = []
    for path in paths:
        pull = _hub_link(hub, clone, ref, path) if hub else ""
        out.append(NotebookLinks(path, colab_link(repo, ref, path), binder_link(repo, ref, path), pull))
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
        "--repo",
        help="your repository (fork), e.g. https://github.com/OWNER/NAME "
        "(default: [project.urls] Repository in pyproject.toml)",
    )
    parser.add_argument("--ref", default="main", help="branch, tag or commit the links open (default: main)")
    parser.add_argument(
        "--hub", help="your JupyterHub's URL, for nbgitpuller links (e.g. https://hub.example.edu)"
    )
    parser.add_argument("--markdown", action="store_true", help="print a badge table for a README")


def main(args: argparse.Namespace) -> int:
    """Print the links; exit 2 for a repository or hub that is not an https URL."""
    if args.hub and urlparse(args.hub).scheme not in ("http", "https"):
        raise CommandError(f"expected --hub as an https URL like https://hub.example.edu; got {args.hub!r}")
    setting = repository()
    repo = args.repo or setting
    if not repo:
        raise CommandError(
            "no repository: pass --repo URL, or set [project.urls] Repository in pyproject.toml"
        )
    try:
        links = notebook_links(repo, args.ref, args.hub)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    if links and not links[0].colab:
        print("no Colab links: Colab opens notebooks from github.com only", file=sys.stderr)
    elif links and not setting:
        print(
            "warning: [project.urls] Repository is not set, so the notebooks' setup cells cannot install "
            "the course on Colab or Kaggle: set it, run `autograd-course setup-cell --write` and "
            "`autograd-course generate`, and push, before sharing these Colab links",
            file=sys.stderr,
        )
    elif links and repo_parts(repo)[0] != setting.removesuffix(".git"):
        print(
            f"warning: on Colab and Kaggle the notebooks' setup cells install the course from {setting} "
            "([project.urls] Repository), not from --repo",
            file=sys.stderr,
        )
    if args.markdown:
        print(markdown_table(links))
        return 0
    for link in links:
        print(link.path)
        for label, url in (("Colab", link.colab), ("Binder", link.binder), ("JupyterHub", link.hub)):
            if url:
                print(f"  {label:<10} {url}")
    return 0
