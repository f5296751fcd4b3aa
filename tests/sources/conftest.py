"""Fixtures for the source tests; the repositories are built by :mod:`gitrepos`."""

from __future__ import annotations

from gitrepos import git_env, upstream, upstream_repos

__all__ = ["git_env", "upstream", "upstream_repos"]
