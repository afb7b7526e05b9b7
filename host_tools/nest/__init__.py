"""Host tools for the Gulo Gulo electronic nest: a thin CLI (`nest`) over an importable API."""

__version__ = "0.1.0"
