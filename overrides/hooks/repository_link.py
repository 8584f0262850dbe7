"""A mkdocs hook: the site's header links to the repository it was built from.

mkdocs-material draws a repository link (name, icon, stars) in the header when
`repo_url` is set. minigrad's public address is not written into mkdocs.yml, where a
fork or a course's copy would show the wrong one; it is taken, in this order, from

1. the environment variable MINIGRAD_REPO_URL (for a publishing job), or
2. the checkout itself: `git remote get-url origin`, when that is a web address
   (https://host/owner/repo(.git)) or an ssh one (git@host:owner/repo.git), turned into
   the repository's https page.

A build from a checkout with no such remote (a local clone, a tarball) has no link.
"""

import os
import re
import subprocess
from pathlib import Path

SSH = re.compile(r"^(?:ssh://)?git@(?P<host>[\w.-]+)[:/](?P<path>[\w./-]+?)(?:\.git)?/?$")
HTTPS = re.compile(r"^https?://(?:[^@/]+@)?(?P<host>[\w.:-]+)/(?P<path>[\w./-]+?)(?:\.git)?/?$")


def web_address(remote):
    """The https page of a git remote, or None when the remote is no web repository
    (a local path, a file:// URL, nothing)."""
    remote = (remote or "").strip()
    for pattern in (SSH, HTTPS):
        match = pattern.match(remote)
        if match:
            return f"https://{match['host']}/{match['path']}"
    return None


def origin_of(folder):
    """`git remote get-url origin` of the checkout holding `folder`, or None."""
    try:
        result = subprocess.run(
            ["git", "-C", str(folder), "remote", "get-url", "origin"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):  # no git on this machine
        return None
    return result.stdout if result.returncode == 0 else None


def on_config(config):
    url = os.environ.get("MINIGRAD_REPO_URL") or web_address(
        origin_of(Path(config.config_file_path).parent)
    )
    if url:
        config.repo_url = url
        config.repo_name = url.rstrip("/").rsplit("/", 1)[-1]
    return config
