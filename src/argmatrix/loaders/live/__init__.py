"""Live loading: import the registry's module, let it build its parser and record every
`add_argument` call (`importing`); stand in for heavy modules that are not installed
(`mocking`). This runs the registry's code: never use it on untrusted code.
"""
