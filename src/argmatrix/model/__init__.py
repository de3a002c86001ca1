"""The model: what every loader produces and every renderer, check and adoption command reads.

Pure data and pure functions, no I/O, so every front end (the command line, the MkDocs plugin,
tests, engine adapters to come) shares it. `registry` holds the arguments of a registry and
their JSON form, `platform` what a manifest says of a platform, `findings` what checks report,
`values` how a value reads to a person, `pairing` which arguments of two registries are one
and the same. Imports nothing of argmatrix but `errors`.
"""
