"""Cameras: picamera2 through a fake module with its real call shapes, the others for real."""

from __future__ import annotations

import math
import sys
import types
from pathlib import Path
from typing import ClassVar

import cv2
import numpy as np
import pytest

from vision.camera import (
    Camera,
    CameraError,
    FolderCamera,
    OpenCVCamera,
    PiCamera,
    RecordingEnded,
    capture_exposed,
    exposure_problem,
    small_gray,
)
from vision.reading import CellClass
from vision.sim.camera import SyntheticCamera
from vision.sim.synthetic import CellTruth, Conditions, Glare, Scene, render

# --- PiCamera against a fake picamera2 ------------------------------------------------------------

# Sensor modes as picamera2 lists them for an HQ camera (IMX477): two cropped, two full-field.
HQ_MODES = [
    {"format": "SRGGB10_CSI2P", "size": (1332, 990), "crop_limits": (696, 528, 2664, 1980), "bit_depth": 10},
    {"format": "SRGGB12_CSI2P", "size": (2028, 1080), "crop_limits": (0, 440, 4056, 2160), "bit_depth": 12},
    {"format": "SRGGB12_CSI2P", "size": (2028, 1520), "crop_limits": (0, 0, 4056, 3040), "bit_depth": 12},
    {"format": "SRGGB12_CSI2P", "size": (4056, 3040), "crop_limits": (0, 0, 4056, 3040), "bit_depth": 12},
]
# Auto exposure hunting, then settling: frames 3, 4, 5 and 6 stay within 2 %.
METADATA = [
    {"ExposureTime": 8000, "AnalogueGain": 4.0, "ColourGains": (1.2, 2.5)},
    {"ExposureTime": 16000, "AnalogueGain": 2.0, "ColourGains": (1.6, 2.1)},
    {"ExposureTime": 24000, "AnalogueGain": 1.5, "ColourGains": (1.8, 1.9)},
    {"ExposureTime": 24100, "AnalogueGain": 1.5, "ColourGains": (1.85, 1.9)},
    {"ExposureTime": 24050, "AnalogueGain": 1.49, "ColourGains": (1.86, 1.88)},
    {"ExposureTime": 24080, "AnalogueGain": 1.5, "ColourGains": (1.87, 1.88)},
    {"ExposureTime": 99999, "AnalogueGain": 9.0, "ColourGains": (3.0, 3.0)},  # never reached
]
# A lamp switched on: automatic exposure, on again, hunts down and settles at a third of the time
# (the colour gains stay locked as they were).
METERED_AGAIN = [
    {"ExposureTime": 12000, "AnalogueGain": 1.5, "ColourGains": (1.87, 1.88)},
    {"ExposureTime": 8100, "AnalogueGain": 1.5, "ColourGains": (1.87, 1.88)},
    {"ExposureTime": 8050, "AnalogueGain": 1.5, "ColourGains": (1.87, 1.88)},
    {"ExposureTime": 8030, "AnalogueGain": 1.5, "ColourGains": (1.87, 1.88)},
    {"ExposureTime": 8040, "AnalogueGain": 1.5, "ColourGains": (1.87, 1.88)},
    {"ExposureTime": 99999, "AnalogueGain": 9.0, "ColourGains": (3.0, 3.0)},  # never reached
]


class FakePicamera2:
    """Records what the camera module is asked to do; answers like picamera2 does."""

    instances: ClassVar[list[FakePicamera2]] = []
    fail_on_open = False
    stalled = False  # sends no frame at all once started

    def __init__(self, camera_num: int = 0) -> None:
        if FakePicamera2.fail_on_open:
            raise RuntimeError("Camera __init__ sequence did not complete.")
        self.camera_num = camera_num
        self.calls: list[str] = []
        self.controls_set: list[dict] = []
        self.config: dict | None = None
        self.metadata = iter(METADATA)
        self.metadata_reads = 0
        self.camera_controls = {"ExposureTime": (1, 1000000, 0), "AnalogueGain": (1.0, 22.0, 1.0)}
        self.broken = FakePicamera2.stalled
        # Once locked, the exposure a frame was taken at; new controls reach the sensor LAG frames late.
        self.exposure: int | None = None
        self.locked_exposure: int | None = None
        self.pending: list[list[int]] = []
        FakePicamera2.instances.append(self)

    @property
    def sensor_modes(self) -> list[dict]:
        return HQ_MODES

    def create_video_configuration(self, main=None, lores=None, raw=None, **options):
        return {"main": main, "lores": lores, "raw": raw, **options}

    def configure(self, config: dict) -> None:
        self.calls.append("configure")
        self.config = config

    def start(self) -> None:
        self.calls.append("start")

    # Asynchronous calls (wait=False) give a job; wait(job, timeout) gives its result, or raises
    # TimeoutError when the camera has stopped sending frames.
    def wait(self, job, timeout=None):
        assert timeout is not None, "a vanished camera must never hang the companion"
        if self.broken:
            raise TimeoutError
        return job()

    LAG = 2

    def capture_metadata(self, wait=None):
        assert wait is False
        assert "start" in self.calls, "metadata only flows once the camera runs"
        self.calls.append("capture_metadata")
        self.metadata_reads += 1
        result = next(self.metadata) if self.exposure is None else self._frame()
        return lambda: result

    def _frame(self) -> dict:
        """One more frame from the sensor: controls set LAG frames ago now apply."""
        for change in self.pending:
            change[0] -= 1
        for _, value in [c for c in self.pending if c[0] <= 0]:
            self.exposure = value
        self.pending = [c for c in self.pending if c[0] > 0]
        return {"ExposureTime": self.exposure}

    def set_controls(self, controls: dict) -> None:
        self.calls.append("set_controls")
        self.controls_set.append(controls)
        if controls.get("AeEnable") is True or controls.get("ExposureTimeMode") == 0:  # hunts until locked anew
            self.exposure, self.metadata = None, iter(METERED_AGAIN)
        if "ExposureTime" in controls:
            if self.exposure is None:  # the lock: the settled exposure stays as it is
                self.exposure = self.locked_exposure = controls["ExposureTime"]
            else:
                self.pending.append([self.LAG, controls["ExposureTime"]])

    def capture_array(self, name: str = "main", wait=None):
        assert wait is False
        return lambda: self._array(name)

    def capture_arrays(self, names: list[str], wait=None):
        assert wait is False

        def job():
            if self.broken:
                raise TimeoutError
            metadata = self._frame()
            return [self._array(name) for name in names], metadata

        return job

    def _array(self, name: str) -> np.ndarray:
        assert self.config is not None
        w, h = self.config[name]["size"]
        if name == "main":  # RGB888: bytes B, G, R — a blue-ish frame, as bright as it was exposed
            share = 1.0 if self.exposure is None or not self.locked_exposure else self.exposure / self.locked_exposure
            frame = np.zeros((h, w, 3), np.uint8)
            frame[...] = np.round(np.array((200, 100, 50)) * share)
            return frame
        stride = w + 64  # YUV420 rows are padded to the stride; chroma follows the luminance rows
        yuv = np.full((h * 3 // 2, stride), 128, np.uint8)
        yuv[:h, :w] = np.arange(w, dtype=np.uint8)[None, :]
        return yuv

    def stop(self) -> None:
        self.calls.append("stop")

    def close(self) -> None:
        self.calls.append("close")


@pytest.fixture
def fake_picamera2(monkeypatch):
    FakePicamera2.instances = []
    FakePicamera2.fail_on_open = False
    FakePicamera2.stalled = False
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2
    libcamera = types.ModuleType("libcamera")
    libcamera.controls = types.SimpleNamespace(AfModeEnum=types.SimpleNamespace(Manual=0, Auto=1, Continuous=2))
    monkeypatch.setitem(sys.modules, "picamera2", module)
    monkeypatch.setitem(sys.modules, "libcamera", libcamera)
    return FakePicamera2


def test_pi_camera_configures_full_field_main_and_small_lores(fake_picamera2):
    with PiCamera() as camera:
        fake = fake_picamera2.instances[0]
        config = fake.config
        assert config["main"] == {"size": (2028, 1520), "format": "RGB888"}  # binned, whole field
        assert config["raw"]["size"] == (2028, 1520)
        assert config["lores"] == {"size": (320, 240), "format": "YUV420"}
        assert config["controls"]["FrameDurationLimits"] == (100000, 100000)
        assert "AfMode" not in config["controls"]  # the HQ camera has no motorised lens
        frame = camera.capture()
        assert frame.shape == (1520, 2028, 3) and frame.dtype == np.uint8
        assert tuple(frame[0, 0]) == (200, 100, 50)  # B, G, R kept as they arrive
        small = camera.capture_small()
        assert small.shape == (240, 320)
        assert np.array_equal(small[5], np.arange(320, dtype=np.uint8))  # the Y plane, stride padding cut
    assert fake.calls[-2:] == ["stop", "close"]


def test_pi_camera_locks_exposure_and_white_balance_once_settled(fake_picamera2):
    with PiCamera() as camera:
        fake = fake_picamera2.instances[0]
        assert fake.calls[:2] == ["configure", "start"]
        assert fake.metadata_reads == 6  # three steady frames after the hunt, not one more
        assert fake.calls.index("set_controls") > fake.calls.index("capture_metadata")
        locked = fake.controls_set[-1]
        assert locked == camera.locked
        assert locked["AeEnable"] is False and locked["AwbEnable"] is False
        assert locked["ExposureTime"] == 24080 and locked["AnalogueGain"] == 1.5
        assert locked["ColourGains"] == (1.87, 1.88)


def test_pi_camera_takes_a_darker_frame_then_goes_back_to_the_locked_exposure(fake_picamera2):
    with PiCamera() as camera:
        fake = fake_picamera2.instances[0]
        darker = camera.capture_darker()
        assert darker is not None and darker.shape == (1520, 2028, 3)
        assert tuple(darker[0, 0]) == (100, 50, 25)  # the first frame taken at half the exposure
        assert fake.controls_set[-2:] == [{"ExposureTime": 12040}, {"ExposureTime": 24080}]
        assert fake.exposure == 24080 and not fake.pending  # back before the motion check looks again
        assert tuple(camera.capture()[0, 0]) == (200, 100, 50)


def test_pi_camera_that_stops_while_taking_the_darker_frame_says_so(fake_picamera2):
    with PiCamera() as camera:
        fake = fake_picamera2.instances[0]
        fake.broken = True
        with pytest.raises(CameraError, match="stopped sending pictures"):
            camera.capture_darker()
        assert fake.controls_set[-1] == {"ExposureTime": 24080}  # the lock is asked back all the same


def test_pi_camera_meters_the_light_again_and_locks_the_new_exposure(fake_picamera2):
    with PiCamera() as camera:
        fake = fake_picamera2.instances[0]
        assert camera.meter_again()
        assert fake.controls_set[-2] == {"AeEnable": True}
        assert camera.locked == fake.controls_set[-1]
        assert camera.locked["AeEnable"] is False and camera.locked["ExposureTime"] == 8040
        assert camera.locked["ColourGains"] == (1.87, 1.88)
        asked = len(fake.controls_set)
        assert not camera.meter_again()  # not again so soon: a light no exposure tames costs seconds
        assert len(fake.controls_set) == asked
        fake.broken = True
        camera._metered_at = -math.inf
        with pytest.raises(CameraError, match="stopped sending pictures"):
            camera.meter_again()


def test_pi_camera_meters_again_by_the_exposure_modes_libcamera_0_5_asks_for(fake_picamera2):
    with PiCamera() as camera:
        fake = fake_picamera2.instances[0]
        fake.camera_controls |= {"ExposureTimeMode": (0, 1, 0), "AnalogueGainMode": (0, 1, 0)}
        assert camera.meter_again()
        assert fake.controls_set[-2] == {"ExposureTimeMode": 0, "AnalogueGainMode": 0}
        assert camera.locked["ExposureTime"] == 8040


def test_pi_camera_module_3_gets_its_lens_fixed(fake_picamera2):
    original = FakePicamera2.__init__

    def with_focus(self, camera_num=0):
        original(self, camera_num)
        self.camera_controls["LensPosition"] = (0.0, 15.0, 1.0)
        self.camera_controls["AfMode"] = (0, 2, 0)

    fake_picamera2.__init__ = with_focus
    try:
        with PiCamera(lens_position=1.6):
            controls = fake_picamera2.instances[0].config["controls"]
            assert controls["AfMode"] == 0 and controls["LensPosition"] == 1.6
    finally:
        fake_picamera2.__init__ = original


def test_pi_camera_missing_or_unplugged_says_so(fake_picamera2, monkeypatch):
    fake_picamera2.fail_on_open = True
    with pytest.raises(CameraError, match="ribbon cable"):
        PiCamera().start()
    fake_picamera2.fail_on_open = False
    camera = PiCamera()
    camera.start()
    fake_picamera2.instances[-1].broken = True
    with pytest.raises(CameraError, match="stopped sending pictures"):
        camera.capture()
    camera.close()
    fake_picamera2.stalled = True
    with pytest.raises(CameraError, match="could not be started"):
        PiCamera().start()
    assert fake_picamera2.instances[-1].calls[-2:] == ["stop", "close"]  # nothing left open
    monkeypatch.setitem(sys.modules, "picamera2", None)  # not installed
    with pytest.raises(CameraError, match="apt install python3-picamera2"):
        PiCamera().start()


def test_capture_before_start_is_a_clear_error():
    with pytest.raises(CameraError, match="not been started"):
        PiCamera().capture()
    with pytest.raises(CameraError, match="not been started"):
        SyntheticCamera().capture_small()


# --- Recorded and synthetic cameras, for real -------------------------------------------------------

SIZE = (640, 480)


def _recorded(tmp_path: Path, count: int = 3) -> list[np.ndarray]:
    frames = []
    for i in range(count):
        scene = Scene.setup().with_cells({40 + i: CellTruth(CellClass.TILE_RED)})
        frame = render(scene, size=SIZE, seed=i).frame
        frames.append(frame)
        cv2.imwrite(str(tmp_path / f"frame-{i:03d}.png"), frame)
    return frames


def test_folder_camera_plays_frames_in_name_order(tmp_path):
    frames = _recorded(tmp_path)
    (tmp_path / "notes.txt").write_text("not a picture")
    with FolderCamera(tmp_path) as camera:
        assert np.array_equal(camera.capture(), frames[0])
        assert np.array_equal(camera.capture(), frames[1])
        small = camera.capture_small()  # moves on to frame 2 ...
        assert np.array_equal(small, small_gray(frames[2]))
        assert np.array_equal(camera.capture(), frames[2])  # ... and the full frame is that same moment
        with pytest.raises(RecordingEnded):
            camera.capture()


def test_folder_camera_can_loop_and_explains_bad_folders(tmp_path):
    frames = _recorded(tmp_path, 2)
    with FolderCamera(tmp_path, loop=True) as camera:
        seen = [camera.capture() for _ in range(3)]
    assert np.array_equal(seen[2], frames[0])
    with pytest.raises(CameraError, match="no folder"):
        FolderCamera(tmp_path / "missing").start()
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(CameraError, match="holds no pictures"):
        FolderCamera(empty).start()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "a.png").write_bytes(b"not a png at all")
    with FolderCamera(broken) as camera, pytest.raises(CameraError, match="cannot be read"):
        camera.capture()


def test_synthetic_camera_shows_a_hand_placing_a_piece():
    before = Scene.setup()
    after = before.with_cells({40: CellTruth(CellClass.TILE_GREEN)})
    with SyntheticCamera(before, size=SIZE, seed=3) as camera:
        quiet = camera.capture_small()
        assert quiet.shape == (240, 320) and quiet.dtype == np.uint8
        assert camera.capture().shape == (480, 640, 3)
        camera.hand_passing(after, frames=6)
        moving = [camera.capture_small() for _ in range(6)]
        assert all(np.abs(m.astype(int) - quiet.astype(int)).mean() > 1 for m in moving[1:-1])
        assert camera.scene == after
        settled = camera.capture_small()
        full = camera.capture()
    assert np.array_equal(full, render(after, size=SIZE, seed=3 + 7).frame)
    # The small stream is rendered small, not shrunk: the same picture up to fine detail.
    difference = np.abs(settled.astype(int) - small_gray(full).astype(int))
    assert np.median(difference) <= 2 and difference.mean() < 5


def test_synthetic_camera_follows_lamp_changes_and_can_be_unplugged():
    with SyntheticCamera(size=SIZE) as camera:
        plain = camera.capture()
        camera.conditions = Conditions(lamp=0.9)
        warm = camera.capture()
        assert warm[..., 2].mean() / warm[..., 0].mean() > 1.2 * plain[..., 2].mean() / plain[..., 0].mean()
        camera.unplug()
        with pytest.raises(CameraError, match="stopped sending pictures"):
            camera.capture_small()


def test_synthetic_camera_takes_the_same_moment_darker_and_recordings_cannot(tmp_path):
    glare = Glare(0.5, 0.5, 0.1, 1.0)
    with SyntheticCamera(size=SIZE, conditions=Conditions(glare=glare)) as camera:
        camera.capture_small()
        full = camera.capture().astype(np.float32)
        darker = camera.capture_darker().astype(np.float32)
    h, w = full.shape[:2]
    heart, edge = (slice(h // 2 - 5, h // 2 + 5), slice(w // 2 - 5, w // 2 + 5)), (slice(0, h // 8), slice(0, w // 8))
    assert full[heart].min() == 255 and darker[heart].max() < 250  # the glare no longer saturates
    assert abs(darker[edge].mean() / full[edge].mean() - 0.5) < 0.03
    _recorded(tmp_path)
    with FolderCamera(tmp_path) as recording:
        recording.capture()
        assert recording.capture_darker() is None  # a recording's exposure was what it was


class _LampCamera(Camera):
    """A camera whose locked exposure a lamp burnt out: white until it meters again, if it can."""

    def __init__(self, *, can_meter: bool) -> None:
        self.can_meter, self.metered = can_meter, 0

    def start(self) -> None: ...

    def close(self) -> None: ...

    def capture(self) -> np.ndarray:
        return np.full((120, 160, 3), 255 if not self.metered else 120, np.uint8)

    def capture_small(self) -> np.ndarray:
        return self.capture()[..., 0]

    def meter_again(self) -> bool:
        self.metered += self.can_meter
        return self.can_meter


def test_a_frame_washed_out_by_a_lamp_is_taken_again_after_metering_the_light():
    camera = _LampCamera(can_meter=True)
    frame = capture_exposed(camera)
    assert camera.metered == 1 and exposure_problem(frame) is None
    assert capture_exposed(camera) is not None and camera.metered == 1  # well exposed: left as it is
    fixed = _LampCamera(can_meter=False)  # a recording: what it shows is what there is
    assert exposure_problem(capture_exposed(fixed)) == (
        "The picture is washed out: too much light on the board or the camera is overexposed.")
    assert "black" in exposure_problem(np.zeros((120, 160, 3), np.uint8))


def test_synthetic_camera_meters_a_lamp_that_burnt_out_its_picture():
    with SyntheticCamera(size=SIZE, conditions=Conditions(exposure=1.6, glare=Glare(0.5, 0.5, 1.0, 1.0))) as camera:
        camera.capture_small()
        assert exposure_problem(camera.capture()) is not None
        assert camera.meter_again()
        again = camera.capture()
        assert exposure_problem(again) is None
        assert abs(float(again[::8, ::8].mean()) - 110) < 25
        camera.capture_small()
        assert exposure_problem(camera.capture()) is None  # the new exposure stays


def _write_video(path: Path, frames: list[np.ndarray]) -> bool:
    h, w = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5.0, (w, h))
    if not writer.isOpened():
        return False
    for frame in frames:
        writer.write(frame)
    writer.release()
    return path.stat().st_size > 0


def test_opencv_camera_plays_a_video_file(tmp_path):
    frames = [np.full((120, 160, 3), level, np.uint8) for level in (30, 90, 150, 210)]
    video = tmp_path / "table.avi"
    if not _write_video(video, frames):
        pytest.skip("this OpenCV build cannot write MJPG video, so there is no file to play back")
    with OpenCVCamera(video) as camera:
        first = camera.capture()
        assert first.shape == (120, 160, 3) and abs(int(first.mean()) - 30) < 6
        small = camera.capture_small()
        assert small.shape == (240, 320) and abs(int(small.mean()) - 90) < 6
        assert abs(int(camera.capture().mean()) - 90) < 6  # the moment the motion check saw
        assert abs(int(camera.capture().mean()) - 150) < 6
        camera.capture()
        with pytest.raises(RecordingEnded):
            camera.capture()


def test_opencv_camera_explains_what_is_missing(tmp_path):
    with pytest.raises(CameraError, match="no video file"):
        OpenCVCamera(tmp_path / "none.avi").start()
    (tmp_path / "junk.avi").write_bytes(b"\x00" * 64)
    with pytest.raises(CameraError, match="Cannot open"):
        OpenCVCamera(tmp_path / "junk.avi").start()
