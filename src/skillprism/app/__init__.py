"""The application layer: the one Qt-free front door (`Workspace`) both front ends use."""

from skillprism.app.workspace import (
    BudgetInputs,
    Update,
    Workspace,
    WorkspaceError,
    write_atomically,
)

__all__ = ["BudgetInputs", "Update", "Workspace", "WorkspaceError", "write_atomically"]
