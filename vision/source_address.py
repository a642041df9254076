"""Stream addresses as people type and paste them: which specs are network streams, and an
address shown, edited and pasted with its secrets (a password, a token) kept out of sight."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

STREAM_SCHEMES: Final = ("rtsp://", "rtsps://", "http://", "https://")


def is_stream(spec: int | str | Path) -> bool:
    """Whether a source spec is a network stream's address."""
    return isinstance(spec, str) and spec.lower().startswith(STREAM_SCHEMES)


def address_problem(address: str) -> str | None:
    """Why a stream's address (scheme://...) names no place a stream could come from, said
    before anything is asked of the network: a space after its password (which may hold one),
    no host, an IPv6 host's bracket left open; None where it may (FFmpeg and the server decide
    the rest). A space reached the server check, which said the server "does not answer in
    HTTP" with nothing asked of it."""
    rest = address.split("://", 1)[1]
    # (after its user name and password, which may hold a space FFmpeg sends as it is)
    after_userinfo = rest[_userinfo_end(rest, _HOST_SPACED) + 1 :]
    host = after_userinfo[: _first_of(after_userinfo, "/?#;")]
    if any(ch.isspace() for ch in host):
        return "not an address: its host holds a space (a port follows it after a colon: :8080)"
    if any(ch.isspace() for ch in after_userinfo):
        return "not an address: it holds a space (an address writes one as %20)"
    if not host or host.startswith(":"):
        return "no host in the address (as in http://192.168.1.20:8080/video)"
    if host.startswith("[") and "]" not in host:
        return "not an address: its host's [ is not closed"
    return None


def shown_address(spec: str) -> str:
    """A source spec as messages show it: in anything shaped like an address (scheme://..., a
    scheme blitzcam reads or not: `rstp://` is a typo, and still holds the password; a
    stream's scheme without its colon or slashes, or none: `rtsp//user:secret@host`) the
    password of its userinfo (rtsp://user:secret@host/..., as phone camera apps ask for) and
    the values of query parameters named like secrets (?pwd=secret, ;password=, access_token=)
    replaced by ***; anything else as it is. The userinfo ends at the last @ before the host,
    so a password holding / or ? (typed as it is, unescaped) is hidden whole."""
    shown, last = [], 0
    for _key, start, end in _secret_spans(spec):
        shown += [spec[last:start], HIDDEN]
        last = end
    return "".join([*shown, spec[last:]])


def with_secrets_of(edited: str, original: str) -> str:
    """An address edited where it was shown hidden (a settings field), with `original`'s
    secrets put back where a *** still stands in their place: the userinfo's password where the
    edited address's password is ***, a parameter's value where the parameter of that name is
    ***. The host or path changed, a parameter moved or another secret typed in: each keeps
    its own; anything else as typed."""
    kept: dict[str, list[str]] = {}
    for key, start, end in _secret_spans(original):
        kept.setdefault(key, []).append(original[start:end])
    parts, last = [], 0
    for key, start, end in _secret_spans(edited):
        if edited[start:end] == HIDDEN and kept.get(key):
            parts += [edited[last:start], kept[key].pop(0)]
            last = end
    return "".join([*parts, edited[last:]])


HIDDEN: Final = "***"  # what a secret is shown as


def _secret_spans(spec: str) -> list[tuple[str, int, int]]:
    """Where the secrets of an address lie in `spec` (see shown_address), in order, each with
    what it is: "@" for the userinfo's password, else its parameter's name (lower-cased)."""
    found = ANY_ADDRESS.match(spec)
    # (mistyped or no scheme: a file's name is more likely than an address, so a userinfo is
    # one only where it holds no folder, backslash or space: C:\Users\bob@work\t.mp4 is a
    # path, "table 1:2@x.jpg" a file)
    mistyped = found is None and (found := MISTYPED_ADDRESS.match(spec)) is not None
    if found is None:
        return []
    offset, rest = found.end(1), found.group(2)
    spans = []
    # (an address typed with a space in its host is still one: its password was shown whole
    # in the message refusing it; a mistyped one is more likely a file's name)
    at = _userinfo_end(rest, _HOST if mistyped else _HOST_SPACED)
    authority_start = 0
    user = rest[:at].split(":", 1)[0] if at >= 0 else ""
    in_path = any(c in user for c in "/?#;")  # (the @ is in the path or query)
    a_file = mistyped and any(c in rest[:at] for c in "\\ ")
    if at >= 0 and not in_path and not a_file:
        if ":" in rest[:at]:
            spans.append(("@", offset + len(user) + 1, offset + at))
        authority_start = at + 1  # (a user name alone: no secret)
    host_end = _first_of(rest, "/?#;", authority_start)
    for value in _SECRET_VALUE.finditer(rest, host_end):
        name = value.group(1)[1:-1].lower()  # (between the ? & or ; and the =)
        spans.append((name, offset + value.end(1), offset + value.end()))
    return spans


# scheme://: any scheme, after any spaces
ANY_ADDRESS: Final = re.compile(r"(\s*[A-Za-z][A-Za-z0-9+.\-]*://)(.*)\Z", re.DOTALL)
# what may be an address without its scheme's "://" whole (rtsp//, http:/, http:, none at
# all: user:secret@host/...): its secrets are hidden as an address's, since a message shows it
# as a file's name
MISTYPED_ADDRESS: Final = re.compile(
    r"(\s*(?:(?:rtsps?|rtmp|https?)(?::/?|//|:))?)(.*)\Z", re.DOTALL | re.IGNORECASE
)
# a stream's, mistyped
SCHEME_WITHOUT_COLON: Final = re.compile(r"(rtsps?|https?)//", re.IGNORECASE)
# ... with one slash (http:/host), or none at all, as a phone camera app shows its address
# (192.168.1.20:8080/video): "no such file or folder" alone, as of a file
SCHEME_ONE_SLASH: Final = re.compile(r"(rtsps?|https?):/(?!/)", re.IGNORECASE)
HOST_AND_PORT: Final = re.compile(r"[\w.-]+:(?P<port>\d{1,5})(/|\Z)")
RTSP_PORTS: Final = frozenset({"554", "8554"})  # (an address at them is an RTSP camera's)


def as_pasted(text: str) -> str:
    """A source as a person pastes it, as the file or address it names: a path copied with its
    quotes ("Copy as path" on Windows), or as a file:// URL (a file manager's or a browser's)."""
    from urllib.parse import unquote, urlsplit

    stripped = text.strip()
    if len(stripped) >= 2 and stripped[0] == stripped[-1] and stripped[0] in "\"'":
        text = stripped[1:-1]
    if text.strip().lower().startswith("file://"):
        url = urlsplit(text.strip())
        if url.netloc in ("", "localhost"):  # (another machine's file is no file here)
            path = unquote(url.path)
            # file:///C:/x.mp4 is C:/x.mp4 on Windows
            return path[1:] if re.match(r"/[A-Za-z]:/", path) else path
    return text


# a parameter whose name says it holds a secret (pwd, password, passwd, pass, token,
# access_token, auth, secret, credential ..., or ending in key or sig: key, apikey, sig; not
# keyframe; pw and psw whole, as some cameras name it), and its value, to & ; # or the end
_SECRET_VALUE: Final = re.compile(
    r"([?&;](?:[^=&;#?/]*(?:pass|pwd|token|auth|secret|cred|signature)[^=&;#?/]*"
    r"|[^=&;#?/]*(?:key|sig)|ps?w)=)[^&;#]*",
    re.IGNORECASE,
)


def _first_of(text: str, chars: str, start: int = 0) -> int:
    """The first index at or after `start` of any of `chars` in `text` (its length if none)."""
    return min((i for c in chars if (i := text.find(c, start)) >= 0), default=len(text))


def _userinfo_end(rest: str, host: re.Pattern[str]) -> int:
    """Where an address's userinfo ends (after scheme://): the last @ that is followed by a
    host (a name of no delimiters, or an [IPv6], and a :port, up to a / ? # ; or the end), or
    -1. Taking the last such @ hides a password with an @ / or ? typed in it; an @ in the
    query (?mail=a@b&x=1) is followed by no host."""
    for at in range(len(rest) - 1, -1, -1):
        if rest[at] == "@" and host.match(rest, at + 1):
            return at
    return -1


# a host: an [IPv6] (with a %25 zone) or a name of anything but the delimiters (docker's
# rtsp_server, kamera-küche.local), a :port, then / ? # ; or the end
# (not & or =: an @ in a query, ?mail=a@b&x=1, is followed by no host)
_HOST: Final = re.compile(r"(\[[0-9A-Fa-f:.%A-Za-z]+\]|[^\s/?#;@:\[\]&=]+)(:\d*)?(?=[/?#;]|\Z)")
# ... or one typed with spaces in it, or none, in an address of scheme:// (refused, and shown)
# (an [IPv6] host whose bracket is left open too: its userinfo is found, and its password
# hidden, where the bracket is said not closed)
_HOST_SPACED: Final = re.compile(
    r"(\[[0-9A-Fa-f:.%A-Za-z]+\]|\[[0-9A-Fa-f:.%A-Za-z]*|[^/?#;@:\[\]&=]*)(:[\d\s]*)?(?=[/?#;]|\Z)"
)
