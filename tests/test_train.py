"""The training command: it trains, reports, saves what it says, and the saved weights
reproduce the reported accuracy."""

import json
import subprocess
import sys

import numpy as np
import pytest

import minigrad as mg
from minigrad import train
from minigrad.data import DataLoader, Digits, tiny_shakespeare
from minigrad.models import GPT, MLP
from minigrad.text import CharTokenizer
from minigrad.train_gpt import fixed_blocks_loss


@pytest.mark.slow
def test_default_run_reaches_95_percent(tmp_path, capsys):
    # Its speed (about 1.5 s) is measured by benchmarks/bench_training.py, not here: a
    # timed test fails on a busy machine and passes on a slow build on a fast one.
    history = train.run(["--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert history["test_accuracy"][-1] >= 0.95
    assert f"test accuracy: {history['test_accuracy'][-1]:.1%}" in out
    assert len(history["train_loss"]) == 20
    assert history["train_loss"][-1] < history["train_loss"][0] / 10
    for name in ("model.npz", "run.json", "curves.png"):
        assert (tmp_path / name).stat().st_size > 0
    assert (tmp_path / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_saved_weights_reproduce_the_reported_accuracy(tmp_path):
    history = train.run(["--epochs", "2", "--no-plot", "--out", str(tmp_path)])
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["history"]["test_accuracy"] == pytest.approx(history["test_accuracy"])
    model = MLP.from_config(run["settings"]["model_config"])
    model.load_state_dict(mg.load(tmp_path / "model.npz"))
    model.eval()
    correct = 0
    with mg.no_grad():
        for images, labels in DataLoader(Digits(train=False), batch_size=500):
            correct += (model(images).argmax(dim=1) == labels).sum().item()
    assert correct / len(Digits(train=False)) == pytest.approx(history["test_accuracy"][-1])
    assert not (tmp_path / "curves.png").exists()  # --no-plot


def test_same_seed_same_run_and_options_take_effect(tmp_path):
    a = train.run(["--epochs", "1", "--no-plot", "--seed", "3", "--out", str(tmp_path / "a")])
    b = train.run(["--epochs", "1", "--no-plot", "--seed", "3", "--out", str(tmp_path / "b")])
    c = train.run(["--epochs", "1", "--no-plot", "--seed", "4", "--out", str(tmp_path / "c")])
    assert a["train_loss"] == b["train_loss"]
    assert a["train_loss"] != c["train_loss"]
    settings = json.loads((tmp_path / "a" / "run.json").read_text())["settings"]
    assert settings["seed"] == 3 and settings["epochs"] == 1 and settings["optimizer"] == "adamw"


@pytest.mark.parametrize("optimizer", ["sgd", "adam", "rmsprop", "adagrad"])
def test_every_optimizer_choice_trains(tmp_path, optimizer):
    lr = {"sgd": "0.05", "adam": "0.003", "rmsprop": "0.001", "adagrad": "0.05"}[optimizer]
    history = train.run(
        [
            "--epochs",
            "2",
            "--no-plot",
            "--optimizer",
            optimizer,
            "--lr",
            lr,
            "--schedule",
            "none",
            "--batch-size",
            "64",
            "--out",
            str(tmp_path),
        ]
    )
    assert history["test_accuracy"][-1] > 0.5
    assert np.isfinite(history["train_loss"]).all()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--epochs", "0"], "--epochs"),
        (["--max-steps", "0"], "--max-steps"),
        (["--model", "vgg"], "invalid choice"),
        (["--optimizer", "lion"], "invalid choice"),
    ],
)
def test_bad_arguments_exit_with_a_message(args, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        train.parse_args(args)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_max_steps_stops_the_run_early(tmp_path, capsys):
    history = train.run(["--max-steps", "3", "--no-plot", "--out", str(tmp_path)])
    assert len(history["train_loss"]) == 1  # one (short) epoch, then the test set
    assert "3/3" in capsys.readouterr().out
    history = train.run(["--epochs", "3", "--max-steps", "50", "--no-plot", "--out", str(tmp_path)])
    assert len(history["train_loss"]) == 2  # 45 steps per epoch: 45 + 5


def test_runs_as_a_module_and_names_its_output_folder(tmp_path):
    out = tmp_path / "run"
    result = subprocess.run(
        [sys.executable, "-m", "minigrad.train", "--epochs", "1", "--no-plot", "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "test accuracy:" in result.stdout
    assert str(out) in result.stdout
    assert (out / "model.npz").exists()


@pytest.mark.slow
@pytest.mark.parametrize("model", ["cnn", "resnet"])
def test_convolutional_models_reach_98_percent(tmp_path, model):
    # the wall time is the job's own printout, recorded in benchmarks/RESULTS.md
    history = train.run(["--model", model, "--no-plot", "--out", str(tmp_path)])
    assert history["test_accuracy"][-1] >= 0.98
    settings = json.loads((tmp_path / "run.json").read_text())["settings"]
    assert settings["model"] == model


# ---- minigrad-train --model gpt ----------------------------------------------------------------------
def test_gpt_job_writes_its_files_and_beats_the_unigram_baseline(tmp_path, capsys):
    history = train.run(
        ["--model", "gpt", "--quick", "--iters", "100", "--sample-tokens", "40", "--out", str(tmp_path)]
    )
    out = capsys.readouterr().out
    baseline = history["unigram_baseline"]
    assert 3.0 < baseline < 3.6  # Tiny Shakespeare's characters: about 3.3 nats
    assert history["final_val_loss"] < baseline - 0.5
    assert history["val_loss"][-1] < history["val_loss"][0] or len(history["val_loss"]) == 1
    assert f"unigram baseline (entropy of the character frequencies): {baseline:.4f} nats" in out
    assert f"validation {history['final_val_loss']:.4f}" in out and "wall time:" in out
    for name in ("model.npz", "run.json", "curves.png", "tokenizer.json", "sample.txt"):
        assert (tmp_path / name).stat().st_size > 0
    assert (tmp_path / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len((tmp_path / "sample.txt").read_text(encoding="utf-8")) == 40
    assert (tmp_path / "sample.txt").read_text(encoding="utf-8") in out


def test_gpt_saved_weights_reproduce_the_reported_loss(tmp_path):
    history = train.run(
        ["--model=gpt", "--quick", "--iters", "20", "--no-plot", "--sample-tokens", "0", "--out", str(tmp_path)]
    )
    run = json.loads((tmp_path / "run.json").read_text())
    settings = run["settings"]
    assert settings["iters"] == 20 and settings["quick"] and settings["model_config"]["max_len"] == 32
    assert run["history"]["final_val_loss"] == pytest.approx(history["final_val_loss"])
    model = GPT.from_config(settings["model_config"])
    model.load_state_dict(mg.load(tmp_path / "model.npz"))
    tokenizer = CharTokenizer.load(tmp_path / "tokenizer.json")
    text = tiny_shakespeare()
    val_ids = np.asarray(tokenizer.encode(text[int(0.9 * len(text)) :]), dtype=np.int64)
    assert fixed_blocks_loss(model, val_ids, 32) == pytest.approx(history["final_val_loss"], rel=1e-5)
    assert not (tmp_path / "curves.png").exists()  # --no-plot


def test_gpt_job_trains_on_any_text_file(tmp_path, capsys):
    text = "".join(f"{word} likes {other}.\n" for word in ("ann", "bob", "cy") for other in ("tea", "rain", "jam")) * 40
    path = tmp_path / "tiny.txt"
    path.write_text(text, encoding="utf-8")
    history = train.run(
        ["--model", "gpt", "--quick", "--iters", "60", "--text", str(path), "--no-plot", "--out", str(tmp_path / "o")]
    )
    assert str(path) in capsys.readouterr().out
    settings = json.loads((tmp_path / "o" / "run.json").read_text())["settings"]
    assert settings["source"] == str(path) and settings["model_config"]["vocab_size"] == len(set(text))
    assert history["final_val_loss"] < history["unigram_baseline"] / 2  # a very regular text


def test_gpt_job_rejects_bad_input(tmp_path, capsys):
    with pytest.raises(FileNotFoundError, match="no such file"):
        train.run(["--model", "gpt", "--text", str(tmp_path / "missing.txt")])
    (tmp_path / "short.txt").write_text("too short", encoding="utf-8")
    with pytest.raises(ValueError, match="validation split"):
        train.run(["--model", "gpt", "--quick", "--text", str(tmp_path / "short.txt")])
    with pytest.raises(SystemExit):
        train.run(["--model", "gpt", "--iters", "0"])
    assert "--iters" in capsys.readouterr().err


@pytest.mark.slow
def test_gpt_quick_run_trains_well(tmp_path):
    # its wall time (about 13 s) is the job's own printout, recorded in benchmarks/RESULTS.md
    history = train.run(["--model", "gpt", "--quick", "--no-plot", "--out", str(tmp_path)])
    assert history["final_val_loss"] < 2.5
