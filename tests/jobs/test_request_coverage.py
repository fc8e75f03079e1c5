"""The rules that find a request only partly done after an edit (jobs/edit_engine/request_coverage.py),
each with the case it must leave alone."""

from __future__ import annotations

from codeloop.jobs.edit_engine.request_coverage import quoted_part, unmet_parts

CLI = ('import argparse\n\n\ndef main(argv=None):\n    parser = argparse.ArgumentParser()\n'
       '    parser.add_argument("--min", type=float, default=0.0)\n'
       '    args = parser.parse_args(argv)\n    print(args.min)\n')
CLI_JSON = CLI.replace('"--min", type=float, default=0.0', '"--json", action="store_true"')
CLI_BOTH = CLI.replace("    args =", '    parser.add_argument("--json", action="store_true")\n'
                       "    args =")


def test_a_name_the_request_keeps_and_the_edit_removed():
    request = "Add a --json flag to cli.py. --min must still apply."
    notes = unmet_parts(request, {"cli.py": CLI}, {"cli.py": CLI_JSON})
    assert notes == [('The request says "--min must still apply", and your edit removed --min '
                     'from cli.py.')]
    assert unmet_parts(request, {"cli.py": CLI}, {"cli.py": CLI_BOTH}) == []


def test_a_removal_or_rename_the_request_asks_for_is_not_flagged():
    for request in ("Remove the --min option from cli.py.",
                    "Rename --min to --json in cli.py."):
        assert unmet_parts(request, {"cli.py": CLI}, {"cli.py": CLI_JSON}) == []


def test_a_name_asked_for_that_no_file_has():
    before = {"config.json": '{"timeout": 10}\n', "settings.py": "X = 1\n"}
    after = {"config.json": '{"timeout": 30}\n', "settings.py": "X = 1\n"}
    request = ('Set the timeout to 30 in config.json and add "max_retries": 5 to it. Make '
               "settings.py read max_retries.")
    assert unmet_parts(request, before, after) == [
        'The request says "Make settings.py read max_retries", and settings.py has not changed.',
        ('The request says "Set the timeout to 30 in config.json and add "max_retries": 5 to it", '
        "and no file has max_retries yet.")]
    done = {"config.json": '{"timeout": 30, "max_retries": 5}\n',
            "settings.py": "X = 1\nMAX = data['max_retries']\n"}
    assert unmet_parts(request, before, done) == []


def test_a_named_function_left_as_it_was_in_a_changed_file():
    before = {"report.py": "def format_task(t):\n    return t\n\n\ndef format_report(ts):\n"
                           "    return ts\n"}
    after = {"report.py": before["report.py"].replace("return t\n", "return '(P0) ' + t\n")}
    request = "format_task shows the priority and format_report sorts by it."
    assert unmet_parts(request, before, after) == [
        ('The request says "format_task shows the priority and format_report sorts by it", and '
        "your edit left format_report (report.py) as it was.")]
    # Plain words are not taken for names: "sorts" or "report" are no definitions here.
    assert unmet_parts("Make the report show the priority.", before, after) == []


def test_test_files_are_never_files_to_change_and_written_tests_leave_the_module_alone():
    before = {"text.py": "def slugify(s):\n    return s\n", "test_text.py": "import text\n"}
    after = {**before, "test_text.py": "import text\n\n\ndef test_slug():\n    assert 1\n"}
    assert unmet_parts("Write tests for slugify in text.py, in test_text.py.", before, after) == []
    fixed = {**before, "text.py": "def slugify(s):\n    return s.lower()\n"}
    assert unmet_parts("The tests in test_text.py fail. Fix text.py.", before, fixed) == []


def test_the_quote_is_the_part_of_the_sentence_that_names_it_never_cut_in_parentheses():
    before = {"settings.py": "X = 1\n"}
    request = ("Make settings.py read max_retries into Settings (an int; 3 when not set), like "
               "the other settings, and keep the rest.")
    [note, _] = unmet_parts(request, before, dict(before))
    assert note.startswith('The request says "Make settings.py read max_retries into Settings '
                           '(an int; 3 when not set), like the other settings"')


def test_a_new_file_counts_as_the_place_a_name_is():
    before = {"accounts.py": "def create(e):\n    return e.strip()\n"}
    after = {**before, "emails.py": "def normalize_email(e):\n    return e.strip()\n"}
    request = "Add normalize_email(email) in a new module emails.py."
    assert unmet_parts(request, before, after) == []
    assert unmet_parts(request, before, before) == [
        ('The request says "Add normalize_email(email) in a new module emails.py", and no file '
        "has normalize_email yet.")]


ACCOUNTS = ('def create(accounts, email):\n    email = email.strip().lower()\n'
            '    if email.count("@") != 1:\n        raise ValueError(f"invalid: {email!r}")\n'
            '    accounts.append(email)\n')
HELPER = ('def normalize_email(email):\n    email = email.strip().lower()\n'
          '    if email.count("@") != 1:\n        raise ValueError(f"invalid: {email!r}")\n'
          '    return email\n\n\n')


def test_a_helper_made_with_the_copies_left_in_place():
    request = "Move the copied email code of create into one helper normalize_email(email)."
    left = HELPER + ACCOUNTS.replace("email = email.strip().lower()",
                                     "email = normalize_email(email)")
    assert unmet_parts(request, {"a.py": ACCOUNTS}, {"a.py": left}) == [
        ('The request says "Move the copied email code of create into one helper '
        'normalize_email(email)", and create still holds the lines now in normalize_email '
        "(a.py): take them out and call normalize_email instead.")]
    done = HELPER + "def create(accounts, email):\n    accounts.append(normalize_email(email))\n"
    assert unmet_parts(request, {"a.py": ACCOUNTS}, {"a.py": done}) == []
    # Without a request to take copies out, a new function that shares lines is no finding.
    assert unmet_parts("Add normalize_email(email) to a.py.", {"a.py": ACCOUNTS},
                       {"a.py": left}) == []


def test_quoted_part_gives_the_part_of_the_request_a_note_quotes():
    before = {"models.py": "class Task:\n    title: str\n", "report.py": "def f():\n    return 1\n"}
    after = {"models.py": "class Task:\n    title: str\n    priority: int = 0\n",
             "report.py": before["report.py"]}
    request = "Add a priority field to Task in models.py, and report.py must sort by it."
    notes = unmet_parts(request, before, after)
    assert [quoted_part(n) for n in notes] == ["report.py must sort by it"]
    assert quoted_part("a note that quotes nothing") == "a note that quotes nothing"
