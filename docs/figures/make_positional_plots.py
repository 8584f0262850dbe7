"""Draw the figures of the positional-encodings lesson from minigrad's own modules.

    python docs/figures/make_positional_plots.py [OUT_DIR]

writes OUT_DIR/sinusoidal_encoding.png (the table nn.SinusoidalPositionalEncoding adds)
and OUT_DIR/rope_scaling.png (the RoPE score against the distance between query and
key, with and without context extension, and the wavelength of every rotating pair
under linear, NTK and YaRN scaling); the default OUT_DIR is this script's folder,
where the lesson finds them. Every number comes from the modules themselves.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import minigrad as mg  # noqa: E402
from minigrad import nn  # noqa: E402

HEAD_DIM = 64
TRAINED = 256  # the context length the scaled RoPEs pretend the model was trained on
FACTOR = 4.0
SCALINGS = {
    "no scaling": None,
    f"linear, s={FACTOR:g}": {"type": "linear", "factor": FACTOR},
    f"NTK, s={FACTOR:g}": {"type": "ntk", "factor": FACTOR},
    f"YaRN, s={FACTOR:g}": {
        "type": "yarn",
        "factor": FACTOR,
        "original_max_position_embeddings": TRAINED,
    },
}


def sinusoidal_figure(out_dir):
    pe = nn.SinusoidalPositionalEncoding(d_model=64, max_len=128).pe.numpy()
    fig, ax = plt.subplots(figsize=(9, 4.2), constrained_layout=True)
    image = ax.imshow(pe, aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest")
    ax.set_xlabel(
        "feature j (even: sin, odd: cos); the wavelength grows from 2π to 2π·10000 left to right"
    )
    ax.set_ylabel("position t")
    ax.set_title("nn.SinusoidalPositionalEncoding(64).pe[:128]: PE[t, 2i] = sin(t / 10000^(2i/64))")
    fig.colorbar(image, ax=ax, shrink=0.9)
    out = Path(out_dir) / "sinusoidal_encoding.png"
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


def scores_by_distance(rope, distances):
    """q . k for q at position 0 and k at position n, for n = 0 .. distances - 1, with
    q = k = all ones (RoFormer's long-term-decay plot), divided by head_dim."""
    ones = mg.ones(1, HEAD_DIM, dtype=mg.float64)
    q = rope.rotate(ones)  # position 0: unchanged
    # positions 0 .. distances - 1
    keys = rope.rotate(mg.ones(distances, HEAD_DIM, dtype=mg.float64))
    return (keys @ q.mT).numpy()[:, 0] / HEAD_DIM


def rope_figure(out_dir):
    fig, (ax_score, ax_wave) = plt.subplots(1, 2, figsize=(12, 4.5), constrained_layout=True)
    distances = FACTOR * TRAINED
    n = np.arange(int(distances))
    for name, scaling in SCALINGS.items():
        rope = nn.RotaryEmbedding(HEAD_DIM, scaling=scaling)
        ax_score.plot(n, scores_by_distance(rope, int(distances)), label=name, linewidth=1.3)
        wavelength = 2 * np.pi / rope.inv_freq
        ax_wave.plot(
            np.arange(HEAD_DIM // 2),
            wavelength,
            marker="o",
            markersize=3,
            label=name,
            linewidth=1.3,
        )
    ax_score.axvline(TRAINED, color="0.4", linestyle="--", linewidth=1)
    ax_score.text(TRAINED, 1.02, f" trained length {TRAINED}", fontsize=9, va="bottom")
    ax_score.set_xlabel("distance n - m between key and query")
    ax_score.set_ylabel("q·k / head_dim  (q = k = ones)")
    ax_score.set_title(f"RoPE score against distance (head_dim {HEAD_DIM})")
    ax_score.legend(fontsize=9)
    ax_score.grid(alpha=0.3)
    for length, label in ((TRAINED, "L"), (FACTOR * TRAINED, "sL")):
        ax_wave.axhline(length, color="0.4", linestyle="--", linewidth=1)
        ax_wave.text(0, length * 1.15, f"{label} = {length:g}", fontsize=9)
    ax_wave.set_yscale("log")
    ax_wave.set_xlabel("pair i (features i and i + head_dim/2)")
    ax_wave.set_ylabel("wavelength 2π/θ_i (positions per turn)")
    ax_wave.set_title(f"wavelength of each pair (YaRN: trained on L={TRAINED})")
    ax_wave.legend(fontsize=9)
    ax_wave.grid(alpha=0.3, which="both")
    out = Path(out_dir) / "rope_scaling.png"
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


def main(out_dir):
    return sinusoidal_figure(out_dir), rope_figure(out_dir)


if __name__ == "__main__":
    for path in main(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent):
        print(path)
