import os
import stat
from pathlib import Path

import pytest

from blitzcam.files import (
    NEW_FILE_MODE,
    copy_file_atomic,
    staged,
    why_unwritable,
    write_bytes_atomic,
    write_text_atomic,
)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_gets_the_mode_of_any_new_file_not_a_temporary_ones(tmp_path: Path) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_bytes(b"x")  # as open() makes it: 0o666 less the umask
    written = tmp_path / "written.txt"
    write_bytes_atomic(written, b"data")
    assert written.read_bytes() == b"data"
    assert _mode(written) == _mode(plain) == NEW_FILE_MODE


def test_a_replaced_file_keeps_its_mode_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "match.json"
    target.write_bytes(b"old")
    target.chmod(0o600)  # the owner made it private: rewriting keeps it private
    source = tmp_path / "source"
    source.write_bytes(b"new")
    copy_file_atomic(source, target)
    assert target.read_bytes() == b"new"
    assert _mode(target) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["match.json", "source"]


def test_a_file_is_written_with_its_mode_where_os_has_no_fchmod(tmp_path: Path, monkeypatch) -> None:
    # (Windows before Python 3.13: every write raised AttributeError, and counting with it;
    # portability review)
    monkeypatch.delattr(os, "fchmod")
    target = tmp_path / "match.json"
    target.write_bytes(b"old")
    target.chmod(0o600)
    write_bytes_atomic(target, b"new")
    assert target.read_bytes() == b"new" and _mode(target) == 0o600
    write_bytes_atomic(tmp_path / "new.txt", b"x")
    assert _mode(tmp_path / "new.txt") == NEW_FILE_MODE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["match.json", "new.txt"]


def test_a_failed_write_leaves_the_old_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "model.onnx"
    target.write_bytes(b"old")


    with pytest.raises(TypeError):
        write_bytes_atomic(target, object())  # type: ignore[arg-type]
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["model.onnx"]


@pytest.mark.parametrize("at", ["before the rename", "after the rename"])
def test_a_ctrl_c_says_whether_the_new_file_was_written(tmp_path: Path, monkeypatch, at: str) -> None:
    # (a deck's back re-enrolled, interrupted as the folder was synced: "interrupted" alone,
    # and the back enrolled before was gone)
    from blitzcam import files
    from blitzcam.errors import SavedThenInterrupted, WrittenThenInterrupted

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "fsync", interrupted) if at == "before the rename" else (
        monkeypatch.setattr(files, "_fsync_folder", interrupted))  # fmt: skip
    target = tmp_path / "green-pump.png"
    target.write_bytes(b"old")
    with pytest.raises(KeyboardInterrupt) as caught:
        write_bytes_atomic(target, b"new")
    saved = at == "after the rename"
    assert isinstance(caught.value, WrittenThenInterrupted) == saved
    # (saved only to a caller whose whole change the file is: `decks enroll`, not `decks
    # export` with one back of eight written, nor a cache `count` wrote on its way)
    assert not isinstance(caught.value, SavedThenInterrupted)
    assert target.read_bytes() == (b"new" if saved else b"old")
    assert [p.name for p in tmp_path.iterdir()] == ["green-pump.png"]


def test_a_staged_file_replaces_its_target_with_the_targets_mode(tmp_path: Path) -> None:
    target = tmp_path / "blitzcam-identity.onnx"
    with staged(target) as path:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))  # as an exporter's mkstemp
        path.write_bytes(b"net")
    assert target.read_bytes() == b"net"
    assert _mode(target) == NEW_FILE_MODE
    with pytest.raises(RuntimeError), staged(target) as path:
        path.write_bytes(b"half")
        raise RuntimeError("export failed")
    assert target.read_bytes() == b"net"
    assert [p.name for p in tmp_path.iterdir()] == ["blitzcam-identity.onnx"]


def test_writing_through_a_link_keeps_the_link(tmp_path: Path) -> None:
    # settings or deck files linked from a synced folder stay linked after a save
    real = tmp_path / "synced" / "settings.json"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "settings.json"
    link.symlink_to(real)
    write_text_atomic(link, "new")
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert real.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json", "synced"]


@pytest.mark.skipif(not hasattr(os, "lchown") or os.geteuid() != 0, reason="needs root to make another user's link")
def test_a_link_another_user_made_in_a_shared_folder_is_not_followed(tmp_path: Path) -> None:
    # (`blitzcam match export /tmp/match.json` wrote where another user's link there pointed,
    # which the system refuses `>` to do; security review)
    victim = tmp_path / "notes.txt"
    victim.write_text("mine")
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    planted = shared / "match.json"
    planted.symlink_to(victim)
    os.lchown(planted, 65534, 65534)  # made by another user
    with pytest.raises(PermissionError, match="a link another user made in a shared folder"):
        write_text_atomic(planted, "the match")
    assert victim.read_text() == "mine" and planted.is_symlink()
    # said before long work, by commands that check their output first
    assert why_unwritable(planted) == (
        "a link another user made in a shared folder, not followed: give another name"
    )
    os.lchown(planted, os.geteuid(), -1)  # one's own link there is followed as before
    assert why_unwritable(planted) is None
    write_text_atomic(planted, "the match")
    assert victim.read_text() == "the match"


def test_a_loop_of_links_is_an_os_error(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(OSError, match="Too many levels of symbolic links"):
        write_text_atomic(tmp_path / "a", "x")


def test_a_named_pipe_is_written_through_not_replaced(tmp_path: Path) -> None:
    import threading

    fifo = tmp_path / "scores.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_bytes_atomic(fifo, b"round,Ann\n")
    reader.join(timeout=10)
    assert got == [b"round,Ann\n"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)  # (it became a regular file with nobody reading)


def test_a_device_is_written_through_not_replaced(tmp_path: Path) -> None:
    # a device node of our own (as root, `export /dev/null` turned the system's into a file)
    null = tmp_path / "null"
    try:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs CAP_MKNOD")
    link = tmp_path / "link"
    link.symlink_to(null)
    write_bytes_atomic(link, b"x")
    write_bytes_atomic(null, b"x")
    assert stat.S_ISCHR(null.stat().st_mode) and link.is_symlink()


def test_dev_stdout_keeps_the_shells_redirection(tmp_path: Path) -> None:
    # `... export /dev/stdout > log` replaced the log (the lines before the export were lost)
    import subprocess
    import sys

    log = tmp_path / "log.txt"
    script = (
        "import sys; from pathlib import Path; from blitzcam.files import write_text_atomic\n"
        "print('before', flush=True); write_text_atomic(Path('/dev/stdout'), 'sheet\\n');"
        " print('after')"
    )
    with log.open("w") as out:
        subprocess.run([sys.executable, "-c", script], stdout=out, check=True)
    assert log.read_text() == "before\nsheet\nafter\n"
    piped = subprocess.run(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, check=True, text=True
    )
    assert piped.stdout == "before\nsheet\nafter\n"


def test_a_write_protected_file_is_not_replaced(tmp_path: Path, refuse_writing) -> None:
    # the rename needs only the folder's permission: `export` replaced a file set read-only
    # (tests run as root here, for whom every file is writable: the open is refused as a
    # user's account would be)
    target = tmp_path / "scores.json"
    target.write_text("kept")
    refuse_writing(target)
    with pytest.raises(PermissionError, match="Permission denied"):
        write_text_atomic(target, "new")
    assert target.read_text() == "kept" and sorted(tmp_path.iterdir()) == [target]
    write_text_atomic(tmp_path / "new.json", "a new file needs only the folder")
    assert (tmp_path / "new.json").read_text() == "a new file needs only the folder"


def test_why_unwritable_says_what_the_write_would_refuse(
    tmp_path: Path, monkeypatch, refuse_writing
) -> None:
    # one check before long work for `evaluate --json` and `decks export`, each of which had
    # its own copy and missed something the other caught (export: a write-protected back)
    import blitzcam.files as files

    (tmp_path / "folder").mkdir()
    (tmp_path / "dangling").symlink_to(tmp_path / "gone" / "x.json")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    locked = tmp_path / "locked.json"
    locked.write_text("kept")
    assert why_unwritable(tmp_path / "folder") == "is a folder, not a file"
    assert (
        why_unwritable(tmp_path / "nowhere" / "x.json") == f"no such folder {tmp_path / 'nowhere'}"
    )
    assert why_unwritable(tmp_path / "dangling") == (
        f"a link to {tmp_path / 'gone' / 'x.json'}, in no folder that is there"
    )
    assert why_unwritable(tmp_path / "loop") == "a loop of links, not a file"
    # a folder on the way that is a link to nothing (a drive not plugged in) said as one
    (tmp_path / "usb").symlink_to(tmp_path / "unplugged")
    assert why_unwritable(tmp_path / "usb" / "out" / "x.json") == (
        f"{tmp_path / 'usb'} is a link to {tmp_path / 'unplugged'}, which is not there"
    )
    assert why_unwritable(tmp_path / "usb" / "x.json") == (
        f"{tmp_path / 'usb'} is a link to {tmp_path / 'unplugged'}, which is not there"
    )
    for fine in (tmp_path / "new.json", locked, Path("/dev/stdout"), Path("/dev/null")):
        assert why_unwritable(fine) is None, fine
    refuse_writing(locked)
    assert why_unwritable(locked) == "cannot write it: Permission denied"
    monkeypatch.setattr(files.os, "access", lambda *_a, **_k: False)
    assert why_unwritable(tmp_path / "new.json") == f"cannot write in the folder {tmp_path}"
    assert locked.read_text() == "kept"
