# Sphinx configuration of the ishmem docs (built by the `docs` CMake target).
project = "ishmem"
author = "the ishmem developers"
copyright = "2026, the ishmem developers"
release = "1.5.1"
extensions = []
exclude_patterns = ["_build", "examples"]
html_theme = "alabaster"
# Wide pages: reference signatures are long; they wrap (see _static/ishmem.css) instead of scrolling.
html_theme_options = {"page_width": "auto", "sidebar_width": "240px", "body_max_width": "none"}
html_static_path = ["_static"]
html_css_files = ["ishmem.css"]
highlight_language = "none"  # literal blocks are shell or CMake; C++ uses code-block
nitpicky = False
