"""`textual run --dev horizon_tui.ui.gm.dev`: the GM tool under Textual's devtools console.

Campaigns go where `horizon gm` puts them (the user data folder, or `$HORIZON_DATA_DIR`).
"""

from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.paths import default_saves_dir

app = create_gm_app(default_saves_dir())
