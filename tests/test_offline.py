"""Private by construction: the real stack works with no network at all."""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.real


def run(cmd, cwd):
    return subprocess.run(
        cmd, cwd=cwd, env=os.environ.copy(), capture_output=True, text=True, timeout=600
    )


def can_unshare() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not can_unshare(), reason="needs root and `unshare -n` (CI runs as root)")
@pytest.mark.parametrize(
    "args", [["doctor"], ["prompts", "try", "importance", "-n", "3", "--no-cache"]]
)
def test_commands_run_in_a_namespace_without_network(tmp_path, args):
    done = run(["unshare", "-n", sys.executable, "-m", "simulacra", *args], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "ok" in done.stdout or "parsed 3/3" in done.stdout


GUARD = textwrap.dedent(
    """
    import socket, sys
    attempts = []
    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("network access attempted")
    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse
    from simulacra.cli import main
    try:
        main(sys.argv[1:])
    except SystemExit as e:
        assert not e.code, e.code
    assert not attempts, attempts
    print("no network attempted")
    """
)


def test_no_code_path_opens_a_connection(tmp_path):
    done = run([sys.executable, "-c", GUARD, "doctor"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "no network attempted" in done.stdout
