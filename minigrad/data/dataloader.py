"""DataLoader: iterate over a dataset in (shuffled) batches.

One epoch is three steps, and this file is little more than them:

1. choose the order of the indices: the *sampler* does that. By default it is
   0..n-1 (`SequentialSampler`), or with `shuffle=True` a fresh random permutation
   (`RandomSampler`, seeded from minigrad's global generator at the start of each
   epoch, so `mg.manual_seed` makes the whole run repeatable and every epoch differs);
2. cut the order into chunks of `batch_size` (`BatchSampler`; the last one smaller,
   or dropped with `drop_last=True`);
3. fetch each chunk's examples with `dataset[i]` and merge them with `collate_fn`
   (by default `default_collate`, which stacks them into Tensors).

With `num_workers > 0`, step 3 runs in background worker threads (see worker.py),
while steps 1 and 2 stay in the main thread: the batches and their order are the
same as with `num_workers=0`.

An `IterableDataset` (a stream with no indices) skips step 1: the loader takes the
next `batch_size` examples from the stream.
"""

import itertools
import math
import numbers
import queue
import threading

from minigrad import random
from minigrad.data import worker
from minigrad.data.collate import default_collate, default_convert
from minigrad.data.dataset import IterableDataset
from minigrad.data.sampler import BatchSampler, RandomSampler, SequentialSampler

_FIXED_AFTER_INIT = (
    "batch_size",
    "batch_sampler",
    "sampler",
    "drop_last",
    "dataset",
    "persistent_workers",
)


class DataLoader:
    """`for x, y in DataLoader(dataset, batch_size=32, shuffle=True): ...`

    `DataLoader(dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
    num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
    worker_init_fn=None, multiprocessing_context=None, generator=None, *,
    prefetch_factor=None, persistent_workers=False, pin_memory_device='', in_order=True)`,
    with torch.utils.data.DataLoader's meaning for each argument:

    - `batch_size=None` turns batching off: each example is yielded on its own, NumPy
      arrays converted to Tensors (`collate_fn` then receives one example).
    - `sampler` (an iterable of indices) replaces the order `shuffle` would choose;
      `batch_sampler` (an iterable of lists of indices) replaces sampler, batch_size,
      shuffle and drop_last together.
    - `generator` (an `mg.Generator`, or a NumPy Generator) replaces the global
      generator for shuffling and for the workers' seeds.
    - `num_workers` background threads fetch and collate the batches, each
      `prefetch_factor` (default 2) batches ahead; `worker_init_fn(worker_id)` runs in
      each worker first; `timeout` (seconds, 0 = no limit) bounds the wait for a
      batch; `persistent_workers=True` keeps the workers between epochs;
      `in_order=False` yields batches as soon as they are ready.
    - `pin_memory`, `pin_memory_device` and `multiprocessing_context` are accepted so
      PyTorch code runs unchanged, and have no effect. PyTorch pins a batch (page-locked
      host memory, which a GPU copies from faster and asynchronously); minigrad's
      batches are ordinary host arrays, moved to the GPU by the training loop with
      `x.to(device)`, one copy each. Its workers are threads.
    """

    __initialized = False

    def __init__(
        self,
        dataset,
        batch_size=1,
        shuffle=None,
        sampler=None,
        batch_sampler=None,
        num_workers=0,
        collate_fn=None,
        pin_memory=False,
        drop_last=False,
        timeout=0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor=None,
        persistent_workers=False,
        pin_memory_device="",
        in_order=True,
    ):
        num_workers, prefetch_factor = _check_workers(
            num_workers, timeout, prefetch_factor, persistent_workers
        )
        iterable = isinstance(dataset, IterableDataset)
        if not iterable and not (hasattr(dataset, "__getitem__") and hasattr(dataset, "__len__")):
            raise TypeError(
                "DataLoader: dataset must define __getitem__ and __len__ (a Dataset), or be an "
                f"IterableDataset, got {type(dataset).__name__}"
            )
        if batch_size is not None and (
            isinstance(batch_size, bool)
            or not isinstance(batch_size, numbers.Integral)
            or batch_size <= 0
        ):
            raise ValueError(
                "DataLoader: batch_size should be a positive integer value, but got "
                f"batch_size={batch_size!r} "
                "(or None to turn batching off)"
            )
        # a bad generator fails here, not at the first epoch
        random.numpy_generator(generator, "DataLoader")
        for name, fn in (("collate_fn", collate_fn), ("worker_init_fn", worker_init_fn)):
            if fn is not None and not callable(fn):
                raise TypeError(
                    f"DataLoader: {name} must be callable (or None), got {type(fn).__name__}"
                )

        if iterable:
            # a stream has no indices to choose: the order is the stream's own
            for name, value in (
                ("shuffle", shuffle),
                ("sampler", sampler),
                ("batch_sampler", batch_sampler),
            ):
                if value not in (None, False):
                    raise ValueError(
                        f"DataLoader with IterableDataset: expected unspecified {name} option, but "
                        f"got {name}={value!r}"
                    )
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("DataLoader: sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "DataLoader: batch_sampler option is mutually exclusive with batch_size, "
                    "shuffle, sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError(
                "DataLoader: batch_size=None option disables auto-batching and is mutually "
                "exclusive with drop_last"
            )

        if sampler is None:
            if iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, bool(drop_last))

        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = bool(drop_last)
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.worker_init_fn = worker_init_fn
        self.timeout = timeout
        self.in_order = in_order
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.multiprocessing_context = multiprocessing_context
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self._iterator = None  # the persistent workers' iterator, kept between epochs
        self.__initialized = True

    def __setattr__(self, name, value):
        if self.__initialized and name in _FIXED_AFTER_INIT:
            raise ValueError(
                f"{name} attribute should not be set after {type(self).__name__} is initialized"
            )
        super().__setattr__(name, value)

    @property
    def _auto_collation(self):
        """True when the loader makes batches (a batch sampler exists)."""
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        """What each step of an epoch asks for: a list of indices, or one index."""
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self):
        """Batches per epoch (for an IterableDataset, from the dataset's own len)."""
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)  # a TypeError if the stream has no length, as in PyTorch
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
            return n
        return len(self._index_sampler)

    def __iter__(self):
        if self.num_workers == 0:
            return _single_process_batches(self)
        if self.persistent_workers:
            if self._iterator is None:
                self._iterator = _WorkerBatches(self)
            else:
                self._iterator._reset()
            return self._iterator
        return _WorkerBatches(self)

    def _fetcher(self):
        if isinstance(self.dataset, IterableDataset):
            return _StreamFetcher(
                self.dataset, self._auto_collation, self.collate_fn, self.drop_last
            )
        return _MapFetcher(self.dataset, self._auto_collation, self.collate_fn)

    def _base_seed(self):
        """The workers' base seed for one epoch. PyTorch draws it from the generator's
        stream; here it comes from a child spawned off the generator's SeedSequence,
        which leaves the stream where it was. So the shuffles, and every random number
        drawn after the loop, are the same whatever num_workers is."""
        rng = random.numpy_generator(self.generator, "DataLoader")
        try:
            child = rng.spawn(1)[0]
        except TypeError:  # a NumPy Generator built without a SeedSequence: draw from it instead
            child = rng
        return int(child.integers(0, 2**63))


def _check_workers(num_workers, timeout, prefetch_factor, persistent_workers):
    if (
        isinstance(num_workers, bool)
        or not isinstance(num_workers, numbers.Integral)
        or num_workers < 0
    ):
        raise ValueError(
            "DataLoader: num_workers option should be non-negative; use num_workers=0 to disable "
            f"multiprocessing. Got num_workers={num_workers!r}"
        )
    if timeout < 0:
        raise ValueError(
            f"DataLoader: timeout option should be non-negative, got timeout={timeout!r}"
        )
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError(
            "DataLoader: prefetch_factor option could only be specified in multiprocessing."
            "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None."
        )
    if num_workers > 0 and prefetch_factor is None:
        prefetch_factor = 2
    elif prefetch_factor is not None and (
        isinstance(prefetch_factor, bool)
        or not isinstance(prefetch_factor, numbers.Integral)
        or prefetch_factor < 0
    ):
        raise ValueError(
            f"DataLoader: prefetch_factor option should be non-negative, got {prefetch_factor!r}"
        )
    if persistent_workers and num_workers == 0:
        raise ValueError("DataLoader: persistent_workers option needs num_workers > 0")
    return int(num_workers), prefetch_factor


class _InfiniteConstantSampler:
    """The 'order' of a stream: None forever (the stream itself decides what comes next)."""

    def __iter__(self):
        return itertools.repeat(None)


class _MapFetcher:
    """Fetch by index from a map-style dataset, and collate."""

    def __init__(self, dataset, auto_collation, collate_fn):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn

    def start(self):
        return None

    def fetch(self, stream, indices):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[indices])
        if hasattr(self.dataset, "__getitems__"):  # a dataset that loads a whole batch at once
            return self.collate_fn(self.dataset.__getitems__(indices))
        return self.collate_fn([self.dataset[i] for i in indices])


class _StreamFetcher:
    """Take the next examples from an IterableDataset's iterator, and collate; raise
    StopIteration when the stream has nothing (or, with drop_last, too little) left."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset, self.auto_collation = dataset, auto_collation
        self.collate_fn, self.drop_last = collate_fn, drop_last

    def start(self):
        return iter(self.dataset)

    def fetch(self, stream, indices):
        if not self.auto_collation:
            return self.collate_fn(next(stream))
        examples = list(itertools.islice(stream, len(indices)))
        if not examples or (self.drop_last and len(examples) < len(indices)):
            raise StopIteration
        return self.collate_fn(examples)


def _single_process_batches(loader):
    """num_workers=0: fetch each batch in the calling thread, when it is asked for."""
    fetcher = loader._fetcher()
    stream = fetcher.start()
    for indices in loader._index_sampler:
        try:
            batch = fetcher.fetch(stream, indices)
        except StopIteration:  # the IterableDataset is exhausted
            return
        yield batch


class _WorkerBatches:
    """num_workers > 0: hand batches of indices to worker threads round-robin, keep
    `prefetch_factor` batches per worker in flight, and yield the results in order.

    Tasks are numbered in the order the sampler produced them; results arrive in any
    order and wait in `_ready` until their turn. Each epoch has its own number, so
    results of an abandoned epoch (a `break` out of the loop with persistent workers)
    are recognised and dropped.
    """

    def __init__(self, loader):
        self._loader = loader
        n = loader.num_workers
        self._index_queues = [queue.Queue() for _ in range(n)]
        self._result_queue = queue.Queue()
        base_seed = loader._base_seed()
        fetcher = loader._fetcher()
        self._threads = [
            threading.Thread(
                target=worker.worker_loop,
                args=(
                    fetcher,
                    loader.dataset,
                    self._index_queues[i],
                    self._result_queue,
                    i,
                    n,
                    base_seed + i,
                    loader.worker_init_fn,
                ),
                name=f"DataLoader worker {i}",
                daemon=True,  # a worker stuck in a slow __getitem__ never keeps Python from exiting
            )
            for i in range(n)
        ]
        self._shut_down = False
        for t in self._threads:
            t.start()
        self._epoch = 0
        self._start_epoch()

    def _start_epoch(self):
        self._epoch += 1
        self._sampler_iter = iter(self._loader._index_sampler)
        # an IterableDataset worker goes inactive when its stream ends
        self._active = [True] * len(self._threads)
        self._next_worker = 0
        self._sent = 0  # tasks handed out this epoch
        self._done = 0  # tasks whose results were consumed
        self._ready = {}  # task number -> result, waiting for its turn
        self._exhausted = False
        # 0 would wait forever
        for _ in range(max(1, self._loader.prefetch_factor) * len(self._threads)):
            self._send_next()

    def _reset(self):
        """Begin a new epoch with the same (persistent) workers.

        Unlike PyTorch, whose persistent workers keep their random state between
        epochs, each epoch draws a new base seed and reseeds the workers, as a fresh
        set of workers would be: so persistent_workers, like num_workers, changes
        nothing but speed (the same batches as num_workers=0, the same global stream).
        """
        base_seed = self._loader._base_seed()
        for i, q in enumerate(self._index_queues):
            while True:  # tasks of an abandoned epoch that no worker took yet
                try:
                    q.get_nowait()
                except queue.Empty:
                    break
            q.put(("reset", base_seed + i))
        self._start_epoch()

    def _send_next(self):
        if self._exhausted:
            return
        if not any(self._active):
            self._exhausted = True
            return
        while not self._active[self._next_worker]:
            self._next_worker = (self._next_worker + 1) % len(self._threads)
        try:
            indices = next(self._sampler_iter)
        except StopIteration:
            self._exhausted = True
            return
        self._index_queues[self._next_worker].put(("fetch", self._epoch, self._sent, indices))
        self._next_worker = (self._next_worker + 1) % len(self._threads)
        self._sent += 1

    def _take_ready(self):
        """The next result that may be yielded, or None if it has not arrived yet."""
        if self._loader.in_order:
            number = self._done if self._done in self._ready else None
        else:
            number = next(iter(self._ready), None)
        return None if number is None else self._ready.pop(number)

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            if self._done == self._sent and self._exhausted:
                if not self._loader.persistent_workers:
                    self._shutdown()
                raise StopIteration
            result = self._take_ready()
            if result is None:
                epoch, number, data = worker.get_result(
                    self._result_queue, self._threads, self._loader.timeout
                )
                if epoch == self._epoch:
                    self._ready[number] = data
                continue
            self._done += 1
            if isinstance(result, worker.StopWorker):
                self._active[result.worker_id] = False
                self._send_next()
                continue
            self._send_next()
            if isinstance(result, worker.ExceptionWrapper):
                result.reraise()
            return result

    def __len__(self):
        return len(self._loader)

    def _shutdown(self):
        if not getattr(self, "_shut_down", True):  # True also when __init__ failed half-way
            self._shut_down = True
            for q in self._index_queues:
                q.put(None)

    def __del__(self):
        self._shutdown()
