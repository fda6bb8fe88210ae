"""What each risk could do to the user who installs the skill, and how to confirm or remove it."""

from __future__ import annotations

EFFECT_HINT: dict[str, tuple[str, str]] = {
    "injection-override": (
        "the agent may drop the user's and the runtime's instructions and follow the skill's "
        "author instead",
        "read the passage in the raw file; delete it, or rephrase it so it does not address the "
        "agent's instructions",
    ),
    "injection-role-claim": (
        "the agent may treat the author's text as coming from the system or its developer and give "
        "it their authority",
        "delete the fake role markers and authority claims; a skill speaks as a skill",
    ),
    "injection-conceal": (
        "the agent may do things the user never hears about: the user cannot stop or undo what "
        "they do not see",
        "delete the passage; a skill's actions should be reported to the user",
    ),
    "injection-disable-safety": (
        "the agent may run commands or change files without the confirmations that let the user "
        "refuse them",
        "delete the passage or flag; let the runtime ask the user as it normally does",
    ),
    "download-execute": (
        "whatever the server sends at that moment runs on the user's machine with their "
        "permissions; it can change at any time and differs from what was reviewed",
        "download the file, review it, pin it by checksum and ship it in the skill; never pipe a "
        "download into an interpreter",
    ),
    "decode-execute": (
        "code hidden from review runs on the user's machine with their permissions",
        "decode the text (the finding shows it where it can) and ship the plain code instead",
    ),
    "dynamic-eval": (
        "the command that runs is only known at run time, so review cannot tell what it does",
        "replace eval/exec/`| sh` with the explicit command",
    ),
    "destructive-command": (
        "the user's files (or whole disks) can be deleted or overwritten beyond recovery",
        "confirm the target is a folder the skill created; delete only that, by an exact path",
    ),
    "permission-change": (
        "other users or programs on the machine gain rights to the user's files or to root",
        "use the narrowest mode (e.g. 644/755 for the skill's own files); never touch sudoers",
    ),
    "persistence": (
        "code keeps running after the skill is done (at log-in, on a timer, on every commit), "
        "outside the agent and unreviewed",
        "remove the entry; a skill should not install itself anywhere",
    ),
    "credential-access": (
        "keys, tokens or passwords can be read and, with network access, sent away",
        "check why the skill needs this file; use a scoped token passed in by the user instead",
    ),
    "network-endpoint": (
        "data goes to or comes from this host when the script runs",
        "check the host is the one the skill's description promises",
    ),
    "raw-ip-address": (
        "the script contacts a host that is hard to identify or vet",
        "use a named host the description mentions, or remove the connection",
    ),
    "encoded-blob": (
        "what the blob holds is hidden from review; decoded, it may be code or instructions",
        "check the decoded form shown; ship content in plain text",
    ),
    "hardcoded-secret": (
        "the secret is exposed to everyone who gets the skill; an attacker's key may also route "
        "the user's data to the attacker's account",
        "remove the secret, revoke it, and read it from the environment or a secret store",
    ),
    "python-risk": (
        "the construct can run code, weaken security or expose data when the script runs",
        "read the flagged line; the message names the construct and why it matters",
    ),
    "data-upload": (
        "local files or environment data leave the machine",
        "check exactly which data is sent, to whom, and that the description says so",
    ),
    "reverse-shell": (
        "a remote host gets an interactive shell on the user's machine",
        "remove it; no skill needs this",
    ),
    "shipped-executable": (
        "a program runs with the user's permissions and cannot be reviewed as text",
        "ship source code instead, or document where the binary comes from with its checksum",
    ),
    "shipped-archive": (
        "files inside are not reviewed until unpacked, and unpacking can write outside the folder",
        "ship the files unpacked",
    ),
    "executable-bit": (
        "the file can be run directly, though it does not look like a script",
        "clear the executable bit (chmod -x) unless it is meant to run",
    ),
    "symlink-outside": (
        "reading or shipping the skill reads or exposes a file elsewhere on the machine",
        "replace the link by the file itself, inside the skill",
    ),
    "path-outside": (
        "the skill reaches files beyond its folder: system settings or other projects",
        "keep paths inside the skill folder or the user's project",
    ),
    "activation-shell": (
        "the command runs on the user's machine each time the skill is invoked, before the model "
        "reads the skill",
        "check the command; prefer a documented step the model runs through its permission prompt",
    ),
    "broad-tool-grant": (
        "while the skill is active the agent can use this tool without asking the user",
        "narrow the grant to exact commands (e.g. `Bash(git status:*)`) or remove it",
    ),
    "hidden-comment": (
        "the rendered view does not show this text, but the agent reads and may follow it",
        "read the raw file; make instructions visible or delete the comment",
    ),
    "hidden-element": (
        "the rendered view does not show this text, but the agent reads and may follow it",
        "read the raw file; make the text visible or delete it",
    ),
    "hidden-link-definition": (
        "the rendered view does not show this text, but the agent reads and may follow it",
        "read the raw file; delete the definition or use it as a real link",
    ),
    "hidden-attribute-text": (
        "the rendered view does not show this text, but the agent reads and may follow it",
        "move the text into the visible body or delete it",
    ),
    "confusable-name": (
        "a reader, or the model choosing a skill, takes this skill for another one it imitates",
        "rename it with plain ASCII letters; compare it with the skill it imitates",
    ),
    "mixed-script-name": (
        "a reader sees a familiar word; tools and the model see a different string",
        "spell it with the letters of one script",
    ),
}


def effect_hint(rule: str) -> tuple[str, str]:
    return EFFECT_HINT.get(rule, ("", ""))
