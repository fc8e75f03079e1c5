"""Find hard-coded secrets in source text: well-known token formats, PEM private keys, and
credential-named assignments whose value looks random. Works on any text, parsable or not."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from codeloop.quality.grades import Severity
from codeloop.quality.security_report import SecurityFinding


@dataclass(frozen=True)
class SecretRule:
    rule_id: str
    description: str
    pattern: re.Pattern[str]
    severity: Severity
    confidence: str


# Token formats with a fixed, documented prefix: a match is very likely real.
PREFIXED_RULES: tuple[SecretRule, ...] = (
    SecretRule("SECRET-AWS-ACCESS-KEY", "AWS access key id",
               re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b"),
               "HIGH", "HIGH"),
    SecretRule("SECRET-GITHUB-TOKEN", "GitHub token",
               re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
               "HIGH", "HIGH"),
    SecretRule("SECRET-OPENAI-KEY", "OpenAI-style API key",
               # letters and digits both required: checked after the match (_is_mixed), since
               # lookaheads here rescanned the text at every "sk-" (quadratic on model text)
               re.compile(r"\bsk-(?:proj-|svcacct-|admin-|ant-)?(?P<tail>[A-Za-z0-9_-]{20,})"),
               "HIGH", "HIGH"),
    SecretRule("SECRET-SLACK-TOKEN", "Slack token",
               re.compile(r"\b(?:xox[abposr]-\d{6,}-[A-Za-z0-9-]{10,}"
                          r"|xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]{16,})"),
               "HIGH", "HIGH"),
    SecretRule("SECRET-SLACK-WEBHOOK", "Slack incoming-webhook URL",
               re.compile(r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+"),
               "MEDIUM", "HIGH"),
    SecretRule("SECRET-PRIVATE-KEY", "PEM private key block",
               re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
               "HIGH", "HIGH"),
)

# `api_key = "..."`, `"client_secret": "..."`, `password="..."`: judged by the value's look.
# The name is taken whole (`\w++`, possessive) and checked for a credential word after the
# match: `\w*(?:token|...)\w*` backtracked quadratically on a long word of model text.
GENERIC_ASSIGNMENT = SecretRule(
    "SECRET-GENERIC-ASSIGNMENT", "hard-coded credential",
    re.compile(
        r"\b(?P<name>\w++)[\"']?\s*+[:=]\s*+[rbuRBU]{0,2}(?P<quote>[\"'])"
        r"(?P<value>[^\"'\s]{16,}+)(?P=quote)"
    ),
    "MEDIUM", "MEDIUM",
)
_CREDENTIAL_NAME = re.compile(r"(?i)api[_-]?key|secret|token|passw(?:or)?d|pwd"
                              r"|access[_-]?key|auth[_-]?key|credential")

_PLACEHOLDER_MARKERS = ("example", "xxxx", "your", "changeme", "placeholder", "dummy",
                        "redacted", "<", ">", "${", "{{", "****")
MIN_ENTROPY_BITS = 3.0  # per character; English words and env-var names fall below or lack mix


@dataclass(frozen=True)
class SecretMatch:
    start: int
    end: int
    rule: SecretRule
    secret: str
    name: str | None = None  # the variable a generic secret is assigned to


def scan(text: str) -> list[SecretMatch]:
    """Every secret the rules recognise in `text`, in order of position: the one scan behind
    the security findings and the redaction of what leaves the process."""
    found: list[SecretMatch] = []
    claimed: list[tuple[int, int]] = []  # spans already matched by a prefixed rule
    for rule in PREFIXED_RULES:
        for match in rule.pattern.finditer(text):
            if _is_placeholder(match.group(0)):
                continue
            tail = match.groupdict().get("tail")
            if tail is not None and not _is_mixed(tail):
                continue
            claimed.append(match.span())
            found.append(SecretMatch(match.start(), match.end(), rule, match.group(0)))
    for match in GENERIC_ASSIGNMENT.pattern.finditer(text):
        start, end = match.span("value")
        value = match.group("value")
        if not _CREDENTIAL_NAME.search(match.group("name")):
            continue
        if any(start < c_end and c_start < end for c_start, c_end in claimed):
            continue
        if _looks_random(value):
            found.append(SecretMatch(start, end, GENERIC_ASSIGNMENT, value, match.group("name")))
    return sorted(found, key=lambda m: m.start)


def find_secrets(text: str) -> list[SecurityFinding]:
    """All secret findings in `text`, by line; the secret itself is redacted."""
    return [_finding(m.rule, text, m.start, m.secret, name=m.name) for m in scan(text)]


def _finding(rule: SecretRule, text: str, offset: int, secret: str,
             name: str | None = None) -> SecurityFinding:
    where = f" assigned to {name!r}" if name else ""
    shown = secret if rule.rule_id == "SECRET-PRIVATE-KEY" else _redact(secret)
    return SecurityFinding(
        line=text.count("\n", 0, offset) + 1,
        severity=rule.severity,
        confidence=rule.confidence,
        test_id=rule.rule_id,
        message=f"possible {rule.description}{where}: {shown}",
        source="secrets",
    )


def _redact(secret: str) -> str:
    return f"{secret[:4]}… ({len(secret)} chars)"


def _is_placeholder(value: str) -> bool:
    lowered = value.lower()
    return any(marker in lowered for marker in _PLACEHOLDER_MARKERS)


def _is_mixed(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() and c.isascii() for c in value)


def _looks_random(value: str) -> bool:
    if _is_placeholder(value) or "://" in value:  # a URL is an address, not a credential
        return False
    kinds = sum((any(c.islower() for c in value), any(c.isupper() for c in value),
                 any(c.isdigit() for c in value)))
    return kinds >= 2 and shannon_entropy(value) >= MIN_ENTROPY_BITS


def shannon_entropy(value: str) -> float:
    """Bits per character of `value`'s character distribution."""
    if not value:
        return 0.0
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())
