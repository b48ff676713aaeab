"""probepress: publish an adversarial LLM probe bank's results with receipts."""

__version__ = "0.1.0"
