"""``kiosk demo --game`` on a 3-player record with a failed challenge by the third player: the demo's challenger is
the one the line names (it picked the player after the one who played: "Ann cannot hold or challenge his own play"
after an earlier fix, Bob before it), and '(challenge) -10' is the challenger's penalty, not a challenge bonus of
-10 for the player challenged (Ann 56 where the record has 66)."""

from __future__ import annotations

from kiosk.app.record_demo import DemoOptions, run_demo
from kiosk.app.record_players import plan_record
from kiosk.rules.gcg import parse_gcg

THREE = """#player1 Ann Ann
#player2 Bob Bob
#player3 Cy Cy
>Ann: AEINRST 8D RETAINS +66 66
>Cy: (challenge) -10 -10
>Bob: ABCDEFG - +0 0
>Cy: EIOUVWY - +0 -10
"""


def test_the_as_recorded_preset_charges_a_failed_challenge_to_the_challenger():
    challenge = plan_record(parse_gcg(THREE, "three.gcg")).preset.challenge
    assert (challenge.wrong_penalty, challenge.wrong_bonus) == (10, 0)


def test_the_demo_plays_a_third_players_failed_challenge_as_recorded(tmp_path):
    game = tmp_path / "three.gcg"
    game.write_text(THREE)
    lines: list[str] = []
    run_demo(DemoOptions(game=game, journal=tmp_path / "j.sqlite", size=(1014, 760)), out=lines.append)
    said = "\n".join(lines)
    assert "  2 Cy: failed challenge penalty -10 = -10  ok" in said and "cannot hold or challenge" not in said, said
    assert "the record has challenge by Cy, the kiosk recorded" not in said, said
    # the record stops before the game is over: the table stands at the record's last totals
    assert "not finished: Ann 66, Bob 0, Cy -10" in said, said
