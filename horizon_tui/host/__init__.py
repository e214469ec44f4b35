"""Hosts on top of it all: the game session every front end shares (`game`, with `pty_process`,
`prefork`, `live`, `recording`, `watch`, `motd`, `limits`), the SSH front end (`ssh/`) and the
browser front end (`web/`), which `horizon serve-ssh --web` runs on the SSH host's event loop."""
