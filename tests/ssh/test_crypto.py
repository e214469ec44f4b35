"""Modern cryptography only: ssh-audit finds no [fail] in what the host
offers; clients that can speak only old key exchanges, ciphers or MACs are turned away; accounts
take only ed25519 keys and RSA keys of 3072 bits or more."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path

import asyncssh
import pytest
from openssh_kit import needs_openssh, run_ssh

from horizon_tui.cli import main
from horizon_tui.host.ssh.server import modern_crypto

SSH_AUDIT = shutil.which("ssh-audit") or shutil.which("ssh-audit", path=str(Path(sys.executable).parent))


@pytest.mark.skipif(SSH_AUDIT is None, reason="ssh-audit is not installed (pip install -e '.[dev]')")
async def test_ssh_audit_finds_no_fail(start_host):
    host = await start_host()
    process = await asyncio.create_subprocess_exec(
        SSH_AUDIT, "-j", "--skip-rate-test", "-t", "10", "-p", str(host.port), "127.0.0.1",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert out, err.decode(errors="replace")
    report = json.loads(out)
    offered = {kind: [entry["algorithm"] for entry in report[kind]] for kind in ("kex", "key", "enc", "mac")}
    failing = [(kind, entry["algorithm"], entry["notes"]["fail"])
               for kind in ("kex", "key", "enc", "mac") for entry in report[kind]
               if entry.get("notes", {}).get("fail")]
    assert failing == []
    assert process.returncode in (0, 2)  # 2: warnings only (curve25519 is not post-quantum)
    assert offered["key"] == ["ssh-ed25519"]
    assert "mlkem768x25519-sha256" in offered["kex"] and "curve25519-sha256" in offered["kex"]
    assert not [k for k in offered["kex"] if "nistp" in k or "sha1" in k or k.startswith("diffie")]
    assert set(offered["enc"]) == {"chacha20-poly1305@openssh.com", "aes256-gcm@openssh.com",
                                   "aes128-gcm@openssh.com"}
    assert all(mac.endswith("-etm@openssh.com") for mac in offered["mac"])
    assert report["cves"] == []


def test_the_offer_is_what_the_hardening_guide_keeps():
    crypto = modern_crypto()
    assert crypto["kex_algs"][0] == "mlkem768x25519-sha256"  # post-quantum hybrid first
    assert "curve25519-sha256" in crypto["kex_algs"]
    assert crypto["mac_algs"] == ("hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com",
                                  "umac-128-etm@openssh.com")


@needs_openssh
@pytest.mark.parametrize("option, refusal", [
    ("KexAlgorithms=diffie-hellman-group14-sha1,ecdh-sha2-nistp256", "no matching key exchange method"),
    ("Ciphers=aes128-ctr,aes256-cbc", "no matching cipher"),
    ("HostKeyAlgorithms=ecdsa-sha2-nistp256,rsa-sha2-512", "no matching host key type"),
])
async def test_a_client_with_only_old_algorithms_is_turned_away(start_host, ssh_command, tmp_path, option, refusal):
    host = await start_host()
    code, out = await run_ssh(ssh_command(host.port, "-o", "LogLevel=INFO", "-o", option), tmp_path, "true")
    assert code == 255 and refusal in out


async def test_an_asyncssh_client_offering_only_sha1_macs_with_ctr_is_turned_away(start_host, user_keys):
    host = await start_host()
    with pytest.raises((asyncssh.KeyExchangeFailed, asyncssh.Error, ConnectionError)):
        await asyncssh.connect("127.0.0.1", host.port, username="alice", client_keys=[user_keys["alice"]],
                               known_hosts=None, agent_path=None, config=None,
                               encryption_algs=["aes128-ctr"], mac_algs=["hmac-sha1"])


@pytest.mark.parametrize("kind, size, refusal", [
    ("ecdsa-sha2-nistp256", None, "ecdsa-sha2-nistp256 keys are not accepted here; make one with `ssh-keygen -t ed25519`"),
    ("ssh-rsa", 2048, "an RSA key of 2048 bits is too short (at least 3072)"),
])
def test_users_add_refuses_old_or_short_keys(tmp_path, capsys, kind, size, refusal):
    key = asyncssh.generate_private_key(kind, **({"key_size": size} if size else {}))
    pub = tmp_path / "old.pub"
    pub.write_bytes(key.export_public_key("openssh"))
    assert main(["users", "add", "alice", "--key", str(pub), "--data-dir", str(tmp_path / "srv")]) == 1
    assert f"{pub}:1: {refusal}" in capsys.readouterr().err
    assert not (tmp_path / "srv" / "users" / "alice" / "authorized_keys").exists()


def test_users_add_takes_a_3072_bit_rsa_key(tmp_path, capsys):
    pub = tmp_path / "rsa.pub"
    pub.write_bytes(asyncssh.generate_private_key("ssh-rsa", key_size=3072).export_public_key("openssh"))
    assert main(["users", "add", "alice", "--key", str(pub), "--data-dir", str(tmp_path / "srv")]) == 0
    assert "added user alice" in capsys.readouterr().out


async def test_a_weak_key_written_into_authorized_keys_by_hand_lets_nobody_in(start_host, server_dir):
    host = await start_host()
    weak = asyncssh.generate_private_key("ecdsa-sha2-nistp256")
    keys = server_dir / "users" / "alice" / "authorized_keys"
    keys.write_bytes(keys.read_bytes() + weak.export_public_key("openssh"))
    with pytest.raises(asyncssh.PermissionDenied):
        await asyncssh.connect("127.0.0.1", host.port, username="alice", client_keys=[weak],
                               known_hosts=None, agent_path=None, config=None)
