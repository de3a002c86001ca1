"""The Python-Markdown extension, under its public name: `markdown_extensions: [argmatrix]` in
mkdocs.yml (Zensical, MkDocs, ProperDocs), or
`markdown.markdown(text, extensions=["argmatrix.markdown"])`. See
`argmatrix.integrations.markdown`."""

from __future__ import annotations

from argmatrix.integrations.markdown import ArgmatrixExtension, DirectiveError, makeExtension

__all__ = ["ArgmatrixExtension", "DirectiveError", "makeExtension"]
