"""`textual run --dev horizon_tui.ui.player.dev`: the player app under Textual's devtools console.

Saves go where `horizon` puts them (the user data folder, or `$HORIZON_DATA_DIR`).
"""

from horizon_tui.paths import default_saves_dir
from horizon_tui.ui.player.app import create_app

app = create_app(default_saves_dir())
