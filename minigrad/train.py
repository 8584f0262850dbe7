"""`python -m minigrad.train` (or `minigrad-train`): train a model on the bundled digits.

`minigrad-train --model gpt` runs the other job instead, a character-level GPT on Tiny
Shakespeare: see minigrad/train_gpt.py (`minigrad-train --model gpt --help`).

With no arguments it trains an MLP on the 1,797 8x8 UCI handwritten digits (no download
needed), shows a progress bar with loss and accuracy per epoch, prints the final test
accuracy, and saves the weights, the training curves (PNG) and the run's settings to the
model's own output folder (runs/mlp, runs/cnn or runs/resnet; --out picks another). The
loop below is the standard PyTorch one with the imports changed.

Every option and the output folder are checked before any work (a bad one is a usage
error, exit status 2); Ctrl-C during training saves the weights and the history so far
to the output folder, says so on stderr and exits with status 130.
"""

import argparse
import json
import math
import sys
import tempfile
import time
from itertools import islice
from pathlib import Path

import minigrad as mg
import minigrad.nn.functional as F
import minigrad.optim as optim
from minigrad.data import DataLoader, Digits
from minigrad.data.transforms import Compose, RandomShift, Upsample
from minigrad.models import MLP, LeNet5, ResNet
from minigrad.progress import ProgressBar

OPTIMIZERS = {
    "adam": lambda params, lr, wd: optim.Adam(params, lr=lr, weight_decay=wd),
    "adamw": lambda params, lr, wd: optim.AdamW(params, lr=lr, weight_decay=wd),
    "sgd": lambda params, lr, wd: optim.SGD(params, lr=lr, momentum=0.9, weight_decay=wd),
    "rmsprop": lambda params, lr, wd: optim.RMSprop(params, lr=lr, weight_decay=wd),
    "adagrad": lambda params, lr, wd: optim.Adagrad(params, lr=lr, weight_decay=wd),
}


# per model: how to build it, the train and test image transforms, and its defaults.
# LeNet-5 sees the 8x8 digits upsampled 4x to the 32x32 it was designed for, and trains
# on copies shifted by up to a pixel (augmentation: 98-99% instead of ~97.5%).
MODELS = {
    "mlp": {
        "build": lambda: MLP(64, hidden_sizes=(256, 128), out_features=10),
        "epochs": 20,
        "lr": 3e-3,
        "weight_decay": 0.01,
    },
    "cnn": {
        "build": lambda: LeNet5(num_classes=10, image_size=32),
        "epochs": 30,
        "lr": 2e-3,
        "weight_decay": 0.05,
        "train_transform": Compose([RandomShift(1), Upsample(4)]),
        "test_transform": Upsample(4),
    },
    "resnet": {
        "build": lambda: ResNet(blocks=(1, 1, 1), widths=(16, 32, 64), num_classes=10),
        "epochs": 12,
        "lr": 3e-3,
        "weight_decay": 0.01,
    },
}


FIRST_USE = (
    "The first run of --model cnn or resnet compiles the convolution and pooling kernels with "
    "Numba, the first of --model gpt the attention, layer-norm and rotary kernels, and the "
    "first run of any model the Adam step's (a line on stderr says so; on a 2-core machine "
    "about 5-9 s for cnn or resnet and 7-13 s for gpt, more when other programs share the "
    "cores: benchmarks/RESULTS.md). That happens once: the machine code "
    "is cached in __pycache__ next to the package (or ~/.cache/numba, or NUMBA_CACHE_DIR), and "
    "later runs start in a second or two."
)


def build_model(name):
    """The models the command can train, by name."""
    if name not in MODELS:
        raise ValueError(f"train: unknown model {name!r} (choose from: {', '.join(MODELS)})")
    return MODELS[name]["build"]()


def evaluate(model, loader, device="cpu"):
    """Mean loss and accuracy over a loader, without recording a graph."""
    model.eval()
    total_loss, correct, count = 0.0, 0, 0
    with mg.no_grad():
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            logits = model(images)
            total_loss += F.cross_entropy(logits, labels, reduction="sum").item()
            correct += (logits.argmax(dim=1) == labels).sum().item()
            count += len(labels)
    return total_loss / count, correct / count


def build_scheduler(name, optimizer, lr, total_steps):
    """OneCycle warms the lr up to `lr` and anneals it to ~0; cosine only anneals."""
    if name == "onecycle":
        return optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, total_steps=total_steps)
    if name == "cosine":
        return optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=total_steps)
    return None


def train_one_epoch(model, loader, optimizer, scheduler, bar, device="cpu"):
    model.train()
    total_loss, correct, count = 0.0, 0, 0
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)  # the batch goes where the model is
        optimizer.zero_grad()
        logits = model(images)
        loss = F.cross_entropy(logits, labels)
        loss.backward()
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        total_loss += loss.item() * len(labels)
        correct += (logits.argmax(dim=1) == labels).sum().item()
        count += len(labels)
        bar.update(1, loss=total_loss / count, acc=correct / count)
    return total_loss / count, correct / count


# ---- the command line, checked before any work ---------------------------------------------------
def number(kind, low, strict=False):
    """An argparse `type=`: the option's text as a finite `kind` (int or float) >= low (> low
    if strict). Anything else is argparse's usage error, exit status 2, a line that names the
    option and the value ("argument --lr: must be a finite number > 0, got 'nan'")."""
    what = "an int" if kind is int else "a finite number"
    bound = f"{'>' if strict else '>='} {low:g}"

    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            value = math.nan
        # NaN fails both
        if not (math.isfinite(value) and (value > low if strict else value >= low)):
            raise argparse.ArgumentTypeError(f"must be {what} {bound}, got {text!r}")
        return value

    return parse


def prepare_out_dir(parser, path):
    """Create the output folder and write a probe file in it: a run that could not save its
    results stops now, with a usage error naming --out, not after the training it would lose."""
    out = Path(path)
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as err:
        reason = "it is a file" if out.is_file() else (err.strerror or str(err))
        parser.error(f"argument --out: cannot write the output folder {path!r}: {reason}")
    return out


def add_device_option(parser):
    """--device {cpu,cuda,auto}: where the model trains (shared by both jobs)."""
    parser.add_argument(
        "--device",
        default="cpu",
        choices=["cpu", "cuda", "auto"],
        help="where to train: cpu, cuda (an NVIDIA GPU, with CuPy) or auto (the GPU when there is "
        "one) (default: cpu)",
    )


def pick_device(parser, choice):
    """The device --device names ('auto': the GPU if mg.cuda.is_available(), else the CPU);
    'cuda' on a machine without a GPU is a usage error that says what is missing."""
    if choice == "auto":
        choice = "cuda" if mg.cuda.is_available() else "cpu"
    try:
        return mg.devices.check_device(choice, "--device")
    except RuntimeError as err:
        parser.error(f"argument --device: {str(err).removeprefix('--device: ')}")


def describe_device(device):
    """'cpu', or 'cuda:0 (the GPU's name)': the line a run prints to say where it runs."""
    return str(device) if device.type == "cpu" else f"{device} ({mg.cuda.get_device_name()})"


def say_interrupted(out, saved, where):
    """Say on stderr that Ctrl-C stopped the run and what was saved where (before exit 130)."""
    print(
        f"\nminigrad-train: interrupted {where}; saved {', '.join(saved)} to {out}/",
        file=sys.stderr,
    )


def build_parser():
    parser = argparse.ArgumentParser(
        prog="minigrad-train",
        description=__doc__.splitlines()[0].strip("`"),
        epilog=FIRST_USE,
    )
    parser.add_argument(
        "--model",
        default="mlp",
        choices=[*MODELS, "gpt"],
        help="model to train (default: mlp); gpt trains a GPT on Tiny Shakespeare, with its own "
        "options",
    )
    parser.add_argument(
        "--epochs",
        type=number(int, 1),
        default=None,
        help="passes over the training set (default: per model)",
    )
    parser.add_argument(
        "--batch-size", type=number(int, 1), default=32, help="examples per step (default: 32)"
    )
    parser.add_argument(
        "--lr",
        type=number(float, 0, strict=True),
        default=None,
        help="(peak) learning rate (default: per model)",
    )
    parser.add_argument(
        "--weight-decay",
        type=number(float, 0),
        default=None,
        help="weight decay (AdamW: decoupled) (default: per model)",
    )
    parser.add_argument(
        "--optimizer", default="adamw", choices=sorted(OPTIMIZERS), help="(default: adamw)"
    )
    add_device_option(parser)
    parser.add_argument(
        "--schedule",
        default="onecycle",
        choices=["onecycle", "cosine", "none"],
        help="learning-rate schedule, stepped every batch (default: onecycle)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed for init, shuffling and dropout (default: 0)"
    )
    parser.add_argument(
        "--out",
        default=None,
        help="output folder (default: runs/MODEL: runs/mlp, runs/cnn, runs/resnet, runs/gpt)",
    )
    parser.add_argument(
        "--no-plot", action="store_true", help="skip the PNG of the training curves"
    )
    parser.add_argument(
        "--max-steps",
        type=number(int, 1),
        default=None,
        help="stop after this many training steps (a smoke test, or timing the start-up)",
    )
    return parser


def default_out(model):
    """Each model's own output folder, so that training one never overwrites another's
    results (`minigrad-train` then `--model cnn` keeps both runs)."""
    return f"runs/{model}"


def parse_args(argv=None, parser=None):
    """The options, checked (see `number`), with the chosen model's defaults filled in."""
    args = (parser or build_parser()).parse_args(argv)
    for key in ("epochs", "lr", "weight_decay"):
        if getattr(args, key) is None:
            setattr(args, key, MODELS[args.model][key])
    if args.out is None:
        args.out = default_out(args.model)
    return args


def wants_gpt(argv):
    """Whether the command line asks for `--model gpt` (the GPT job has its own options)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--model")
    known, _ = parser.parse_known_args(argv)
    return known.model == "gpt"


def save_results(out, model, args, history, start, plot=True, interrupted=None):
    """Write the weights, the settings with the history (and where Ctrl-C `interrupted` the
    run) and, if plot, the curves to `out`; returns the names of the files written."""
    mg.save(model.state_dict(), out / "model.npz")
    settings = {
        **vars(args),
        "model_config": model.get_config(),
        "seconds": time.perf_counter() - start,
    }
    record = {"settings": settings, "history": history}
    if interrupted is not None:
        record["interrupted"] = interrupted
    (out / "run.json").write_text(json.dumps(record, indent=2))
    saved = ["model.npz", "run.json"]
    if plot:
        from minigrad.viz import plot_history

        plot_history(history, out / "curves.png", title=f"{args.model} on digits")
        saved.append("curves.png")
    return saved


def run(argv=None):
    """Train as the command line says; returns the history (losses, accuracies, times).
    Ctrl-C (KeyboardInterrupt) saves what was trained, then propagates."""
    if wants_gpt(argv):
        from minigrad import train_gpt

        return train_gpt.run(argv)
    parser = build_parser()
    args = parse_args(argv, parser)
    device = pick_device(parser, args.device)
    out = prepare_out_dir(parser, args.out)
    mg.manual_seed(args.seed)
    spec = MODELS[args.model]
    train_set = Digits(train=True, transform=spec.get("train_transform"))
    test_set = Digits(train=False, transform=spec.get("test_transform"))
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True)
    test_loader = DataLoader(test_set, batch_size=256)
    # before the optimizer: its state is made where they are
    model = build_model(args.model).to(device)
    optimizer = OPTIMIZERS[args.optimizer](model.parameters(), args.lr, args.weight_decay)
    scheduler = build_scheduler(args.schedule, optimizer, args.lr, args.epochs * len(train_loader))
    n_params = sum(p.numel() for p in model.parameters())
    print(
        f"training {args.model} ({n_params:,} parameters) on digits: {len(train_set)} train / "
        f"{len(test_set)} test images, {args.optimizer} lr={args.lr} ({args.schedule} schedule), "
        f"batch {args.batch_size}"
    )
    print(f"device: {describe_device(device)}")

    history = {
        "train_loss": [],
        "train_accuracy": [],
        "test_loss": [],
        "test_accuracy": [],
        "epoch_seconds": [],
    }
    start = time.perf_counter()
    # --max-steps cuts the run short; the learning-rate schedule still spans every epoch
    steps_left = args.max_steps or args.epochs * len(train_loader)
    steps_done, epoch, bar = 0, 1, None  # bar: the epoch's finished steps, if Ctrl-C comes
    try:
        for epoch in range(1, args.epochs + 1):
            epoch_start = time.perf_counter()
            steps = min(len(train_loader), steps_left)
            bar = ProgressBar(steps, prefix=f"epoch {epoch:2d}/{args.epochs}")
            batches = islice(train_loader, steps)
            train_loss, train_acc = train_one_epoch(
                model, batches, optimizer, scheduler, bar, device
            )
            test_loss, test_acc = evaluate(model, test_loader, device)
            bar.close(loss=train_loss, acc=train_acc, test_loss=test_loss, test_acc=test_acc)
            for key, value in (
                ("train_loss", train_loss),
                ("train_accuracy", train_acc),
                ("test_loss", test_loss),
                ("test_accuracy", test_acc),
                ("epoch_seconds", time.perf_counter() - epoch_start),
            ):
                history[key].append(value)
            steps_done += steps
            steps_left -= steps
            if steps_left == 0:
                break
    except KeyboardInterrupt:  # Ctrl-C: keep what was trained, then stop as asked
        steps_done += bar.count if bar is not None else 0
        where = {"epoch": epoch, "steps": steps_done}
        saved = save_results(out, model, args, history, start, plot=False, interrupted=where)
        say_interrupted(out, saved, f"in epoch {epoch} after {steps_done} steps")
        raise

    # the result first: whatever is saved or drawn after it, the user has seen the accuracy
    print(f"test accuracy: {history['test_accuracy'][-1]:.1%}")
    saved = save_results(out, model, args, history, start, plot=not args.no_plot)
    print(f"saved {', '.join(saved)} to {out}/ ({time.perf_counter() - start:.1f}s in all)")
    return history


def main(argv=None):
    """The console-script entry point (`minigrad-train`): exit status 0 on success, 2 for a
    bad option, 130 after Ctrl-C (the shell's code for it; what was trained is saved)."""
    try:
        run(argv)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
