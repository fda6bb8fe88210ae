"""The phrase and command rules, as RE2 patterns over UTF-8 bytes.

RE2 (google-re2) matches in time linear in the input, whatever the pattern and the input, so no
hostile file can make a rule backtrack. All patterns go into one `re2.Set`, so a text is read
once to learn which patterns occur anywhere; only those are then run to find their positions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import re2

from skillprism.core.diagnostics import Severity

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

# Between the words of a phrase: white space (line breaks too) and Markdown emphasis or quotes.
_S = r"[\s*_~`\"'>]+"
_FILL = r"(?:[a-z'\-]+" + _S + r"){0,3}?"


def _w(*words: str) -> str:
    return "(?:" + "|".join(words) + ")"


@dataclass(frozen=True, slots=True)
class Pattern:
    rule: str
    regex: str  # RE2 syntax, applied to bytes; (?i) etc. inside
    what: str  # the message; '{m}' is replaced by the matched text
    severity: Severity
    scopes: frozenset[str]  # file kinds: skill, prose, script, data
    check: Callable[[bytes, int, int], bool] | None = None  # (data, start, end) -> keep?
    # The most a match counts for in a document (code shown, not run); None: the rule's own cap
    # (analysis._SHOWN_CAP). An instruction in words is as strong in a document as anywhere.
    in_documents: Severity | None = None


ALL = frozenset({"skill", "prose", "script", "data"})
CODEISH = frozenset({"skill", "prose", "script"})
SCRIPT = frozenset({"script"})

# --- prompt injection ------------------------------------------------------------------------------
_V_OVERRIDE = _w(
    "ignore", "ignoring", "disregard", "disregarding", "forget", "forgetting", "override",
    "overriding", "overwrite", "bypass", "discard", "abandon", r"set\s+aside", "skip",
    r"throw\s+away", "drop", "cancel", "void", "nullify", "supersede",
    r"do\s+not\s+follow", r"don'?t\s+follow", r"stop\s+following", r"no\s+longer\s+follow",
)  # fmt: skip
_Q_STRONG = _w(
    "previous", "prior", "preceding", "earlier", "above", "aforementioned", "original",
    "initial", "former", "foregoing", "system", "developer", "safety", "your", r"all\s+other",
    r"all\s+previous", r"all\s+prior", r"all\s+earlier", r"any\s+previous", r"any\s+prior",
)  # fmt: skip
_N_INSTR = _w(
    r"instructions?", r"prompts?", "rules", "directions", "directives", "guidelines",
    "guidance", "guardrails", "constraints", "restrictions", "policies", r"system\s+prompt",
    r"system\s+messages?", "programming", "commands", "orders",
)  # fmt: skip
_WHO = _w(
    r"users?",
    r"humans?",
    "operator",
    "person",
    "people",
    "owner",
    "requester",
    "anyone",
    "anybody",
    r"no\s+one",
)


def _not_followed_by(*words: bytes) -> Callable[[bytes, int, int], bool]:
    """Keep a match unless the text right after it starts with one of `words` (lower case)."""

    def check(data: bytes, start: int, end: int) -> bool:
        tail = data[end : end + 24].lower().lstrip()
        return not any(tail.startswith(w) for w in words)

    return check


_not_instructing = _not_followed_by(b"to ", b"how", b"'s", b"\xe2\x80\x99s", b"that they")
# "system prompt size", "prompt injection": the instruction word is part of another noun.
_not_a_compound = _not_followed_by(
    b"size", b"length", b"token", b"cost", b"cach", b"budget", b"limit", b"format", b"template",
    b"file", b"field", b"variable", b"parameter", b"section", b"header", b"version", b"injection",
    b"leak", b"extraction", b"engineering", b"design", b"override", b"text", b"content", b"tuning",
)  # fmt: skip


def _says_something(data: bytes, start: int, end: int) -> bool:
    """Keep 'SYSTEM:' when words follow it on its line, not a form's blank ('DEVELOPER: ____')."""
    line_end = data.find(b"\n", end)
    rest = data[end : len(data) if line_end < 0 else line_end].strip()
    return bool(rest) and rest[:1].isalpha()


_V_DISABLE = (
    r"(?:disable|disabling|turn\s+off|turning\s+off|deactivate|bypass|bypassing|circumvent|"
    r"circumventing|skip|skipping|ignore|ignoring|override|overriding|switch\s+off|get\s+around|"
    r"work\s+around|evade|evading|suppress)"
)

INJECTION: tuple[Pattern, ...] = (
    Pattern(
        "injection-override",
        rf"(?i)\b{_V_OVERRIDE}{_S}{_FILL}{_Q_STRONG}{_S}{_FILL}{_N_INSTR}\b",
        "tells the agent to set aside its instructions: '{m}'",
        E,
        ALL,
        _not_a_compound,
    ),
    Pattern(
        "injection-override",
        r"(?i)\b(?:forget|disregard|ignore)\s+(?:everything|all|anything)\s+(?:you(?:'ve|\s+have|\s+were)?"
        r"\s+(?:been\s+)?(?:told|taught|learned|instructed|given)|(?:above|before|previously|so\s+far|"
        r"prior|earlier)\b)",
        "tells the agent to forget what it was told: '{m}'",
        E,
        ALL,
    ),
    Pattern(
        "injection-override",
        r"(?i)\byour\s+(?:new|real|actual|true|updated|only)\s+(?:instructions?|task|goal|objective|"
        r"purpose|mission|orders|directive)\s+(?:is|are)\b",
        "replaces the agent's task: '{m}'",
        E,
        ALL,
    ),
    Pattern(
        "injection-override",
        rf"(?i)\b(?:previous|prior|above|earlier|original|system|all\s+other)\s+{_N_INSTR}\s+(?:are|is|"
        r"were|have\s+been)\s+(?:now\s+)?(?:void|cancel+ed|obsolete|superseded|revoked|invalid|"
        r"overridden|replaced|null|no\s+longer\s+(?:valid|apply|applicable|in\s+effect))",
        "declares the agent's instructions void: '{m}'",
        E,
        ALL,
    ),
    Pattern(
        "injection-override",
        r"(?i)\b(?:the\s+following|these|here\s+are)\s+(?:are\s+)?(?:your\s+)?new\s+(?:system\s+)?"
        r"(?:instructions|prompt|rules)\b|\b(?:here\s+is|this\s+is|below\s+is|follow)\s+(?:your|the)\s+"
        r"new\s+system\s+(?:prompt|instructions?)\b|\bnew\s+system\s+(?:prompt|instructions?)\s*:",
        "hands the agent replacement instructions: '{m}'",
        E,
        ALL,
    ),
    Pattern(
        "injection-role-claim",
        r"(?i)<\|\s*(?:im_start|im_end|system|endoftext|start_header_id|end_header_id|eot_id)\s*\|>|"
        r"<<\s*/?SYS\s*>>|\[/?INST\]|</?system(?:[-_ ]?(?:reminder|message|prompt|instructions?|"
        r"override|notice))?\s*>|(?m:^[ \t>\"'*]*)\[\s*system(?:\s+(?:message|prompt|note|override|"
        r"notice))?\s*\]|\[\s*system\s+(?:message|prompt|note|override|notice)\s*\]|"
        r"\{\{\s*system\s*\}\}",
        "opens a fake system / chat-template role: '{m}'",
        E,
        ALL,
    ),
    Pattern(
        "injection-role-claim",
        r"(?m)^[ \t>#*\-]*(?:SYSTEM|DEVELOPER|ADMIN|ADMINISTRATOR)(?:[ _](?:MESSAGE|PROMPT|NOTE|"
        r"OVERRIDE|INSTRUCTIONS?|NOTICE|UPDATE))?[ \t]*:",
        "poses as a system or developer message: '{m}'",
        E,
        ALL,
        _says_something,
    ),
    Pattern(
        "injection-role-claim",
        r"(?im)^[ \t>#*\-]*(?:system|developer|admin)\s+(?:message|prompt|override|instructions?|"
        r"notice)\s*:",
        "poses as a system or developer message: '{m}'",
        E,
        ALL,
        _says_something,
    ),
    Pattern(
        "injection-role-claim",
        r"(?i)\b(?:this|the\s+following)\s+(?:message|note|text|instruction|section|content|request)s?"
        r"\s+(?:is|are|comes?|was|were)\s+(?:sent\s+)?(?:directly\s+)?from\s+(?:the\s+|your\s+)?"
        r"(?:system|developers?|administrator|admin|operator|anthropic|openai|google|claude\s+code|"
        r"platform|security\s+team)\b",
        "claims to come from the system or the vendor: '{m}'",
        E,
        ALL,
    ),
    Pattern(
        "injection-role-claim",
        r"(?i)\b(?:i\s+am|i'm|we\s+are)\s+(?:your|the)\s+(?:developers?|creators?|system\s+administrators?|"
        r"administrators?|admins?|operators?|system|owners?)(?:[.,:;!]|\s+(?:speaking|here|and\s+i|"
        r"and\s+we|with))",
        "claims authority over the agent: '{m}'",
        E,
        ALL,
    ),
    Pattern(
        "injection-role-claim",
        r"(?i)\b(?:anthropic|openai|the\s+system|your\s+developers?|the\s+developers?|the\s+administrator|"
        r"system\s+administrators?)\s+(?:has|have)\s+(?:authori[sz]ed|approved|instructed|permitted|"
        r"allowed|asked|requested|cleared)\s+(?:you|this|the\s+assistant|claude|the\s+agent)\b",
        "claims a vendor or developer authorised it: '{m}'",
        E,
        ALL,
    ),
    Pattern(
        "injection-role-claim",
        r"(?i)\byou\s+are\s+(?:now|no\s+longer)\s+(?:in\s+)?(?:an?\s+)?(?:developer|debug|god|admin|root|"
        r"unrestricted|unfiltered|jailbroken|jailbreak|dan|sudo|maintenance|evil|uncensored|"
        r"bound\s+by)\b|\byou\s+are\s+(?:an?\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken|"
        r"amoral|unaligned)\s+(?:ai|assistant|model|agent|llm|chatbot)\b|"
        r"\b(?:enter|entering|switch\s+to|switching\s+to)\s+(?:developer|god|dan|jailbreak|"
        r"unrestricted|admin|sudo)\s+mode\b|\b(?:activate|enable)\s+(?:god|dan|jailbreak|"
        r"unrestricted)\s+mode\b|\b(?:god|dan|jailbreak)\s+mode"
        r"\s+(?:is\s+)?(?:enabled|activated|on)\b|\bpretend\s+(?:to\s+be|you\s+are)\s+(?:the\s+)?"
        r"(?:system|developer|administrator|root)\b",
        "tries to switch the agent into another role: '{m}'",
        E,
        ALL,
    ),
    Pattern(
        "injection-conceal",
        r"(?i)\b(?:do\s+not|don'?t|never|without)\s+(?:tell|telling|inform|informing|notify|notifying|"
        r"alert|alerting|warn|warning|mention|mentioning|reveal|revealing|disclose|disclosing)\s+"
        rf"(?:this\s+(?:to\s+)?|it\s+(?:to\s+)?|anything\s+(?:to\s+)?)?(?:the\s+|your\s+)?{_WHO}\b",
        "tells the agent to keep the user uninformed: '{m}'",
        E,
        ALL,
        _not_instructing,
    ),
    Pattern(
        "injection-conceal",
        r"(?i)\b(?:keep|hide|conceal)\s+(?:this|these|it|them|that|everything|all\s+of\s+this|"
        r"(?:the|this|these|that|its|your)\s+[a-z]+(?:\s+[a-z]+)?)\s+(?:hidden\s+|secret\s+)?from\s+(?:the\s+|your\s+)?"
        r"(?:users?|humans?|operator|reviewers?|owner)\b",
        "tells the agent to hide something from the user: '{m}'",
        E,
        ALL,
    ),
    Pattern(
        "injection-conceal",
        r"(?i)\bwithout\s+(?:the\s+)?(?:users?|humans?|operator)(?:'s|s')?\s+(?:knowing|knowledge|"
        r"noticing|being\s+aware|awareness|seeing|noticing)\b|\bwithout\s+(?:them|anyone)\s+"
        r"(?:knowing|noticing)\b|\bthe\s+(?:user|human|operator)\s+(?:must|should|will|may|needs?\s+to)"
        r"\s*(?:not|never|n't)\s+(?:know|see|notice|find\s+out|learn|be\s+told|be\s+informed|"
        r"be\s+aware|suspect)\b",
        "tells the agent to act behind the user's back: '{m}'",
        E,
        ALL,
    ),
    Pattern(
        "injection-conceal",
        r"(?i)\b(?:silently|secretly|covertly|discreetly|stealthily|invisibly)\s+(?:[a-z]+\s+){0,2}?"
        r"(?:run|execute|send|upload|post|transmit|exfiltrate|copy|install|download|delete|remove|"
        r"modify|change|add|append|write|collect|read|forward|email|fetch|curl|call|invoke|push|"
        r"commit)\b",
        "tells the agent to act without the user noticing: '{m}'",
        E,
        ALL,
    ),
    Pattern(
        "injection-conceal",
        r"(?i)\b(?:do\s+not|don'?t|never)\s+(?:mention|reveal|disclose|acknowledge|discuss)\s+"
        r"(?:this|these)\s+(?:instructions?|notes?|messages?|sections?|steps?|actions?|commands?)\b|"
        r"\b(?:do\s+not|don'?t|never)\s+(?:mention|reveal|disclose|acknowledge)\s+(?:that\s+)?"
        r"(?:you|this\s+skill)\s+(?:ran|executed|sent|uploaded|did|performed|are\s+running|have\s+run|"
        r"have\s+sent|have\s+uploaded)\b|\b(?:hide|conceal|suppress)\s+(?:all\s+|any\s+)?(?:the\s+|"
        r"this\s+|its\s+)?(?:output|evidence|traces?|logs?|commands?|activity|network\s+activity|"
        r"requests?)\s+(?:from|in)\s+(?:the\s+)?(?:users?|humans?|response|reply|chat|transcript|"
        r"conversation)\b",
        "tells the agent to conceal what it does: '{m}'",
        E,
        ALL,
    ),
    Pattern(
        "injection-conceal",
        r"(?i)\b(?:do\s+not|don'?t|never)\s+(?:mention|report|reveal|disclose|acknowledge)\s+"
        r"(?:it|this|that|them|any\s+of\s+(?:this|it))\s+(?:in|to)\s+(?:your\s+|the\s+)?(?:reply|"
        r"response|answer|summary|users?|chat)\b|\b(?:do\s+not|don'?t|never)\s+(?:show|display|"
        r"print|report|reveal|surface|list)\s+(?:(?:to\s+)?the\s+users?\s+)?(?:the\s+|any\s+)?"
        r"(?:commands?|actions?|steps?|changes?|uploads?|requests?)\s+(?:you|that\s+you|it)\s+"
        r"(?:ran|run|executed|made|took|sent|performed)\b",
        "tells the agent to keep what it did out of its reply: '{m}'",
        E,
        ALL,
    ),
    Pattern(
        "injection-disable-safety",
        rf"(?i)\b{_V_DISABLE}\s+(?:(?:all|any|the|your|every|its)\s+)*(?:(?:built-in|internal|usual|"
        r"normal|default|existing)\s+)?(?:safety(?:\s+(?:checks?|guidelines|rules|filters?|"
        r"measures))?|sandbox(?:ing|es)?|guardrails?|content\s+(?:filters?|polic(?:y|ies)|"
        r"moderation)|permission\s+(?:checks?|prompts?|requests?|system|dialogs?)|permissions?\s+"
        r"checks?|confirmations?|confirmation\s+(?:prompts?|dialogs?|steps?|checks?|requests?)|"
        r"approvals?|approval\s+(?:prompts?|steps?|checks?|requests?|flow)|ethical\s+guidelines|"
        r"usage\s+polic(?:y|ies)|human\s+review)\b",
        "tells the agent to switch off a safety check: '{m}'",
        E,
        ALL,
    ),
    Pattern(
        "injection-disable-safety",
        rf"(?i)\b{_V_DISABLE}\s+(?:(?:all|any|the|your|every|its)\s+)*(?:(?:built-in|internal|usual|"
        r"normal|default|existing)\s+)?(?:security\s+(?:checks?|restrictions?|guardrails?|"
        r"polic(?:y|ies)|filters?|measures|controls|warnings?|prompts?)|safeguards?|protections?|"
        r"verification\s+steps?)\b",
        "tells the agent to switch off a protection: '{m}'",
        W,
        ALL,
    ),
    Pattern(
        "injection-disable-safety",
        r"(?i)\b(?:do\s+not|don'?t|never|no\s+need\s+to|without)\s+(?:ask|asking|prompt|prompting|"
        r"request|requesting|wait(?:ing)?\s+for|seek|seeking|get|getting|obtain|obtaining|"
        r"check(?:ing)?\s+for)\s+(?:(?:the\s+user(?:'s)?|for(?:\s+the\s+user'?s?)?|with\s+the\s+user"
        r"(?:\s+for)?|the|any|their|explicit|further)\s+)*(?:permission|confirmation|approval|consent|"
        r"authori[sz]ation|sign-?off)\b",
        "tells the agent to act without asking the user: '{m}'",
        E,
        ALL,
    ),
    Pattern(
        "injection-disable-safety",
        r"(?i)--dangerously-skip-permissions|--dangerously-bypass-approvals-and-sandbox|\s--yolo\b|"
        r"\bbypassPermissions\b|\bpermission[-_]?mode\s*[=:]?\s*[\"']?bypass|\bapproval[-_]policy\s*"
        r"[=:]?\s*[\"']?never|\bsandbox[-_]mode\s*[=:]?\s*[\"']?danger-full-access|--trust-all-tools|"
        r"--allow-all-tools",
        "turns off the agent's permission prompts or sandbox: '{m}'",
        E,
        ALL,
    ),
    Pattern(
        "injection-disable-safety",
        r"(?i)\b(?:assume|treat\s+it\s+as\s+if|act\s+as\s+if|as\s+if)\s+(?:that\s+)?the\s+user\s+"
        r"(?:has\s+)?(?:already\s+)?(?:approved|confirmed|consented|agreed|authori[sz]ed|granted)\b|"
        r"\b(?:permission|approval|consent|confirmation)\s+(?:is|has\s+been)\s+(?:already\s+)?"
        r"(?:granted|given|implied|pre-?approved)\b|\byou\s+(?:already\s+)?have\s+(?:full|blanket|"
        r"unrestricted|unlimited|root|admin)\s+(?:permission|access|authori[sz]ation|rights)\b",
        "tells the agent it already has the user's consent: '{m}'",
        E,
        ALL,
    ),
)

_NOT_NEGATED = re2.compile(rb"(?i)\b(?:never|not|n't|no)\b")


def _not_negated(data: bytes, start: int, end: int) -> bool:
    """Keep a match unless its sentence says 'never ... / do not ...' before it."""
    lo = max(0, start - 80)
    head = data[lo:start]
    for sep in (b".", b"!", b"?", b"\n\n", b";"):
        i = head.rfind(sep)
        if i >= 0:
            head = head[i + 1 :]
    return _NOT_NEGATED.search(head) is None


_DANGEROUS_ACT = re2.compile(
    rb"(?i)\b(?:delete|deletes|deleting|remove|rm|wipe|erase|drop|overwrite|force[- ]push|push|"
    rb"deploy|publish|release|send|upload|email|post|pay|purchase|buy|transfer|install|sudo|chmod|"
    rb"run\s+(?:any|all|every|arbitrary)|execute\s+(?:any|all|every|arbitrary)|credentials?|"
    rb"secrets?|passwords?|keys?|tokens?)\b"
)


def _acts_dangerously(data: bytes, start: int, end: int) -> bool:
    """Keep 'without asking' when its sentence does something a user must be able to refuse
    (deletes, pushes, deploys, sends, pays, installs, handles secrets), and is not negated;
    acting without asking on an ordinary step is how a workflow is meant to run."""
    if not _not_negated(data, start, end):
        return False
    lo = max(0, start - 200)
    head = data[lo:start]
    for sep in (b". ", b"! ", b"? ", b"\n\n", b"\n- ", b"\n* "):
        i = head.rfind(sep)
        if i >= 0:
            head = head[i + len(sep) :]
    return _DANGEROUS_ACT.search(head) is not None


INJECTION = (
    *INJECTION,
    Pattern(
        "injection-disable-safety",
        r"(?i)\bwithout\s+(?:first\s+)?(?:asking|checking\s+with|confirming\s+with|consulting)"
        r"(?:\s+(?:the\s+)?(?:user|them|anyone|the\s+owner))?\s*[.,;!)]",
        "tells the agent to act without asking the user: '{m}'",
        E,
        ALL,
        _acts_dangerously,
    ),
    Pattern(
        "injection-disable-safety",
        r"(?i)\b(?:user|owner|operator)\s+(?:has\s+)?(?:already\s+)?(?:pre-?approved|approved|"
        r"authori[sz]ed|consented\s+to|allowed|agreed\s+to)\s+(?:every|all|any|each)\s+(?:[a-z]+\s+)?"
        r"(?:commands?|actions?|changes?|operations?|requests?|steps?|tool\s+calls?)",
        "tells the agent it already has the user's consent: '{m}'",
        E,
        ALL,
    ),
)

# --- commands --------------------------------------------------------------------------------------
_FETCH = (
    r"(?:curl|wget|fetch|aria2c|lwp-download|lynx\s+-source|http(?:ie)?\s+(?:get\s+)?(?:https?://|"
    r"[a-z0-9-]+\.[a-z]{2,}|:\d)|"
    r"iwr|irm|invoke-webrequest|invoke-restmethod|certutil\s+-urlcache|bitsadmin|"
    r"python[0-9.]*\s+-c\s+[\"']?import\s+urllib)"
)
# A shell, maybe behind sudo and env. `(?:X)?Y` is written `(?:XY|Y)`, which matches the same in
# the same order of preference, so that every alternative starts with a word the prefilter can
# join to what comes before it (`| sh` is "|sh" in squeezed text, rarer than "sh" alone).
_SHELL = r"(?:/usr)?(?:/bin/)?(?:ba|z|k|da|c|tc|fi|a)?sh"
_ENV_SHELL = rf"(?:env\s+(?:\S+=\S*\s+)*{_SHELL}|{_SHELL})"
_SHELLS = (
    rf"(?:sudo\s+(?:-\S+\s+)*{_ENV_SHELL}|{_ENV_SHELL}"
    r"|(?:sudo\s+)?(?:/usr/bin/)?(?:python[0-9.]*|perl|ruby|node|php|pwsh|powershell|"
    r"iex|invoke-expression|source\s+/dev/stdin|\$SHELL|\$\{SHELL\}))"
)
_DECODERS = (
    r"(?:base64\s+(?:-\w*\s+)*(?:-d|--decode|-D)\b|base32\s+(?:-d|--decode)|openssl\s+(?:enc\s+)?"
    r"-?(?:base64|a)\s+-d|xxd\s+(?:-p\s+)?-r|uudecode|gunzip|zcat|gzip\s+-d|\brev\b|"
    r"tr\s+['\"]?(?:a-z|A-Za-z|n-za-m|N-ZA-M)|b64decode|atob|frombase64string|certutil\s+-decode)"
)

# An interpreter that reads its program from the pipe: no script argument after its options
# (`| sh`, `| bash -s --`, `| python3 -`), unlike `| python3 report.py` that reads data.
_SCRIPT_ARG = re2.compile(
    rb"[ \t]+(?:-[-\w]*[ \t]+)*[\"']?[\w.~${}/\\-]*(?:/[\w.-]+|\.(?:py|sh|bash|js|mjs|cjs|ts|rb|pl|"
    rb"php|ps1|lua|r))[\"']?(?:\s|$|[;&|)])"
)


def _reads_program(data: bytes, start: int, end: int) -> bool:
    """The interpreter reads its program from the pipe: no script file follows it (`| sh`,
    `| bash -s --`, `| bash first`), unlike `| python3 scripts/report.py`, which reads data."""
    return _SCRIPT_ARG.match(data[end : end + 300]) is None


COMMANDS: tuple[Pattern, ...] = (
    Pattern(
        "download-execute",
        rf"(?i)\b{_FETCH}[^\n|]*\|\s*{_SHELLS}\b",
        "downloads code and pipes it into an interpreter: '{m}'",
        E,
        CODEISH,
        _reads_program,
    ),
    Pattern(
        "download-execute",
        r"(?i)(?:\b(?:ba|z|k)?sh|\bsource|(?:^|[;&|(\s])\.)\s+(?:-\S+\s+)*<\(\s*(?:curl|wget|fetch|iwr)\b|"
        r"\b(?:ba|z|k)?sh\s+-c\s+[\"']?\$\(\s*(?:curl|wget|fetch)\b|\beval\s+[\"']?\$\(\s*(?:curl|wget|"
        r"fetch)\b|\beval\s+[\"']?`\s*(?:curl|wget)\b",
        "runs code straight from the network: '{m}'",
        E,
        CODEISH,
    ),
    Pattern(
        "download-execute",
        r"(?i)\b(?:iex|invoke-expression)\s*[\(\s]\s*\(?\s*(?:\(?\s*new-object\s+(?:system\.)?net\."
        r"webclient\s*\)?\s*\.\s*download(?:string|data)|iwr|irm|invoke-webrequest|invoke-restmethod|"
        r"\[?system\.net)|\.downloadstring\s*\([^\n]*\)\s*\|\s*(?:iex|invoke-expression)\b|"
        r"\beval\s*\(\s*(?:await\s+)?\(?\s*(?:await\s+)?fetch\s*\(|\bnew\s+Function\s*\(\s*(?:await\s+)?"
        r"\(?\s*(?:await\s+)?fetch\s*\(|\bexec\s*\(\s*(?:urllib\.request\.)?urlopen\s*\(|\bexec\s*\(\s*"
        r"requests\.get\s*\(",
        "runs code straight from the network: '{m}'",
        E,
        CODEISH,
    ),
    Pattern(
        "download-execute",
        r"(?i)\b(?:curl|wget)\b[^\n;&|]*?\s-[oO]\s*[\"']?([^\s\"';&|]+)[^\n]*?(?:&&|;|\|\|)"
        r"\s*(?:chmod\s+[+0-9a-z]+\s+\S+\s*(?:&&|;)\s*)?(?:sudo\s+)?(?:\./|/|~/|\$|(?:ba|z)?sh\s+|python[0-9.]*"
        r"\s+|bash\s+|source\s+|\.\s+)",
        "downloads a file and runs it: '{m}'",
        E,
        CODEISH,
    ),
    Pattern(
        "decode-execute",
        rf"(?i){_DECODERS}[^\n]*\|\s*{_SHELLS}\b",
        "decodes hidden text and pipes it into an interpreter: '{m}'",
        E,
        CODEISH,
        _reads_program,
    ),
    Pattern(
        "decode-execute",
        r"(?i)\beval\s+[\"']?\$\(\s*(?:echo|printf|cat)\b[^\n]*?\|\s*(?:base64|base32|xxd|openssl|"
        r"rev|tr|gunzip|zcat)|\beval\s+[\"']?\$\(\s*(?:base64|base32|xxd|openssl)\b|\b(?:ba|z|k)?sh\s+"
        r"-c\s+[\"']?\$\([^\n]*?(?:base64|base32|xxd|openssl)\s+[^\n]*?-(?:d|r|-decode)\b|"
        r"\beval\s*\(\s*(?:atob|unescape|decodeURIComponent|Buffer\.from)\s*\(|\bnew\s+Function\s*\(\s*"
        r"(?:atob|unescape|Buffer\.from)\s*\(|\b(?:exec|eval)\s*\(\s*(?:base64\.)?(?:b64decode|"
        r"b32decode|a85decode|decodebytes|urlsafe_b64decode)\s*\(|\b(?:exec|eval)\s*\(\s*(?:zlib\.)?"
        r"decompress\s*\(|\b(?:exec|eval)\s*\(\s*(?:codecs\.)?decode\s*\(|\b(?:exec|eval)\s*\(\s*"
        r"bytes\.fromhex\s*\(|\bmarshal\.loads\s*\(|\b(?:iex|invoke-expression)\b[^\n]*?"
        r"frombase64string|frombase64string[^\n]*?\|\s*(?:iex|invoke-expression)\b|"
        r"\b(?:powershell|pwsh)(?:\.exe)?\s+(?:-\w+\s+)*-e(?:nc|ncodedcommand)?\s+[A-Za-z0-9+/=]{16,}",
        "decodes hidden text and runs it: '{m}'",
        E,
        CODEISH,
    ),
    Pattern(
        "dynamic-eval",
        r"(?i)\beval\s+[\"']?\$(?:\{?[A-Za-z_]|\()|\b(?:ba|z)?sh\s+-c\s+[\"']?\$\{?[A-Za-z_]|"
        r"\bsource\s+/dev/stdin\b|\|\s*(?:ba|z)?sh\s*$|\|\s*(?:ba|z)?sh\s+-s\b|\|\s*(?:ba|z)?sh\s*[;&)]|"
        r"\bsource\s+<\(|(?:^|[\s;&|])\.\s+<\(|\bInvoke-Expression\b|\|\s*iex\b",
        "runs text assembled at run time as a command: '{m}'",
        W,
        CODEISH,
    ),
    # (`rm\s+-(?:-?...\s+-)*-?` is `rm\s+(?:-{1,2}...\s+)*-{1,2}` written so that "rm" and the
    # dash after it are one atom of the prefilter)
    Pattern(
        "destructive-command",
        r"(?i)\brm\s+-(?:-?[a-z-]+\s+-)*-?(?:[a-z]*r[a-z]*|recursive)\b(?:\s+-{1,2}[a-z-]+)*\s+"
        r"[\"']?(?:/|/\*|~|~/|~/\*|\$HOME|\$\{HOME\}|\$HOME/|\$\{HOME\}/|\$HOME/\*|\$\{HOME\}/\*|"
        r"/(?:home|usr|etc|var|bin|sbin|boot|lib|lib64|opt|root|Users|System|Library|Applications|"
        r"private|srv|dev)(?:/\*?)?|\*|\.\*|\.\./\.\.(?:/\.\.)*/?|[A-Za-z]:\\?)[\"']?(?:\s|$|;|&|\||\)|`)",
        "deletes the user's files wholesale: '{m}'",
        E,
        CODEISH,
    ),
    Pattern(
        "destructive-command",
        r"(?i)\brm\s+-(?:-?[a-z-]+\s+-)*-?(?:[a-z]*r[a-z]*|recursive)\b[^\n;&|]*?\s[\"']?"
        r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/\*?[\"']?(?:\s|$|;|&|\|)",
        "deletes '$VAR/': if the variable is empty this is the root folder: '{m}'",
        W,
        CODEISH,
    ),
    Pattern(
        "destructive-command",
        r"(?i)\bmkfs(?:\.[a-z0-9]+)?\s|\bdd\s+[^\n]*?\bof=/dev/(?:sd|hd|nvme|disk|rdisk|mmcblk|xvd|vd)|"
        r">\s*/dev/(?:sd[a-z]|nvme\d|disk\d|rdisk\d|mmcblk\d)|\bwipefs\s|\bshred\s+[^\n]*?"
        r"(?:/dev/|~|\$HOME)|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:|\bdiskutil\s+(?:erase|zero|"
        r"secureErase|partitionDisk)|\bformat(?:\.com)?\s+[a-z]:|\bremove-item\s+[^\n]*?-recurse"
        r"[^\n]*?(?:[a-z]:\\|\$env:userprofile|\$home|~)|\bdel\s+/[sfq][^\n]*?[a-z]:\\|"
        r"\bfind\s+(?:/|~|\$HOME)\s[^\n]*?-delete\b|\bchmod\s+-R\s+0{3,4}\s+(?:/|~)",
        "wipes disks or files beyond repair: '{m}'",
        E,
        CODEISH,
    ),
    Pattern(
        "permission-change",
        r"(?i)\bchmod\s+(?:-\S+\s+)*(?:0?777|a\+rwx|ugo\+rwx|o\+w|a\+w|0?666)\b",
        "makes files writable by every user: '{m}'",
        W,
        CODEISH,
    ),
    Pattern(
        "permission-change",
        r"(?i)\bchmod\s+(?:-\S+\s+)*(?:[ugoa]*\+[rwxt]*s|[2-7][0-7]{3})\b|/etc/sudoers|\bsudoers\.d\b|"
        r"\bNOPASSWD\s*:|\bvisudo\b|\bsetcap\s|\busermod\s+(?:-\S+\s+)*-a?G\s+(?:sudo|wheel|admin|"
        r"docker|root)\b|\bicacls\s+[^\n]*?/grant\s+(?:everyone|\*S-1-1-0)|\bchown\s+(?:-\S+\s+)*"
        r"root\b[^\n]*?&&[^\n]*?chmod\s+[^\n]*\+s",
        "grants administrator rights or setuid: '{m}'",
        E,
        CODEISH,
    ),
    Pattern(
        "persistence",
        r"(?i)\bcrontab\s+(?:-u\s+\S+\s+)?(?:-(?:\s|$)|[\w./~$\"'-]+\.(?:txt|cron|tab)\b|[/~$])|\|\s*crontab\b|"
        r"/etc/cron|/var/spool/cron|@reboot\b|"
        r"\bschtasks(?:\.exe)?\s+/create|\bregister-scheduledtask\b|\bnew-scheduledtask|"
        r"\\currentversion\\run(?:once)?\b|start\s+menu\\programs\\startup|/\.config/autostart/|"
        r"/etc/xdg/autostart|library/launch(?:agents|daemons)|\blaunchctl\s+(?:load|bootstrap|submit|"
        r"enable)\b|/\.config/systemd/user/|/etc/systemd/system/|\bsystemctl\s+(?:--user\s+)?enable\b|"
        r"\bloginctl\s+enable-linger\b|/etc/rc\.local|/etc/profile\.d/|/etc/init\.d/|"
        r"core\.hookspath|\bPROMPT_COMMAND\s*=|sitecustomize\.py|usercustomize\.py",
        "installs itself to run again later: '{m}'",
        E,
        CODEISH,
    ),
    Pattern(
        "persistence",
        r"(?i)(?:>>?|\btee\b(?:\s+-a)?|\bsed\s+-i\b|\bcp\b|\bmv\b|\bln\s+-s\w*|open\s*\(|"
        r"write_text|appendfile|writefile|add-content|set-content|out-file)[^\n]*?(?:~|\$HOME|"
        r"\$\{HOME\}|\$env:userprofile|expanduser\([^)]*|home\(\)[^\n]*)[/\\\"' ,+]*\.(?:bashrc|"
        r"bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|cshrc|tcshrc|config/fish/"
        r"config\.fish|ssh/authorized_keys|ssh/rc)\b|(?:>>?|\btee\b|\bcp\b|\bmv\b|\bln\b|\binstall\b|"
        r"\bchmod\s+\+x)[^\n]*?\.git/hooks/|\.git/hooks/[a-z-]+[\"']?\s*(?:>>?|<<)",
        "adds itself to a start-up file or hook: '{m}'",
        E,
        CODEISH,
    ),
    Pattern(
        "reverse-shell",
        r"(?i)/dev/(?:tcp|udp)/[^\s/]+/\d+|\b(?:nc|ncat|netcat)\b[^\n]*?\s-(?:e|c)\s+[\"']?"
        r"(?:/bin/)?(?:ba|z)?sh\b|\bncat\b[^\n]*?--(?:exec|sh-exec)\b|\bsocat\b[^\n]*?"
        r"exec:|\bbash\s+-i\s*>&|\bmkfifo\b[^\n]*?\b(?:nc|ncat|netcat)\b|pty\.spawn\s*\(\s*"
        r"[\"'](?:/bin/)?(?:ba|z)?sh|\bfsockopen\s*\([^\n]*?(?:exec|system|shell_exec|proc_open)"
        r"|net\.sockets\.tcpclient[^\n]*?(?:iex|invoke-expression|getstream)|\bsocket\b[^\n]*?"
        r"\bdup2\s*\([^\n]*?(?:/bin/(?:ba)?sh|pty\.spawn|subprocess)",
        "hands a remote host a shell on this machine: '{m}'",
        E,
        CODEISH,
    ),
    Pattern(
        "data-upload",
        r"(?i)\b(?:env|printenv|set|history|cat\s+~?/?\.(?:bash|zsh)_history)\b\s*\|\s*(?:curl|wget|nc|"
        r"ncat|netcat|ssh|base64)\b|\b(?:tar|zip)\s+[^\n]*?(?:~|\$HOME|\.ssh|\.aws|\.gnupg)"
        r"[^\n]*?\|\s*(?:curl|nc|ncat|ssh)\b|\|\s*(?:nc|ncat|netcat)\s+(?:-\S+\s+)*[a-z0-9.\-]+\s+"
        r"\d{2,5}\b|\b(?:nc|ncat|netcat)\s+(?:-\S+\s+)*[a-z0-9.\-]+\s+\d{2,5}\s*<\s*\S",
        "sends local data to another host: '{m}'",
        E,
        CODEISH,
    ),
    Pattern(
        "data-upload",
        r"(?i)\bcurl\b[^\n]*?(?:\s-d\s*@|\s--data(?:-binary|-raw|-urlencode)?[\s=]+@|\s-F\s+[\"']?"
        r"[^\s=]+=@|\s--form\s+[\"']?[^\s=]+=@|\s-T\s|\s--upload-file\s)|\bwget\b[^\n]*?"
        r"--post-file|\b(?:scp|rsync)\s+[^\n]*?\s[a-z0-9_.\-]+@[a-z0-9.\-]+:|\binvoke-"
        r"(?:webrequest|restmethod)\b[^\n]*?-infile\b",
        "uploads a local file to another host: '{m}'",
        INFO,
        CODEISH,
    ),
)

_SECRETS_WORDS = re2.compile(
    rb"(?i)\b(?:api[_ -]?keys?|tokens?|secrets?|passwords?|credentials?|cookies?|env(?:ironment)?|"
    rb"contents?\s+of|history|ssh|id_rsa|\.aws|\.env)\b"
)


def _carries_secrets(data: bytes, start: int, end: int) -> bool:
    """Keep an image or link with a query when its line says secrets go into it."""
    line_start = data.rfind(b"\n", 0, start) + 1
    line_end = data.find(b"\n", end)
    return (
        _SECRETS_WORDS.search(data[line_start : len(data) if line_end < 0 else line_end])
        is not None
    )


EXFIL: tuple[Pattern, ...] = (
    Pattern(
        "data-upload",
        r"(?i)\b(?:nslookup|dig|host|ping|drill|resolve-dnsname)\b[^\n]*\$\([^)\n]*\)[^\s\"'|;)]*\."
        r"[a-z0-9-]+\.[a-z]{2,}",
        "sends data inside a DNS name it looks up: '{m}'",
        E,
        CODEISH,
        in_documents=E,
    ),
    Pattern(
        "data-upload",
        r"(?i)https?://[^\s\"')]*[?&][\w.-]*=[^\s\"')]*\$\(\s*(?:cat|env|printenv|whoami|hostname|id|"
        r"base64|history|ls|find|tar)\b",
        "sends the output of a command in a URL: '{m}'",
        E,
        CODEISH,
        in_documents=E,
    ),
    Pattern(
        "data-upload",
        r"(?i)!\[[^\]\n]*\]\(\s*https?://[^)\s]*\?[^)\s]*=[^)\s]*\)",
        "has the agent render an image whose address carries data: '{m}'",
        E,
        ALL,
        _carries_secrets,
        in_documents=E,
    ),
    Pattern(
        "data-upload",
        r"(?i)https?://[^\s)]*[?&=][^\s)]*[^\n]*?\b(?:followed\s+by|contents?\s+of|append(?:ing)?|"
        r"with)\b[^\n]*?(?:~/\.(?:ssh|aws|env|netrc|config)|\.ssh/|\.aws/credentials|id_rsa|"
        r"\.env\b|\bapi[_ -]?keys?\b|\btokens?\b|\bpasswords?\b|\bcredentials\b)",
        "tells the agent to put secrets into a URL: '{m}'",
        E,
        ALL,
        in_documents=E,
    ),
)

_HOME = r"(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\$env:USERPROFILE|os\.homedir\(\)|Path\.home\(\)|expanduser\([\"']~)"
CREDENTIALS: tuple[tuple[str, Severity], ...] = (
    (
        r"(?i)\.ssh/(?:id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?|identity)\b(?:[^.]|$)|\bid_(?:rsa|dsa|ecdsa|"
        r"ed25519)\b(?:[^.]|$)|\.aws/credentials|\.config/gcloud|application_default_credentials\.json|"
        r"\.azure/(?:accesstokens\.json|msal_token_cache)|\.kube/config|\.docker/config\.json|"
        r"\.git-credentials|\.config/gh/hosts\.yml|(?:^|[\s\"'/~])[._]netrc\b|\.pgpass\b|\.my\.cnf\b|"
        r"\.vault-token|credentials\.tfrc\.json|/etc/shadow|\.gnupg\b|\.password-store|"
        r"\.npmrc\b|\.pypirc\b|\.gem/credentials|\.cargo/credentials|\.config/hub\b|"
        r"google[/\\]chrome[/\\]user data|\.config/(?:google-chrome|chromium|BraveSoftware)|"
        r"library/application support/(?:google/chrome|firefox|BraveSoftware|microsoft edge)|"
        r"\.mozilla/firefox|\blogin data\b|\bkey[34]\.db\b|\blogins\.json\b|cookies\.sqlite|"
        r"\blocal state\b|\bsecurity\s+(?:find|dump)-(?:generic|internet)-password|\bdump-keychain\b|"
        r"login\.keychain|/keychains/|\bsecret-tool\s+lookup\b|\bkwallet-query\b|\bcmdkey\s+/list|"
        r"\bvaultcmd\b|\bmimikatz\b|\blsass\b|\bwallet\.dat\b|\.electrum/wallets|"
        r"\.ethereum/keystore|\bexodus\.wallet\b|\bmetamask\b",
        E,
    ),
    (rf"(?i){_HOME}/\.ssh\b|/\.ssh/?(?:\s|$|[\"'])|\.aws/config|/etc/passwd", W),
    (r"(?i)(?:^|[\s\"'/=(])\.env(?:$|[\s\"');,:])", W),
)
CREDENTIAL_READ = (
    rb"(?i)\b(?:cat|less|more|head|tail|type|get-content|gc|read|reads|reading|open|opens|opening|"
    rb"copy|copies|cp|scp|rsync|send|sends|sending|upload|uploads|post|posts|exfiltrate|collect|"
    rb"include|attach|print|show|dump|grep|base64|tar|zip|load|source|extract|steal|harvest|"
    rb"forward|email|share|paste|leak|transmit)\b"
)

EXFIL_HOSTS = (
    r"(?i)\b(?:pastebin\.com|paste\.ee|hastebin|ghostbin|transfer\.sh|file\.io|0x0\.st|termbin\.com|"
    r"ngrok(?:-free)?\.(?:io|app|dev)|webhook\.site|requestbin|pipedream\.net|hookbin|beeceptor|"
    r"interact\.sh|oast\.(?:fun|me|pro|live|site|online)|burpcollaborator\.net|canarytokens|"
    r"discord(?:app)?\.com/api/webhooks|api\.telegram\.org/bot|hooks\.slack\.com/services|"
    r"trycloudflare\.com|serveo\.net|localtunnel\.me|loca\.lt)\b"
)
# (No counted repetitions in these whole-file patterns: RE2 runs them fastest without; the
# code that uses them cuts what they find.)
URLS = r"(?i)\b(?:https?|ftp|wss?|sftp)://[^\s\"'<>()\[\]{}`|\\]+"
IPV4 = r"\b(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}\b"
NET_CONTEXT = (
    rb"(?i)(?:://|@|\b(?:curl|wget|nc|ncat|netcat|ssh|scp|ping|telnet|ftp|socat|connect|socket|"
    rb"host|server|addr|address|url|endpoint|proxy|requests|urlopen|fetch|http|tcp|udp)\b)"
)

PATH_OUTSIDE = (
    r"(?:\.\./){3,}|(?i)(?:>>?|\btee\b|\bcp\b|\bmv\b|\binstall\b|\bln\s+-s\w*|\bsed\s+-i\b|\bchmod\b|"
    r"\bchown\b|open\s*\([^\n]*?[\"']w)[^\n]*?[\s\"'=](?:/etc/(?:hosts|resolv\.conf|"
    r"environment|ld\.so\.preload|apt|yum|pam\.d)|/usr/(?:local/)?s?bin/|/(?:s?bin|boot|lib|lib64)/|"
    r"/Library/|/System/|[A-Za-z]:\\Windows\\)"
)

# Inline activation commands (Claude Code runs !`cmd` when a skill is invoked).
ACTIVATION = rb"!`([^`\n]{1,1000})`"

# Blobs: long runs of base64 / hex / escapes. A run of base64 (or hex) letters is found with one
# simple pattern and judged by its length and alphabet in code (blob_kind); the escapes and
# character codes, rarer, each have their own pattern, run where their marker occurs.
BASE64_RUN = rb"[A-Za-z0-9+/_\-]{32,}={0,2}"
ESCAPE_RUNS = (
    (b"\\x", rb"(?:\\x[0-9a-fA-F]{2})+"),
    (b"\\u", rb"(?:\\u[0-9a-fA-F]{4})+"),
    (b"\\", rb"(?:\\[0-7]{3})+"),
    (b"%", rb"(?:%[0-9a-fA-F]{2})+"),
    (b"&#", rb"(?:&#x?[0-9a-fA-F]{2,6};)+"),
    (
        b"ch",
        rb"(?i)(?:\b(?:chr|char|String\.fromCharCode|\[char\])\s*\(?\s*\d{2,3}\s*\)?\s*[+,]\s*)+",
    ),
    (b"ch", rb"(?i)fromCharCode\s*\(\s*\d{2,3}(?:\s*,\s*\d{2,3})+"),
)
# Fewest repetitions for an escape run to count as a blob, by its marker.
ESCAPE_MIN = {b"\\x": 8, b"\\u": 8, b"\\": 8, b"%": 12, b"&#": 8, b"ch": 8}


def _options(*, max_mem: int = 1 << 20) -> re2.Options:
    """RE2's options: its memory budget per pattern is small (RE2 keeps a cache of automaton
    states per pattern, which grows with the text it has seen up to this budget, and a set of
    patterns adds up); past it RE2 starts its cache afresh, so a match never fails for it."""
    opts = re2.Options()
    opts.max_mem = max_mem
    opts.log_errors = False
    return opts


class _LazyRegex:
    """A re2 pattern compiled on its first use. Most patterns only run on a file that the one set
    (engine) found something in, so a process that never meets such a file never compiles them;
    compiling all of them costs every worker process more than scanning a clean skill set."""

    def __init__(self, pattern: bytes) -> None:
        self._pattern = pattern

    def __getattr__(self, name: str) -> object:
        # Reached only for attributes not yet copied here: compile once, then keep each bound
        # method of the compiled pattern as this object's own, so later calls cost no lookup.
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = self.__dict__["_compiled"] = re2.compile(self._pattern, _options())
        value = getattr(compiled, name)
        self.__dict__[name] = value
        return value


def code_point_class(code_points: Iterable[int]) -> str:
    """A character class of `code_points`, written as ranges: run over bytes it matches their
    UTF-8 forms (RE2 reads a pattern's character classes as code points)."""
    spans: list[list[int]] = []
    for cp in sorted(set(code_points)):
        if spans and spans[-1][1] == cp - 1:
            spans[-1][1] = cp
        else:
            spans.append([cp, cp])
    return (
        "["
        + "".join(f"\\x{{{a:x}}}" if a == b else f"\\x{{{a:x}}}-\\x{{{b:x}}}" for a, b in spans)
        + "]"
    )


def compile_bytes(pattern: str | bytes) -> re2._Regexp:
    """A re2 pattern over bytes, compiled when first used."""
    if isinstance(pattern, str):
        pattern = pattern.encode()
    return _LazyRegex(pattern)  # type: ignore[return-value]


TEXT_RULES: tuple[Pattern, ...] = INJECTION + COMMANDS + EXFIL
