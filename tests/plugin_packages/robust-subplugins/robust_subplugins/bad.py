import a_dependency_that_is_not_installed  # noqa: F401

import robust


@robust.hookimpl
def register_transforms(register):
    raise AssertionError("never reached")
