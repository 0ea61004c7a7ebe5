from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from hardware.cameras import CameraConfig
from hardware.cameras.config import camera_config_from_data
from rules.errors import ConfigError


def test_camera_section_loads_device_index_path_or_url() -> None:
    data = tomllib.loads(
        'source = "rtsp://10.0.0.7/stream"\nwidth = 1280\nheight = 720\nfps = 60\nfourcc = "MJPG"'
    )
    config = camera_config_from_data(data)
    assert config == CameraConfig(
        source="rtsp://10.0.0.7/stream", width=1280, height=720, fps=60.0, fourcc="MJPG"
    )
    assert config.is_stream
    assert camera_config_from_data({"source": 2}).source == 2
    assert not camera_config_from_data({"source": "/dev/video0"}).is_stream


def test_unknown_key_is_refused_by_name() -> None:
    with pytest.raises(ConfigError, match=r"\[camera\].*unknown key\(s\) resolution"):
        camera_config_from_data({"source": 0, "resolution": "720p"})


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"width": "wide"}, "width"),
        ({"fps": 0}, "fps"),
        ({"fourcc": "H26"}, "fourcc"),
        ({"source": -1}, "source"),
        ({"reconnect_initial_s": 5.0, "reconnect_max_s": 1.0}, "reconnect"),
        ({"failed_reads": 0}, "failed_reads"),
    ],
)
def test_bad_values_are_config_errors_naming_the_key(data: dict, key: str) -> None:
    with pytest.raises(ConfigError, match=key):
        camera_config_from_data(data)


def test_backoff_doubles_up_to_the_maximum() -> None:
    config = CameraConfig(reconnect_initial_s=0.5, reconnect_max_s=3.0)
    assert [config.backoff_s(n) for n in range(1, 6)] == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_reading_the_camera_section_does_not_pull_in_opencv() -> None:
    code = (
        "import sys\n"
        "from hardware.cameras.config import camera_config_from_data\n"
        "camera_config_from_data({'source': 0})\n"
        "print('cv2' in sys.modules)\n"
    )
    root = Path(__file__).resolve().parents[3]
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    assert result.stdout.strip() == "False"


def test_the_package_names_what_it_has() -> None:
    import hardware.cameras as cameras

    assert cameras.CameraConfig is CameraConfig
    with pytest.raises(AttributeError, match="no attribute 'Webcam'"):
        _ = cameras.Webcam
