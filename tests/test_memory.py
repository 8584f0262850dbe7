"""The allocator policy of minigrad.memory: after `import minigrad`, memory freed by one
step is reused by the next without page faults; a user's own glibc settings are kept.

Each case runs in a fresh interpreter: the policy acts at import, and glibc reads its
environment variables when a program starts.
"""

import json
import os
import subprocess
import sys

import pytest

from minigrad.memory import USER_VARIABLES

GLIBC = (getattr(os, "confstr", lambda name: "")("CS_GNU_LIBC_VERSION") or "").startswith("glibc")

# in the child: "steps" that each make and drop arrays of a few MiB, as a training step
# does; count the page faults of the later steps (the first ones find no free memory yet)
PROBE = """
import json, resource
import minigrad
import numpy as np

def step():
    arrays = [np.ones((1 << 20) // 8 * (i + 1)) for i in range(6)]  # 1 to 6 MiB
    del arrays

for _ in range(3):
    step()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    step()
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
print(json.dumps({"applied": minigrad.memory.info()["applied"], "faults_per_step": faults / 20}))
"""


def probe(**env):
    clean = {k: v for k, v in os.environ.items() if k not in USER_VARIABLES}
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(
    not GLIBC, reason="the policy sets glibc's malloc; other C libraries are left alone"
)
def test_freed_memory_is_reused_without_page_faults():
    state = probe()
    assert state["applied"]
    # 21 MiB touched per step is over 5,000 pages: from the system each time, each would fault
    assert state["faults_per_step"] < 100, state


@pytest.mark.skipif(
    not GLIBC, reason="the policy sets glibc's malloc; other C libraries are left alone"
)
def test_without_the_policy_the_probe_faults():
    # the same probe with glibc's own defaults chosen by the user: the policy stands aside,
    # and the memory goes back to the system after each step (what the policy is for)
    state = probe(MALLOC_TRIM_THRESHOLD_=str(128 * 1024), MALLOC_MMAP_THRESHOLD_=str(128 * 1024))
    assert not state["applied"]
    assert state["faults_per_step"] > 1000, state
