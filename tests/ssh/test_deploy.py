"""deploy/horizon-ssh.service: its command line is one `serve-ssh` accepts,
it runs as its own user with a private data folder, and systemd finds nothing else wrong."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from horizon_tui.cli import build_parser

UNIT = Path(__file__).resolve().parents[2] / "deploy" / "horizon-ssh.service"


def directives() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in UNIT.read_text().splitlines():
        if line and not line.startswith(("#", "[")) and "=" in line:
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def test_the_units_command_line_is_one_serve_ssh_accepts():
    (exec_start,) = directives()["ExecStart"]
    argv = shlex.split(exec_start)
    assert argv[0].endswith("/horizon")
    args = build_parser().parse_args(argv[1:])
    assert args.command == "serve-ssh" and args.host == "0.0.0.0"
    assert str(args.data_dir).startswith("/var/lib/horizon")
    assert (args.login_grace_time, args.max_startups_per_source, args.max_connections_per_user) == (10, 3, 4)


def test_the_unit_runs_as_its_own_user_with_a_private_folder():
    d = directives()
    assert d["User"] == ["horizon"] and d["UMask"] == ["0077"] and d["StateDirectoryMode"] == ["0700"]
    assert d["KillSignal"] == ["SIGTERM"] and d["KillMode"] == ["mixed"]
    assert d["NoNewPrivileges"] == ["yes"] and d["ProtectSystem"] == ["strict"]
    assert d["CapabilityBoundingSet"] == [""]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_finds_nothing_wrong_but_the_missing_install(tmp_path):
    unit = tmp_path / UNIT.name
    unit.write_text(UNIT.read_text())
    result = subprocess.run(["systemd-analyze", "verify", "--man=no", str(unit)],
                            capture_output=True, text=True, timeout=60)
    problems = [line for line in (result.stdout + result.stderr).splitlines()
                if line.strip() and "/opt/horizon/bin/horizon is not executable" not in line]
    assert problems == []
