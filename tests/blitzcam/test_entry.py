"""The console script's entry: the CLI loaded behind it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest


def test_a_ctrl_c_while_the_cli_loads_is_said_not_a_traceback(monkeypatch, capsys) -> None:
    # (a review: SIGINT 20-300 ms after start printed a traceback, 3 times in 500)
    from blitzcam import entry

    class Interrupting:
        def find_spec(self, name: str, path=None, target=None):
            if name == "blitzcam.cli":
                raise KeyboardInterrupt
            return None

    monkeypatch.delitem(sys.modules, "blitzcam.cli", raising=False)
    monkeypatch.setattr(sys, "meta_path", [Interrupting(), *sys.meta_path])
    assert entry.main() == 130
    assert capsys.readouterr().err == "blitzcam: interrupted\n"


def test_the_entry_runs_the_cli(monkeypatch, capsys, tmp_path) -> None:
    from blitzcam import entry

    match = tmp_path / "match.json"
    match.write_text('{"players": [{"name": "Ann", "deck": "green-pump"}, '
                     '{"name": "Bob", "deck": "red-buggy"}], "rounds": []}')  # fmt: skip
    monkeypatch.setattr(sys, "argv", ["blitzcam", "match", "summarize", str(match)])
    assert entry.main() == 0
    assert json.loads(capsys.readouterr().out)["status"] == "in-progress"


def test_python_dash_m_blitzcam_runs_the_cli_and_says_its_version(tmp_path) -> None:
    # (for a Python whose scripts folder is not on PATH: "No module named blitzcam.__main__")
    import os
    import subprocess
    from importlib.metadata import version

    env = {**os.environ, "BLITZCAM_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run([sys.executable, "-m", "blitzcam", "--version"], capture_output=True,
                          text=True, env=env, timeout=60, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"blitzcam {version('blitzcam')}\n", "")
    done = subprocess.run([sys.executable, "-m", "blitzcam", "match"], capture_output=True,
                          text=True, env=env, timeout=60, check=False)
    assert done.returncode == 2 and "blitzcam match: error:" in done.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs Linux's /dev/full")
def test_a_version_that_cannot_be_written_is_one_line_or_quiet_for_a_reader_gone(tmp_path) -> None:
    # (said before the commands' guard on output: a full disk and a closed pipe were tracebacks,
    # exit 1; CLI review)
    import os
    import subprocess

    env = {**os.environ, "BLITZCAM_DATA_DIR": str(tmp_path / "data")}
    # (and --help, which argparse let exit 0 with nothing written)
    for asked in (["--version"], ["--help"], ["count", "--help"]):
        with Path("/dev/full").open("w") as full:
            done = subprocess.run([sys.executable, "-m", "blitzcam", *asked], stdout=full,
                                  stderr=subprocess.PIPE, text=True, env=env, timeout=60, check=False)  # fmt: skip
        assert (done.returncode, done.stderr) == (
            74, "blitzcam: error: cannot write the output: No space left on device\n"
        ), asked
    reader_gone = subprocess.Popen([sys.executable, "-m", "blitzcam", "--version"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)  # fmt: skip
    reader_gone.stdout.close()
    assert reader_gone.wait(timeout=60) == 141
    assert reader_gone.stderr.read() == b""
    reader_gone.stderr.close()


def test_an_opencv_that_cannot_load_a_system_library_is_one_line_for_the_app_too(tmp_path) -> None:
    # (where PySide6 loads and OpenCV does not, the one-line error came with a traceback: the
    # process's end imported OpenCV again to look for a camera's thread; review)
    import os
    import subprocess

    fake = tmp_path / "fake" / "cv2"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(
        'raise ImportError("libGL.so.1: cannot open shared object file: No such file or '
        'directory", name="cv2")\n'
    )
    (tmp_path / "data").mkdir()
    env = {**os.environ, "PYTHONPATH": str(fake.parent), "BLITZCAM_DATA_DIR": str(tmp_path / "data"),
           "QT_QPA_PLATFORM": "offscreen"}  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "blitzcam", "app"], env=env, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "blitzcam app: error: a library of the system that cv2 needs is missing: libGL.so.1: cannot "
        "open shared object file: No such file or directory (on Debian or Ubuntu: apt install libgl1)"
    ]
