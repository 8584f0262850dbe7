"""DataLoader workers: load the next batches in the background while the model trains.

With `num_workers=N` the DataLoader starts N worker *threads*. The main thread keeps
deciding the order (the sampler runs there, exactly as with num_workers=0) and hands
out batches of indices round-robin: batch 0 to worker 0, batch 1 to worker 1, ... Each
worker fetches its examples, collates them and puts the batch on a shared queue; the
main thread yields the batches in the order it handed them out. So the batches, and
their order, are the same as with num_workers=0.

Why threads and not processes (PyTorch uses processes): threads work the same on every
OS and in notebooks, with no pickling of the dataset, the collate_fn or the batches
(lambdas and classes defined in `__main__` just work, and there is no
`if __name__ == "__main__"` guard to forget under the "spawn" start method that macOS
and Windows use), and the batches reach the training loop without a copy. The cost is
the GIL: pure-Python work in `__getitem__` runs one worker at a time. The usual loading
work (reading files, decoding, NumPy array maths, stacking a batch) releases the GIL, so
it does run in parallel, and in any case it overlaps with the training step. A
dataset may apply minigrad ops that run compiled kernels (pooling, convolution): while
the training step's kernel has the cores, a worker's runs on the worker's own thread
(`minigrad/kernels/cpu/workers.py`).

What a worker sees, as in PyTorch:
- `get_worker_info()` returns its `WorkerInfo` (id, num_workers, seed, dataset), and
  None in the main thread; an IterableDataset uses it to split its stream.
- its own random generator, seeded `base_seed + id` (a new base seed each epoch,
  spawned from the loader's generator, or the global one, without moving its stream):
  minigrad's random functions called in a worker draw from it, not from the main
  program's global generator.
- `worker_init_fn(worker_id)` runs in the worker before its first batch.
"""

import queue
import threading
import traceback

from minigrad import random

_local = threading.local()  # .info: the WorkerInfo of the worker running in this thread


class WorkerInfo:
    """What `get_worker_info()` returns inside a worker: `id` (0 .. num_workers - 1),
    `num_workers`, `seed` (this worker's random seed) and `dataset` (the loader's)."""

    __initialized = False

    def __init__(self, **kwargs):
        for name, value in kwargs.items():
            setattr(self, name, value)
        self.__keys = tuple(kwargs)
        self.__initialized = True

    def __setattr__(self, name, value):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {type(self).__name__} objects")
        super().__setattr__(name, value)

    def __repr__(self):
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__keys)
        return f"{type(self).__name__}({fields})"


def get_worker_info():
    """The `WorkerInfo` of the DataLoader worker calling it, or None outside a worker."""
    return getattr(_local, "info", None)


class ExceptionWrapper:
    """An exception raised in a worker, carried to the main thread and raised there with
    a message naming the worker (the original is chained as its cause)."""

    def __init__(self, exception, where):
        self.exception = exception
        self.where = where

    def reraise(self):
        original = self.exception
        text = "".join(traceback.format_exception(type(original), original, original.__traceback__))
        msg = f"Caught {type(original).__name__} {self.where}.\nOriginal {text}"
        try:
            new = type(original)(msg)
        except Exception:
            raise RuntimeError(msg) from original
        raise new from original


class StopWorker:
    """What a worker sends back when its IterableDataset stream is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


def worker_loop(fetcher, dataset, index_queue, result_queue, worker_id, num_workers, seed, init_fn):
    """The body of one worker thread. Tasks arrive on `index_queue`:

    - `("fetch", epoch, number, indices)`: load that batch and put
      `(epoch, number, batch | ExceptionWrapper | StopWorker)` on `result_queue`;
    - `("reset", seed)`: a new epoch for persistent workers: reseed, restart the stream;
    - `None`: stop.
    """
    _local.info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    random._worker.generator = random.Generator().manual_seed(seed)
    where = f"in DataLoader worker {worker_id}"
    failure, stream = None, None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        stream = fetcher.start()  # an IterableDataset's iterator is made here, in the worker
    except Exception as err:
        failure = ExceptionWrapper(err, where)
    while True:
        task = index_queue.get()
        if task is None:
            break
        if task[0] == "reset":
            seed = task[1]
            _local.info = WorkerInfo(
                id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset
            )
            random._worker.generator.manual_seed(seed)
            if failure is None:
                try:
                    stream = fetcher.start()
                except Exception as err:
                    failure = ExceptionWrapper(err, where)
            continue
        _, epoch, number, indices = task
        if failure is not None:
            result_queue.put((epoch, number, failure))
            continue
        try:
            batch = fetcher.fetch(stream, indices)
        except StopIteration:
            batch = StopWorker(worker_id)
        except Exception as err:
            batch = ExceptionWrapper(err, where)
        result_queue.put((epoch, number, batch))


def get_result(result_queue, threads, timeout):
    """The next result, waiting at most `timeout` seconds (0: as long as the workers live)."""
    if timeout > 0:
        try:
            return result_queue.get(timeout=timeout)
        except queue.Empty:
            raise RuntimeError(f"DataLoader timed out after {timeout} seconds") from None
    while True:
        try:
            return result_queue.get(timeout=5.0)
        except queue.Empty:
            dead = [t.name for t in threads if not t.is_alive()]
            if dead:
                raise RuntimeError(
                    f"DataLoader worker(s) {', '.join(dead)} exited unexpectedly"
                ) from None
