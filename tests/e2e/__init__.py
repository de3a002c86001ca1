"""Helpers for the site tests: build a MkDocs site, serve it on 127.0.0.1, drive Chromium."""
