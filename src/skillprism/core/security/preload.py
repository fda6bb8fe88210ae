"""Importing this module readies the security pass: its modules, bandit's plugins and
detect-secrets' plugins load once. A fork server preloads it, so each worker it starts does not
load them again. (A forked pool's workers load the engine in their initializer and bandit and
detect-secrets when a file first needs them; the process that forks them never loads any.)"""

from __future__ import annotations

import warnings


def warm_up() -> None:
    """Load what the first scan of a Python script or a secret would otherwise load."""
    from skillprism.core.security import engine  # noqa: F401
    from skillprism.core.security.pyscan import _bandit
    from skillprism.core.security.secrets import _plugins

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _bandit()
        from bandit.core import meta_ast, metrics, node_visitor  # noqa: F401
    _plugins()


warm_up()
