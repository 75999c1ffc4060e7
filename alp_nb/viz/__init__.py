"""Renderers: HTML and plain-text views of the core models. Everything rendered is escaped."""
