"""The [phone] settings and the systemd unit's network allow-list."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.app.config import Config, parse

UNIT = Path(__file__).parents[2] / "systemd" / "companion.service"


def test_the_phones_are_off_unless_switched_on() -> None:
    assert Config().phone.enabled is False
    on = parse({"phone": {"enabled": True, "port": 8123, "bind": "192.168.1.20"}})
    assert (on.phone.enabled, on.phone.port, on.phone.bind, on.problems) == (True, 8123, "192.168.1.20", ())


@pytest.mark.parametrize(("key", "value", "words"), [
    ("port", 80, "is not a port from 1024 to 65535 — using 8080"),
    ("port", 70000, "is not a port from 1024 to 65535"),
    ("bind", "8.8.8.8", 'is not "" or an address on a local network'),
    ("bind", "0.0.0.0", 'is not "" or an address on a local network'),
    ("bind", "companion.local", 'is not "" or an address on a local network'),
    ("enabled", "yes", "is not true or false — using false"),
])
def test_a_setting_out_of_its_range_is_said_and_its_default_used(key: str, value: object, words: str) -> None:
    loaded = parse({"phone": {key: value}})
    assert getattr(loaded.phone, key) == getattr(Config().phone, key)
    [problem] = loaded.problems
    assert f"[phone] {key} = " in problem and words in problem


def test_the_unit_lets_ip_traffic_through_with_local_networks_only() -> None:
    lines = UNIT.read_text().splitlines()
    settings = [line.split("=", 1) for line in lines if "=" in line and not line.startswith("#")]
    assert ["IPAddressDeny", "any"] in settings
    [allowed] = [value.split() for key, value in settings if key == "IPAddressAllow"]
    assert set(allowed) == {"localhost", "link-local", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"}
    [families] = [value.split() for key, value in settings if key == "RestrictAddressFamilies"]
    assert set(families) == {"AF_UNIX", "AF_NETLINK", "AF_INET", "AF_INET6"}  # no raw or packet sockets
