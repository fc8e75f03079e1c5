"""Fake tokens are assembled from pieces so this file holds nothing a scanner would flag."""

import pytest

from codeloop.quality.secret_patterns import find_secrets, shannon_entropy

AWS_KEY = "AKIA" + "Q7XK2M9PLR4TWZ3B"
GITHUB_TOKEN = "ghp" + "_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"
GITHUB_PAT = "github" + "_pat_" + "11ABCDEFG0" + "aBcDeFgHiJkLmNoPqRsTuV_" + "Zq81Lp"
OPENAI_KEY = "sk" + "-proj-" + "Tq8vLm2Xr9Kd4Wz7Np3Hs6Yb1Fc5Jg0A"
SLACK_TOKEN = "xox" + "b-" + "123456789012-" + "2345678901234-" + "AbCdEfGhIjKlMnOpQrStUvWx"
SLACK_WEBHOOK = "https://hooks.slack.com/services/" + "T0ABC1234/" + "B0DEF5678/" + "q1W2e3R4t5Y6"
PEM_HEADER = "-----BEGIN " + "OPENSSH PRIVATE KEY" + "-----"
RANDOM_VALUE = "Zx8Qw3Er7" + "Ty2Ui6Op1As"


@pytest.mark.parametrize(("line_text", "rule", "severity"), [
    (f'AWS_KEY = "{AWS_KEY}"', "SECRET-AWS-ACCESS-KEY", "HIGH"),
    (f'TOKEN = "{GITHUB_TOKEN}"', "SECRET-GITHUB-TOKEN", "HIGH"),
    (f'client(auth="{GITHUB_PAT}")', "SECRET-GITHUB-TOKEN", "HIGH"),
    (f'client = OpenAI(api_key="{OPENAI_KEY}")', "SECRET-OPENAI-KEY", "HIGH"),
    (f'SLACK = "{SLACK_TOKEN}"', "SECRET-SLACK-TOKEN", "HIGH"),
    (f'HOOK = "{SLACK_WEBHOOK}"', "SECRET-SLACK-WEBHOOK", "MEDIUM"),
    (f'KEY = """{PEM_HEADER}', "SECRET-PRIVATE-KEY", "HIGH"),
    (f'api_key = "{RANDOM_VALUE}"', "SECRET-GENERIC-ASSIGNMENT", "MEDIUM"),
    (f'config = {{"client_secret": "{RANDOM_VALUE}"}}', "SECRET-GENERIC-ASSIGNMENT", "MEDIUM"),
])
def test_each_pattern_is_found_on_its_line(line_text, rule, severity):
    text = f"import os\n\n{line_text}\nprint('done')\n"
    findings = find_secrets(text)
    assert [(f.line, f.test_id, f.severity, f.source) for f in findings] == [
        (3, rule, severity, "secrets")]


@pytest.mark.parametrize("secret", [AWS_KEY, GITHUB_TOKEN, OPENAI_KEY, SLACK_TOKEN, RANDOM_VALUE])
def test_messages_never_hold_the_secret(secret):
    (finding,) = find_secrets(f'api_token = "{secret}"\n')
    assert secret not in finding.message
    assert secret[:4] in finding.message


def test_known_prefix_is_not_reported_twice_as_generic():
    findings = find_secrets(f'api_key = "{OPENAI_KEY}"\n')
    assert [f.test_id for f in findings] == ["SECRET-OPENAI-KEY"]


@pytest.mark.parametrize("line_text", [
    'api_key = os.environ["OPENAI_API_KEY"]',
    'api_key = "OPENAI_API_KEY_FROM_ENV"',
    'password = "your-password-goes-here"',
    'token_url = "https://auth.service.io/oauth2/token9"',
    'secret = "short1A"',
    'api_key = "aaaaaaaaaaaaaaaaaaaaaaa1"',
    'AWS = "AKIA' + 'IOSFODNN7EXAMPLE"',
    'if token == "Zx8Qw3Er7Ty2Ui6Op1As":',
    'task-list of sk-type things',
])
def test_placeholders_and_ordinary_code_are_not_flagged(line_text):
    assert find_secrets(line_text + "\n") == []


def test_shannon_entropy():
    assert shannon_entropy("") == 0.0
    assert shannon_entropy("aaaa") == 0.0
    assert shannon_entropy("abcd") == pytest.approx(2.0)
