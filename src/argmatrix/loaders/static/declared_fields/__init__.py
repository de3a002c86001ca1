"""Static reading of arguments declared as fields: dataclasses, msgspec Structs and pydantic
models read from source (`records`, `pydantic_models`), the `typing` forms they are annotated with
(`typeforms`), and what the interpreter asks of them (`declared`: `dataclasses.fields()`,
`get_type_hints`, `msgspec.defstruct`, Enum iteration, ...)."""
