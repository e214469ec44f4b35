"""`horizon scores` as text: the ranked pace's table first, other paces after, each said."""

from __future__ import annotations

from pathlib import Path

from horizon_tui.play.runs.scores import scores_text

BRISK = {"party": ["Sefa"], "levels": [2], "depth": 2, "score": 80, "pace": "brisk", "seed": 42,
         "cause": "Sefa fell to Grey Wolf 2 (Rending Bite)"}


def test_with_no_run_at_the_ranked_pace_it_says_so_rather_than_an_empty_table():
    text = scores_text([BRISK], False, "source", Path("/x/hall.json"))
    lines = text.splitlines()
    assert lines[:2] == ["Hall of fame (ranked pace: source)", "No run at the ranked pace (source) yet."]
    assert "Other paces (not ranked with the above)" in text and "Sefa fell to Grey Wolf 2" in text
    ranked = scores_text([dict(BRISK, pace="source")], False, "source", Path("/x/hall.json"))
    assert ranked.splitlines()[1].startswith("#  party") and "Other paces" not in ranked
