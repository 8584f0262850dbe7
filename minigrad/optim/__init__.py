"""minigrad.optim: optimizers (update rules for parameters) and learning-rate schedules.

Each optimizer is a subclass of `Optimizer` that writes one method, `update`, with its
equations; `optim.lr_scheduler` changes their learning rates over training.
"""

from minigrad.optim import lr_scheduler
from minigrad.optim.adagrad import Adagrad
from minigrad.optim.adam import Adam, AdamW
from minigrad.optim.optimizer import Optimizer
from minigrad.optim.rmsprop import RMSprop
from minigrad.optim.sgd import SGD

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]
