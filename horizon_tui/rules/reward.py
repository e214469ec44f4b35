"""R-14 the reward: the player characters still standing share the defeated enemies' XP equally."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def equal_shares(pool: int, standing: Sequence[str], others: Iterable[str] = ()) -> dict[str, int]:
    """R-14 [H]: each of the `standing` player characters gets pool ÷ their number, rounded down
    (what doesn't divide is lost); `others` (characters who fell) are listed with 0. Allied NPCs
    are not player characters and take no share: a 40 XP pool among four characters beside an
    ally gives 10 each. A negative pool gives nothing."""
    share = max(0, pool) // len(standing) if standing else 0
    shares = {name: 0 for name in others}
    shares.update({name: share for name in standing})
    return shares
