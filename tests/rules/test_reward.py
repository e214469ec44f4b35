"""R-14 the reward, with the worked numbers of RULES.md and of the GM's table."""

from horizon_tui.rules.reward import equal_shares


def test_r14_four_characters_share_forty_xp_beside_an_ally():
    """R-14: 40 XP among four player characters is 10 each; an allied NPC fighting with them is not
    a player character and takes no share (it took 8, leaving the characters 8 each)."""
    assert equal_shares(40, ["Iriel", "Brakka", "Morwen", "Sefa"]) == {"Iriel": 10, "Brakka": 10, "Morwen": 10,
                                                                      "Sefa": 10}


def test_r14_what_does_not_divide_is_lost_and_the_fallen_get_nothing():
    """R-14 [H]: 41 XP between two standing characters is 20 each (1 lost); one who fell is listed with 0."""
    assert equal_shares(41, ["Iriel", "Brakka"], others=["Sefa", "Iriel"]) == {"Sefa": 0, "Iriel": 20, "Brakka": 20}


def test_r14_nobody_standing_or_a_negative_pool_gives_nothing():
    assert equal_shares(40, [], others=["Iriel"]) == {"Iriel": 0}
    assert equal_shares(-5, ["Iriel"]) == {"Iriel": 0}
