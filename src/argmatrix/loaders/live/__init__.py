"""Live loading: import the registry's module and let it build its parser, stopped where it
would parse (`importing`, in a process of its own: `process`), under the registry's settings
(`settings`); one reader per framework, each reading its objects without running them:
`argparse_parsers` (every `add_argument` call recorded, with the declared field a generic
helper is at: `declared_fields`), `click_commands` and `typer_apps`;
stand-ins for heavy modules that are not installed (`mocking`, `versions`), and what a failing
import says (`failures`). This runs the registry's code: never use it on untrusted code.
"""
