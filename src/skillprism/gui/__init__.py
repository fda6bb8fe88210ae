"""The desktop window (PySide6). Shows what core computes; never parses files itself."""
