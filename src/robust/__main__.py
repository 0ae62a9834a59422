"""`python -m robust ...` is `robust ...`."""

from robust.launcher import main

main()
