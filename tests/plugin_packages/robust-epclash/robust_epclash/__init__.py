"""Entry points named `models` and `attacks`, like robust's own: both must load beside the built-ins."""
