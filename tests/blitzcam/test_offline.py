"""ultralytics is configured to stay offline, and the suite's network guard works."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import NetworkAccessError


def test_the_network_guard_refuses_outside_connections() -> None:
    from tests import conftest

    with pytest.raises(NetworkAccessError):
        socket.create_connection(("192.0.2.1", 80), timeout=0.1)
    with pytest.raises(NetworkAccessError):
        socket.getaddrinfo("example.com", 443)
    with pytest.raises(NetworkAccessError):
        socket.gethostbyname_ex("example.com")
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    with pytest.raises(NetworkAccessError):
        udp.sendto(b"x", ("192.0.2.1", 53))  # a DNS query of one's own
    udp.close()
    assert len(conftest._REFUSED) == 4
    conftest._REFUSED.clear()  # refused on purpose here: the test passes


def test_a_refusal_the_code_swallowed_still_fails_the_test(tmp_path: Path) -> None:
    # a library's `except Exception` kept the test green while it had tried the network
    probe = tmp_path / "test_probe.py"
    probe.write_text(
        "import socket\n"
        "import pytest\n"
        "def test_swallows():\n"
        "    try:\n"
        "        socket.getaddrinfo('example.com', 443)\n"
        "    except Exception:\n"
        "        pass\n"
        "@pytest.fixture(scope='module')\n"
        "def reached():\n"  # (set up before the guard's own fixture: its refusal was forgotten)
        "    try:\n"
        "        socket.create_connection(('192.0.2.1', 9))\n"
        "    except Exception:\n"
        "        pass\n"
        "def test_with_a_fixture_that_swallows(reached):\n"
        "    pass\n"
    )
    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "tests.conftest", "-p", "no:cacheprovider",
         "--rootdir", str(tmp_path), str(probe)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(repo)},
    )  # fmt: skip
    assert done.returncode == 1, done.stdout
    assert "network access refused during the test" in done.stdout
    assert "1 passed, 2 errors" in done.stdout  # (each said at its teardown, its setup)
    assert "network access refused between tests (a module or session fixture" in done.stdout


def test_the_network_guard_allows_loopback() -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    client = socket.create_connection(server.getsockname(), timeout=1)
    client.close()
    server.close()


def test_configure_sets_the_environment_settings_and_font(tmp_path: Path) -> None:
    from blitzcam import offline

    config_dir = offline.configure()
    assert os.environ["YOLO_OFFLINE"] == "1"
    assert os.environ["YOLO_AUTOINSTALL"] == "0"
    assert os.environ["ULTRALYTICS_SAFE_LOAD"] == "1"  # a planted run checkpoint runs no code
    assert Path(os.environ["YOLO_CONFIG_DIR"]) / "Ultralytics" == config_dir
    assert config_dir.is_relative_to(Path(os.environ["BLITZCAM_DATA_DIR"]))
    settings = json.loads((config_dir / "settings.json").read_text())
    assert settings["sync"] is False
    assert all(settings[key] is False for key in ("wandb", "mlflow", "comet", "clearml", "tensorboard"))
    assert (config_dir / "Arial.ttf").stat().st_size > 100_000
    # a copy cut short (a kill mid-copy) is made again, not kept for good
    (config_dir / "Arial.ttf").write_bytes(b"\x00" * 1000)
    offline.configure()
    assert (config_dir / "Arial.ttf").read_bytes() == offline.FONT_SOURCE.read_bytes()


@pytest.mark.slow
def test_ultralytics_imports_and_finds_its_font_without_the_network(tmp_path: Path) -> None:
    # A fresh interpreter: the guard there blocks every socket, so any probe would fail loudly.
    code = """
import os
import socket
def refuse(*a, **k):
    raise SystemExit("network touched: %r" % (a,))
socket.socket.connect = refuse
socket.getaddrinfo = refuse
socket.create_connection = refuse
from blitzcam.offline import import_ultralytics
ultralytics = import_ultralytics()
from ultralytics.utils import SETTINGS, ONLINE
from ultralytics.utils.checks import check_font
font = check_font("Arial.ttf")
assert SETTINGS["sync"] is False, SETTINGS
assert str(SETTINGS["runs_dir"]).startswith(os.environ["BLITZCAM_DATA_DIR"]), SETTINGS
print("ok", ONLINE, font)
"""
    env = {**os.environ, "BLITZCAM_DATA_DIR": str(tmp_path)}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                            timeout=240, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("ok False"), result.stdout
    assert str(tmp_path) in result.stdout


def test_an_api_key_in_the_shell_never_reaches_ultralytics_platform(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the Platform callback every trainer gets reads this variable and ignores YOLO_OFFLINE
    from types import SimpleNamespace

    from blitzcam import offline

    monkeypatch.setenv("ULTRALYTICS_API_KEY", "a-key-from-the-users-shell")
    offline.configure()  # what importing blitzcam.offline does, before ultralytics is imported
    assert "ULTRALYTICS_API_KEY" not in os.environ
    offline.import_ultralytics()
    from ultralytics.utils.callbacks import platform

    sent = []
    monkeypatch.setattr(platform, "_send", lambda *a, **k: sent.append(a))
    monkeypatch.setattr(platform, "TESTS_RUNNING", False)
    trainer = SimpleNamespace(args=SimpleNamespace(project="runs/detector", name="base"))
    platform.on_pretrain_routine_start(trainer)
    assert sent == [] and not platform._api_key


def test_onnx_runtime_is_told_to_look_up_no_telemetry_host() -> None:
    # (ONNX Runtime 1.32 asked DNS for mobile.events.data.microsoft.com from its first session,
    # 4 lookups in 16 s, seen with strace; the suite's network namespace hid it; review)
    import os
    import subprocess
    import sys

    env = {key: value for key, value in os.environ.items() if key != "ORT_DISABLE_TELEMETRY"}
    code = "import os, blitzcam.vision.onnx_session; print(os.environ.get('ORT_DISABLE_TELEMETRY'))"
    said = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert said.stdout.strip() == "1"
