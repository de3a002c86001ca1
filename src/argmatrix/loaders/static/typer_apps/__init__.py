"""Static reading of Typer: an app, its commands, callback and sub-apps (`typers`), and the
parameters Typer makes of a function's signature (`typer_params`), read into Click's facts."""
