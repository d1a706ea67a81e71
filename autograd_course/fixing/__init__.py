"""Part 2's training run and its replay: toolkit-only, so the learners' install and a course-less sandbox
kernel can hold them (no catalogue, reference or grader here)."""
