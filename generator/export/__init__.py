"""Writing a published volume's results in other tools' formats (``probepress export``)."""
