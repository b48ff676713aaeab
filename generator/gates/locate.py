"""The line of a field in ``volume.yaml`` or ``bundle.json``, for findings about it.

Gates hold parsed models, which have no line numbers; a finding about a jury seat or an
endpoint should still name the line a maintainer must edit. The file is composed again
only when a finding needs it, so a passing gate never reads it twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import yaml

# volume.yaml and bundle.json are small and already bounded by the reader; this bound only
# keeps a file swapped since then from being composed whole.
_MAX_BYTES = 8 * 1024 * 1024


def line_of(path: Path, loc: Sequence[str | int]) -> int | None:
    """1-based line of the node at ``loc`` (keys and list indexes) in a YAML or JSON file:
    the deepest node found along ``loc``, or None when the file cannot be read."""
    try:
        if path.stat().st_size > _MAX_BYTES:
            return None
        node: yaml.Node | None = yaml.compose(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    if node is None:
        return None
    line = node.start_mark.line + 1
    for part in loc:
        # A mapping entry is found at its key's line ("jury:"), a list item at its own.
        found: tuple[yaml.Node, yaml.Node] | None = None
        if isinstance(node, yaml.MappingNode):
            found = next((kv for kv in node.value if getattr(kv[0], "value", None) == part), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part >= 0:
            found = (node.value[part],) * 2 if part < len(node.value) else None
        if found is None:
            break
        line = found[0].start_mark.line + 1
        node = found[1]
    return line
