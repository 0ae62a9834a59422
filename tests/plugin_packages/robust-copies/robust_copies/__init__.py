"""Registers the copies of three built-ins (the copied modules are written beside this one at install time)."""

import robust


@robust.hookimpl
def register_transforms(register):
    from robust_copies import typo

    for transform in typo.TRANSFORMS:
        register(transform)


@robust.hookimpl
def register_scorers(register):
    from robust_copies import scores

    register(scores.AverageScore)
    register(scores.WorstScore)


@robust.hookimpl
def register_models(register):
    from robust_copies import hf

    register(hf.HFModel)
