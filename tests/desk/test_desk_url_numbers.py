"""Table and round numbers in the desk's URLs: ``/table/-1.json`` and ``/round/99999999999.zip`` were answered 400
"is not a whole number" (-1 is one; there is no such table or round), ``/results.json?round=abc`` 200 with every
result as if nothing was asked, ``/table/².json`` 500 (a digit to str.isdigit, not to int), and table 1000000, a
table the desk takes messages from, 400. Now what is no whole number is 400 naming it, a whole number that is no
table or round of the event 404 saying so (kiosk.desk.url_numbers), and ``?round=R`` picks that round's results."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import pytest
from common_fixtures import http_get

sys.path.insert(0, str(Path(__file__).parent))

from kiosk.desk.store import Result  # noqa: E402


@pytest.mark.parametrize(("path", "answer"), [
    ("table/-1.json", (404, "There is no table -1: tables are numbered 0 to 1000000.")),
    ("table/1000001.json", (404, "There is no table 1000001: tables are numbered 0 to 1000000.")),
    ("table/1000000.json", (404, "no table 1000000 has reported to the desk")),
    ("table/abc.json", (400, "The table must be a whole number, not 'abc'.")),
    ("table/%C2%B2.json", (400, "The table must be a whole number, not '²'.")),
    ("table/1.5.json", (400, "The table must be a whole number, not '1.5'.")),
    ("games/-3/g1.gcg", (404, "There is no table -3: tables are numbered 0 to 1000000.")),
    ("pairing/x.json", (400, "The table must be a whole number, not 'x'.")),
    ("round/99999999999.zip", (404, "There is no round 99999999999: the event's rounds are 1 to 2.")),
    ("round/0.zip", (404, "There is no round 0: the event's rounds are 1 to 2.")),
    ("round/2.zip", (404, "no finished game of round 2 yet")),
    ("round/two.zip", (400, "The round must be a whole number, not 'two'.")),
    ("round/" + "9" * 5000 + ".zip", (404, f"There is no round {'9' * 40}...: the event's rounds are 1 to 2.")),
    ("results.json?round=abc", (400, "The round must be a whole number, not 'abc'.")),
    ("results.json?round=", (400, "The round must be a whole number, not ''.")),
    ("results.json?round=3", (404, "There is no round 3: the event's rounds are 1 to 2.")),
    ("results.csv?round=-1", (404, "There is no round -1: the event's rounds are 1 to 2.")),
    ("tsh/A.t?round=x", (400, "The round must be a whole number, not 'x'.")),
])
def test_a_number_that_names_no_table_or_round_is_said_so(desk, path, answer):
    assert http_get(desk.url + path) == answer


def test_results_of_one_round(desk):
    for rnd, board in ((1, 1), (1, 2), (2, 1)):
        desk.store.record_result(Result(board, f"g{rnd}{board}", rnd, "A", (("Ann", 400), ("Bob", 350)), "nsf",
                                        "out_play", "", 30, 1))
    code, text = http_get(desk.url + "results.json?round=1")
    assert code == 200 and [(r["round"], r["board"]) for r in json.loads(text)] == [(1, 1), (1, 2)]
    code, text = http_get(desk.url + "results.json")
    assert code == 200 and len(json.loads(text)) == 3
    code, text = http_get(desk.url + "results.csv?round=2")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert code == 200 and [(r["round"], r["board"]) for r in rows] == [("2", "1")]
