"""Names the ported programs (tests/ported/, tests/test_ported_programs.py) needed and
minigrad lacked, each proven against torch with a `case(...)` row (tests/surface.py)."""

import pytest

from .surface import case, ids, run

CASES = [
    # nanoGPT's train.py and sample.py: dtype = 'bfloat16' if torch.cuda.is_available() and
    # torch.cuda.is_bf16_supported() else 'float16'
    case("torch.cuda.is_bf16_supported", lambda lib: lib.cuda.is_bf16_supported()),
    case("torch.cuda.is_bf16_supported", lambda lib: lib.cuda.is_bf16_supported(including_emulation=False)),
    case("torch.cuda.is_bf16_supported", lambda lib: lib.cuda.is_bf16_supported(False)),
]


@pytest.mark.parametrize("row", CASES, ids=list(ids(CASES)))
def test_behaves_as_torch(row):
    run(row)
