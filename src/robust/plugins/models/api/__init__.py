"""`api:MODEL`: a model behind an OpenAI-compatible endpoint (see `adapter`)."""

from robust.plugins.models.api.adapter import APIModel, Continuation

__all__ = ["APIModel", "Continuation"]
