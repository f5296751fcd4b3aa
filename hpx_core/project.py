"""The project's name as pluggy knows it: hook specifications and implementations meet on it."""

PROJECT_NAME = "hpx"
