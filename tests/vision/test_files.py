import errno
import os
import stat

import pytest

from vision.files import write_atomic


def test_replaces_the_content_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "calibration.json"
    write_atomic(target, "old")
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["calibration.json"]


def test_the_mode_is_set_whatever_the_umask(tmp_path):
    target = tmp_path / "config.toml"
    write_atomic(target, "x", mode=0o640)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_full_card_keeps_the_old_file_whole(tmp_path, monkeypatch):
    target = tmp_path / "calibration.json"
    write_atomic(target, "old")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError) as raised:
        write_atomic(target, "new")
    assert raised.value.errno == errno.ENOSPC
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["calibration.json"]
