"""git in a test's own repository: one author and one date, so that commits made the same way get the
same ids on every machine."""

import os
import subprocess

_IDENTITY = dict(GIT_AUTHOR_NAME="a", GIT_AUTHOR_EMAIL="a@example.org", GIT_COMMITTER_NAME="a",
                 GIT_COMMITTER_EMAIL="a@example.org", GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
                 GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")


def git(repo, *args):
    """Runs `git -C repo args...` and returns its standard output, stripped; raises on failure."""
    return subprocess.run(["git", "-C", str(repo)] + list(args), check=True, capture_output=True, text=True,
                          env=dict(os.environ, **_IDENTITY)).stdout.strip()
