"""The example publication: its declared spec, its bank and its simulated bundles."""

from __future__ import annotations

from importlib import resources
from typing import Any

import yaml

# libyaml's loader where it is built in: the pure-Python one dominated a scaled demo.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_data(name: str) -> Any:
    """One YAML file of ``generator/demo/data/`` (shipped as package data), parsed."""
    text = resources.files("generator.demo").joinpath("data", name).read_text("utf-8")
    return yaml.load(text, Loader=_LOADER)  # a safe loader, C or Python
