"""robust-example: one plugin of each kind, registered through robust's hooks like any third party's."""

import robust
from robust_example.attacker import RandomSearch
from robust_example.benchmark import KeywordRobustness
from robust_example.data import TinyReviews
from robust_example.model import KeywordModel
from robust_example.resource import KeywordLexicon
from robust_example.scorer import CentroidGap
from robust_example.transform import LeetSpeak


@robust.hookimpl
def register_transforms(register):
    register(LeetSpeak)


@robust.hookimpl
def register_attackers(register):
    register(RandomSearch)


@robust.hookimpl
def register_models(register):
    register(KeywordModel)


@robust.hookimpl
def register_datasets(register):
    register(TinyReviews)


@robust.hookimpl
def register_scorers(register):
    register(CentroidGap)


@robust.hookimpl
def register_resources(register):
    register(KeywordLexicon)


@robust.hookimpl
def register_benchmarks(register):
    register(KeywordRobustness)
