"""Running notebooks: the one kernel executor (`kernel`) and the sandbox (`sandbox`).

Used by grading, regression and the learner's `check`. Imports neither papermill nor nbval, so
the learner's core install can run `check`. Import the modules themselves: this file stays empty
so that `autograd_course.execution.sandbox` (the CLI's choices) loads without the Jupyter stack.
"""
