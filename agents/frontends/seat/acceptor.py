"""The seat schema's fast yes/no: a JSON schema compiled once into a Python function that
says whether a value is valid, with no error objects and no walk of the schema per value.

It is a shortcut in front of the ``jsonschema`` validator of :mod:`.schema`, never a second
authority: a value it accepts is answered without the validator, a value it refuses goes
to the validator, which finds the error to answer (or none, where the handlers answer it
themselves). So it must accept exactly what the validator accepts; it compiles only the
keywords the seat schema uses, each with the validator's meaning (jsonschema's
``_keywords`` and ``_types``, Draft 2020-12, ``integer`` strict as :mod:`.schema` defines
it), and refuses to compile a schema with any other keyword (:class:`Unsupported`), so a
keyword added to the schema later cannot be skipped silently. tests/test_seat_acceptor.py
holds it to the validator on the seat's fuzzed requests and documents.

The keywords and their meaning, for a value ``v``:

- ``type``: ``null`` is None, ``boolean`` a bool, ``integer`` an int that is no bool,
  ``number`` a non-bool ``numbers.Number``, ``string`` a str, ``array`` a list, ``object``
  a dict;
- ``const`` / ``enum`` of strings: ``v`` a str equal to one (jsonschema's ``equal`` compares
  a string by ``==``); ``const: true``: ``v is True`` (``equal`` keeps ``1`` and ``True``
  apart);
- ``minimum`` / ``maximum``: for a number only; ``minItems`` / ``maxItems`` / ``items``:
  for a list only; ``required`` / ``properties`` / ``additionalProperties``: for a dict only;
- ``anyOf``: one alternative valid; ``oneOf``: exactly one;
- annotations (``description``, ``title``, ``$schema``, ``$id``, ``$comment``,
  ``default``, ``examples``) check nothing.

The schema must have its ``$ref`` resolved beforehand (:func:`.schema._inlined`).
"""
from __future__ import annotations

import numbers
from typing import Any, Callable

ANNOTATIONS = frozenset({"description", "title", "$schema", "$id", "$comment", "default", "examples"})
TYPE_TESTS = {
    "null": "{v} is None",
    "boolean": "isinstance({v}, bool)",
    "integer": "(type({v}) is int or (isinstance({v}, int) and not isinstance({v}, bool)))",
    "number": "(isinstance({v}, Number) and not isinstance({v}, bool))",
    "string": "isinstance({v}, str)",
    "array": "isinstance({v}, list)",
    "object": "isinstance({v}, dict)",
}
"""Each JSON type's test of a value (``{v}``), as the seat's validator has them."""
KEYWORDS = ANNOTATIONS | {"type", "const", "enum", "minimum", "maximum", "minItems", "maxItems", "items",
                          "required", "properties", "additionalProperties", "anyOf", "oneOf"}


class Unsupported(ValueError):
    """The schema uses a keyword (or a form of one) that :func:`compile_acceptor` does not
    compile: the caller validates with ``jsonschema`` alone."""


def compile_acceptor(schema: Any) -> Callable[[Any], bool]:
    """A function telling whether a value is valid against ``schema`` (``$ref``-free)."""
    compiler = _Compiler()
    entry = compiler.function(schema)
    namespace: dict[str, Any] = {"Number": numbers.Number, **compiler.constants}
    exec(compile("\n".join(compiler.lines), "<seat schema acceptor>", "exec"), namespace)  # noqa: S102 - our own generated code
    return namespace[entry]


class _Compiler:
    """Writes one Python function per schema with alternatives (``anyOf``/``oneOf`` call
    one function per alternative); the statements of a function return False at the
    first failing check and True at the end."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.constants: dict[str, Any] = {}
        self._count = 0

    def _name(self, prefix: str) -> str:
        self._count += 1
        return f"{prefix}{self._count}"

    def constant(self, value: Any) -> str:
        name = self._name("c")
        self.constants[name] = value
        return name

    def function(self, schema: Any) -> str:
        name = self._name("accepts")
        body: list[str] = []
        self.checks(schema, "v", body, 1)
        self.lines += [f"def {name}(v):", *body, "    return True", ""]
        return name

    def checks(self, schema: Any, v: str, out: list[str], depth: int) -> None:
        """Append to ``out`` the statements that return False when ``v`` fails ``schema``."""
        pad = "    " * depth
        if schema is True:
            return
        if schema is False:
            out.append(f"{pad}return False")
            return
        if not isinstance(schema, dict):
            raise Unsupported(f"a schema must be an object or a boolean, not {schema!r}")
        unknown = set(schema) - KEYWORDS
        if unknown:
            raise Unsupported(f"keyword(s) {sorted(unknown)} not compiled")
        types = schema.get("type")
        if types is not None:
            types = [types] if isinstance(types, str) else types
            if not types or any(t not in TYPE_TESTS for t in types):
                raise Unsupported(f"type {schema['type']!r}")
            out.append(f"{pad}if not ({' or '.join(TYPE_TESTS[t].format(v=v) for t in types)}): return False")
        if "const" in schema:
            out.append(f"{pad}if not ({self._equals_one_of([schema['const']], v)}): return False")
        if "enum" in schema:
            if not isinstance(schema["enum"], list) or not schema["enum"]:
                raise Unsupported(f"enum {schema['enum']!r}")
            out.append(f"{pad}if not ({self._equals_one_of(schema['enum'], v)}): return False")
        self._number_checks(schema, v, out, pad, types)
        self._array_checks(schema, v, out, depth, types)
        self._object_checks(schema, v, out, depth, types)
        for keyword, test in (("anyOf", "{n} == 0"), ("oneOf", "{n} != 1")):
            if keyword in schema:
                alternatives = schema[keyword]
                if not isinstance(alternatives, list) or not alternatives:
                    raise Unsupported(f"{keyword} {alternatives!r}")
                names = [self.function(alternative) for alternative in alternatives]
                if keyword == "anyOf":
                    out.append(f"{pad}if not ({' or '.join(f'{n}({v})' for n in names)}): return False")
                else:
                    out.append(f"{pad}if {test.format(n=' + '.join(f'{n}({v})' for n in names))}: return False")

    def _equals_one_of(self, values: list, v: str) -> str:
        if all(isinstance(value, str) for value in values):
            if len(values) == 1:
                return f"isinstance({v}, str) and {v} == {self.constant(values[0])}"
            return f"isinstance({v}, str) and {v} in {self.constant(frozenset(values))}"
        if len(values) == 1 and values[0] is True:  # not ``values == [True]``: that holds for [1] too
            return f"{v} is True"
        raise Unsupported(f"const/enum of {values!r}")

    @staticmethod
    def _guard(types: list[str] | None, kind: str, v: str, out: list[str], pad: str) -> tuple[str, bool]:
        """Open an ``if`` on ``v`` being of JSON type ``kind`` unless ``type`` already
        required it; the padding inside and whether a block was opened."""
        if types == [kind]:
            return pad, False
        out.append(f"{pad}if {TYPE_TESTS[kind].format(v=v)}:")
        return pad + "    ", True

    def _number_checks(self, schema: dict, v: str, out: list[str], pad: str, types: list[str] | None) -> None:
        bounds = [(k, op) for k, op in (("minimum", "<"), ("maximum", ">")) if k in schema]
        if not bounds:
            return
        for keyword, _op in bounds:
            if isinstance(schema[keyword], bool) or not isinstance(schema[keyword], (int, float)):
                raise Unsupported(f"{keyword} {schema[keyword]!r}")
        # an integer is a number: ``type: integer`` needs no second test
        inner = pad if types in (["integer"], ["number"]) else self._guard(None, "number", v, out, pad)[0]
        # each bound compared on its own, as the validator does (a NaN passes both)
        out.append(f"{inner}if {' or '.join(f'{v} {op} {schema[keyword]!r}' for keyword, op in bounds)}: return False")

    def _array_checks(self, schema: dict, v: str, out: list[str], depth: int, types: list[str] | None) -> None:
        wanted = [k for k in ("minItems", "maxItems", "items") if k in schema]
        if not wanted:
            return
        inner, opened = self._guard(types, "array", v, out, "    " * depth)
        for keyword, op in (("minItems", "<"), ("maxItems", ">")):
            if keyword in schema:
                if isinstance(schema[keyword], bool) or not isinstance(schema[keyword], int):
                    raise Unsupported(f"{keyword} {schema[keyword]!r}")
                out.append(f"{inner}if len({v}) {op} {schema[keyword]}: return False")
        if "items" in schema:
            item = self._name("x")
            body: list[str] = []
            self.checks(schema["items"], item, body, depth + (2 if opened else 1))
            if body:
                out.append(f"{inner}for {item} in {v}:")
                out.extend(body)

    def _object_checks(self, schema: dict, v: str, out: list[str], depth: int, types: list[str] | None) -> None:
        wanted = [k for k in ("required", "properties", "additionalProperties") if k in schema]
        if not wanted:
            return
        inner, opened = self._guard(types, "object", v, out, "    " * depth)
        inner_depth = depth + (1 if opened else 0)
        for name in schema.get("required", ()):
            out.append(f"{inner}if {self.constant(name)} not in {v}: return False")
        properties = schema.get("properties", {})
        if not isinstance(properties, dict):
            raise Unsupported(f"properties {properties!r}")
        for name, subschema in properties.items():
            value = self._name("p")
            body: list[str] = []
            self.checks(subschema, value, body, inner_depth + 1)
            if body:
                key = self.constant(name)
                out.append(f"{inner}if {key} in {v}:")
                out.append(f"{inner}    {value} = {v}[{key}]")
                out.extend(body)
        extra = schema.get("additionalProperties", True)
        if extra is True:
            return
        known = self.constant(frozenset(properties))
        if extra is False:
            out.append(f"{inner}if not {known}.issuperset({v}): return False")
            return
        value = self._name("e")
        body = []
        self.checks(extra, value, body, inner_depth + 2)
        if body and not properties:  # every value is an additional one
            out.append(f"{inner}for {value} in {v}.values():")
            out.extend(line[4:] for line in body)
        elif body:
            key = self._name("k")
            out.append(f"{inner}for {key}, {value} in {v}.items():")
            out.append(f"{inner}    if {key} not in {known}:")
            out.extend(body)


__all__ = ["Unsupported", "compile_acceptor"]
