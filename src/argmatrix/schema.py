"""JSON Schemas argmatrix publishes: the capability manifest, the configuration, check findings."""

from __future__ import annotations

import json
from typing import Any

from argmatrix.config import (
    CHECK_KEYS,
    CHECK_KINDS,
    COMPATIBILITY_KEYS,
    COMPUTED_FIELDS,
    COVERAGE_KEYS,
    ENVIRONMENT_KEYS,
    MAX_COLUMNS,
    PAGE_KEYS,
    REGISTRY_KEYS,
    SEVERITIES,
    STABILITY_KEYS,
    STABILITY_TAGS,
)
from argmatrix.loaders.modes import MODES
from argmatrix.manifests.load import ENTRY_KEYS, SECTION_ENTRY_KEYS, TOP_KEYS
from argmatrix.model.platform import NEEDS_REASON, STATUSES
from argmatrix.render.formats import FORMATS, default_rule, described

_STATUS = {
    "type": "string",
    "enum": list(STATUSES),
    "description": "supported, experimental, planned, unsupported (needs a reason),"
    " not-applicable (needs a reason) or unverified.",
}
_REASON_RULE = {
    "if": {"properties": {"status": {"enum": sorted(NEEDS_REASON)}}, "required": ["status"]},
    "then": {"required": ["reason"], "properties": {"reason": {"minLength": 1}}},
}


def _entry(keys: tuple[str, ...]) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "status": _STATUS,
        "variants": {
            "type": "array",
            "items": {"type": "string"},
            "minItems": 1,
            "description": "Narrow a supported or experimental status to these variants.",
        },
        "options": {
            "type": "array",
            "description": "The subset of the registry's choices that work on this platform.",
        },
        "default": {"description": "The default on this platform, where it differs."},
        "note": {"type": "string", "description": "A remark shown next to the status."},
        "reason": {
            "type": "string",
            "description": "Why it is not supported; required for"
            " unsupported and not-applicable, and the heading they are grouped under.",
        },
        "computed_default": {
            "type": "string",
            "minLength": 1,
            "description": "The default is computed at run time on this platform: a short"
            " text said instead of the value (not with 'default').",
        },
        "review": {
            "enum": ["needed"],
            "description": "Written by `argmatrix import` where it could not know: pages say"
            " the entry is not reviewed and `check` reports it (needs-review) until a person"
            " checks it and deletes the key.",
        },
    }
    return {
        "oneOf": [
            _STATUS,
            {
                "type": "object",
                "properties": {k: properties[k] for k in keys},
                "required": ["status"],
                "additionalProperties": False,
                **_REASON_RULE,
            },
        ]
    }


MANIFEST_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://argmatrix.invalid/schema/manifest.json",
    "title": "argmatrix capability manifest",
    "description": "What one hardware platform supports of a server's arguments.",
    "type": "object",
    "required": ["platform"],
    "additionalProperties": False,
    "properties": {
        "platform": {
            "type": "string",
            "pattern": "^[A-Za-z0-9][A-Za-z0-9_.-]*$",
            "description": "Short name pages refer to (`platform:` of a page).",
        },
        "title": {"type": "string", "description": "Name shown to readers, e.g. Ascend NPU."},
        "description": {"type": "string", "description": "Text shown under the page title."},
        "variants": {
            "type": "array",
            "items": {"type": "string"},
            "uniqueItems": True,
            "description": "Hardware generations, e.g. [A2, A3]; an entry may narrow"
            " a status to some of them.",
        },
        "default": {
            "type": "string",
            "enum": [s for s in STATUSES if s not in NEEDS_REASON],
            "description": "Status of every argument not named below. Without it,"
            " `check` reports each unclassified argument.",
        },
        "sections": {
            "type": "object",
            "additionalProperties": _entry(SECTION_ENTRY_KEYS),
            "description": "A status for every argument of a registry section.",
        },
        "arguments": {
            "type": "object",
            "additionalProperties": _entry(ENTRY_KEYS),
            "description": "Entries keyed by any of an argument's flags; they win"
            " over section entries and the default.",
        },
    },
}
assert set(MANIFEST_SCHEMA["properties"]) == set(TOP_KEYS)

# checks.compatibility: the command line held to a baseline snapshot (checks/compatibility.py).
_COMPATIBILITY: dict[str, Any] = {
    "type": "object",
    "description": "Fail when a change breaks a command line that worked against the baseline:"
    " an argument removed or renamed, a default changed, a choice dropped, a value refused,"
    " a new required argument.",
    "required": ["baseline"],
    "additionalProperties": False,
    "properties": {
        "baseline": {
            "type": "string",
            "minLength": 1,
            "description": "A snapshot (`argmatrix snapshot`) of the last release, relative to"
            " this file.",
        },
        "accept": {
            "type": ["object", "null"],
            "additionalProperties": {"type": "string", "minLength": 1},
            "description": "Reviewed breaking changes: the argument as `check` names it"
            " (--flag, 'serve --port') -> why its break is accepted. It may only shrink: an"
            " entry with no break to accept is a finding, and `check --fix` removes it.",
        },
    },
}
_TAG = {"enum": list(STABILITY_TAGS)}
_STABILITY: dict[str, Any] = {
    "type": "object",
    "description": "How far each argument is promised: its entry in 'arguments', else its"
    " section's in 'sections', else 'default'. The compatibility check holds only stable"
    " ones to the baseline.",
    "additionalProperties": False,
    "properties": {
        "default": {**_TAG, "description": "The tag of an argument not named (stable)."},
        "sections": {"type": "object", "additionalProperties": _TAG},
        "arguments": {
            "type": "object",
            "additionalProperties": _TAG,
            "description": "Keyed by the argument as `check` names it (--flag, 'serve --port').",
        },
    },
}
assert set(_COMPATIBILITY["properties"]) == set(COMPATIBILITY_KEYS)
assert set(_STABILITY["properties"]) == set(STABILITY_KEYS)

CONFIG_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://argmatrix.invalid/schema/config.json",
    "title": "argmatrix.yaml",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "registry": {
            "type": "object",
            "description": "Where the argparse registry comes from.",
            "required": ["target"],
            "additionalProperties": False,
            "properties": {
                "target": {
                    "type": "string",
                    "description": "module:callable returning or"
                    " filling an ArgumentParser, or a snapshot .json file.",
                },
                "mode": {
                    "enum": list(MODES),
                    "description": "live imports the target;"
                    " static reads its source; snapshot reads a JSON snapshot.",
                },
                "mock": {
                    "anyOf": [
                        {"type": "array", "items": {"type": "string"}},
                        {"const": "auto"},
                    ],
                    "description": "Live mode: stand-ins for heavy modules that are not"
                    " installed; auto: for every module that fails to import.",
                },
                "search_path": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Static mode: folders to find modules in (default sys.path).",
                },
                "parser_class": {
                    "type": "string",
                    "pattern": r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$",
                    "description": "Live mode: module:Class of the parser a filler is handed.",
                },
                "env": {
                    "type": "object",
                    "additionalProperties": {"type": ["string", "number"]},
                    "description": "Live mode: environment variables set while the registry"
                    " is imported and built.",
                },
                "argv": {
                    "type": "array",
                    "items": {"type": ["string", "number"]},
                    "description": "Live mode: sys.argv after the program name while the"
                    " registry is imported and built.",
                },
                "args": {
                    "type": "array",
                    "description": "Live mode: more positional arguments for the builder"
                    " ({call: module:callable} is what calling it returns).",
                },
                "kwargs": {
                    "type": "object",
                    "description": "Live mode: keyword arguments for the builder.",
                },
                "versions": {
                    "type": "object",
                    "additionalProperties": {"type": ["string", "integer"]},
                    "description": "Live mode: the version importlib.metadata gives the"
                    " registry's code for a distribution that is not installed (torch: 2.14.0).",
                },
                "subcommand": {
                    "anyOf": [
                        {"type": "array", "items": {"type": "string"}},
                        {"type": "string"},
                    ],
                    "description": "The subcommands from the target's parser to the"
                    " registry (serve, api_server).",
                },
            },
        },
        "manifests": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Capability manifests, one per platform.",
        },
        "docs_dir": {
            "type": "string",
            "description": "Folder page outputs are relative to (default docs).",
        },
        "templates_dir": {
            "type": "string",
            "description": "The project's own templates, looked"
            " up before the bundled ones (default templates).",
        },
        "pages": {
            "type": "array",
            "description": "Pages to generate: template, output, and platform for a support page.",
            "items": {
                "type": "object",
                "required": ["template", "output"],
                "additionalProperties": False,
                "properties": {
                    "template": {"type": "string"},
                    "output": {"type": "string"},
                    "platform": {"type": "string"},
                    "title": {"type": "string"},
                    "options": {
                        "type": "object",
                        "description": "Passed to the template (docs/guide/configuration.md).",
                        "properties": {
                            "usage": {
                                "enum": ["full", "short", True, False],
                                "description": "Server-arguments and command-line reference"
                                " pages: full (argparse's or Click's own usage, the default;"
                                " also true), short (the program, its required options and"
                                " required exclusive groups, [options], then its positionals"
                                " and subcommands: for a command of hundreds of options) or"
                                " false (no usage).",
                            },
                        },
                    },
                    "inplace": {"type": "boolean"},
                    "committed": {
                        "type": "boolean",
                        "description": "false for a build output"
                        " that is not kept in the repository; check skips it.",
                    },
                    "format": {
                        "enum": list(FORMATS),
                        "description": f"The page's syntax: {described()}. Default:"
                        f" {default_rule()}.",
                    },
                    "history": {
                        "type": "string",
                        "description": "A facts file written by `argmatrix history`, relative"
                        " to this file: the page shows when each argument arrived (an 'Added"
                        " in' column) and the arguments since removed.",
                    },
                },
            },
        },
        "checks": {
            "type": "object",
            "description": "Settings of `argmatrix check`.",
            "additionalProperties": False,
            "properties": {
                "severity": {
                    "type": "object",
                    "propertyNames": {"enum": list(CHECK_KINDS)},
                    "additionalProperties": {"enum": list(SEVERITIES)},
                },
                "prose": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Globs"
                    " (under docs_dir) of hand-written pages checked for dead flags.",
                },
                "ignore_flags": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Flags of other tools the prose may mention (--upgrade).",
                },
                "coverage": {
                    "type": "array",
                    "description": "Hand-maintained pages whose tables must have a row for"
                    " every flag of the registry (deprecated and hidden ones excepted).",
                    "items": {
                        "type": "object",
                        "required": ["page"],
                        "additionalProperties": False,
                        "properties": {
                            "page": {
                                "type": "string",
                                "description": "The page, relative to docs_dir.",
                            },
                            "allow_undocumented": {
                                "type": ["array", "null"],
                                "items": {"type": "string", "pattern": "^([^ -][^ ]* )*-"},
                                "description": "Flags that may have no row (a subcommand's"
                                " as `serve --port`). It may only"
                                " shrink: an entry that is documented, gone or not needed is"
                                " a finding, and `check --fix` removes it.",
                            },
                            "columns": {
                                "type": "integer",
                                "minimum": 1,
                                "maximum": MAX_COLUMNS,
                                "description": "Cells every row must have (default: as many"
                                " as its table's header).",
                            },
                            "format": {
                                "enum": list(FORMATS),
                                "description": "How the page is read; mdx reads JSX"
                                " comments and expressions. Default: mdx for an .mdx page.",
                            },
                            "compare": {
                                "type": "object",
                                "additionalProperties": False,
                                "properties": {
                                    name: {"type": "boolean"}
                                    for name in ("defaults", "options", "types")
                                },
                                "description": "Which values of each row are compared with"
                                " the registry, as `argmatrix audit` compares them (each true"
                                " when left out): wrong-default, wrong-options, wrong-type.",
                            },
                        },
                    },
                },
                "compatibility": _COMPATIBILITY,
            },
        },
        "stability": _STABILITY,
        "environment": {
            "type": "object",
            "description": "Where an argument's environment variable comes from: its entry"
            " in 'arguments', else the add_argument keyword 'keyword' names, else 'prefix'"
            " + the dest upper-cased. Pages show an 'Environment variable' column.",
            "additionalProperties": False,
            "properties": {
                "keyword": {
                    "type": "string",
                    "pattern": "^[A-Za-z_][A-Za-z0-9_]*$",
                    "description": "The add_argument keyword holding the variable (env_name).",
                },
                "prefix": {
                    "type": "string",
                    "pattern": "^[A-Za-z_][A-Za-z0-9_]*$",
                    "description": "Put before the dest in capitals: MYSERVER_ gives"
                    " --model-path the variable MYSERVER_MODEL_PATH.",
                },
                "arguments": {
                    "type": "object",
                    "additionalProperties": {"type": "string", "minLength": 1},
                    "description": "Flag -> variable, for arguments the rules above miss.",
                },
            },
        },
        "types": {
            "type": "object",
            "additionalProperties": {"type": "string", "minLength": 1},
            "description": "Converter (as the registry records the type, or the callable"
            " it calls) -> the text pages show for it, e.g. {str2bool: bool}.",
        },
        "computed_defaults": {
            "type": "object",
            "additionalProperties": {"type": "string", "minLength": 1},
            "description": "Flag -> a short text said instead of a default computed at run"
            " time ('chosen from GPU memory at start-up').",
        },
        "computed": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    name: {"type": "string", "minLength": 1} for name in COMPUTED_FIELDS
                },
                "additionalProperties": False,
            },
            "description": "Flag -> the texts said instead of its help, choices or default"
            " where the registry computes them when the server starts (kept as source text).",
        },
        "section_titles": {
            "type": "object",
            "additionalProperties": {"type": "string", "minLength": 1},
            "description": "Registry section -> its title on the pages ('options: Server"
            " options'), in the order the pages show them, before the sections not named;"
            " sections given one title are merged into one.",
        },
        "prog": {
            "type": "string",
            "minLength": 1,
            "description": "The program's name as a user types it ('python -m"
            " mypkg.server'), which the usage synopses on the pages start with; default: the"
            " name the registry's parser has. A page's options.prog names it for that page.",
        },
    },
}
assert set(CONFIG_SCHEMA["properties"]["registry"]["properties"]) == set(REGISTRY_KEYS)
assert set(CONFIG_SCHEMA["properties"]["environment"]["properties"]) == set(ENVIRONMENT_KEYS)
assert set(CONFIG_SCHEMA["properties"]["pages"]["items"]["properties"]) == set(PAGE_KEYS)
assert set(CONFIG_SCHEMA["properties"]["checks"]["properties"]) == set(CHECK_KEYS)
assert set(
    CONFIG_SCHEMA["properties"]["checks"]["properties"]["coverage"]["items"]["properties"]
) == set(COVERAGE_KEYS)

FINDINGS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://argmatrix.invalid/schema/findings.json",
    "title": "argmatrix check --format json",
    "type": "array",
    "items": {
        "type": "object",
        "required": ["kind", "severity", "message", "flag", "platform", "file", "line"],
        "additionalProperties": False,
        "properties": {
            "kind": {"enum": list(CHECK_KINDS)},
            "severity": {"enum": ["error", "warning"]},
            "message": {"type": "string"},
            "flag": {"type": ["string", "null"]},
            "platform": {"type": ["string", "null"]},
            "file": {"type": ["string", "null"]},
            "line": {"type": ["integer", "null"], "minimum": 1},
            "fix": {"type": ["string", "null"]},
            "diff": {"type": "string"},
            "regions": {
                "description": "A stale page: the line on disk where each changed region starts.",
                "type": "array",
                "items": {"type": "integer", "minimum": 1},
            },
        },
    },
}

SCHEMAS = {"manifest": MANIFEST_SCHEMA, "config": CONFIG_SCHEMA, "findings": FINDINGS_SCHEMA}


def schema_text(kind: str) -> str:
    """The schema `argmatrix schema KIND` prints: indented JSON and a final newline."""
    return json.dumps(SCHEMAS[kind], indent=2) + "\n"
