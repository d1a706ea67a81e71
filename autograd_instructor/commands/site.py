"""`autograd-course site OUT_DIR`: the whole course as a static website, from the stored outputs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograd_course.protocol import CommandError

NAME = "site"
AUDIENCE = "maintainer"
HELP = "build the course as a static website (course map, every lesson and exercise, search) into OUT_DIR"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """OUT_DIR, --repo, --branch."""
    parser.add_argument("out_dir", type=Path, metavar="OUT_DIR", help="folder to write the site into")
    parser.add_argument(
        "--repo",
        help="repository the launch links open (default: [project.urls] Repository in pyproject.toml)",
    )
    parser.add_argument(
        "--branch", default="main", help="branch, tag or commit the links open (default: main)"
    )


def main(args: argparse.Namespace) -> int:
    """Build the site; exit 2 for a repository that is not a URL or an OUT_DIR that is a file."""
    try:
        from autograd_instructor.site import build_site
    except ImportError as exc:  # nbconvert is the [site] extra, not the core
        raise CommandError(
            f"{exc.name or exc} is missing: pip install 'autograd-debugging-course[site]'"
        ) from None
    if args.out_dir.exists() and not args.out_dir.is_dir():
        raise CommandError(f"{args.out_dir} is a file, not a folder")
    try:
        site = build_site(args.out_dir, args.repo, args.branch)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    print(f"wrote {len(site.pages)} notebook pages and the course map: {site.out_dir / 'index.html'}")
    if not site.repo:
        print(
            "note: no repository: pages have no Colab or Binder links; pass --repo or set "
            "[project.urls] Repository",
            file=sys.stderr,
        )
    return 0
