"""Held-out leak scanner: finds held-out prompt or response text in public files.

Used by the ``holdout`` gate (DESIGN §6.7). Held-out texts live only in the private
store; nothing public (tracked files, frozen HTML, PDF text layers, JSONL downloads,
figures.json, the built site) may contain them, whole or in part::

    index = LeakIndex.build(secrets, ignore=public_texts)
    leaks = scan_paths(index, [root / "site_src", root / "bank"], root=root)
    leaks = scan_text(index, page_text, "notes.md")

A finding (``Leak``) names the secret by key, the file, the line (or PDF page) and the
matched length, never the secret text, so a report cannot leak what it reports.

What counts as a leak, with the default ``LeakConfig``:

- a run of at least 12 consecutive tokens shared with a secret (about 60-70
  characters of English; 12 characters of Chinese or Japanese), or
- the whole of a secret shorter than that, if it has at least 5 tokens; shorter
  secrets are listed in ``LeakIndex.unscannable`` instead of being matched,

after both sides are normalised the same way (``normalise``: NFKC, casefold, UTS #39
confusable skeletons, invisible characters deleted, hyphens and line breaks,
punctuation and whitespace as separators, one token per character in scripts without
spaces) and after files are reduced to their text by what they contain, never by
their name (``extract``: tags and character references, backslash escapes, Markdown
emphasis inside words, PDF text layers; ``scan``: regular files only, bounded reads).
Windows that also occur in the ``ignore`` texts (public items and responses, streamed by
``PublicTexts``) are never reported, so shared boilerplate does not raise false alarms;
``republish.copied`` finds the public items that copy a held-out item, which that rule
would otherwise hide (text two public items share is not a copy).

Cost: building is linear in the secrets' length; scanning is linear in the bytes
scanned (rolling hashes of token windows looked up in sorted tables behind a bitmap,
``shingles``), with memory bounded by a few chunks per file.
"""

from generator.leaks.index import LeakIndex
from generator.leaks.model import Leak, LeakConfig, Secret, SecretKind, Unscannable
from generator.leaks.normalise import canonical, normalise, tokens
from generator.leaks.public import PublicTexts
from generator.leaks.scan import CleanFiles, iter_files, scan_file, scan_paths, scan_text

__all__ = [
    "CleanFiles",
    "Leak",
    "LeakConfig",
    "LeakIndex",
    "PublicTexts",
    "Secret",
    "SecretKind",
    "Unscannable",
    "canonical",
    "iter_files",
    "normalise",
    "scan_file",
    "scan_paths",
    "scan_text",
    "tokens",
]
