"""What the camera and the room do to a frame: light, colour cast, glare, noise, blur, JPEG.

Pure functions on RGB images; each random one takes the generator it draws from. Fields
that vary smoothly (light, glare) are computed on a coarse grid and scaled up.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist
from typing import Final

import cv2
import numpy as np

# N(0, 1) quantiles at 256 evenly spaced probabilities: maps random bytes to Gaussian noise fast.
GAUSS_LUT: Final[np.ndarray] = np.array(
    [NormalDist().inv_cdf((i + 0.5) / 256) for i in range(256)], np.float32
)

# Fixed-point one for gain maps: gains up to 255 / 100 = 2.55, in steps of 1 %.
GAIN_ONE: Final = 100.0


def gaussian_noise(rng: np.random.Generator, shape: tuple[int, ...], *, sigma: float) -> np.ndarray:
    """float32 noise of the given shape, ~N(0, sigma^2) (256-level), from random bytes (fast)."""
    count = int(np.prod(shape))
    codes = np.frombuffer(rng.bytes(count), np.uint8).reshape(shape)
    return cv2.LUT(codes, GAUSS_LUT * np.float32(sigma))


def coarse_field(rng: np.random.Generator, size: tuple[int, int], cells: int) -> np.ndarray:
    """Smooth random field in [-1, 1], (height, width) float32, `cells` blobs across.

    Cubic up to 1/8 of the size, then linear: as smooth to the eye, a fraction of the cost."""
    width, height = size
    rows = max(2, round(cells * height / max(width, 1)) + 2)
    small = rng.uniform(-1, 1, (rows, cells + 2)).astype(np.float32)
    mid = (max(cells + 2, width // 8), max(rows, height // 8))
    small = cv2.resize(small, mid, interpolation=cv2.INTER_CUBIC)
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR).clip(-1, 1)


@dataclass(frozen=True)
class Lighting:
    """How the room lights the table: sampled once per scene, applied by `apply_lighting`."""

    gain: float  # overall exposure: < 1 is a dim room
    cast: tuple[float, float, float]  # per-channel colour cast (RGB multipliers)
    gradient: float  # strength of a linear light falloff across the frame
    gradient_angle: float  # radians: where the light comes from
    vignette: float  # darkening at the corners, 0..1
    blotches: float  # strength of soft uneven light
    glare: tuple[tuple[float, float, float, float], ...]  # (x, y, radius, strength), x,y in 0..1


def sample_lighting(rng: np.random.Generator) -> Lighting:
    dim = rng.random() < 0.25
    warm = rng.normal(0, 0.06)
    cast = (1 + warm + rng.normal(0, 0.03), 1 + rng.normal(0, 0.03), 1 - warm + rng.normal(0, 0.03))
    n_glare = int(rng.choice([0, 0, 0, 1, 1, 2]))
    glare = tuple(
        (
            rng.uniform(0.05, 0.95),
            rng.uniform(0.05, 0.95),
            rng.uniform(0.03, 0.15),
            rng.uniform(0.2, 0.6),  # washes out, never erases, a drawing
        )
        for _ in range(n_glare)
    )
    return Lighting(
        gain=rng.uniform(0.35, 0.7) if dim else rng.uniform(0.8, 1.2),
        cast=tuple(float(np.clip(c, 0.75, 1.25)) for c in cast),
        gradient=rng.uniform(0.0, 0.45),
        gradient_angle=rng.uniform(0, 2 * np.pi),
        vignette=rng.uniform(0.0, 0.5),
        blotches=rng.uniform(0.0, 0.15),
        glare=glare,
    )


def light_field(
    lighting: Lighting, rng: np.random.Generator, size: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray | None]:
    """(per-channel gain (h, w, 3), additive glare (h, w, 3) or None) float32 for `lighting`.

    Both vary smoothly, so they are computed on a 64-wide grid and scaled up (linear)."""
    width, height = size
    cw, ch = 64, max(4, round(64 * height / width))
    y, x = np.mgrid[0:ch, 0:cw].astype(np.float32)
    x, y = x / (cw - 1) - 0.5, y / (ch - 1) - 0.5
    ramp = np.cos(lighting.gradient_angle) * x + np.sin(lighting.gradient_angle) * y
    gain = 1.0 + lighting.gradient * ramp * 1.4
    radius2 = (x * x + (y * height / width) ** 2) / 0.3
    gain *= 1.0 - lighting.vignette * np.clip(radius2, 0, 1.5) ** 1.5 / 1.5
    gain *= 1.0 + lighting.blotches * coarse_field(rng, (cw, ch), 5)
    glare = np.zeros((ch, cw), np.float32)
    for gx, gy, radius, strength in lighting.glare:
        d2 = ((x + 0.5 - gx) ** 2 + ((y + 0.5 - gy) * height / width) ** 2) / radius**2
        glare += strength * np.exp(-d2)
    glare = np.clip(glare, 0, 1)
    gains = (gain * lighting.gain * (1 - glare))[..., None] * np.array(lighting.cast, np.float32)
    # uint8 fixed point (x GAIN_ONE) keeps the full-size maps a quarter of float32's bytes.
    gains = np.clip(gains * GAIN_ONE, 0, 255).astype(np.uint8)
    gains = cv2.resize(gains, size, interpolation=cv2.INTER_LINEAR)
    if not lighting.glare:
        return gains, None
    white = np.repeat(np.round(glare * 255)[..., None], 3, axis=2).astype(np.uint8)
    return gains, cv2.resize(white, size, interpolation=cv2.INTER_LINEAR)


def apply_lighting(image: np.ndarray, lighting: Lighting, rng: np.random.Generator) -> np.ndarray:
    """The lit RGB uint8 image: gain and colour cast, then glare washing towards white."""
    gains, glare = light_field(lighting, rng, (image.shape[1], image.shape[0]))
    out = cv2.multiply(image, gains, scale=1 / GAIN_ONE)
    if glare is not None:
        out = cv2.add(out, glare)
    return out


NOISE_ZERO: Final = 128  # sensor noise is kept as uint8 offset by this (one fast LUT, one add)


def _noise_lut(sigma: float) -> np.ndarray:
    return np.clip(np.round(GAUSS_LUT * sigma) + NOISE_ZERO, 0, 255).astype(np.uint8)


def sensor_noise(
    rng: np.random.Generator, shape: tuple[int, int], *, sigma: float, chroma: float
) -> np.ndarray:
    """(h, w, 3) uint8 noise offset by NOISE_ZERO: per-pixel luminance noise of `sigma` grey
    levels plus colour noise of chroma x sigma per channel, blotchy as after demosaicing
    (drawn at half size)."""
    h, w = shape
    codes = np.frombuffer(rng.bytes(h * w), np.uint8).reshape(h, w)
    noise = cv2.cvtColor(cv2.LUT(codes, _noise_lut(sigma)), cv2.COLOR_GRAY2RGB)
    if chroma > 0:
        hh, hw = max(1, h // 2), max(1, w // 2)
        colour = np.frombuffer(rng.bytes(hh * hw * 3), np.uint8).reshape(hh, hw, 3)
        colour = cv2.LUT(colour, _noise_lut(sigma * chroma))
        colour = cv2.resize(colour, (w, h), interpolation=cv2.INTER_LINEAR)
        noise = cv2.addWeighted(noise, 1.0, colour, 1.0, -NOISE_ZERO)
    return noise


def add_noise(image: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """image + (noise - NOISE_ZERO), saturated to uint8, in one pass."""
    return cv2.addWeighted(image, 1.0, noise, 1.0, -NOISE_ZERO)


def defocus_blur(image: np.ndarray, *, sigma: float) -> np.ndarray:
    return cv2.GaussianBlur(image, (0, 0), sigma)


def motion_blur(image: np.ndarray, *, length: int, angle_deg: float) -> np.ndarray:
    """Blur along a line of `length` pixels at `angle_deg` (camera shake, a moving table)."""
    length = max(int(length), 2)
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0
    turn = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), angle_deg, 1.0)
    kernel = cv2.warpAffine(kernel, turn, (length, length))
    kernel /= max(float(kernel.sum()), 1e-6)
    return cv2.filter2D(image, -1, kernel)


def camera_effects(image: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    """Light, blur and sensor noise as a real webcam frame would carry them: RGB uint8 in and
    out, plus a record of what was applied (for the scene's ground truth)."""
    lighting = sample_lighting(rng)
    out = apply_lighting(image, lighting, rng)
    blur = "none"
    if rng.random() < 0.5:
        out, blur = defocus_blur(out, sigma=rng.uniform(0.4, 1.8)), "defocus"
    elif rng.random() < 0.3:
        length, angle = int(rng.integers(3, 10)), rng.uniform(0, 180)
        out, blur = motion_blur(out, length=length, angle_deg=angle), "motion"
    dim = lighting.gain < 0.75
    sigma = rng.uniform(4, 12) if dim else rng.uniform(0.5, 4)
    chroma = rng.uniform(0.1, 0.6) if rng.random() < 0.5 else 0.0
    noise = sensor_noise(rng, image.shape[:2], sigma=sigma, chroma=chroma)
    record = {
        "exposure": round(lighting.gain, 3),
        "dim": bool(dim),
        "glare_spots": len(lighting.glare),
        "vignette": round(lighting.vignette, 3),
        "blur": blur,
        "noise_sigma": round(sigma, 2),
    }
    return add_noise(out, noise), record


def sample_jpeg_quality(rng: np.random.Generator) -> int:
    return int(rng.integers(55, 96))


def encode_jpeg(image: np.ndarray, quality: int) -> bytes:
    """JPEG bytes of an RGB uint8 image (deterministic for the same input and quality)."""
    ok, data = cv2.imencode(
        ".jpg", cv2.cvtColor(image, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, int(quality)]
    )
    if not ok:
        raise ValueError(f"JPEG encoding failed for an image of shape {image.shape}")
    return data.tobytes()
