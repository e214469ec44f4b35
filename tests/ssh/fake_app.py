"""A stand-in for the player app, so the SSH machinery is tested fast and deterministically.

Run as `python fake_app.py --saves-dir DIR` on a PTY. Prints MAIN MENU, its saves folder and the
files in it, the terminal size and type, its environment's names, its pid and whether the PTY is
its controlling terminal; then echoes each key as `KEY '<k>'`, prints `SIZE WxH` on SIGWINCH,
quits with status 3 on `q` and 10 (WATCH_EXIT: "Watch a game") on `w`; when hosted
(HORIZON_SESSION set) it writes its app status file (character FAKE-HERO, screen from the last
`s` key) and prints REDRAW on SIGUSR1, as the real app redraws; `r` refuses watchers. On SIGTERM writes `saved-on-sigterm` into the saves folder,
prints SAVED and exits 0 (as the real app saves on SIGTERM). With `--ignore-term` it ignores
SIGTERM instead: a hung app.
"""

import fcntl
import json
import os
import signal
import struct
import sys
import termios
import tty
from pathlib import Path

saves = Path(sys.argv[sys.argv.index("--saves-dir") + 1])


def say(text: str) -> None:
    os.write(1, (text + "\r\n").encode())


def size() -> str:
    rows, cols, _, _ = struct.unpack("HHHH", fcntl.ioctl(0, termios.TIOCGWINSZ, b"\0" * 8))
    return f"{cols}x{rows}"


def on_winch(signum, frame):
    say(f"SIZE {size()}")


STATUS = os.environ.get("HORIZON_SESSION")
app_status = {"character": "FAKE-HERO", "screen": "Main menu", "watchers": "allow", "redraw": "SIGUSR1"}


def write_status():
    if STATUS:
        path = Path(STATUS[:-len(".json")] + ".app.json")
        path.write_text(json.dumps(app_status))


def on_usr1(signum, frame):
    say("REDRAW")


def on_term(signum, frame):
    (saves / "saved-on-sigterm").write_text("saved\n")
    say("SAVED")
    os._exit(0)


signal.signal(signal.SIGWINCH, on_winch)
signal.signal(signal.SIGUSR1, on_usr1)
write_status()
signal.signal(signal.SIGTERM, signal.SIG_IGN if "--ignore-term" in sys.argv else on_term)
with open(saves / "launches.log", "a") as log:
    log.write(f"{os.getpid()}\n")
tty.setraw(0)
ctty = os.tcgetpgrp(0) == os.getpgrp()
say("MAIN MENU")
say(f"SAVES {saves}")
say(f"FILES {','.join(sorted(p.name for p in saves.iterdir() if p.name != 'launches.log'))}")
say(f"SIZE {size()}")
say(f"TERM {os.environ.get('TERM')} COLORTERM {os.environ.get('COLORTERM', '-')}")
say(f"ENV {','.join(sorted(os.environ))}")
say(f"CWD {os.getcwd()}")
say(f"CTTY {ctty}")
say(f"PID {os.getpid()}")
say("READY")
while True:
    data = os.read(0, 1024)
    if not data or data == b"q":
        say("BYE")
        sys.exit(3)
    if data == b"w":
        sys.exit(10)
    if data == b"r":
        app_status["watchers"] = "refuse"
        write_status()
    if data == b"s":
        app_status["screen"] = "Sheet"
        write_status()
    say(f"KEY {data.decode(errors='replace')!r}")
