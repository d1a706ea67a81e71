"""`python -m autograd_course` is `autograd-course`."""

import sys

from autograd_course.cli import main

sys.exit(main())
