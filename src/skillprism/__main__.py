"""Allow `python -m skillprism`."""

from skillprism.cli import main

raise SystemExit(main())
