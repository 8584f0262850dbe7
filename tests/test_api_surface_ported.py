"""Names the ported programs (tests/ported/, tests/test_ported_programs.py) needed and
minigrad lacked, each proven against torch with a `case(...)` row (tests/surface.py)."""

import pytest

from .surface import case, ids, pos, run, unit

CASES = [
    # nanoGPT's train.py and sample.py: dtype = 'bfloat16' if torch.cuda.is_available() and
    # torch.cuda.is_bf16_supported() else 'float16'
    case("torch.cuda.is_bf16_supported", lambda lib: lib.cuda.is_bf16_supported()),
    case(
        "torch.cuda.is_bf16_supported",
        lambda lib: lib.cuda.is_bf16_supported(including_emulation=False),
    ),
    case("torch.cuda.is_bf16_supported", lambda lib: lib.cuda.is_bf16_supported(False)),
    # minGPT's NewGELU: torch.pow(x, 3.0). torch's CPU kernel computes the powers 3, -2 and
    # -0.5 as x*x*x, 1/(x*x) and 1/sqrt(x), to the last bit (rtol=0), in float32 and float64
    # (detached: the values alone; the rows after them check the gradients)
    case("torch.pow", lambda lib, x: lib.pow(x.detach().float(), 3.0), (6, 7), rtol=0, atol=0),
    case("torch.pow", lambda lib, x: lib.pow(x.detach(), 3), (6, 7), rtol=0, atol=0),
    case("torch.pow", lambda lib, x: lib.pow(x.detach().float(), -2), (6, 7), rtol=0, atol=0),
    case("torch.pow", lambda lib, x: lib.pow(x.detach(), -2.0), (6, 7), rtol=0, atol=0),
    case("torch.pow", lambda lib, x: lib.pow(x.detach().float(), -0.5), pos(6, 7), rtol=0, atol=0),
    case("torch.pow", lambda lib, x: lib.pow(x.detach(), -0.5), pos(6, 7), rtol=0, atol=0),
    case("torch.Tensor.pow", lambda lib, x: x.detach().float().pow(3), (6, 7), rtol=0, atol=0),
    case("torch.Tensor.__pow__", lambda lib, x: x.detach().float() ** 3.0, (6, 7), rtol=0, atol=0),
    case("torch.pow", lambda lib, x: lib.pow(x, 3.0), (4, 5)),
    case("torch.pow", lambda lib, x: lib.pow(x, -2), pos(4, 5)),
    case("torch.pow", lambda lib, x: lib.pow(x, -0.5), pos(4, 5)),
    case("torch.pow", lambda lib, x: lib.pow(x, 2.5), pos(4, 5)),
    # makemore part 3: hy, hx = torch.histogram(t, density=True), 100 bins by default
    # (float32 densities and edges to float32's precision: torch computes them in float32, NumPy in
    # float64)
    case(
        "torch.histogram",
        lambda lib, x: lib.histogram(x.detach().float(), density=True),
        unit(32, 64),
        rtol=1e-5,
        atol=1e-6,
    ),
    case("torch.histogram", lambda lib, x: lib.histogram(x.detach()), (300,)),
    case("torch.Tensor.histogram", lambda lib, x: x.detach().histogram(), (300,)),
    case("torch.Tensor.histogram", lambda lib, x: x.detach().histogram(density=True), (300,)),
]


@pytest.mark.parametrize("row", CASES, ids=list(ids(CASES)))
def test_behaves_as_torch(row):
    run(row)
