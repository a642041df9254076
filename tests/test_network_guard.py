"""The suite's own guard (tests/conftest.py): every way a socket reaches an address is refused
beyond loopback. (sendmsg to an address passed it; review.)"""

from __future__ import annotations

import socket

import pytest

from tests import conftest

OUTSIDE = ("192.0.2.1", 9)  # TEST-NET-1: never routed


@pytest.mark.parametrize(
    "reach",
    [
        lambda s: s.connect(OUTSIDE),
        lambda s: s.connect_ex(OUTSIDE),
        lambda s: s.sendto(b"x", OUTSIDE),
        lambda s: s.sendto(b"x", 0, OUTSIDE),
        lambda s: s.sendmsg([b"x"], [], 0, OUTSIDE),
        lambda s: socket.getaddrinfo("example.com", 80),
        lambda s: socket.gethostbyname("example.com"),
    ],
)
def test_the_guard_refuses_every_way_out(reach) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock, pytest.raises(conftest.NetworkAccessError):
        reach(sock)
    assert len(conftest._REFUSED) == 1
    conftest._REFUSED.clear()  # refused on purpose here: the test passes


def test_the_guard_lets_loopback_through() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        assert sock.sendmsg([b"x"], [], 0, sock.getsockname()) == 1
        assert sock.sendto(b"y", sock.getsockname()) == 1
        assert sock.recv(1) == b"x"
    assert conftest._REFUSED == []
