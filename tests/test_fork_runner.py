"""tools/fork_runner.py runs scripts as `python SCRIPT ARGS` would, each in a child forked
from a server that has imported the heavy libraries once (the benchmark and figure tests
run through it). Here the server imports nothing, so that these checks take a second:
what a script sees, what comes back when it fails, and that a timeout ends everything
the script started."""

import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import fork_runner  # noqa: E402  (tools/ is not a package)


@pytest.fixture(scope="module")
def server():
    with fork_runner.ForkServer(preload=()) as server:
        yield server


def script(folder, name, body):
    path = folder / name
    path.write_text(textwrap.dedent(body))
    return path


def test_a_script_sees_what_python_script_would_give_it(server, tmp_path):
    path = script(
        tmp_path,
        "show.py",
        """
        import os, sys
        print(sys.argv[1:], sys.path[0] == os.path.dirname(os.path.abspath(__file__)), __name__)
        print(repr(sys.stdin.read()))
        os.write(2, b"from C\\n")
        """,
    )
    run = server.run(path, ["a", 2], tmp_path / "out", timeout=30, err_log=tmp_path / "err")
    assert run["returncode"] == 0 and not run["timed_out"], run
    assert (tmp_path / "out").read_text() == "['a', '2'] True __main__\n''\n"
    assert (tmp_path / "err").read_text() == "from C\n"
    assert run["cpu_seconds"] >= 0 and run["seconds"] > 0


def test_each_script_starts_from_the_servers_state_not_the_previous_scripts(server, tmp_path):
    set_mark = script(tmp_path, "set.py", "import json\njson.MARK = 1\nprint(json.MARK)\n")
    read_mark = script(tmp_path, "read.py", "import json\nprint(hasattr(json, 'MARK'))\n")
    assert server.run(set_mark, [], tmp_path / "set.log")["returncode"] == 0
    assert server.run(read_mark, [], tmp_path / "read.log")["returncode"] == 0
    assert (tmp_path / "set.log").read_text() == "1\n" and (
        tmp_path / "read.log"
    ).read_text() == "False\n"


@pytest.mark.parametrize(
    "body, code, printed",
    [
        ("import sys\nsys.exit(3)\n", 3, ""),
        ("import sys\nsys.exit('bad option')\n", 1, "bad option\n"),
        ("raise ValueError('went wrong')\n", 1, "ValueError: went wrong"),
        ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", -9, ""),
    ],
)
def test_exit_codes_and_errors_as_python_gives_them(server, tmp_path, body, code, printed):
    run = server.run(script(tmp_path, "fails.py", body), [], tmp_path / "log")
    log = (tmp_path / "log").read_text()
    assert run["returncode"] == code and not run["timed_out"], (run, log)
    assert printed in log, log


def test_a_timeout_kills_the_script_and_the_processes_it_started(server, tmp_path):
    path = script(
        tmp_path,
        "hangs.py",
        """
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        print(child.pid, flush=True)
        time.sleep(60)
        """,
    )
    run = server.run(path, [], tmp_path / "log", timeout=1)
    assert run["timed_out"] and run["returncode"] == -9, run
    assert run["seconds"] < 10
    grandchild = int((tmp_path / "log").read_text())
    for _ in range(100):  # killed with the group: a moment later it is gone, or a zombie
        if not running(grandchild):
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the script's own subprocess {grandchild} outlived the timeout")


def running(pid):
    """Whether process `pid` exists and is not a zombie (killed, not yet reaped by init)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"
