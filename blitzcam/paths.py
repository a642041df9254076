"""Where blitzcam keeps its files: one data directory per user, overridable for tests and CI."""

from __future__ import annotations

import errno
import functools
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path, PureWindowsPath
from typing import Final, TypeVar

from platformdirs import user_cache_dir, user_data_dir

DATA_DIR_ENV: Final = "BLITZCAM_DATA_DIR"
CACHE_DIR_ENV: Final = "BLITZCAM_CACHE_DIR"
REPO_ROOT: Final = Path(__file__).resolve().parent.parent
T = TypeVar("T")


def in_a_checkout() -> bool:
    """Whether blitzcam runs from its source tree (a clone, installed editable) rather than
    from an installed package, whose folder above `blitzcam/` is site-packages: no place for
    training runs, nor for a newly trained model to replace the shipped one. Told by a file of
    the flat layout, which an install never has: a stray pyproject.toml and another package's
    `models` in site-packages made one a checkout, and training replaced the shipped models
    there."""
    return (REPO_ROOT / "pyproject.toml").is_file() and (
        REPO_ROOT / "vision" / "pipeline.py"
    ).is_file()


def runs_root() -> Path:
    """Where training runs and the scenes they make go unless told: runs/ of the checkout,
    else of the user's data directory (runs/ beside an installed blitzcam is in site-packages:
    215 MB of scenes there, which uninstalling leaves behind)."""
    return REPO_ROOT / "runs" if in_a_checkout() else data_dir_path() / "runs"


def train_extras_needed() -> str:
    """What the training commands' help says they need: the train extra, installed as
    blitzcam runs from (a checkout's pip, or the package's), and where a CPU-only torch is."""
    return (
        f"Needs the train extra: {train_extras_hint()}. For a small CPU-only torch, install "
        "torch from https://download.pytorch.org/whl/cpu first (README)."
    )


def train_extras_hint() -> str:
    """How to install what training needs, where blitzcam runs from."""
    if in_a_checkout() and sys.platform == "win32":  # (cmd passes '…' on as typed)
        return '`.venv\\Scripts\\pip install -e ".[train]"`'
    if in_a_checkout():
        return "`.venv/bin/pip install -e '.[train]'` (make test does)"
    return (
        '`pip install "blitzcam[train]"`'
        if sys.platform == "win32"
        else "`pip install 'blitzcam[train]'`"
    )


def expand_home(path: Path) -> Path:
    """`path` with a leading ~ or ~user made the home folder; as it is when there is no such
    user (Path.expanduser raises then)."""
    try:
        return path.expanduser()
    except (RuntimeError, ValueError):  # ValueError: a NUL in the name (a hand-edited file)
        return path


def written_path(folder: Path, given: str) -> Path:
    """The file that a path written in a file names (a counts sheet's photo, a labelme file's):
    relative to `folder` (an absolute one stays), a leading ~/ the home, and a Windows path's
    backslashes read as folders where no file has the name as written. OSError where it
    cannot be looked at (a name too long)."""
    as_written = folder / _home_expanded(given)
    if "\\" not in given or as_written.exists():
        return as_written
    return folder / _home_expanded(PureWindowsPath(given).as_posix())


def _home_expanded(given: str) -> Path:
    """`given` with a leading `~` or `~/` made the home folder; `~name` is a name (a Windows
    short name, ~1.jpg; another user's home is no place a sheet of photos points to)."""
    if given == "~" or given.startswith("~/"):
        return expand_home(Path(given))
    return Path(given)


def resolved(path: Path) -> Path:
    """`path.resolve()`, with a loop of links an OSError (ELOOP) as on newer Pythons: 3.11's
    resolve raises RuntimeError for it."""
    try:
        return Path(path).resolve()
    except RuntimeError:
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path)) from None


def not_there(path: Path, kind: str = "file") -> str:
    """Why `path`, not found, is not there, in words: a link to what is gone (named as the
    links end, whichever name on the way is one), or a loop of links, where `ls` lists the name
    ("no such folder" sent the user looking at a name that was there); else "no such `kind`"."""
    path = Path(path)
    for name in (path, *path.parents):
        try:
            if name.exists():
                break
            if not name.is_symlink():
                continue
            resolved(name)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return f"{_which(name, path)}a link that leads back to itself"
            break
        gone = Path(os.path.realpath(name))  # (where its links end, none of them in the way)
        return f"{_which(name, path)}a link to {gone}, which is not there"
    return f"no such {kind}"


def out_of_reach(path: Path) -> str | None:
    """Why `path` cannot even be looked at, in words, or None where it can (or is simply not
    there): a folder on the way this user may not enter. (Python's `exists` and `is_dir` raise
    for that, where they answer False for a name that is not there.)"""
    try:
        Path(path).stat()
    except PermissionError:
        return "permission denied (a folder on the way to it cannot be entered by this user)"
    except (OSError, ValueError):
        pass
    return None


def folder_not_there(path: Path) -> str:
    """Why the folder `path` would be in is not there, in words: "no such folder F", or a link
    on the way to what is gone (`not_there`'s words, naming the link)."""
    said = not_there(path, "folder")
    return f"no such folder {Path(path).parent}" if said == "no such folder" else said


def _which(name: Path, path: Path) -> str:
    """How `not_there` names the link on the way to `path`: itself unsaid, a folder above it."""
    return "" if name == path else f"{name} is "


def data_dir() -> Path:
    """The user's blitzcam data directory (created on first use).

    ``BLITZCAM_DATA_DIR`` wins over the platform default so that tests and
    portable installs never touch the real one.
    """
    override = os.environ.get(DATA_DIR_ENV)
    path = data_dir_path()
    try:
        # the folder named is made, never the folders above it: a typo in the variable (or a
        # drive not plugged in) was taken for a new, empty store, made on the computer's disk
        # ... for its owner alone: the players' names, photos of the table, a stream's password
        # (else it is readable by every account where the home folder is open)
        path.mkdir(mode=0o700, parents=not override, exist_ok=True)
    except OSError as exc:
        from blitzcam.errors import UserError

        if override and isinstance(exc, FileNotFoundError):  # (a folder above it is not there)
            raise UserError(
                f"{DATA_DIR_ENV}={override}: {path.parent} is not there (a typo, or a drive not "
                "plugged in?): make it first to keep blitzcam's data under it"
            ) from None
        said = f"cannot use {path} ({why_no_folder(path, exc)})"
        if override:
            raise UserError(f"{DATA_DIR_ENV}={override}: {said}") from None
        raise UserError(  # (a HOME not there or not one's own: a service's, a container's)
            f"the data directory: {said}; set {DATA_DIR_ENV} to a folder blitzcam may write"
        ) from None
    return path


def data_dir_path() -> Path:
    """Where the user's data directory is, made or not (`data_dir` makes it)."""
    override = os.environ.get(DATA_DIR_ENV)
    default = Path(user_data_dir("blitzcam", appauthor=False))
    return expand_home(Path(override)) if override else default


def cache_dir() -> Path:
    """Where blitzcam keeps files it can always make again (OpenVINO's compiled models, the
    reference backs' vectors): the user's cache directory, or ``BLITZCAM_CACHE_DIR``. Not
    created here: the writer makes what it needs, and copes when it cannot."""
    override = os.environ.get(CACHE_DIR_ENV)
    default = Path(user_cache_dir("blitzcam", appauthor=False))
    return expand_home(Path(override)) if override else default


def match_db_path(given: Path | None = None) -> Path:
    """The SQLite file that holds every match, shared by the CLI and the app: `given` (a --db
    option, its ~ expanded) or the one in the data directory."""
    return expand_home(Path(given)) if given else data_dir() / "matches.sqlite3"


def link_into_nothing(path: Path) -> str | None:
    """Why `path`, or a folder on the way to it, is a link to a folder not there in a folder
    not there either (a drive not plugged in), in words; None for any other path. Made, the
    folders it leads to went onto the system's disk under the mount point, hidden once the
    drive was back (`runs` linked to a drive: `runs/identity` made there). A link made on
    purpose to where a folder is to be, its own folder there, is taken."""
    path = Path(path)
    for part in (path, *path.parents):
        try:
            if part.exists():  # (a folder there: what is made on the way is made under it)
                return None
            if not part.is_symlink():
                continue
            real = resolved(part)
        except OSError:  # (a loop of links: the caller's own resolve says so)
            return None
        if real.parent.is_dir():
            return None
        return (
            f"{_which(part, path)}a link to {real}, in no folder that is there (a drive not "
            "plugged in?)"
        )
    return None


def run_folder(path: Path, option: str) -> Path:
    """The folder `option` names (a training run's, say), made if it is not there; UserError
    naming it when it cannot be (a file of that name, a loop of links, no permission, a link
    into a drive not plugged in)."""
    from blitzcam.errors import UserError

    if (why := link_into_nothing(expand_home(Path(path)))) is not None:
        raise UserError(f"{option} {path}: cannot use it as a folder: {why}")
    try:
        folder = resolved(expand_home(Path(path)))
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = why_no_folder(expand_home(Path(path)), exc)
        raise UserError(f"{option} {path}: cannot use it as a folder: {reason}") from None
    return folder


def why_no_folder(path: Path, error: OSError) -> str:
    """Why `path` could not be made a folder, in words: "File exists" for `a-file/sub` sent the
    user looking for a `sub` that was not there, and for a link to a drive not plugged in."""
    for part in (path, *path.parents):
        try:
            if part.exists() and not part.is_dir():
                return f"{part} is a file, not a folder" if part != path else "it is a file"
            if part.is_symlink() and not part.exists():
                return not_there(path, "folder") if part != path else not_there(path)
        except OSError:
            break
    return str(error.strerror or error)


# what the system says of a place that takes no writing: no permission, a read-only drive
UNWRITABLE: Final = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})
# ... and of one with no room left: a full disk, this user's quota, a file-size limit
NO_ROOM: Final = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def run_writes(command: Callable[[T], int]) -> Callable[[T], int]:
    """A training command whose writes in its run folder (a checkpoint, a stage's files, the
    export), where they are refused, end in one UserError naming the file, not a traceback
    from deep in ultralytics or torch: a run resumed in a folder made read-only since."""

    @functools.wraps(command)
    def run(args: T) -> int:
        from blitzcam.errors import UserError

        try:
            return command(args)
        except OSError as exc:
            if exc.errno in NO_ROOM:  # (a checkpoint's save on a full disk was a traceback)
                # (a write that fails names no file: where is not known, so not said as the
                # run's; a checkpoint cut short by it is what --resume then speaks of)
                where = f" ({exc.filename})" if exc.filename is not None else ""
                raise UserError(
                    f"training stopped: {exc.strerror or exc}{where}; make room, then run the "
                    "same command with --resume: it goes on from what was saved, or says what "
                    "to do",
                    exit_code=1,
                ) from None
            where = exc.filename if exc.filename is not None else "the run folder"
            if exc.errno not in UNWRITABLE:
                raise
            said = f"{where}: cannot use it ({exc.strerror or exc})"
            if not _in_a_run(exc.filename, getattr(args, "run", None)):
                raise UserError(said) from None  # (an input: --data's scenes, say)
            raise UserError(
                f"{said}: a run goes on with --resume once its folder can be written"
            ) from None

    return run


def _in_a_run(filename: object, run: object) -> bool:
    """Whether `filename` (an OSError's) lies in the run folder `run` (a --run given), or,
    without one, in the runs' own folder (`runs_root`), where the runs are by default."""
    if not isinstance(filename, (str, os.PathLike)):
        return filename is None  # (no file said: the run's, as far as can be told)
    folder = Path(run) if isinstance(run, (str, os.PathLike)) else runs_root()
    try:
        path, folder = resolved(expand_home(Path(filename))), resolved(expand_home(folder))
    except OSError:
        return False
    return path == folder or folder in path.parents


@contextmanager
def refused_leaves_no_folder(path: Path, option: str) -> Iterator[Path]:
    """`run_folder(path, option)` for checks made inside the block: a UserError there takes
    away the folder again when this made it and nothing was written in it (a refused
    `--from-shipped` left an empty run folder behind)."""
    from blitzcam.errors import UserError

    try:
        missing = _first_missing(resolved(expand_home(Path(path))))
    except OSError:  # run_folder says why in its own words
        missing = None
    folder = run_folder(path, option)
    try:
        yield folder
    except UserError:
        # the folders this made taken away, the ones above it too (a --run two folders deep
        # left its parent)
        made = folder
        while missing is not None:
            try:  # (rmdir leaves a folder that holds anything)
                made.rmdir()
            except OSError:
                break
            if made == missing:
                break
            made = made.parent
        raise


def _first_missing(path: Path) -> Path | None:
    """The folder nearest the root among `path` and those above it that are not there (the
    first that making `path` makes); None when `path` is there."""
    missing = None
    for folder in (path, *path.parents):
        if folder.exists() or folder.is_symlink():
            break
        missing = folder
    return missing
