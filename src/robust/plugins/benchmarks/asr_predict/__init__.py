"""RobustText (Dang et al., Findings of ACL 2024): predict a fine-tuned classifier's attack success rate (ASR)
from 13 features of its training set, without fine-tuning or attacking it.

Entry-point module: registers the 13 dataset-feature scorers (and `asr-features`, all 13 at once). The
predictor (table cleaning, regressors, evaluation protocols, persistence) lives in `table`, `regressors`,
`protocols` and `predictor`. No heavy imports here (`robust list` imports every plugin module).
"""

from robust import hookimpl
from robust.plugins.benchmarks.asr_predict.benchmark import ASRPredict
from robust.plugins.benchmarks.asr_predict.scorers import SCORERS


@hookimpl
def register_scorers(register):
    for scorer in SCORERS:
        register(scorer)


@hookimpl
def register_benchmarks(register):
    register(ASRPredict)
