"""The engine: a long-lived child process of the window that owns one `Workspace`, the file
watcher and the scan pool, and answers the window's requests over a pipe (docs/architecture.md,
docs/engine-protocol.md). Importing this package loads nothing: the window imports only
`protocol`, `views` and `launch`; the engine process runs `server`."""
