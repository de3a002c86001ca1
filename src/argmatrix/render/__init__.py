"""Pages from the resolved model: the one render path shared by `generate`, `check` and every
engine adapter.

`pages.render_project` renders every configured page; `views` builds the page model handed to
templates, and `tables` the tables every format writes out; `environment` reads templates (the
project's, then the bundled ones in `templates/`) into the sandboxed Jinja environment of
`sandbox`; `inplace` regenerates the marked regions of hand-written pages; `formats` holds one
module per output format (escaping and table cells) and the list of them, `FORMATS`.
May import config, manifests, loaders' model types, _runtime, model, errors. `formats` is a layer
below config (which reads the format names) and imports only the model.
"""
