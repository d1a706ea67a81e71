"""The instructor's part of the course: the challenge's catalogue, references and proofs, grading,
the classroom (releases, collection, the room), regression runs, the site, and the commands that use
them. It builds on the learner's part (autograd_course, helpers); a graded release installs only that."""
