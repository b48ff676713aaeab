"""Shared base of every file format: strict, frozen, documented, versioned."""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from typing import Annotated, Any, ClassVar, cast

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator
from pydantic_core import CoreConfig, SchemaValidator

SCHEMA_VERSION = 1

Canary = Annotated[
    str,
    StringConstraints(pattern=r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"),
]
"""A canary GUID: a UUID in lowercase hex, ``8-4-4-4-12`` (``generator.canary``)."""

Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
"""Lower-case hex SHA-256."""

Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$", max_length=80)]
"""Lower-case ASCII words joined by single hyphens."""

ItemId = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$", max_length=40)]
"""A probe's stable id."""

VersionId = Annotated[str, StringConstraints(pattern=r"^v[0-9]+(?:\.[0-9]+)*$")]
"""A bank version such as ``v1`` or ``v1.2``."""

Name = Annotated[str, StringConstraints(min_length=1, max_length=200)]
"""A short human-readable name or API string (untrusted: always escaped on output)."""

_SLUG_DROP = re.compile(r"[^a-z0-9]+")

INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
    "\x00-\x1f\x7f-\x9f]"
)
"""Unicode's default-ignorable code points (zero-width spaces and joiners, bidi
controls, variation selectors, tags …) and C0/C1 controls: characters that do not show,
so two names differing only by them look the same on every page."""


def visible_form(text: str) -> str:
    """What a reader sees of ``text``: invisible characters dropped, compatibility forms
    folded (NFKC) and case folded, so look-alike names compare equal."""
    return unicodedata.normalize("NFKC", INVISIBLE.sub("", text)).casefold()


def slugify(text: str) -> str:
    """Deterministic slug: lower-case ASCII alphanumerics joined by single hyphens."""
    return _SLUG_DROP.sub("-", text.lower()).strip("-")


def version_slug(version: str) -> str:
    """``v1.2`` -> ``v1_2`` (used in download file names)."""
    return version.replace(".", "_")


class Part(BaseModel):
    """Base of every part of a file format: unknown fields are rejected, instances frozen."""

    # defer_build: a model's validator is built when it first validates, not on import:
    # every command imports every format (``generator.models``) and uses a few (issue 19:
    # 0.25 s of each command's start; the same validators, so nothing is less strict).
    model_config = ConfigDict(
        extra="forbid", frozen=True, use_attribute_docstrings=True, defer_build=True
    )

    def dump(self) -> dict[str, Any]:
        """JSON-ready dict (decimals as strings, dates as ISO text)."""
        return self.model_dump(mode="json")


class Record(Part):
    """Base of every file format (a whole file, or one JSONL line): versioned."""

    supported_schema_version: ClassVar[int] = SCHEMA_VERSION
    oldest_schema_version: ClassVar[int] = 1
    """Older versions are refused: a format whose old shape is unsafe (e.g. plain digests
    of held-out text) raises this and says why in ``older_schema_note``."""
    older_schema_note: ClassVar[str] = ""

    schema_version: int = Field(default=SCHEMA_VERSION, ge=1)
    """Version of this file format. Readers refuse versions newer than they know."""

    @field_validator("schema_version")
    @classmethod
    def _not_newer(cls, value: int) -> int:
        if value > cls.supported_schema_version:
            raise ValueError(
                f"schema_version {value} is newer than this probepress reads "
                f"({cls.supported_schema_version}); upgrade probepress"
            )
        if value < cls.oldest_schema_version:
            raise ValueError(
                f"schema_version {value} is an old format that this probepress refuses "
                f"(it reads {cls.supported_schema_version}){cls.older_schema_note}"
            )
        return value


@cache
def json_validator(model: type[BaseModel]) -> SchemaValidator:
    """A validator that accepts exactly the JSON ``model`` accepts, into the same objects,
    with less Python per record; use it to accept, never to explain a refusal.

    Integers without bounds get 64-bit ones (a line with a larger one is read again the
    careful way, which refuses integers over ``store.strict.MAX_INT_DIGITS`` digits).
    ``schema_version``'s "not newer" and "not older" checks become ``le`` and ``ge`` bounds
    evaluated in pydantic-core: the same values pass and fail, without a Python call per
    record, but the message differs — so a reader that gets a ``ValidationError`` from this
    validator asks ``model`` itself for the errors it reports. The model and its JSON
    Schema are unchanged.
    """
    if not model.__pydantic_complete__:
        # defer_build: until the model first validates, its validator is a stand-in that
        # has no core schema to bound; build it now (the same build it would get anyway).
        model.model_rebuild()
    validator: Any = model.__pydantic_validator__
    # A pydantic plugin wraps the validator; the core one inside has the schema.
    validator = getattr(validator, "_schema_validator", validator)
    if not isinstance(validator, SchemaValidator):
        raise TypeError(f"{model.__name__}: no core validator to bound ({type(validator)})")
    # A SchemaValidator pickles as (class, (core schema, core config, …)).
    schema, config = cast(tuple[Any, tuple[Any, CoreConfig]], validator.__reduce__())[1][:2]
    # Not prebuilt: a model's own validator would be reused, with its Python check. A
    # pydantic-core without the flag may still reuse one: the same results, less fast.
    try:
        return SchemaValidator(_core_bounds(schema), config, _use_prebuilt=False)
    except TypeError:
        return SchemaValidator(_core_bounds(schema), config)


def _core_bounds(node: Any) -> Any:
    """A copy of a core schema with each ``_not_newer`` validator turned into ``le``."""
    if type(node) in (list, tuple):
        return type(node)(_core_bounds(value) for value in node)
    if not isinstance(node, dict):
        return node
    check: Any = node["function"]["function"] if node.get("type") == "function-after" else None
    inner: dict[str, Any] = node.get("schema", {})
    if getattr(check, "__func__", None) is _NOT_NEWER and inner.get("type") == "int":
        newest = check.__self__.supported_schema_version
        oldest = check.__self__.oldest_schema_version
        bounds = {
            "le": min(inner.get("le", newest), newest),
            "ge": max(inner.get("ge", 1), oldest),
        }
        return {**_core_bounds(inner), **bounds}
    if node.get("type") == "int":
        # A huge integer goes the careful way, which names the integer-length bound.
        return {"le": _INT64_MAX, "ge": -_INT64_MAX - 1, **node}
    return {key: _core_bounds(value) for key, value in node.items()}


_INT64_MAX = 2**63 - 1


_NOT_NEWER = Record.__dict__["_not_newer"].__func__
