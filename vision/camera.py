"""Cameras: one interface, whatever is watching the board.

Every camera gives full BGR uint8 frames for reading (`capture`) and small grayscale frames
for the motion check (`capture_small`). Recorded and synthetic cameras play back in steps:
each `capture_small()` moves on to the next moment, and `capture()` returns the full picture of
the moment the last small frame came from (moving on by itself only when that moment was
already delivered in full), so the frame that is read is the frame the motion check approved.
"""

from __future__ import annotations

import abc
import contextlib
import math
import time
from pathlib import Path
from types import TracebackType
from typing import Any

import cv2
import numpy as np

from vision import picture

SMALL_WIDTH = 320  # the motion check's frames: enough to see a hand, cheap on a Pi
DARKER = 0.5  # share of the exposure of the second look at squares a glare dazzled
DARK = 12.0  # mean grey level under which the picture is black
BURNT = 0.6  # share of saturated pixels over which the picture is overexposed
METER_EVERY_S = 10.0  # the Pi camera meters the light again at most this often
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")  # the formats whose size is checked before decoding


class CameraError(RuntimeError):
    """The camera cannot give a picture; the message is for the players."""


class RecordingEnded(CameraError):
    """A recording (video file or folder of frames) has no more frames."""


def small_gray(frame: np.ndarray, width: int = SMALL_WIDTH) -> np.ndarray:
    """The motion check's view of a full frame: grayscale, `width` pixels wide."""
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    h, w = gray.shape
    size = (width, max(2, round(h * width / w)))
    return cv2.resize(gray, size, interpolation=cv2.INTER_AREA)


class Camera(abc.ABC):
    """Start it (or use `with`), capture, close it."""

    def __enter__(self) -> Camera:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    @abc.abstractmethod
    def start(self) -> None: ...

    @abc.abstractmethod
    def capture(self) -> np.ndarray:
        """A full frame: BGR uint8, H×W×3."""

    @abc.abstractmethod
    def capture_small(self) -> np.ndarray:
        """A small grayscale frame for the motion check: uint8, h×w."""

    def capture_darker(self) -> np.ndarray | None:
        """A full frame taken now at DARKER of the exposure, where a glare no longer saturates
        the sensor; None from a camera whose exposure cannot be set (a recording, a webcam)."""
        return None

    def meter_again(self) -> bool:
        """Let the exposure settle to the light now and lock it there (a lamp switched on or off
        since it was locked); False from a camera whose exposure cannot be set, or that will not
        meter again yet."""
        return False

    @abc.abstractmethod
    def close(self) -> None: ...


def exposure_problem(frame: np.ndarray) -> str | None:
    """Why a colour frame shows nothing for its exposure, in words for the players: black, or
    washed out; None when it is exposed well enough to read."""
    sample = frame[:: max(1, frame.shape[0] // 64), :: max(1, frame.shape[1] // 64)]
    if float(sample.mean()) < DARK:
        return "The picture is black: is the lens covered or the light off?"
    if float(np.mean(sample.min(axis=2) >= 250)) > BURNT:
        return "The picture is washed out: too much light on the board or the camera is overexposed."
    return None


def capture_exposed(camera: Camera) -> np.ndarray:
    """A full frame. Where the light changed so much since the exposure was locked that the frame
    is washed out or black, the camera meters the light again and takes it anew: a locked
    exposure would refuse every picture until the lamp went off again. The reader follows the
    change of brightness from the picture last agreed, as it follows a lamp."""
    frame = camera.capture()
    if frame.ndim == 3 and frame.shape[2] == 3 and exposure_problem(frame) is not None and camera.meter_again():
        frame = camera.capture()
    return frame


class Playback(Camera):
    """Recorded sources: frame i's full and small versions, stepped as the module docstring says."""

    def __init__(self) -> None:
        self._position = -1
        self._delivered = True  # nothing current yet: the first capture() moves to frame 0
        self._started = False

    def start(self) -> None:
        self._position, self._delivered, self._started = -1, True, True

    def close(self) -> None:
        self._started = False

    def capture(self) -> np.ndarray:
        self._check_started()
        if self._delivered:
            self._position += 1
        self._delivered = True
        return self._full(self._position)

    def capture_small(self) -> np.ndarray:
        self._check_started()
        self._position += 1
        self._delivered = False
        return self._small(self._position)

    def _small(self, position: int) -> np.ndarray:
        return small_gray(self._full(position))

    def _check_started(self) -> None:
        if not self._started:
            raise CameraError("The camera has not been started.")

    @abc.abstractmethod
    def _full(self, position: int) -> np.ndarray: ...


class FolderCamera(Playback):
    """Frames recorded as image files in a folder, played in name order."""

    def __init__(self, folder: str | Path, *, loop: bool = False) -> None:
        super().__init__()
        self.folder = Path(folder)
        self.loop = loop
        self._files: list[Path] = []
        self._cache: tuple[int, np.ndarray] | None = None

    def start(self) -> None:
        if not self.folder.is_dir():
            raise CameraError(f"There is no folder of recorded pictures at {self.folder}.")
        self._files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self._files:
            raise CameraError(f"The folder {self.folder} holds no pictures (PNG or JPEG).")
        super().start()

    def _full(self, position: int) -> np.ndarray:
        if position >= len(self._files) and not self.loop:
            raise RecordingEnded(f"All {len(self._files)} recorded pictures in {self.folder} have been shown.")
        index = position % len(self._files)
        if self._cache is not None and self._cache[0] == index:
            return self._cache[1]
        try:
            frame = picture.read(self._files[index])
        except picture.PictureError as error:
            raise CameraError(f"The picture {self._files[index].name} cannot be read: {error}") from None
        self._cache = (index, frame)
        return frame


class OpenCVCamera(Camera):
    """A USB webcam (by index) or a video file, through OpenCV's VideoCapture.

    A webcam is live: both methods read what it sees now. A video file plays back in steps
    like a recording."""

    def __init__(self, source: int | str | Path, *, size: tuple[int, int] | None = None) -> None:
        self.source = source
        self.size = size
        self._capture: cv2.VideoCapture | None = None
        self._live = isinstance(source, int)
        self._current: np.ndarray | None = None
        self._delivered = True

    def _name(self) -> str:
        return f"the USB camera number {self.source}" if self._live else f"the video {self.source}"

    def start(self) -> None:
        if not self._live and not Path(str(self.source)).is_file():
            raise CameraError(f"There is no video file at {self.source}.")
        capture = cv2.VideoCapture(self.source if self._live else str(self.source))
        if not capture.isOpened():
            capture.release()
            raise CameraError(f"Cannot open {self._name()}. Is it plugged in (or a video OpenCV can play)?")
        if self.size is not None and self._live:
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self._capture = capture
        self._current, self._delivered = None, True

    def _read(self) -> np.ndarray:
        if self._capture is None:
            raise CameraError("The camera has not been started.")
        ok, frame = self._capture.read()
        if not ok or frame is None:
            if self._live:
                raise CameraError(f"{self._name().capitalize()} stopped sending pictures. Check its cable.")
            raise RecordingEnded(f"The video {self.source} has no more frames.")
        return np.asarray(frame)

    def capture(self) -> np.ndarray:
        if self._live or self._delivered or self._current is None:
            self._current = self._read()
        self._delivered = True
        return self._current

    def capture_small(self) -> np.ndarray:
        self._current = self._read()
        self._delivered = False
        return small_gray(self._current)

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class PiCamera(Camera):
    """A Raspberry Pi camera through picamera2 (imported only when started).

    Full-field main stream in RGB888 (whose bytes arrive B, G, R: OpenCV's order) for reading,
    a small YUV420 stream for the motion check. Automatic exposure and white balance run until
    they settle, then both are locked so that colours stay put between reads. A Camera Module 3
    gets its focus fixed at `lens_position` (dioptres, from the configuration) when one is given."""

    def __init__(
        self,
        *,
        camera_number: int = 0,
        size: tuple[int, int] | None = None,
        small_width: int = SMALL_WIDTH,
        lens_position: float | None = None,
        frame_rate: float = 10.0,
        settle_frames: int = 60,
        timeout_s: float = 3.0,
    ) -> None:
        self.camera_number = camera_number
        self.size = size
        self.small_width = small_width
        self.lens_position = lens_position
        self.frame_rate = frame_rate
        self.settle_frames = settle_frames
        self.timeout_s = timeout_s  # a camera that sends nothing for this long has gone
        self.locked: dict[str, Any] = {}  # the exposure and colour gains in use, for calibration files
        self._metered_at = -math.inf  # time.monotonic() of the last metering after the first
        self._camera: Any = None
        self._small_size: tuple[int, int] = (0, 0)

    def start(self) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as error:
            raise CameraError(
                "The Raspberry Pi camera software is missing. Install it with: sudo apt install python3-picamera2"
            ) from error
        try:
            camera = Picamera2(self.camera_number)
        except (RuntimeError, IndexError) as error:
            raise CameraError(
                "No Raspberry Pi camera answers. Check that its ribbon cable is seated the right way round, "
                "then restart."
            ) from error
        self._camera = camera
        try:
            self._configure()
            camera.start()
            self._settle_and_lock()
        except (RuntimeError, OSError, TimeoutError) as error:
            self.close()
            raise CameraError(
                "The Raspberry Pi camera could not be started. Check its ribbon cable, then restart."
            ) from error

    def _full_field_mode(self) -> dict[str, Any] | None:
        """The sensor mode to use: the smallest one that still sees the whole field (binned, so
        fast and low-noise), at least 1500 pixels wide when the sensor has one."""
        modes = [m for m in self._camera.sensor_modes if "size" in m and "crop_limits" in m]
        if not modes:
            return None
        widest = max(m["crop_limits"][2] * m["crop_limits"][3] for m in modes)
        full = [m for m in modes if m["crop_limits"][2] * m["crop_limits"][3] >= widest]
        wide_enough = [m for m in full if m["size"][0] >= 1500]
        pool = wide_enough or full
        chosen: dict[str, Any] = (
            min(pool, key=lambda m: m["size"][0]) if wide_enough else max(pool, key=lambda m: m["size"][0])
        )
        return chosen

    def _configure(self) -> None:
        camera = self._camera
        mode = self._full_field_mode()
        size = self.size or (tuple(mode["size"]) if mode else (2028, 1520))
        w, h = size
        small_h = 2 * max(1, round(h * self.small_width / w / 2))
        self._small_size = (self.small_width, small_h)
        frame_us = int(1_000_000 / self.frame_rate)
        controls: dict[str, Any] = {"FrameDurationLimits": (frame_us, frame_us)}
        if self.lens_position is not None and "LensPosition" in camera.camera_controls:
            from libcamera import controls as libcamera_controls

            controls["AfMode"] = libcamera_controls.AfModeEnum.Manual
            controls["LensPosition"] = float(self.lens_position)
        config = camera.create_video_configuration(
            main={"size": (w, h), "format": "RGB888"},
            lores={"size": self._small_size, "format": "YUV420"},
            raw=mode if mode else {},
            buffer_count=3,
            controls=controls,
            display=None,
            encode=None,
        )
        camera.configure(config)

    def _settle_and_lock(self) -> None:
        """Lets automatic exposure and white balance settle (three frames in a row within 2 %),
        then fixes them at the settled values."""
        previous: tuple[float, float] | None = None
        steady = 0
        metadata: dict[str, Any] = {}
        for _ in range(self.settle_frames):
            metadata = self._wait(self._camera.capture_metadata(wait=False))
            now = (float(metadata["ExposureTime"]), float(metadata["AnalogueGain"]))
            close = previous is not None and all(
                math.isclose(a, b, rel_tol=0.02) for a, b in zip(now, previous, strict=True)
            )
            steady = steady + 1 if close else 0
            previous = now
            if steady >= 3:
                break
        self.locked = {
            "AeEnable": False,
            "ExposureTime": int(metadata["ExposureTime"]),
            "AnalogueGain": float(metadata["AnalogueGain"]),
        }
        if "ColourGains" in metadata:  # absent on monochrome sensors
            self.locked["AwbEnable"] = False
            self.locked["ColourGains"] = tuple(float(g) for g in metadata["ColourGains"])
        self._camera.set_controls(self.locked)

    def meter_again(self) -> bool:
        """Automatic exposure runs again until it settles, then is locked as at the start; the
        colour gains stay locked (the reader follows each channel's change). Not more often than
        every METER_EVERY_S: a light no exposure can tame would otherwise cost seconds a frame."""
        camera = self._require()
        now = time.monotonic()
        if now - self._metered_at < METER_EVERY_S:
            return False
        self._metered_at = now
        # libcamera 0.5 on (Pi OS from 2025) ignores AeEnable: automatic exposure comes back by
        # its two modes set to automatic (0); a fixed exposure sets them to manual by itself.
        automatic = ({"ExposureTimeMode": 0, "AnalogueGainMode": 0} if "ExposureTimeMode" in camera.camera_controls
                     else {"AeEnable": True})
        try:
            camera.set_controls(automatic)
            self._settle_and_lock()
        except (RuntimeError, OSError, TimeoutError) as error:
            raise CameraError("The Raspberry Pi camera stopped sending pictures. Check its ribbon cable.") from error
        return True

    def _require(self) -> Any:
        if self._camera is None:
            raise CameraError("The camera has not been started.")
        return self._camera

    def _wait(self, job: Any) -> Any:
        """The result of an asynchronous picamera2 call, or TimeoutError if no frame comes."""
        return self._require().wait(job, timeout=self.timeout_s)

    def _grab(self, stream: str) -> np.ndarray:
        camera = self._require()
        try:
            array: np.ndarray = self._wait(camera.capture_array(stream, wait=False))
        except (RuntimeError, OSError, TimeoutError) as error:
            raise CameraError("The Raspberry Pi camera stopped sending pictures. Check its ribbon cable.") from error
        return array

    def capture(self) -> np.ndarray:
        frame = self._grab("main")
        return np.ascontiguousarray(frame[..., :3])  # RGB888 is B, G, R in memory: already OpenCV's order

    def capture_darker(self) -> np.ndarray | None:
        """A full frame at DARKER of the locked exposure time (None before exposure is locked, or
        if the sensor never takes it). The locked exposure is back before this returns: the motion
        check would take the change of brightness for a hand."""
        camera = self._require()
        locked = int(self.locked.get("ExposureTime", 0))
        if not locked:
            return None
        short = max(1, round(locked * DARKER))
        try:
            camera.set_controls({"ExposureTime": short})
            frame = self._first_taken_at(short, keep=True)
            camera.set_controls({"ExposureTime": locked})
            self._first_taken_at(locked, keep=False)
        except (RuntimeError, OSError, TimeoutError) as error:
            with contextlib.suppress(RuntimeError, OSError):
                camera.set_controls({"ExposureTime": locked})
            raise CameraError("The Raspberry Pi camera stopped sending pictures. Check its ribbon cable.") from error
        return frame

    def _first_taken_at(self, exposure: int, *, keep: bool) -> np.ndarray | None:
        """Waits for the first frame taken at `exposure` (new controls reach the sensor a few frames
        after they are set) and returns its full picture when `keep`."""
        camera = self._require()
        for _ in range(self.settle_frames):
            if keep:
                (frame,), metadata = self._wait(camera.capture_arrays(["main"], wait=False))
            else:
                frame, metadata = None, self._wait(camera.capture_metadata(wait=False))
            if math.isclose(float(metadata.get("ExposureTime", 0)), exposure, rel_tol=0.1):
                return None if frame is None else np.ascontiguousarray(frame[..., :3])
        return None

    def capture_small(self) -> np.ndarray:
        yuv = self._grab("lores")
        w, h = self._small_size
        return np.ascontiguousarray(yuv[:h, :w])  # the Y plane: YUV420 rows start with the luminance

    def close(self) -> None:
        camera, self._camera = self._camera, None
        if camera is not None:
            with contextlib.suppress(RuntimeError, OSError):  # a camera that has gone cannot stop
                camera.stop()
            camera.close()
