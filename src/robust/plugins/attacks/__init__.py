"""Built-in transforms: RobTest's robustness dimensions, one plugin per module (`attacks.typo`, ...).

Each module registers its `TRANSFORMS`; the plugin loader imports each on its own (`PLUGINS`), so a module that
fails to import is listed under broken plugins with its cause and the others stay available.
"""

PLUGINS = ("typo", "glyph", "phonetic", "synonym", "inflection", "contextual", "syntax", "distraction")
