"""Build step: copy the course's notebooks into the package, so a wheel or a git+ install carries them.

The checkout keeps one copy of each notebook (notebooks/, exercises/, solutions/ at the top, where
maintainers edit them); a built wheel gets the lessons and the exercises as package data under
autograd_course/content/, where autograd_course.course finds them. The solutions stay out of the
wheel: an installed course (a learner's laptop, a hub image) would otherwise hand every reference
answer to the learner's kernel, unrecorded. An editable install copies nothing: it reads the checkout.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# Course files shipped in the wheel, relative to the checkout; autograd_course/course.py reads them
# (constraints.txt: the pins the Gradescope bundle installs with, autograd_instructor/grading/bundle.py).
CONTENT = ["notebooks/*.ipynb", "exercises/*.ipynb", "constraints.txt"]


class BuildWithContent(build_py):
    """build_py that also copies the course content into autograd_course/content/."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "autograd_course" / "content"
        shutil.rmtree(target, ignore_errors=True)  # a file deleted from the checkout leaves the wheel too
        for pattern in CONTENT:
            found = sorted(ROOT.glob(pattern))
            if not found:
                raise SystemExit(f"setup.py: no course files match {pattern!r} in {ROOT}")
            for source in found:
                dest = target / source.relative_to(ROOT)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, dest)


setup(cmdclass={"build_py": BuildWithContent})
