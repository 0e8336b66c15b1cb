"""Prompt templates (one XML-structured file per prompt) and the loader that fills them."""

from prompts.loader import Raw, element, render

__all__ = ["Raw", "element", "render"]
