"""All kernel benchmarks in one run: convolution, pooling, attention, and one LeNet-5
training step — minigrad's NumPy reference and Numba backends against PyTorch (CPU), on
the same machine, in the same process. Each family's cases live in bench_conv.py,
bench_pool.py and bench_attention.py, which also run on their own.

    python benchmarks/bench_kernels.py [--quick] [--only conv,pool,attention,lenet]
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _median_ms(fn, repeat):
    fn()  # warm-up (compiles Numba kernels on first use)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def lenet_step(quick=False):
    """One LeNet-5 training step (batch 64, 28x28, SGD): forward, backward, update."""
    import numpy as np
    import torch

    import minigrad as mg
    import minigrad.nn.functional as F
    import minigrad.optim as optim
    from minigrad.models import LeNet5

    torch.set_num_threads(os.cpu_count())
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, 64)
    mg.manual_seed(0)
    model = LeNet5(image_size=28)
    opt = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    t_model = torch.nn.Sequential(
        torch.nn.Conv2d(1, 6, 5, padding=2),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(6, 16, 5),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Flatten(),
        torch.nn.Linear(400, 120),
        torch.nn.ReLU(),
        torch.nn.Linear(120, 84),
        torch.nn.ReLU(),
        torch.nn.Linear(84, 10),
    )
    t_opt = torch.optim.SGD(t_model.parameters(), lr=0.01, momentum=0.9)
    xm, ym, xt, yt = mg.tensor(x), mg.tensor(y), torch.from_numpy(x), torch.from_numpy(y)

    def mg_step():
        opt.zero_grad()
        F.cross_entropy(model(xm), ym).backward()
        opt.step()

    def torch_step():
        t_opt.zero_grad()
        torch.nn.functional.cross_entropy(t_model(xt), yt).backward()
        t_opt.step()

    repeat = 3 if quick else 20
    results = {}
    for backend in ("numpy", "numba"):
        with mg.backends.use(backend):
            results[backend] = _median_ms(mg_step, repeat)
    results["torch"] = _median_ms(torch_step, repeat)
    print("\nLeNet-5 training step, batch 64, 28x28 (median ms)")
    print(
        f"  numpy reference {results['numpy']:8.2f}   numba {results['numba']:8.2f}   PyTorch "
        f"{results['torch']:8.2f}"
    )
    ratio = results["numba"] / results["torch"]
    print(
        f"  numba / PyTorch {ratio:.2f}x (target <= 2x: {'met' if ratio <= 2 else 'MISSED'}), "
        f"numba speed-up over numpy {results['numpy'] / results['numba']:.1f}x"
    )
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few repeats, for a smoke test")
    parser.add_argument(
        "--only", default="conv,pool,attention,lenet", help="comma-separated subset"
    )
    args = parser.parse_args(argv)
    families = args.only.split(",")
    quick = ["--quick"] if args.quick else []
    for name in ("conv", "pool", "attention"):
        if name in families:
            module = __import__(f"bench_{name}")
            print(f"\n===== {name} =====")
            module.main(quick)
    if "lenet" in families:
        lenet_step(args.quick)


if __name__ == "__main__":
    main()
