"""End-of-game rack arithmetic (kiosk.rules.racks): each preset rule, named by its seed sheet."""

from collections import Counter

import pytest

from kiosk.rules.board import Board
from kiosk.rules.racks import NoOutAdjustment, OutAdjustment, rack_adjustments, rack_string, split_racks, unseen_tiles
from kiosk.rules.tiles import ENGLISH


@pytest.mark.parametrize("values, went_out, out_rule, no_out_rule, expect", [
    ((0, 12), 0, OutAdjustment.STANDARD, NoOutAdjustment.OWN_RACK, [12, -12]),     # WESPA: +N / -N
    ((0, 12), 0, OutAdjustment.DOUBLE, NoOutAdjustment.OWN_RACK, [24, 0]),         # NASPA, nsf III.C.1: 2x
    ((0, 12, 5), 0, OutAdjustment.STANDARD, NoOutAdjustment.OWN_RACK, [17, -12, -5]),  # team: all racks
    ((0, 12), 0, OutAdjustment.OWN_ONLY, NoOutAdjustment.OWN_RACK, [0, -12]),      # home
    ((0, 12), 0, OutAdjustment.NONE, NoOutAdjustment.NONE, [0, 0]),                # club-reading scoring 6
    ((7, 12), None, OutAdjustment.DOUBLE, NoOutAdjustment.OWN_RACK, [-7, -12]),    # six scoreless: own racks
    ((7, 12), None, OutAdjustment.STANDARD, NoOutAdjustment.NONE, [0, 0]),
])
def test_rules_rack_adjustments_per_rule(values, went_out, out_rule, no_out_rule, expect):
    assert rack_adjustments(values, went_out, out_rule, no_out_rule) == expect
    # presets hold the rules as plain strings: the same arithmetic
    assert rack_adjustments(values, went_out, str(out_rule), str(no_out_rule)) == expect


def test_rules_unseen_tiles_and_racks_written_out():
    b = Board()
    b.place([(112, "Q"), (113, "i")])  # a blank designated as I counts as a blank
    unseen = unseen_tiles(ENGLISH, b.cells)
    assert sum(unseen.values()) == 98 and unseen["Q"] == 0 and unseen["?"] == 1 and unseen["I"] == 9
    assert rack_string(Counter("?QEA?")) == "AEQ??"
    assert split_racks(Counter("?ZEAB"), (2, 3)) == ("AB", "EZ?")
