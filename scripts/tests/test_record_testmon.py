"""record_testmon.py keeps its clone across sittings; commits recorded after it was made (new mutants)
are fetched from the history's repository instead of failing the checkout."""

import sys

from git_repo import git
from plugin_under_test import SCRIPTS

sys.path.insert(0, SCRIPTS)
import record_testmon  # noqa: E402


def test_a_commit_recorded_after_the_clone_is_fetched(tmp_path):
    source = tmp_path / "source"
    git(tmp_path, "init", "-q", str(source))
    (source / "f.py").write_text("x = 1\n")
    git(source, "add", "f.py")
    git(source, "commit", "-q", "-m", "base")
    base = git(source, "rev-parse", "HEAD")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--no-checkout", str(source), str(clone))
    # A mutant recorded later, on a branch of its own, as the recorder keeps them.
    git(source, "checkout", "-q", "-b", "mutant/1")
    (source / "f.py").write_text("x = 2\n")
    git(source, "commit", "-q", "-am", "mutant")
    mutant = git(source, "rev-parse", "HEAD")

    assert record_testmon.fetch_missing(str(clone), str(source), [base, mutant]) == [mutant]
    assert git(clone, "cat-file", "-t", mutant) == "commit"
    assert record_testmon.fetch_missing(str(clone), str(source), [base, mutant]) == []
