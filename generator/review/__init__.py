"""The offline review page: ``probepress review build`` (DESIGN §14).

Reviewers never touch JSON. ``build`` writes one static, self-contained HTML page per
batch of items still climbing the ladder (``items``: which items, in which batches, with
what they show; ``page``: the page, its policy and where it may be written). The page
saves a :class:`~generator.models.review.ReviewFile` that ``probepress review apply``
checks and applies.
"""
