"""Part 1's proof run: toolkit-only, so the learners' install and a course-less sandbox kernel can hold
it (no catalogue, reference or grader here)."""
