"""A desk database that cannot be created leaves nothing behind and says why in words: under `ulimit -f 24` the
desk said 'cannot open the desk database: disk I/O error' and left a 4 KB desk.sqlite with its -wal and -shm."""

from __future__ import annotations

import pytest
from common_fixtures import file_size_limit

from kiosk.desk.store import ResultsStore, StoreError

REFUSED = "the disk refused the write (file size limit or disk full)"


def test_a_file_size_limit_leaves_no_half_built_desk_database_and_says_so_in_words(tmp_path):
    path = tmp_path / "desk" / "desk.sqlite"
    with file_size_limit(24), pytest.raises(StoreError) as info:
        ResultsStore(path)
    assert str(info.value) == f"{path}: cannot create the desk database: {REFUSED}"
    assert sorted(p.name for p in path.parent.iterdir()) == ["desk.sqlite.lock"]   # the lock file stays
    store = ResultsStore(path)       # once the limit is lifted, the database is made as usual (the lock released)
    assert store.results() == []
    store.close()
