# Sphinx configuration of the ishmem docs (built by the `docs` CMake target).
project = "ishmem"
author = "the ishmem developers"
copyright = "2026, the ishmem developers"
release = "1.5.1"
extensions = []
exclude_patterns = ["_build"]
html_theme = "alabaster"
highlight_language = "none"  # literal blocks are shell or CMake; C++ uses code-block
nitpicky = False
