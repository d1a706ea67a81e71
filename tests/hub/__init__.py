"""A real JupyterHub for the classroom test: configurable-http-proxy, a dummy login, local learners."""
