"""Suite-wide fixtures: no network, private data and cache directories, Qt offscreen."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


class NetworkAccessError(AssertionError):
    """A test's code tried to reach beyond loopback."""


def _is_loopback(host: object) -> bool:
    if host in ("localhost", "", None):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False  # a hostname other than localhost would need DNS


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fail any test whose code opens a connection or looks a name up beyond loopback."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def _check_address(sock: socket.socket, address: object) -> None:
        if sock.family == getattr(socket, "AF_UNIX", None):
            return
        host = address[0] if isinstance(address, tuple) else address
        if not _is_loopback(host):
            raise NetworkAccessError(f"test tried to connect to {address!r}")

    def guarded_connect(sock: socket.socket, address: object) -> None:
        _check_address(sock, address)
        return real_connect(sock, address)

    def guarded_connect_ex(sock: socket.socket, address: object) -> int:
        _check_address(sock, address)
        return real_connect_ex(sock, address)

    def guarded_getaddrinfo(host: object, *args: object, **kwargs: object) -> object:
        if not _is_loopback(host):
            raise NetworkAccessError(f"test tried to look up {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_getaddrinfo)
    monkeypatch.setattr(socket, "gethostbyname", lambda host: guarded_getaddrinfo(host)[0][4][0])
    yield


@pytest.fixture(autouse=True, scope="session")
def _private_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One cache directory for the whole run (compiled models are shared between tests, as
    between a user's runs), never the user's."""
    path = tmp_path_factory.mktemp("blitzcam-cache")
    with pytest.MonkeyPatch.context() as session_patch:
        session_patch.setenv("BLITZCAM_CACHE_DIR", str(path))
        yield path


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own blitzcam data directory, never the user's."""
    path = tmp_path_factory.mktemp("blitzcam-data")
    monkeypatch.setenv("BLITZCAM_DATA_DIR", str(path))
    return path
