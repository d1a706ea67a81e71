"""The commands of the instructor's part: running a class (release, collect, grade, gradescope,
class-progress, links), maintaining the course (generate, run, setup-cell, site), and the learner's
`check`, which grades with this part's references. autograd_course.commands finds them here."""
