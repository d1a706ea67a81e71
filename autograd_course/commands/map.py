"""`autograd-course map`: print the course map."""

from __future__ import annotations

import argparse

from autograd_course.course import course_map_text

NAME = "map"
AUDIENCE = "learner"
HELP = "print the course map (notebooks in order, what each teaches)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No arguments."""


def main(args: argparse.Namespace) -> int:
    """Print the map."""
    print(course_map_text())
    return 0
