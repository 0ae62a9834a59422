"""The torch device a model's `device` setting names, checked against what this torch can reach, so that a device
it lacks is said in one line naming the setting (not torch's assertion from deep inside a forward pass)."""

from __future__ import annotations

import re

from robust.core.errors import RobustError

NAMES = re.compile(r"auto|cpu|mps|cuda(:\d+)?")
USE_INSTEAD = "use device=cpu, or auto (a CUDA GPU where torch sees one, else the CPU)"


def check_device_name(device: str) -> None:
    """One line where `device` is none of auto, cpu, cuda, cuda:N or mps (no torch imported)."""
    if not NAMES.fullmatch(device):
        raise RobustError(f"bad value {device!r} for setting 'device': expected auto, cpu, cuda, cuda:N or mps")


def torch_device(device: str, model: str) -> str:
    """The device `device` names ('auto': cuda where torch sees a CUDA GPU, else cpu), or one line saying which
    device of `model`'s setting this torch cannot reach."""
    import torch

    check_device_name(device)
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    missing = ""
    if device.startswith("cuda"):
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        index = int(device.partition(":")[2] or 0)
        if index >= count:
            seen = (f"sees none (torch {torch.__version__})" if not count else
                    "sees 1 (cuda:0)" if count == 1 else f"sees {count} (cuda:0 to cuda:{count - 1})")
            missing = f"{f'CUDA GPU {index}' if ':' in device else 'a CUDA GPU'}, and this torch {seen}"
    elif device == "mps" and not torch.backends.mps.is_available():
        missing = f"an Apple MPS GPU, and this torch sees none (torch {torch.__version__})"
    if missing:
        raise RobustError(f"setting device={device!r} of model {model!r} asks for {missing}; {USE_INSTEAD}")
    return device
