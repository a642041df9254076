"""The app's own settings (camera, keeping captures), remembered in a JSON file in the data dir,
and the dialogs that change them and the match settings (target, variant).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from blitzcam.files import write_bytes_atomic, write_text_atomic
from blitzcam.game.match_file import json_kind
from blitzcam.game.names import brief
from blitzcam.game.rules import COMMON_TARGETS, MAX_TARGET, Settings
from blitzcam.paths import expand_home
from blitzcam.ui.capture_store import capture_folder_problem
from blitzcam.ui.dialog_parts import TargetNote, error_label, ok_cancel, variant_box
from blitzcam.ui.labels import plain_label
from blitzcam.ui.number_box import NumberBox, refuse_empty
from blitzcam.ui.text_size import TEXT_SIZES, text_scale

SETTINGS_FILE: Final = "app-settings.json"
# pixels a camera box takes beside its text at the base text size (margins, its arrow's
# button): grown with the text, as the style's are (fixed, the default was cut at 125 %)
CAMERA_BOX_EXTRA: Final = 48


@dataclass(frozen=True, slots=True)
class AppSettings:
    camera: str = ""  # "" first camera (demo footage if none), "demo", an index, a file, a URL
    keep_captures: bool = False
    capture_dir: str = ""  # "" -> <data dir>/captures
    text_size: int = 100  # percent of the base text size: one of TEXT_SIZES


def settings_from_json(data: object, *, problems: list[str] | None = None) -> AppSettings:
    """Decode settings; unknown keys are ignored, wrong types refused with the key named, or,
    given `problems`, each such key left at its default and said there (the others kept)."""
    if not isinstance(data, dict):
        scalar = data is None or isinstance(data, bool | int | float | str)
        got = brief(data) if scalar else json_kind(data)
        raise ValueError(f"app settings: expected a JSON object, got {got}")
    defaults = AppSettings()
    values: dict[str, Any] = {}
    for key, default in asdict(defaults).items():
        value = data.get(key, default)
        problem = _problem_with(key, value, default)
        if problem is None and key == "camera":
            value = str(value)  # ("camera": 1, by hand: camera 1)
        if problem is not None:
            if problems is None:
                raise ValueError(problem)
            problems.append(f"{problem} (left at its default)")
            value = default
        values[key] = value
    return AppSettings(**values)


# what a setting must be, by its default's type, in the words of one who edits the file
_EXPECTED: Final = {bool: "true or false", int: "a whole number", str: "text"}


def _problem_with(key: str, value: object, default: object) -> str | None:
    """What is wrong with a setting's value as a file holds it (None: nothing)."""
    if key == "camera" and type(value) is int:  # a hand edit's camera index: read as typed
        return None
    if type(value) is not type(default):  # (in JSON's words: "must be str" was Python's)
        kind = "text or a camera's number" if key == "camera" else _EXPECTED[type(default)]
        return f"app settings: {key!r} must be {kind}, got {brief(value)}"
    if key == "text_size" and value not in TEXT_SIZES:  # (a hand edit: 300 fits no screen)
        return (
            f"app settings: 'text_size' must be one of {', '.join(map(str, TEXT_SIZES))}, "
            f"got {value!r}"
        )
    return None


def load_settings(path: Path, *, problems: list[str] | None = None) -> AppSettings:
    """The saved settings, or the defaults when the file is missing or unreadable. Given
    `problems`, what was wrong with a file that is there is said in it, one line each, and a
    key of the wrong type (an older file's, a hand edit) costs only that key: one used to reset
    every setting, keep_captures and the capture folder with it, without a word."""
    try:
        # utf-8-sig: an editor's byte-order mark is no reason to lose every setting
        text = path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        return AppSettings()
    except OSError as exc:
        _say(problems, f"{path}: cannot read it: {exc.strerror or exc}")
        return AppSettings()
    except UnicodeDecodeError:  # saved as UTF-16 by an editor, or hand-edited in cp1252
        _say(problems, f"{path}: not UTF-8 text: {_left_at_defaults(path)}")
        return AppSettings()
    if not text.strip():  # (an empty file holds nothing to keep)
        _say(problems, f"{path}: empty: every setting left at its default")
        return AppSettings()
    try:
        return settings_from_json(json.loads(text), problems=problems)
    except (ValueError, RecursionError) as exc:  # RecursionError: nesting a file can hold
        why = str(exc) if isinstance(exc, ValueError) else "too deep"
        _say(problems, f"{path}: not a settings file ({why}): {_left_at_defaults(path)}")
        return AppSettings()


def _say(problems: list[str] | None, problem: str) -> None:
    if problems is not None:
        problems.append(problem)


def save_settings(path: Path, settings: AppSettings) -> None:
    """Write `settings`, keeping the keys of the file there that this version does not know (a
    newer blitzcam's, read by it again)."""
    kept: dict[str, object] = {}
    try:
        data = path.read_bytes()
    except OSError:
        data = b""  # nothing there to keep (or nothing readable)
    try:
        saved = json.loads(data.decode("utf-8-sig")) if data.strip() else {}
    except (ValueError, RecursionError):
        saved = None
    if isinstance(saved, dict):
        kept = {key: value for key, value in saved.items() if key not in asdict(settings)}
    else:
        # a damaged file (its settings were left at their defaults, and said so): kept beside,
        # for what it held (a capture folder, a stream's address) was otherwise lost unseen
        write_bytes_atomic(damaged_copy(path), data, private=True)
    # (a stream's address may hold its password, shown as *** in the dialog: not for others
    # on the computer to read)
    text = json.dumps({**kept, **asdict(settings)}, indent=1) + "\n"
    write_text_atomic(path, text, private=True)


def _left_at_defaults(path: Path) -> str:
    """What is said of a settings file that cannot be used: `save_settings` keeps it beside."""
    return (
        f"every setting left at its default (kept as {damaged_copy(path).name} when settings "
        "are saved)"
    )


def damaged_copy(path: Path) -> Path:
    """Where a damaged settings file is kept when settings are saved over it."""
    return path.with_name(path.name + ".bad")


def capture_folder(settings: AppSettings, data_dir: Path) -> Path:
    """Where captures go: the folder set (a leading ~ is the home folder, a relative one is in
    the data directory, never wherever the app was started from), or data_dir/captures."""
    if not settings.capture_dir:
        return data_dir / "captures"
    return data_dir / expand_home(Path(settings.capture_dir))  # an absolute one replaces it


def absolute_camera(camera: str) -> str:
    """A camera that names a file or folder by a path relative to where the app was started,
    as the path from the top (saved as typed, it named nothing once the app was started from
    elsewhere: a desktop menu starts it in the home folder); any other camera as it is."""
    from blitzcam.ui.frame_sources import is_demo
    from blitzcam.vision.source_address import as_pasted
    from blitzcam.vision.sources import SourceError, read_spec

    if is_demo(camera):  # (the footage, though a folder of that name is where the app started)
        return camera
    try:
        read = read_spec(camera)
    except SourceError:
        return camera
    if read.live or not isinstance(read.target, Path) or as_pasted(camera).startswith("~"):
        return camera  # (~ is kept: the home folder wherever it is)
    return str(read.target.absolute())  # (a path pasted with quotes or as file://, plain)


class SettingsDialog(QDialog):
    """Camera choice and capture keeping. value()/setValue() carry an AppSettings."""

    valueChanged = Signal(object)

    def __init__(self, settings: AppSettings, *, data_dir: Path, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self._data_dir = data_dir
        self._camera = QComboBox()
        self._camera.setAccessibleName("Camera")
        self._camera.setEditable(True)
        # (Enter is OK's: a camera typed is not added to the list, refused or not)
        self._camera.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self._camera.addItems(["", "demo", "0", "1", "2"])
        placeholder = "first camera, else demo"
        self._camera.lineEdit().setPlaceholderText(placeholder)
        # (its whole width: at 150 % "the first camera (…" was all a user read of the default)
        room = self._camera.fontMetrics().horizontalAdvance(placeholder) + round(
            CAMERA_BOX_EXTRA * text_scale()
        )
        self._camera.setMinimumWidth(room)
        self._camera.setToolTip(
            "empty: the first camera (the demo footage when there is none); 'demo'; a camera "
            "index; a video or image file; a stream URL (rtsp://, http://). A stream's "
            "password shows as ***: leave it standing to keep it, or type the new one over it"
        )
        self._camera_saved = ""  # the camera as saved, its secrets too (setValue)
        browse = QPushButton("File…")
        browse.clicked.connect(self._on_browse)
        # a folder of pictures is a camera too (a phone's burst copied over, the demo's stills)
        browse_folder = QPushButton("Folder…")
        browse_folder.clicked.connect(self._on_browse_folder)
        camera_row = QHBoxLayout()
        camera_row.addWidget(self._camera, 1)
        camera_row.addWidget(browse)
        camera_row.addWidget(browse_folder)
        self._keep = QCheckBox("Keep every confirmed capture (image, labels, counts)")
        self._keep.setToolTip(
            "Each confirmed round's shots, with the counts the players confirmed: the start of "
            "a training set from your own table, and a measure of how well blitzcam counts "
            "there (blitzcam evaluate --data on the folder)"
        )
        self._text_size = QComboBox()
        for percent in TEXT_SIZES:
            self._text_size.addItem(f"{percent} %", percent)
        self._text_size.setToolTip("How large the app's text is: larger to read the scores "
                                   "from across the table")  # fmt: skip
        self._folder = QLineEdit()
        self._folder_shown = plain_label()
        # (wrapped: a long folder's path made the dialog wider than a 1024-px screen, its OK and
        # Cancel off it, and wider with every letter typed)
        self._folder_shown.setWordWrap(True)
        # the folder the captures go to, as it resolves: selectable, to copy into a file manager
        self._folder_shown.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form = QFormLayout()
        # (the box's label by relation: a screen reader on Linux names a combo box by its
        # text alone, "demo, combo box", where no label is its buddy)
        camera_label = QLabel("Camera")
        camera_label.setBuddy(self._camera)
        form.addRow(camera_label, camera_row)
        form.addRow("Text size", self._text_size)
        form.addRow(self._keep)
        form.addRow("Capture folder", self._folder)
        form.addRow("", self._folder_shown)
        self._error = error_label()
        buttons = ok_cancel(self, self._on_ok)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self._error)
        layout.addWidget(buttons)
        self._camera.currentTextChanged.connect(self._on_edited)
        self._keep.toggled.connect(self._on_edited)
        self._text_size.currentIndexChanged.connect(self._on_edited)
        self._folder.textChanged.connect(self._on_edited)
        self.setValue(settings)

    def value(self) -> AppSettings:
        from blitzcam.vision.source_address import with_secrets_of

        return AppSettings(
            # a stream's password is shown as *** (read over a shoulder, or on a shared
            # screen): left standing, it is the one saved
            camera=with_secrets_of(self._camera.currentText(), self._camera_saved).strip(),
            keep_captures=self._keep.isChecked(),
            capture_dir=self._folder.text().strip(),
            text_size=int(self._text_size.currentData()),
        )

    def setValue(self, settings: AppSettings) -> None:
        from blitzcam.vision.source_address import shown_address

        self._opened_camera = settings.camera.strip()  # (OK checks a camera changed since)
        self._opened_keep = (settings.keep_captures, settings.capture_dir.strip())  # (and so)
        self._camera_saved = settings.camera
        self._camera.setCurrentText(shown_address(settings.camera))
        self._keep.setChecked(settings.keep_captures)
        self._folder.setText(settings.capture_dir)
        self._text_size.setCurrentIndex(max(0, self._text_size.findData(settings.text_size)))
        self._on_edited()

    def _on_edited(self, *_: object) -> None:
        self._error.setText("")
        folder = capture_folder(self.value(), self._data_dir)
        self._folder.setPlaceholderText(str(self._data_dir / "captures"))
        # (selectable: the command is copied from here to measure blitzcam on them)
        said = f'"{folder}"' if " " in str(folder) else str(folder)  # (quoted in any shell)
        # (the folder once: twice, a long path made the dialog taller than a small screen)
        # (said as kept while keeping was off)
        self._folder_shown.setText(
            f"Captures are kept in the folder this command measures blitzcam on:\n"
            f"blitzcam evaluate --data {said}"
            if self._keep.isChecked()
            else f"No capture is kept while the box above is off; kept, they would be in:\n{said}"
        )
        self.valueChanged.emit(self.value())

    def _on_browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Video or image file")
        if path:
            self._camera.setCurrentText(path)

    def _on_browse_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Folder of pictures")
        if path:
            self._camera.setCurrentText(path)

    def _on_ok(self) -> None:
        """Accepted unless the camera names a file or folder that is not there, a text file, or
        an address of a scheme blitzcam does not read (said here: OK took them, and the next
        scan said so in the status bar). A camera or a stream is not opened: it may be off."""
        from blitzcam.ui.frame_sources import camera_spec_problem

        camera = self.value().camera
        # (only a camera changed here: one saved before, on a stick unplugged now, must not
        # keep the other settings from being saved; a device file, like an index, may be off)
        problem = camera_spec_problem(camera) if camera != self._opened_camera else None
        if problem is not None:
            self._error.setText(f"Camera: {problem}")
            return
        # (a camera or capture folder left as it was is not looked at again: a --camera
        # relative to where the app was started, a drive unplugged since, must not be saved
        # or keep the other settings from being saved)
        if camera != self._opened_camera and (absolute := absolute_camera(camera)) != camera:
            self._camera.setCurrentText(absolute)  # (saved so: see absolute_camera)
        chosen = self.value()
        if chosen.keep_captures and (chosen.keep_captures, chosen.capture_dir) != self._opened_keep:
            folder = capture_folder(chosen, self._data_dir)
            if (problem := capture_folder_problem(folder, self._data_dir)) is not None:
                self._error.setText(f"Capture folder: {problem}")
                return
        self.accept()


class MatchSettingsDialog(QDialog):
    """Target and variant of the open match. OK hands them to `apply` (the caller's, which
    goes through the store and returns why they were refused, or None); a refusal is shown here
    and the dialog stays open with what was typed. Without `apply`, OK just accepts."""

    def __init__(
        self,
        settings: Settings,
        parent: QWidget | None = None,
        *,
        apply: Callable[[Settings], str | None] | None = None,
    ) -> None:
        super().__init__(parent)
        self._apply = apply
        self.setWindowTitle("Match settings")
        self._target = NumberBox()
        self._target.setRange(1, MAX_TARGET)
        self._target.setToolTip(f"common targets: {', '.join(map(str, COMMON_TARGETS))}")
        self._variant = variant_box()
        self._error = error_label()
        form = QFormLayout()
        form.addRow("Target", self._target)
        self.target_note = TargetNote()
        form.addRow(self.target_note)
        form.addRow("Variant", self._variant)
        note = QLabel("Raising the target reopens a decided match for a deciding round.")
        note.setWordWrap(True)
        buttons = ok_cancel(self, self._on_ok)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(self._error)
        layout.addWidget(buttons)
        self.setValue(settings)
        self.target_note.say_of(self._target.value())
        self._target.valueChanged.connect(self.target_note.say_later)

    def value(self) -> Settings:
        return Settings(target=self._target.value(), variant=self._variant.currentData())

    def setValue(self, settings: Settings) -> None:
        self._target.setValue(settings.target)
        self._variant.setCurrentIndex(self._variant.findData(settings.variant))

    def show_error(self, message: str) -> None:
        self._error.setText(message)

    def _on_ok(self) -> None:
        if refuse_empty(self._error, [self._target], "Target"):
            return
        refused = None if self._apply is None else self._apply(self.value())
        if refused is not None:
            self.show_error(refused)
            return
        self.accept()
