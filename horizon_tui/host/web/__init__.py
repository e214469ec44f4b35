"""The browser front end of the host (`horizon serve-ssh --web`): `server` (the aiohttp server
on the SSH host's loop, a `host.game.GameSession` per browser game), `logins` (one-time links and
session cookies, stored hashed) and `static/` (the page: xterm.js and DejaVu Sans Mono vendored,
licences kept beside them)."""
