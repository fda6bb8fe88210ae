"""Entry script of the frozen app (PyInstaller): the same start as `python -m skillprism`.

freeze_support() comes first: the GUI's fork server and worker processes start by running this
executable again, and must not start another Skill Prism."""

if __name__ == "__main__":
    import multiprocessing

    multiprocessing.freeze_support()

    from skillprism.cli import main

    raise SystemExit(main())
