"""Static reading of Click: the facts of a command (`loaders.clicks.CommandFacts`) from its
decorators and calls, as Click would build it. `entry` says which command a target names (Typer's
reader handed in, for an app or a function it registers or runs), `clicks` reads one command or
group, `click_scan` finds a module's commands, `click_registrations` what registers on them
elsewhere, `click_params` and `click_types` one parameter and its type; `framework_values` and
`framework_calls` are the calls of Click and Typer the interpreter records as values in such a
read (Typer's objects are Click's underneath)."""
