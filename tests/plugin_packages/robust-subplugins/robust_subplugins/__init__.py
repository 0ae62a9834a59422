"""A package of plugins, as robust's own `attacks`: each submodule is loaded and isolated on its own."""

PLUGINS = ("good", "bad")
