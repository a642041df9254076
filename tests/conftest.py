"""Suite-wide fixtures: no network, private data and cache directories, Qt offscreen."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

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


# Attempts the guard refused, kept even when the code under test caught the error (a library's
# `except Exception` would otherwise leave the test green): each test fails on its own.
_REFUSED: list[str] = []


def _refuse(what: str) -> None:
    _REFUSED.append(what)
    raise NetworkAccessError(what)


@pytest.fixture(autouse=True, scope="session")
def _no_network_for_the_session() -> Iterator[None]:
    """Any connection or name lookup beyond loopback fails, from the first fixture on (module
    and session fixtures are set up before a test's own): installed once for the run, where a
    test's `monkeypatch.undo()` cannot take it away."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_sendto = socket.socket.sendto
    real_sendmsg = socket.socket.sendmsg
    real_getaddrinfo = socket.getaddrinfo

    def _check_address(sock: socket.socket, address: object) -> None:
        if sock.family == getattr(socket, "AF_UNIX", None):
            return
        host = address[0] if isinstance(address, tuple) else address
        if not _is_loopback(host):
            _refuse(f"test tried to connect to {address!r}")

    def guarded_connect(sock: socket.socket, address: object) -> None:
        _check_address(sock, address)
        return real_connect(sock, address)

    def guarded_connect_ex(sock: socket.socket, address: object) -> int:
        _check_address(sock, address)
        return real_connect_ex(sock, address)

    def guarded_sendto(sock: socket.socket, data: bytes, *rest: object) -> int:
        _check_address(sock, rest[-1])  # sendto(data, address) or (data, flags, address)
        return real_sendto(sock, data, *rest)

    def guarded_sendmsg(sock: socket.socket, buffers: object, *rest: object) -> int:
        if len(rest) >= 3 and rest[2] is not None:  # (ancdata, flags, address)
            _check_address(sock, rest[2])
        return real_sendmsg(sock, buffers, *rest)

    def guarded_getaddrinfo(host: object, *args: object, **kwargs: object) -> object:
        if not _is_loopback(host):
            _refuse(f"test tried to look up {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    def guarded_lookup(name: str) -> object:
        def lookup(host: object, *args: object) -> object:
            target = host[0] if isinstance(host, tuple) else host
            if not _is_loopback(target):
                _refuse(f"test tried to look up {target!r} ({name})")
            return getattr(_real_socket_functions, name)(host, *args)

        return lookup

    with pytest.MonkeyPatch.context() as session_patch:
        session_patch.setattr(socket.socket, "connect", guarded_connect)
        session_patch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
        session_patch.setattr(socket.socket, "sendto", guarded_sendto)
        session_patch.setattr(socket.socket, "sendmsg", guarded_sendmsg)
        session_patch.setattr(socket, "getaddrinfo", guarded_getaddrinfo)
        session_patch.setattr(
            socket, "gethostbyname", lambda host: guarded_getaddrinfo(host)[0][4][0]
        )
        for name in ("gethostbyname_ex", "gethostbyaddr", "getnameinfo"):
            session_patch.setattr(socket, name, guarded_lookup(name))
        yield


class _RealSocketFunctions:
    """The lookups as the socket module had them before the guard."""

    gethostbyname_ex = staticmethod(socket.gethostbyname_ex)
    gethostbyaddr = staticmethod(socket.gethostbyaddr)
    getnameinfo = staticmethod(socket.getnameinfo)


_real_socket_functions = _RealSocketFunctions()


@pytest.fixture(autouse=True)
def _no_network() -> Iterator[None]:
    """Fail any test whose code tried to reach beyond loopback, even when it caught the error;
    and, at the next test's setup, a reach made between tests (cleared there, they were
    forgotten): by a module or session fixture set up for this test, or torn down after an
    earlier one, or a thread an earlier test left running."""
    if _REFUSED:
        refused, _REFUSED[:] = list(_REFUSED), []
        pytest.fail(
            "network access refused between tests (a module or session fixture set up for this "
            "test or torn down after an earlier one, or a thread an earlier test left running): "
            + "; ".join(refused)
        )
    yield
    if _REFUSED:
        refused, _REFUSED[:] = list(_REFUSED), []
        pytest.fail(f"network access refused during the test: {'; '.join(refused)}")


@pytest.fixture(autouse=True, scope="session")
def _no_network_at_the_end() -> Iterator[None]:
    """A reach after the last test (a session fixture's teardown) fails the run too."""
    yield
    if _REFUSED:
        refused, _REFUSED[:] = list(_REFUSED), []
        pytest.fail(f"network access refused after the last test: {'; '.join(refused)}")


@pytest.fixture(autouse=True, scope="session")
def _private_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One cache directory for the whole run (compiled models are shared between tests, as
    between a user's runs), never the user's; matplotlib's too (ultralytics' training imports
    it, and it wrote its font list into the home folder's cache)."""
    path = tmp_path_factory.mktemp("blitzcam-cache")
    with pytest.MonkeyPatch.context() as session_patch:
        session_patch.setenv("BLITZCAM_CACHE_DIR", str(path))
        session_patch.setenv("MPLCONFIGDIR", str(path / "matplotlib"))
        yield path


@pytest.fixture(autouse=True, scope="session")
def _private_data_dir_for_the_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A data directory for session and module fixtures (set up before any test's own), so
    that none reads the user's enrolled decks or writes the user's settings."""
    path = tmp_path_factory.mktemp("blitzcam-session-data")
    with pytest.MonkeyPatch.context() as session_patch:
        session_patch.setenv("BLITZCAM_DATA_DIR", str(path))
        yield path


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own blitzcam data directory, never the user's."""
    path = tmp_path_factory.mktemp("blitzcam-data")
    monkeypatch.setenv("BLITZCAM_DATA_DIR", str(path))
    return path


@pytest.fixture
def refuse_writing(monkeypatch: pytest.MonkeyPatch):
    """`refuse_writing(path)`: opening `path` for writing fails from then on as it would for a
    user's account on a write-protected file (tests may run as root, whom permissions do not
    stop), in blitzcam's own file writing."""
    import errno

    import blitzcam.files as files

    refused: set[Path] = set()
    real_open = os.open

    def refusing_open(path, flags, *args):
        if Path(path) in refused and flags & (os.O_WRONLY | os.O_RDWR):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(files.os, "open", refusing_open)
    return refused.add


# Property tests draw the same examples on every run, and keep no example database in the
# repository: a failure is reproduced by the seed-free run itself.
settings.register_profile("blitzcam", derandomize=True, database=None)
settings.load_profile("blitzcam")
