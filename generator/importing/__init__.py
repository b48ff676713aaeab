"""Bringing records from other runners into sealed bundles (``probepress import``).

Every importer reads its source into :class:`~generator.importing.rows.RecordRow` values
(one per draw); one writer turns those rows into bundles, so the rules of a bundle are
enforced in one place whatever the source was.
"""
