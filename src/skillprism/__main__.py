"""Allow `python -m skillprism`.

Guarded, because worker processes started by a fork server or by spawning re-import the parent's
main module: unguarded, each would start Skill Prism again."""

if __name__ == "__main__":
    import multiprocessing

    multiprocessing.freeze_support()  # a frozen app's worker processes start here too

    from skillprism.cli import main

    raise SystemExit(main())
