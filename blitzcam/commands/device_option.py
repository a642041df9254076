"""`--device`, shared by the training commands: a CUDA device is checked before any work."""

from __future__ import annotations


def torch_device(asked: str) -> str:
    """torch's name of the device `--device` asks for ("cpu", or one CUDA index); UserError
    for a CUDA device torch does not see here (said before scenes are made or drawings cut,
    not at the first step)."""
    if asked == "cpu":
        return "cpu"
    import torch

    from blitzcam.errors import UserError

    seen = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if int(asked) >= seen:
        raise UserError(
            f"--device {asked}: no such CUDA device here (torch sees {seen}); use --device cpu"
        )
    return f"cuda:{int(asked)}"
