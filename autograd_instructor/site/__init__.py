"""The course as a static website (`autograd-course site OUT_DIR`), built from the notebooks' stored outputs.

nbconvert's HTMLExporter renders each notebook without a kernel, through its `basic` template (the
notebook body only: the `lab` and `classic` page templates load require.js, MathJax and Mermaid from
CDNs); the page around it, the theme, the search and a vendored Mermaid are this package's own, so a
built site loads nothing from another host.
"""

from __future__ import annotations

from autograd_instructor.site.build import SITE_TITLE, BuiltSite, build_site
from autograd_instructor.site.notebook_html import WIDGET_NOTE

__all__ = ["SITE_TITLE", "WIDGET_NOTE", "BuiltSite", "build_site"]
