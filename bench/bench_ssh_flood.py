"""A flood of idle connections from one loopback address while another logs in.

    .venv/bin/python bench/bench_ssh_flood.py --port 2301 --key ~/.ssh/id_ed25519 --user alice

Opens `--count` TCP connections to the host from `--flood-from` (127.0.0.3) that never say a
word, keeps them up to `--hold` seconds, and meanwhile logs in with the real OpenSSH client from
`--login-from` (127.0.0.2) `--logins` times, timing each login (until the host's refusal of the
command `true`, which it sends only once the key is accepted). Prints how many flood connections
the host dropped at once, how many it let wait and when it closed those (the login grace time),
and the login times. With `--reconnect` every flood connection is reopened as soon as it is
dropped (at most `--max-attempts` in all). Only loopback addresses are allowed; the counts and
times are bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import os
import shutil
import statistics
import sys
import time


def loopback(text: str) -> str:
    if not ipaddress.ip_address(text).is_loopback:
        raise argparse.ArgumentTypeError(f"{text} is not a loopback address; this floods only this machine")
    return text


async def hold_one(host: str, port: int, source: str, hold: float, started: float) -> tuple[str, float]:
    """('refused'|'dropped'|'closed'|'open', seconds after the flood began)."""
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port, local_addr=(source, 0)), 5)
    except (TimeoutError, OSError):
        return "refused", time.monotonic() - started
    opened = time.monotonic()
    try:
        while True:
            data = await asyncio.wait_for(reader.read(4096), hold - (time.monotonic() - started))
            if not data:
                ended = time.monotonic()
                return ("dropped" if ended - opened < 1.0 else "closed"), ended - started
    except (TimeoutError, ValueError):
        return "open", time.monotonic() - started
    except OSError:
        ended = time.monotonic()
        return ("dropped" if ended - opened < 1.0 else "closed"), ended - started
    finally:
        writer.close()


async def keep_reconnecting(host: str, port: int, source: str, hold: float, started: float,
                            budget: list[int]) -> int:
    """Reopen as soon as the host drops us, until `hold` seconds or the shared attempt budget end."""
    attempts = 0
    while time.monotonic() - started < hold and budget[0] > 0:
        budget[0] -= 1
        attempts += 1
        kind, _ = await hold_one(host, port, source, hold, started)
        if kind == "open":
            break
    return attempts


async def login(argv: list[str]) -> tuple[float, int, str]:
    began = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(process.communicate(), 30)
    return time.monotonic() - began, process.returncode, out.decode(errors="replace").strip()


async def main(args) -> int:
    ssh = shutil.which("ssh")
    if ssh is None:
        print("the OpenSSH client (ssh) is not installed", file=sys.stderr)
        return 1
    argv = [ssh, "-F", "/dev/null", "-p", str(args.port), "-b", args.login_from, "-i", args.key,
            "-o", "IdentitiesOnly=yes", "-o", "StrictHostKeyChecking=no",
            "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR",
            "-o", "ConnectTimeout=10", f"{args.user}@{args.host}", "true"]
    started = time.monotonic()
    flood = []
    budget = [args.max_attempts]
    for _ in range(args.count):  # one after another, as fast as the host accepts them
        if args.reconnect:
            job = keep_reconnecting(args.host, args.port, args.flood_from, args.hold, started, budget)
        else:
            job = hold_one(args.host, args.port, args.flood_from, args.hold, started)
        flood.append(asyncio.ensure_future(job))
        await asyncio.sleep(0)
    await asyncio.sleep(args.settle)
    times = []
    for _ in range(args.logins):
        seconds, _code, out = await login(argv)
        logged_in = "commands are not allowed" in out
        times.append(seconds)
        print(f"login from {args.login_from}: {seconds:.3f} s, {'logged in' if logged_in else 'FAILED: ' + out}")
        await asyncio.sleep(0.2)
    results = await asyncio.gather(*flood)
    if args.reconnect:
        attempts = sum(results)
        print(f"flood from {args.flood_from}: {args.count} connections reopened as soon as dropped: "
              f"{attempts} attempts in {time.monotonic() - started:.1f} s")
        print(f"logins: median {statistics.median(times):.3f} s, max {max(times):.3f} s (n={len(times)})")
        return 0
    counts = {kind: sum(1 for k, _ in results if k == kind) for kind in ("refused", "dropped", "closed", "open")}
    closed_at = sorted(t for k, t in results if k == "closed")
    print(f"flood from {args.flood_from}: {args.count} connections: {counts}")
    if closed_at:
        print(f"  the ones let wait were closed {closed_at[0]:.1f}-{closed_at[-1]:.1f} s after the flood began")
    print(f"logins: median {statistics.median(times):.3f} s, max {max(times):.3f} s (n={len(times)})")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", type=loopback, default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--user", default="alice")
    parser.add_argument("--key", default=os.path.expanduser("~/.ssh/id_ed25519"))
    parser.add_argument("--flood-from", type=loopback, default="127.0.0.3")
    parser.add_argument("--login-from", type=loopback, default="127.0.0.2")
    parser.add_argument("--count", type=int, default=200, choices=range(1, 1001), metavar="N (1-1000)")
    parser.add_argument("--hold", type=float, default=15.0, help="seconds (at most 60)")
    parser.add_argument("--settle", type=float, default=0.5, help="seconds between the flood and the first login")
    parser.add_argument("--reconnect", action="store_true",
                        help="each flood connection is reopened as soon as the host drops it")
    parser.add_argument("--max-attempts", type=int, default=50_000, choices=range(1, 200_001),
                        metavar="N (at most 200000)", help="connection attempts in all, with --reconnect")
    parser.add_argument("--logins", type=int, default=5, choices=range(1, 51), metavar="N (1-50)")
    parsed = parser.parse_args()
    parsed.hold = min(parsed.hold, 60.0)
    sys.exit(asyncio.run(main(parsed)))
