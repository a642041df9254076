"""Keep ultralytics offline. Import this module before ultralytics, everywhere in the project.

ultralytics probes the network on import and downloads fonts, weights and assets on
demand. Everything it would fetch is either placed locally here (its settings, a font)
or switched off (sync, hub, every logging integration, auto-install of packages).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Final

from blitzcam.files import copy_file_atomic, write_text_atomic
from blitzcam.paths import data_dir

FONT_SOURCE: Final = Path(__file__).resolve().parent / "fonts" / "DejaVuSans.ttf"
# ultralytics' check_font() looks for these names in its config dir before downloading.
FONT_NAMES: Final = ("Arial.ttf", "Arial.Unicode.ttf")

# Every integration ultralytics knows, off. These are exactly the settings.json keys of
# ultralytics 8.4 (schema 0.0.8): a file with other keys is "migrated" with a warning.
SETTINGS_VERSION: Final = "0.0.8"
PLATFORM_KEYS: Final = ("ULTRALYTICS_API_KEY",)
INTEGRATIONS_OFF: Final[dict[str, object]] = {
    "sync": False,
    "api_key": "",
    "openai_api_key": "",
    "clearml": False,
    "comet": False,
    "dvc": False,
    "mlflow": False,
    "raytune": False,
    "tensorboard": False,
    "wandb": False,
    "vscode_msg": False,
    "openvino_msg": False,
}


def ultralytics_config_dir() -> Path:
    """Where ultralytics keeps settings and fonts: it appends "Ultralytics" to YOLO_CONFIG_DIR."""
    return data_dir() / "ultralytics" / "Ultralytics"


def _write_settings(config_dir: Path) -> None:
    settings_path = config_dir / "settings.json"
    settings: dict[str, object] = {}
    if settings_path.is_file():
        try:
            settings = json.loads(settings_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            settings = {}  # ours to own: a broken file is rewritten whole
    if not isinstance(settings, dict):
        settings = {}
    wanted = {
        "settings_version": SETTINGS_VERSION,
        "uuid": "",  # no machine fingerprint
        **settings,
        **INTEGRATIONS_OFF,
        "datasets_dir": str(config_dir / "datasets"),
        "weights_dir": str(config_dir / "weights"),
        "runs_dir": str(config_dir / "runs"),
    }
    if wanted != settings:
        write_text_atomic(settings_path, json.dumps(wanted, indent=2))


def _place_font(config_dir: Path) -> None:
    for name in FONT_NAMES:
        target = config_dir / name
        if FONT_SOURCE.is_file() and (
            not target.is_file() or target.stat().st_size != FONT_SOURCE.stat().st_size
        ):  # whole or not at all; a copy cut short by a kill is made again
            copy_file_atomic(FONT_SOURCE, target)


def configure() -> Path:
    """Set the environment ultralytics reads at import time; return its config dir."""
    config_dir = ultralytics_config_dir()
    config_dir.mkdir(parents=True, exist_ok=True)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "0"
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir.parent)
    os.environ.setdefault("YOLO_VERBOSE", "0")
    # a .pt is a pickle: ultralytics loads it with torch's weights-only loader and its own
    # allow-list of model classes, so a checkpoint in a run folder cannot run code when resumed
    # (but for its strip of best.pt at a stage's end, which reads it with the full loader:
    # models/training.py checks a stage's weights files that way before resuming it)
    os.environ["ULTRALYTICS_SAFE_LOAD"] = "1"
    # ultralytics adds its Platform callback to every trainer, which reads the API key from
    # here and posts the run (host name, command line, metrics, checkpoints) whatever
    # YOLO_OFFLINE says: a key in the user's shell must not reach it
    for name in PLATFORM_KEYS:
        os.environ.pop(name, None)
    _write_settings(config_dir)
    _place_font(config_dir)
    return config_dir


def import_ultralytics() -> ModuleType:
    """Import ultralytics with the offline configuration in force and its sync turned off."""
    if "ultralytics" not in sys.modules:
        configure()
    import ultralytics
    from ultralytics.utils import SETTINGS

    updates = {key: value for key, value in INTEGRATIONS_OFF.items() if key in SETTINGS}
    if any(SETTINGS.get(key) != value for key, value in updates.items()):
        SETTINGS.update(updates)
    return ultralytics


configure()
