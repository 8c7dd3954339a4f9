"""The stand-in commands (bin/: zpool, ssh, …) and the one way tests put the stand-in ssh in
front of the real one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

FAKES = os.path.abspath(os.path.join(os.path.dirname(__file__), "bin"))


def use_fake_ssh(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *, path_tail: str = "/usr/bin:/bin", log: bool = False
) -> None:
    """bin/ssh runs the remote words here (where the stand-in zpool answers); a host listed in
    tmp_path/down refuses the connection as a stopped sshd does. Control sockets go in tmp_path
    (XDG_RUNTIME_DIR); with `log`, every ssh argv is appended to tmp_path/ssh.log."""
    monkeypatch.setenv("PATH", f"{FAKES}:{path_tail}")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setenv("FAKE_SSH_DOWN", str(tmp_path / "down"))
    if log:
        monkeypatch.setenv("FAKE_SSH_LOG", str(tmp_path / "ssh.log"))
