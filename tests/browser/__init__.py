"""Browser tests: the course run in a real JupyterLab in Chromium, and the checks they make."""
