"""The SSH host (`horizon serve-ssh`): each player gets the player app on a PTY, nothing else.

Modules: `accounts` (user names, authorized keys, folders), `hostkey`, `limits` (failed logins,
session slots), `pty_process` (a child on its own pseudo-terminal), `session` (one SSH channel),
`server` (the listener and one object per connection), `commands` (the CLI). State lives on the
`SSHHost`, its connections and sessions; nothing is kept in module globals.
"""
