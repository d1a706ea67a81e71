"""`autograd-course links --repo URL`: Colab, Binder and nbgitpuller links for every notebook."""

from __future__ import annotations

import argparse
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


def _repo_parts(repo: str) -> tuple[str, str | None]:
    """(clone URL without .git, "owner/name" on GitHub else None); ValueError for a non-URL."""
    parsed = urlparse(repo.strip())
    if parsed.scheme not in ("http", "https") or not parsed.netloc or parsed.path.strip("/").count("/") < 1:
        raise ValueError(
            f"expected the repository as an https URL like https://github.com/OWNER/NAME; got {repo!r}"
        )
    url = repo.strip().rstrip("/").removesuffix(".git")
    slug = urlparse(url).path.strip("/")
    return url, slug if parsed.netloc.lower() == "github.com" else None


def notebook_links(repo: str, ref: str = "main", hub: str | None = None) -> list[NotebookLinks]:
    """Links for every lesson (notebooks/) and exercise (exercises/), in course order."""
    url, slug = _repo_parts(repo)
    repo_dir = url.rsplit("/", 1)[-1]  # the folder nbgitpuller clones into
    paths = [f"notebooks/{p.name}" for p in course_notebooks()]
    paths += [f"exercises/{p.name}" for p in exercise_notebooks()]
    binder_base = (
        f"https://mybinder.org/v2/gh/{slug}/{quote(ref, safe='')}"
        if slug
        else f"https://mybinder.org/v2/git/{quote(url + '.git', safe='')}/{quote(ref, safe='')}"
    )
    out = []
    for path in paths:
        colab = f"https://colab.research.google.com/github/{slug}/blob/{ref}/{path}" if slug else ""
        binder = f"{binder_base}?{urlencode({'labpath': path})}"
        pull = ""
        if hub:
            query = urlencode({"repo": url, "branch": ref, "urlpath": f"lab/tree/{repo_dir}/{path}"})
            pull = f"{hub.rstrip('/')}/hub/user-redirect/git-pull?{query}"
        out.append(NotebookLinks(path, colab, binder, pull))
    return out


def markdown_table(links: list[NotebookLinks]) -> str:
    """The links as a README table of badges."""
    hub = any(link.hub for link in links)
    head = "| notebook | Colab | Binder |" + (" JupyterHub |" if hub else "")
    rows = [head, "|---|---|---|" + ("---|" if hub else "")]
    for link in links:
        colab = f"[![Open In Colab]({COLAB_BADGE})]({link.colab})" if link.colab else "-"
        row = f"| `{link.path}` | {colab} | [![Binder]({BINDER_BADGE})]({link.binder}) |"
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
    if args.markdown:
        print(markdown_table(links))
        return 0
    for link in links:
        print(link.path)
        for label, url in (("Colab", link.colab), ("Binder", link.binder), ("JupyterHub", link.hub)):
            if url:
                print(f"  {label:<10} {url}")
    return 0
