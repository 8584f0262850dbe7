"""minigrad.optim: optimizers (update rules for parameters) and learning-rate schedules.

Each optimizer is a subclass of `Optimizer` that writes one method, `update`, with its
equations (LBFGS, which evaluates the loss again and again within a step, writes `step`
itself); `optim.lr_scheduler` changes their learning rates over training, and
`optim.swa_utils` averages the weights a run visits (SWA, EMA).
"""

from minigrad.optim import lr_scheduler, swa_utils
from minigrad.optim.adadelta import Adadelta
from minigrad.optim.adagrad import Adagrad
from minigrad.optim.adam import Adam, AdamW
from minigrad.optim.adamax import Adamax
from minigrad.optim.asgd import ASGD
from minigrad.optim.lbfgs import LBFGS
from minigrad.optim.nadam import NAdam
from minigrad.optim.optimizer import Optimizer
from minigrad.optim.radam import RAdam
from minigrad.optim.rmsprop import RMSprop
from minigrad.optim.rprop import Rprop
from minigrad.optim.sgd import SGD

__all__ = [
    "ASGD",
    "LBFGS",
    "SGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "lr_scheduler",
    "swa_utils",
]
