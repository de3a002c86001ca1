"""Private machinery the pipeline runs on: the cache (`cache`), the one reader of user files
(`files`), the one atomic writer (`writer`) and the bounded YAML reader (`yamlfile`). Knows
nothing of registries or pages: imports only `argmatrix.errors`. Not a public API.
"""
