"""Registries into the model: a registry source in, a `model.registry.Registry` out.

`load` says where a registry comes from (`RegistrySpec`) and reads it with its mode's reader
(`readers`); `modes` describes each mode once (`LOADERS`) and what built the registry
(`FRAMEWORKS`);
`live/` imports the project's code and records its parser, `static/` reads its source without
importing it, `snapshot` reads a JSON snapshot. Live and static both end in `convert`, the one
converter from an argparse parser to the model; `sections` names sections after comments.
May import `_runtime`, `model` and `errors` only.
"""
