"""The SSH front end of the host (`horizon serve-ssh`): each player gets the player app on a PTY.

Modules: `hostkey`, `channel` (one SSH channel: a `host.game.GameSession` carried over SSH),
`server` (the listener, one object per connection, and the host's shared state: accounts,
limits, sessions; `--web` starts `host.web` on the same loop), `ssh_commands` (the CLI). State
lives on the `SSHHost`, its connections and sessions; nothing is kept in module globals.
"""
