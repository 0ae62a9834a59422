"""`python -m robust ...` is `robust ...`."""

from robust.cli import main

main()
