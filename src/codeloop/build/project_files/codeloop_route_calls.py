"""Written by codeloop into a generated project beside a routes task's contract test
(codeloop's build/contract_tests.py): each promised route is called once through FastAPI's
TestClient, on the project's modules imported afresh (the suite's own module-level stores are
not touched), with a body built from the route's OpenAPI schema. None may raise, a success
answers the status the task promises, an unknown id the missing status, and an item a POST
answers is read back from the GET beside it. Not a test file itself (no test_ prefix)."""

import contextlib
import importlib
import re
import sys

from fastapi import APIRouter, FastAPI
from fastapi.testclient import TestClient

METHODS = {'GET', 'POST', 'PUT', 'PATCH', 'DELETE'}


def sample(schema, defs, name='', depth=0):
    """A small valid value for a JSON schema (the route's body or parameter)."""
    if depth > 6:
        return None
    if '$ref' in schema:
        return sample(defs.get(schema['$ref'].rsplit('/', 1)[-1], {}), defs, name, depth + 1)
    for key in ('anyOf', 'oneOf', 'allOf'):
        if schema.get(key):
            options = [s for s in schema[key] if s.get('type') != 'null'] or schema[key]
            return sample(options[0], defs, name, depth + 1)
    for key in ('default', 'const'):
        if key in schema:
            return schema[key]
    if schema.get('enum'):
        return schema['enum'][0]
    kind = schema.get('type')
    if kind == 'object' or 'properties' in schema:
        return {key: sample(value, defs, key, depth + 1)
                for key, value in schema.get('properties', {}).items()
                if key in schema.get('required', [])}
    if kind == 'array':
        return [sample(schema.get('items', {}), defs, name, depth + 1)
                for _ in range(schema.get('minItems', 0))]
    if kind in ('integer', 'number'):
        low = schema.get('minimum', schema.get('exclusiveMinimum', 0) + 1)
        low = min(max(low, 1), schema.get('maximum', low))
        return int(low) if kind == 'integer' else float(low)
    if kind == 'boolean':
        return False
    if schema.get('format') in ('uri', 'url') or any(w in name.lower() for w in ('url', 'link')):
        return 'https://example.com/a'
    if schema.get('format') == 'email' or 'email' in name.lower():
        return 'a@example.com'
    return 'a' * max(schema.get('minLength', 1), 1)


def call_routes(app, routes, promised):
    """Each promised route the app serves, called once (POST first): none may raise, a
    success answers the status the task promises, an unknown id the missing status, and
    the first item a POST answers is read back from the GET beside it."""
    client = TestClient(app)
    schema = app.openapi()
    defs = schema.get('components', {}).get('schemas', {})
    order = {'POST': 0, 'PUT': 1, 'PATCH': 2, 'GET': 3, 'DELETE': 4}
    calls, made = [], None
    for path, item in schema.get('paths', {}).items():
        shape = re.sub(r'\{[^}]*\}', '{}', path).rstrip('/') or '/'
        for method, operation in item.items():
            if (method.upper(), shape) in routes:
                calls.append((order.get(method.upper(), 5), method.upper(), path, shape,
                              operation))
    calls.sort(key=lambda c: c[:2])
    for _, method, path, shape, operation in calls:
        query = {p['name']: sample(p.get('schema', {}), defs, p['name'])
                 for p in operation.get('parameters', [])
                 if p.get('in') == 'query' and p.get('required')}
        body = operation.get('requestBody', {}).get('content', {}).get('application/json')
        payload = sample(body.get('schema', {}), defs) if body else None
        url = re.sub(r'\{[^}]*\}', lambda m, made=made: str(key_of(made, m.group(0)) or 1), path)
        response = ask(client, method, url, query, body, payload)
        promise = promised.get((method, shape), {})
        if response.status_code < 300 and 'ok' in promise:
            assert response.status_code == promise['ok'], (
                f"{method} {url} answered {response.status_code}; the task says "
                f"{promise['ok']}")
        if 'missing' in promise:
            unknown = re.sub(r'\{[^}]*\}', lambda m, op=operation: unknown_id(op, m.group(0)), path)
            got = ask(client, method, unknown, query, body, payload)
            assert got.status_code == promise['missing'], (
                f"{method} {unknown} (no such item) answered {got.status_code}; the task "
                f"says {promise['missing']} when it is missing")
        answer = json_or_none(response)
        if method == 'POST' and response.status_code < 300 and isinstance(answer, dict) \
                and made is None:
            made = answer
            read_back(client, calls, path, f'POST {url}', answer)


def json_or_none(response):
    """The answer's JSON; None for an empty body or one that is not JSON (FastAPI answers a
    `status_code=204` route that returns None with an empty body labelled application/json:
    bookmarks' B3 on the 1.5B, a right DELETE failed here on the empty body)."""
    if not response.content or 'json' not in response.headers.get('content-type', ''):
        return None
    try:
        return response.json()
    except ValueError:
        return None


def ask(client, method, url, query, body, payload):
    """The app's answer; what it raised, as the failure."""
    try:
        response = client.request(method, url, params=query,
                                  **({'json': payload} if body else {}))
    except Exception as exc:
        raise AssertionError(f'{method} {url} with {payload!r} raised '
                             f'{type(exc).__name__}: {exc}') from exc
    assert response.status_code < 500, f'{method} {url} answered {response.status_code}'
    return response


def key_of(answer, placeholder):
    """The value of a path parameter ({bookmark_id}, {code}) in an item a POST answered."""
    name = placeholder.strip('{}')
    if not isinstance(answer, dict):
        return None
    if name in answer:
        return answer[name]
    return answer.get('id') if name.endswith('id') else None


def unknown_id(operation, placeholder):
    """An id no item has, of the path parameter's type."""
    name = placeholder.strip('{}')
    kind = next((p.get('schema', {}).get('type') for p in operation.get('parameters', [])
                 if p.get('name') == name), 'integer')
    return '987654' if kind in ('integer', 'number') else 'no-such-item-987654'


def read_back(client, calls, posted, post, answer):
    """The item a POST answered, fetched by its key from the GET beside it."""
    for _, method, path, _, _ in calls:
        found = re.fullmatch(re.escape(posted.rstrip('/')) + r'/(\{[^}]*\})', path)
        if method != 'GET' or found is None or key_of(answer, found.group(1)) is None:
            continue
        url = path.replace(found.group(1), str(key_of(answer, found.group(1))))
        got = client.get(url)
        assert got.status_code == 200, (
            f'{post} answered {answer!r}, then GET {url} answered {got.status_code}: the '
            'item was not kept (one store for every request?)')


@contextlib.contextmanager
def fresh(package):
    """The project's modules imported afresh, the suite's own put back after."""
    mine = [k for k in sys.modules if k == package or k.startswith(package + '.')]
    saved = {k: sys.modules.pop(k) for k in mine}
    try:
        yield
    finally:
        for k in [k for k in sys.modules if k == package or k.startswith(package + '.')]:
            del sys.modules[k]
        sys.modules.update(saved)


def served_by(value):
    """The (method, path with {} for parameters) an app or a router serves, read from the
    OpenAPI schema (FastAPI 0.165 keeps an included router as an `_IncludedRouter` with no
    `.path`); a router is read through an app that includes it."""
    if isinstance(value, APIRouter):
        holder = FastAPI()
        holder.include_router(value)
        value = holder
    if not isinstance(value, FastAPI):
        return set()
    served = set()
    for path, item in value.openapi().get('paths', {}).items():
        path = re.sub(r'\{[^}]*\}', '{}', path).rstrip('/') or '/'
        served |= {(m.upper(), path) for m in item if m.upper() in METHODS}
    return served


def check_routes(module_names, routes, promised):
    """The routes of the app or router in `module_names` that serves most of `routes`,
    called on the project's modules imported afresh (see call_routes)."""
    routes = {tuple(r) for r in routes}
    with fresh(module_names[0].split('.')[0]):
        best, most = None, 0
        for name in module_names:
            for value in list(vars(importlib.import_module(name)).values()):
                served = served_by(value) & routes
                if len(served) > most:
                    best, most = value, len(served)
        assert best is not None, (
            f'none of {sorted(routes)} is served by an app or router in {module_names}')
        if not isinstance(best, FastAPI):
            holder = FastAPI()
            holder.include_router(best)
            best = holder
        call_routes(best, routes, promised)
