"""Qt-free engine: parse, discover, profiles, resolve precedence, validate.

Nothing in this package may import Qt, Markdown or Pygments; a test enforces it.
"""
