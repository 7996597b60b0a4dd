#!/usr/bin/env python3
"""Validate aisync JSON files against the JSON Schemas in Schemas/.

Usage:
    validate_json.py [options] SCHEMA_NAME FILE...
    validate_json.py [--schemas DIR] [-v] --self-test

SCHEMA_NAME is a schema file name without ".schema.json", e.g. `chat`,
`journal-line`, `record` (any record body) or `list-output`. FILE `-` reads
standard input. A file whose name ends in `.jsonl` (or any file with --jsonl)
is read as JSON Lines: every line is validated as one instance.

SCHEMA_NAME `segment` validates whole segment files (<remote>/segments/<device>/
<seq>.seg): the first line against segment-header, every other line against
segment-entry, the header's count against the lines that follow, and the
entries' form against the header's format (1: {body, version}; 2: {objects,
version}).

Which schema for which file (see Schemas/README.md):
    <store>/config.json           config
    <store>/journal.jsonl         journal-line (one per line)
    <store>/sync/<remote>.json    checkpoint
    <store>/devices.json     devices
    <store>/sync/missing-images.json
                                  missing-images
    <store>/objects/..            chat, story, image or record for aisync 1 body
                                  objects (others: large values, image bytes)
    <remote>/aisync.json          remote-manifest
    <remote>/keys.json            keys (encrypted remotes)
    <remote>/heads/<device>.json  head
    <remote>/devices.json         devices
    <remote>/segments/*/*.seg     segment
    aisync list|show|log|status|conflicts --json
                                  list-output, <kind> or record, log-output,
                                  status-output, conflicts-output, sync-output,
                                  gc-output, remote-list-output, compact-output,
                                  imgur-status-output, watch-output

Every *.schema.json of the schemas folder is loaded into one registry, so a
`$ref` to another schema's `$id` (https://aisync.dev/schemas/...) resolves
offline. Format checking is on ("uri" always, with a built-in fallback when
jsonschema's optional URI checker is not installed; "date-time" when
rfc3339-validator is installed).

Patterns are matched with ECMA-262 semantics for `$` (end of input only): by
default Python's `re` would also let `$` match before a final "\\n", so an id
such as "chat-1\\n" would pass.

Options:
    --schemas DIR  schemas folder (default: ../Schemas next to this script)
    --jsonl        read every FILE (including `-`) as JSON Lines
    --canonical    also require aisync canonical JSON (sorted keys, no
                   whitespace, minimal escapes, integers only; JSON Lines
                   lines "\\n"-terminated) and, for journal-line, that `id` is
                   the sha256 of the canonical line without `id`; for
                   segment-entry and segment, the same of the version, that
                   every object's key is the sha256 of its canonical JSON,
                   that the objects are exactly those the version names
                   (v1: its body; v2: the refs of its ops), and that a format
                   1 body hashes to version.body
    --self-test    check every schema against the draft 2020-12 metaschema and
                   run the embedded good/bad examples
    -v, --verbose  with --self-test: print every check

Output: one line per problem, `FILE[:LINE]: [$.json.path: ]message`.
Exit status: 0 all valid, 1 some instance invalid, 2 usage error or unreadable
file (or a failed self-test: 1).
"""

import hashlib
import json
import os
import re
import sys

try:
    import jsonschema
    from jsonschema import FormatChecker
    from jsonschema import validators as _validators
except ImportError:  # pragma: no cover
    sys.stderr.write("validate_json.py: the python package `jsonschema` is required "
                     "(pip install 'jsonschema>=4.18')\n")
    sys.exit(2)

try:
    from jsonschema import Draft202012Validator
except ImportError:  # pragma: no cover - jsonschema < 4.0
    sys.stderr.write("validate_json.py: jsonschema >= 4.0 is required for draft 2020-12 "
                     "(found %s)\n" % getattr(jsonschema, "__version__", "?"))
    sys.exit(2)

try:  # jsonschema >= 4.18
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012
    HAVE_REFERENCING = True
except ImportError:  # pragma: no cover - older jsonschema: RefResolver below
    HAVE_REFERENCING = False

SCHEMA_BASE = "https://aisync.dev/schemas/"
SCHEMA_SUFFIX = ".schema.json"
METASCHEMA = "https://json-schema.org/draft/2020-12/schema"
EXPECTED_SCHEMAS = [
    "config", "journal-line", "chat", "story", "image", "record",
    "checkpoint", "list-output", "conflicts-output", "status-output", "log-output",
    "remote-manifest", "head", "devices", "segment-header", "segment-entry",
    "missing-images", "keys", "sync-output", "gc-output", "remote-list-output", "compact-output",
    "imgur-status-output", "watch-output",
]
# Not a schema: a whole segment file, header line then entry lines (check_segment).
SEGMENT = "segment"


class UsageError(Exception):
    pass


# ---------------------------------------------------------------------------
# Patterns with ECMA-262 semantics

_PATTERN_CACHE = {}


def ecma_to_python(pattern):
    """Translate the ECMA-262 features our schemas rely on to Python `re`.

    - `$` outside a character class matches only at the very end (`\\Z`).
    - `\\d` is ASCII-only (`[0-9]`), as in ECMA-262.
    """
    out = []
    i = 0
    in_class = False
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if nxt == "d":
                out.append("0-9" if in_class else "[0-9]")
            elif nxt == "D" and not in_class:
                out.append("[^0-9]")
            else:
                out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
            out.append(ch)
        elif ch == "[":
            in_class = True
            out.append(ch)
            # a "]" right after "[" or "[^" is a literal in Python, not in ECMA;
            # our schemas never use that form.
        elif ch == "$":
            out.append(r"\Z")
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def _compiled(pattern):
    rx = _PATTERN_CACHE.get(pattern)
    if rx is None:
        rx = re.compile(ecma_to_python(pattern))
        _PATTERN_CACHE[pattern] = rx
    return rx


def _pattern_keyword(validator, patrn, instance, schema):
    if validator.is_type(instance, "string") and not _compiled(patrn).search(instance):
        yield jsonschema.ValidationError("%r does not match %r" % (instance, patrn))


StrictValidator = _validators.extend(Draft202012Validator, {"pattern": _pattern_keyword})


# ---------------------------------------------------------------------------
# Format checking

_URI_RE = re.compile(
    r"[A-Za-z][A-Za-z0-9+.\-]*:"
    r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?\[\]]|%[0-9A-Fa-f]{2})*"
    r"(?:#(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*)?\Z"
)


def _fallback_is_uri(instance):
    """RFC 3986 absolute URI (scheme required), ASCII only, valid %-escapes."""
    if not isinstance(instance, str):
        return True
    return _URI_RE.match(instance) is not None


def make_format_checker():
    checker = FormatChecker()
    if "uri" not in checker.checkers:
        checker.checks("uri")(_fallback_is_uri)
    return checker


# ---------------------------------------------------------------------------
# Schemas

def default_schemas_dir():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, os.pardir, "Schemas"))


def load_schemas(schemas_dir):
    """Return {name: schema} for every *.schema.json in schemas_dir."""
    if not os.path.isdir(schemas_dir):
        raise UsageError("schemas folder not found: %s" % schemas_dir)
    schemas = {}
    for fname in sorted(os.listdir(schemas_dir)):
        if not fname.endswith(SCHEMA_SUFFIX):
            continue
        path = os.path.join(schemas_dir, fname)
        try:
            with open(path, "rb") as f:
                schemas[fname[:-len(SCHEMA_SUFFIX)]] = json.loads(f.read().decode("utf-8"))
        except (OSError, ValueError) as e:
            raise UsageError("cannot load schema %s: %s" % (path, e))
    if not schemas:
        raise UsageError("no *%s files in %s" % (SCHEMA_SUFFIX, schemas_dir))
    return schemas


def _schema_id(name, schema):
    if isinstance(schema, dict) and isinstance(schema.get("$id"), str):
        return schema["$id"]
    return SCHEMA_BASE + name + SCHEMA_SUFFIX


def make_validator(name, schemas, format_checker=None):
    if name not in schemas:
        raise UsageError("unknown schema %r (known: %s; and %s for whole segment files)"
                         % (name, ", ".join(sorted(schemas)), SEGMENT))
    schema = schemas[name]
    if format_checker is None:
        format_checker = make_format_checker()
    if HAVE_REFERENCING:
        registry = Registry().with_resources(
            (_schema_id(n, s), Resource.from_contents(s, default_specification=DRAFT202012))
            for n, s in schemas.items()
        )
        return StrictValidator(schema, registry=registry, format_checker=format_checker)
    # jsonschema 4.0 - 4.17
    store = {_schema_id(n, s): s for n, s in schemas.items()}
    resolver = jsonschema.RefResolver(base_uri=_schema_id(name, schema), referrer=schema,
                                      store=store)
    return StrictValidator(schema, resolver=resolver, format_checker=format_checker)


# ---------------------------------------------------------------------------
# Canonical JSON (see Schemas/README.md)

class NotCanonical(Exception):
    pass


_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f",
                  "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _canon_str(s, upper_hex):
    out = ['"']
    for ch in s:
        esc = _SHORT_ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ord(ch) < 0x20:
            out.append(("\\u%04X" if upper_hex else "\\u%04x") % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _canon(value, upper_hex, out):
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        raise NotCanonical("non-integer number %r" % value)
    elif isinstance(value, str):
        out.append(_canon_str(value, upper_hex))
    elif isinstance(value, list):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _canon(item, upper_hex, out)
        out.append("]")
    elif isinstance(value, dict):
        out.append("{")
        for i, key in enumerate(sorted(value)):  # str order is code point order
            if i:
                out.append(",")
            out.append(_canon_str(key, upper_hex))
            out.append(":")
            _canon(value[key], upper_hex, out)
        out.append("}")
    else:  # pragma: no cover
        raise NotCanonical("unexpected value %r" % (value,))


def canonical_bytes(value, upper_hex=False):
    out = []
    _canon(value, upper_hex, out)
    try:
        return "".join(out).encode("utf-8")
    except UnicodeEncodeError:
        raise NotCanonical("string holds a lone surrogate")


def canonical_problems(raw, value, schema_name):
    """Problems with raw (bytes of one instance, without line terminator)."""
    problems = []
    try:
        variants = [canonical_bytes(value, False), canonical_bytes(value, True)]
    except NotCanonical as e:
        return ["not canonical JSON: %s" % e]
    if raw not in variants:
        problems.append("not canonical JSON (expected %s)" % _clip(variants[0].decode("utf-8"), 200))
    if schema_name == "journal-line":
        problems += _version_id_problems(value, "$")
    elif schema_name == "segment-entry" and isinstance(value, dict):
        version = value.get("version")
        problems += _version_id_problems(version, "$.version")
        objects = value.get("objects")
        if isinstance(objects, dict):
            for key in sorted(objects):
                if key not in _sha256_variants(objects[key]):
                    problems.append("%s: is not the sha256 of its canonical JSON (%s)"
                                    % (json_path(["objects", key]), sorted(_sha256_variants(objects[key]))[0]))
            named = _objects_named(version)
            if named is not None and set(objects) != named:
                problems.append("$.objects: holds %s, but the version names %s"
                                % (_short_list(objects), _short_list(named)))
        body = value.get("body")
        if "body" in value and body is not None and isinstance(version, dict) \
                and version.get("body") not in _sha256_variants(body):
            problems.append("$.body: its sha256 (%s) is not version.body"
                            % sorted(_sha256_variants(body))[0])
    return problems


def _objects_named(version):
    """The objects a version names (v1: its body; v2: the refs of its ops), or None."""
    if not isinstance(version, dict):
        return None
    if version.get("v") == 1:
        body = version.get("body")
        return {body} if isinstance(body, str) else set()
    ops = version.get("ops")
    if not isinstance(ops, list):
        return None
    return {op["ref"] for op in ops if isinstance(op, dict) and isinstance(op.get("ref"), str)}


def _short_list(keys):
    return "[%s]" % ", ".join(k[:12] for k in sorted(keys)) if keys else "nothing"


def _sha256_variants(value):
    """sha256 of value's canonical JSON (either \\u00xx case)."""
    return {hashlib.sha256(canonical_bytes(value, up)).hexdigest() for up in (False, True)}


def _version_id_problems(value, path):
    """A version's id must be the sha256 of its canonical JSON without the id."""
    if not isinstance(value, dict) or not isinstance(value.get("id"), str):
        return []
    ids = _sha256_variants({k: v for k, v in value.items() if k != "id"})
    if value["id"] in ids:
        return []
    return ["%s.id: %r is not the sha256 of the canonical line without id (%s)"
            % (path, value["id"], sorted(ids)[0])]


# ---------------------------------------------------------------------------
# Parsing and error reporting

class DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise DuplicateKey("duplicate key %r" % key)
        obj[key] = value
    return obj


def _no_constant(name):
    raise ValueError("%s is not valid JSON" % name)


def parse_json(raw):
    """Parse bytes as one strict JSON value; raise ValueError with a message."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError("not UTF-8: %s" % e)
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except DuplicateKey as e:
        raise ValueError(str(e))
    except ValueError as e:
        raise ValueError("invalid JSON: %s" % e)


def _clip(text, limit=300):
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def json_path(path):
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += "[%d]" % part
        elif _IDENT.match(part):
            out += "." + part
        else:
            out += "[%s]" % json.dumps(part)
    return out


def _message(error):
    msg = error.message
    r = repr(error.instance)
    if isinstance(error.instance, (dict, list)) and msg.startswith(r) and len(r) > 60:
        msg = ("object" if isinstance(error.instance, dict) else "array") + msg[len(r):]
    if error.validator in ("contains", "minContains", "maxContains") and isinstance(error.schema, dict):
        lo = error.schema.get("minContains", 1)
        hi = error.schema.get("maxContains")
        if hi == lo:
            want = "exactly %d" % lo
        elif hi is None:
            want = "at least %d" % lo
        else:
            want = "%d to %d" % (lo, hi)
        msg = "expected %s item(s) matching %s" % (
            want, json.dumps(error.schema.get("contains"), sort_keys=True))
    return _clip(msg)


def explain(error):
    """Yield (path, message) leaves for one ValidationError.

    For a failed oneOf/anyOf (e.g. record.schema.json), if exactly one branch
    failed without a `const` mismatch (i.e. the branch for the instance's
    kind) and not merely for the instance's type (e.g. the null of a
    "null or object" value), report that branch's errors instead of the
    generic message.
    """
    if error.validator in ("oneOf", "anyOf") and error.context:
        branches = {}
        for sub in error.context:
            branches.setdefault(sub.schema_path[0] if sub.schema_path else None, []).append(sub)
        plausible = [errs for errs in branches.values()
                     if not any(e.validator == "const" for e in errs)
                     and not all(e.validator == "type" and not e.relative_path for e in errs)]
        if len(plausible) == 1:
            for sub in sorted(plausible[0], key=lambda e: [str(p) for p in e.absolute_path]):
                for leaf in explain(sub):
                    yield leaf
            return
    yield json_path(error.absolute_path), _message(error)


def instance_problems(validator, value):
    problems = []
    errors = sorted(validator.iter_errors(value),
                    key=lambda e: ([str(p) for p in e.absolute_path], str(e.message)))
    for error in errors:
        for path, msg in explain(error):
            line = "%s: %s" % (path, msg)
            if line not in problems:
                problems.append(line)
    return problems


def check_bytes(label, data, validator, schema_name, jsonl=False, canonical=False):
    """Validate one file's bytes. Return (problem lines, number of invalid instances)."""
    lines_out = []
    invalid = 0

    def one(where, raw):
        try:
            value = parse_json(raw)
        except ValueError as e:
            return [str(e)]
        problems = instance_problems(validator, value)
        if canonical:
            problems += canonical_problems(raw, value, schema_name)
        return problems

    if jsonl:
        pieces = data.split(b"\n")
        terminated = pieces[-1] == b""
        if terminated:
            pieces.pop()
        for number, raw in enumerate(pieces, 1):
            where = "%s:%d" % (label, number)
            if raw.strip() == b"":
                problems = ["empty line"]
            else:
                problems = one(where, raw)
                if canonical and number == len(pieces) and not terminated:
                    problems.append("last line is not \"\\n\"-terminated")
            if problems:
                invalid += 1
                lines_out.extend("%s: %s" % (where, p) for p in problems)
    else:
        raw = data
        if canonical and raw.endswith(b"\n"):
            raw = raw[:-1]  # one final newline is tolerated
        problems = one(label, raw)
        if problems:
            invalid += 1
            lines_out.extend("%s: %s" % (label, p) for p in problems)
    return lines_out, invalid


def check_segment(label, data, header_validator, entry_validator, canonical=False):
    """Validate a whole segment file (<remote>/segments/<device>/<seq>.seg): line 1 against
    segment-header, every other line against segment-entry, the header's count against the
    lines, and the entries' form (format 1: body; format 2: objects) against its format.
    Return (problem lines, number of invalid lines)."""
    lines_out = []
    invalid = 0
    pieces = data.split(b"\n")
    if pieces[-1] == b"":
        pieces.pop()
    else:
        lines_out.append("%s: does not end with a newline (truncated?)" % label)
        invalid += 1
    if not pieces:
        return lines_out + ["%s: empty segment (no header line)" % label], invalid + 1
    header = None
    for number, raw in enumerate(pieces, 1):
        where = "%s:%d" % (label, number)
        validator, name = (header_validator, "segment-header") if number == 1 else (entry_validator, "segment-entry")
        try:
            value = parse_json(raw)
        except ValueError as e:
            problems = [str(e)]
        else:
            problems = instance_problems(validator, value)
            if canonical:
                problems += canonical_problems(raw, value, name)
            if number == 1:
                header = value if not problems and isinstance(value, dict) else None
            elif header is not None and isinstance(value, dict):
                key = "body" if header.get("format") == 1 else "objects"
                if key not in value:
                    problems.append("a format %s segment's entries have %r" % (header.get("format"), key))
        if problems:
            invalid += 1
            lines_out.extend("%s: %s" % (where, p) for p in problems)
    if header is not None and header.get("count") != len(pieces) - 1:
        invalid += 1
        lines_out.append("%s:1: $.count: header count %s, but %d entry line(s) follow"
                         % (label, header.get("count"), len(pieces) - 1))
    return lines_out, invalid


# ---------------------------------------------------------------------------
# Self-test

DEV_A = "0123456789abcdef0123456789abcdef"
DEV_B = "fedcba9876543210fedcba9876543210"
SHA_A = hashlib.sha256(b"a").hexdigest()
SHA_B = hashlib.sha256(b"b").hexdigest()
T0 = "2026-11-29T12:00:00.000Z"
T1 = "2026-11-29T12:05:30.250Z"


def _journal_line(**overrides):
    line = {"body": SHA_A, "clock": {DEV_A: 3}, "deleted": False, "device": DEV_A,
            "hlc": {"c": 0, "t": 1764417600000}, "kind": "chat",
            "record": "chat-3f9a1c2b4d5e6f70", "v": 1}
    return _with_id(line, overrides)


def _with_id(line, overrides):
    """Applies overrides, then the line's correct id unless an override sets one."""
    line.update(overrides)
    if "id" not in overrides:
        try:
            line["id"] = hashlib.sha256(canonical_bytes(line)).hexdigest()
        except NotCanonical:
            line["id"] = SHA_B
    return line


def _v2_line(ops, kind="chat", **overrides):
    """A records v2 journal line (v 2, ops) with a correct id."""
    line = {"clock": {DEV_A: 3}, "device": DEV_A, "hlc": {"c": 0, "t": 1764417600000},
            "kind": kind, "ops": ops, "record": "%s-3f9a1c2b4d5e6f70" % kind, "v": 2}
    return _with_id(line, overrides)


MSG = {"role": "user", "text": "hi", "time": T0}
PAGE = {"n": 1, "text": "Once upon a time", "image": SHA_A}
BIG = {"role": "assistant", "text": "x" * 5000, "time": T1}  # > 4096 bytes: an object
SHA_BIG = hashlib.sha256(canonical_bytes(BIG)).hexdigest()


def _chat(**overrides):
    body = {"created": T0, "favorite": False, "kind": "chat",
            "messages": [{"id": "m-1", "role": "user", "text": "hi", "time": T0},
                         {"id": "m-2", "role": "assistant", "text": "Hello!\n\u00e9\U0001F98A",
                          "time": T1}],
            "model": "gpt-4o", "title": "Trip ideas", "updated": T1}
    body.update(overrides)
    return body


def _story(**overrides):
    body = {"created": T0, "favorite": True, "kind": "story", "moral": "Be kind",
            "pages": [{"image": SHA_A, "text": "Once upon a time"}, {"text": "The end."}],
            "prompts": ["a fox in a forest, watercolor"], "title": "The Fox", "updated": T1}
    body.update(overrides)
    return body


def _image(**overrides):
    body = {"created": T0, "favorite": False, "kind": "image", "mediaType": "image/png",
            "sha256": SHA_A, "size": 12345, "title": "fox.png", "updated": T0}
    body.update(overrides)
    return body


IMGUR = {"id": "aBc12D3", "link": "https://i.imgur.com/aBc12D3.png", "deletehash": "xyz",
         "servedSHA256": SHA_B, "servedSize": 123}


def _without(obj, key):
    return {k: v for k, v in obj.items() if k != key}


def _chat_bad_message(**fields):
    body = _chat()
    msg = dict(body["messages"][0])
    msg.update(fields)
    body["messages"] = [msg]
    return body


def _conflict(versions, fields=None):
    if fields is None:
        fields = [{"field": "title", "values": [_value(True, value="Trip ideas"),
                                                _value(False, version=SHA_B, device=DEV_B, value="Trip")]}]
    return [{"id": "chat-3f9a1c2b4d5e6f70", "kind": "chat", "title": "Trip ideas",
             "versions": versions, "fields": fields}]


def _value(winner, **overrides):
    v = {"version": SHA_A, "device": DEV_A, "time": T0, "winner": winner, "removed": False}
    v.update(overrides)
    return v


def _log(**overrides):
    e = {"version": SHA_A, "record": "chat-3f9a1c2b4d5e6f70", "kind": "chat", "device": DEV_A,
         "time": T0, "deleted": False, "action": "edit", "summary": "renamed to \u201cTrip\u201d"}
    e.update(overrides)
    return e


def _version(winner, **overrides):
    v = {"version": "0123456789ab", "device": DEV_A, "time": T0, "deleted": False,
         "winner": winner}
    v.update(overrides)
    return v


STATUS = {"store": "/home/me/.aisync", "device": {"id": DEV_A, "name": "laptop"},
          "records": {"chat": 2, "story": 1, "image": 0}, "conflicts": 0, "objects": 5,
          "bytes": 4096, "journal": {"lines": 7},
          "sync": [{"name": "origin", "url": "https://dav.example.com/aisync/", "inSync": False,
                    "notInSyncBecause": "the last sync failed, 1 version not pushed", "unpushedVersions": 1,
                    "picturesNotUploaded": 0, "picturesNotDownloaded": 0, "conflicts": 0, "failuresInARow": 1,
                    "lastAttempt": {"operation": "sync", "started": "2026-11-29T12:00:00.000Z",
                                    "finished": "2026-11-29T12:00:01.000Z",
                                    "error": {"code": "unavailable", "line": "cannot reach dav.example.com",
                                              "retryAfterMs": 3000}},
                    "lastSuccess": {"operation": "push", "started": "2026-11-29T11:00:00.000Z",
                                    "finished": "2026-11-29T11:00:01.000Z"}}]}


def examples(format_checker):
    """(schema, label, instance, expected valid?)"""
    ex = []

    def good(schema, label, value):
        ex.append((schema, label, value, True))

    def bad(schema, label, value):
        ex.append((schema, label, value, False))

    config = {"created": T0, "device": {"id": DEV_A, "name": "laptop"}, "format": 2,
              "remotes": []}
    good("config", "README config", config)
    good("config", "format 1 (aisync 1 store, before migration)", dict(config, format=1))
    good("config", "config with remotes", dict(config, remotes=[
        {"name": "origin", "url": "https://dav.example.com/aisync/", "type": "webdav"},
        {"name": "usb", "url": "/Volumes/USB/aisync", "type": "folder"}]))
    bad("config", "format 3", dict(config, format=3))
    bad("config", "format 0", dict(config, format=0))
    bad("config", "uppercase device id", dict(config, device={"id": DEV_A.upper(), "name": "x"}))
    bad("config", "unknown remote type", dict(config, remotes=[
        {"name": "o", "url": "sftp://b", "type": "sftp"}]))
    good("config", "s3 remote", dict(config, remotes=[
        {"name": "o", "url": "s3://bucket/aisync", "type": "s3", "endpoint": "http://127.0.0.1:8333",
         "region": "us-east-1", "addressing": "path"}]))
    bad("config", "s3 endpoint with a path", dict(config, remotes=[
        {"name": "o", "url": "s3://bucket", "type": "s3", "endpoint": "https://s3.example.com/bucket"}]))
    bad("config", "unknown addressing", dict(config, remotes=[
        {"name": "o", "url": "s3://bucket", "type": "s3", "addressing": "dns"}]))
    bad("config", "secret in remote", dict(config, remotes=[
        {"name": "o", "url": "https://x", "type": "http", "password": "hunter2"}]))
    bad("config", "unknown top-level key", dict(config, token="abc"))
    bad("config", "time without milliseconds", dict(config, created="2026-11-29T12:00:00Z"))
    bad("config", "missing remotes", _without(config, "remotes"))

    good("journal-line", "journal line", _journal_line())
    good("journal-line", "tombstone", _journal_line(deleted=True, body=None))
    good("journal-line", "clock with two devices",
         _journal_line(clock={DEV_A: 3, DEV_B: 1}, device=DEV_B, kind="image"))
    bad("journal-line", "tombstone with a body", _journal_line(deleted=True))
    bad("journal-line", "live version with null body", _journal_line(body=None))
    bad("journal-line", "empty clock", _journal_line(clock={}))
    bad("journal-line", "clock counter 0", _journal_line(clock={DEV_A: 0}))
    bad("journal-line", "clock counter not integer", _journal_line(clock={DEV_A: 1.5}))
    bad("journal-line", "clock key not a device id", _journal_line(clock={"laptop": 1}))
    bad("journal-line", "negative hlc.t", _journal_line(hlc={"c": 0, "t": -1}))
    bad("journal-line", "missing hlc.c", _journal_line(hlc={"t": 1}))
    bad("journal-line", "kind note", _journal_line(kind="note"))
    bad("journal-line", "v1 line (body, deleted) with v 2", _journal_line(v=2))
    bad("journal-line", "v 3", _journal_line(v=3))
    bad("journal-line", "v missing", _without(_journal_line(), "v"))
    bad("journal-line", "v1 line with ops", _journal_line(ops=[{"op": "delete"}]))

    # records v2: versions carry operations
    create_chat = [{"op": "set", "field": "title", "value": "Trip ideas"},
                   {"op": "set", "field": "model", "value": None},
                   {"op": "set", "field": "favorite", "value": False},
                   {"op": "set", "field": "created", "value": T0},
                   {"op": "add", "field": "messages", "elem": "m-1a2b3c4d5e6f7081", "value": MSG}]
    good("journal-line", "v2: chat creation (set every register, add every message)", _v2_line(create_chat))
    good("journal-line", "v2: set title", _v2_line([{"op": "set", "field": "title", "value": "Trip"}]))
    good("journal-line", "v2: set model to a string", _v2_line([{"op": "set", "field": "model", "value": "gpt-4o"}]))
    good("journal-line", "v2: set by ref", _v2_line([{"op": "set", "field": "title", "ref": SHA_A}]))
    good("journal-line", "v2: add a message", _v2_line([{"op": "add", "field": "messages", "elem": "m-1", "value": MSG}]))
    good("journal-line", "v2: add a large message by ref",
         _v2_line([{"op": "add", "field": "messages", "elem": "m-2", "ref": SHA_BIG}]))
    good("journal-line", "v2: edit a message",
         _v2_line([{"op": "edit", "field": "messages", "elem": "m-1", "value": dict(MSG, text="hello")}]))
    good("journal-line", "v2: remove a message", _v2_line([{"op": "remove", "field": "messages", "elem": "m-1"}]))
    good("journal-line", "v2: delete", _v2_line([{"op": "delete"}]))
    good("journal-line", "v2: restore", _v2_line([{"op": "restore"}]))
    good("journal-line", "v2: restore and rename in one version",
         _v2_line([{"op": "restore"}, {"op": "set", "field": "title", "value": "Back"}],
                  clock={DEV_A: 3, DEV_B: 2}))
    good("journal-line", "v2: story creation", _v2_line([
        {"op": "set", "field": "title", "value": "The Fox"},
        {"op": "set", "field": "moral", "value": None},
        {"op": "set", "field": "prompts", "value": ["a fox, watercolor"]},
        {"op": "set", "field": "favorite", "value": True},
        {"op": "set", "field": "created", "value": T0},
        {"op": "add", "field": "pages", "elem": "page-1a2b3c4d5e6f7081", "value": PAGE},
        {"op": "add", "field": "pages", "elem": "page-2", "value": {"n": 2, "text": "The end."}}], kind="story"))
    good("journal-line", "v2: edit a page, set moral", _v2_line([
        {"op": "edit", "field": "pages", "elem": "page-2", "value": {"n": 2, "text": "THE END"}},
        {"op": "set", "field": "moral", "value": "Be kind"}], kind="story"))
    good("journal-line", "v2: remove a page", _v2_line([{"op": "remove", "field": "pages", "elem": "page-2"}], kind="story"))
    good("journal-line", "v2: image creation", _v2_line([
        {"op": "set", "field": f, "value": v} for f, v in [
            ("title", "fox.png"), ("sha256", SHA_A), ("size", 12345), ("mediaType", "image/png"),
            ("width", 512), ("height", None), ("prompt", None), ("model", "dall-e-3"), ("imgur", None),
            ("favorite", False), ("created", T0)]], kind="image"))
    good("journal-line", "v2: image uploaded to Imgur", _v2_line([{"op": "set", "field": "imgur", "value": IMGUR}], kind="image"))
    good("journal-line", "v2: image delete", _v2_line([{"op": "delete"}], kind="image"))
    bad("journal-line", "v2: unknown op", _v2_line([{"op": "move", "field": "messages", "elem": "m-1"}]))
    bad("journal-line", "v2: op missing", _v2_line([{"field": "title", "value": "x"}]))
    bad("journal-line", "v2: op not an object", _v2_line(["delete"]))
    bad("journal-line", "v2: empty ops", _v2_line([]))
    bad("journal-line", "v2: no ops", _without(_v2_line([{"op": "delete"}]), "ops"))
    bad("journal-line", "v2: add without elem", _v2_line([{"op": "add", "field": "messages", "value": MSG}]))
    bad("journal-line", "v2: remove without elem", _v2_line([{"op": "remove", "field": "messages"}]))
    bad("journal-line", "v2: both value and ref", _v2_line([{"op": "set", "field": "title", "value": "x", "ref": SHA_A}]))
    bad("journal-line", "v2: null value and ref", _v2_line([{"op": "set", "field": "model", "value": None, "ref": SHA_A}]))
    bad("journal-line", "v2: neither value nor ref", _v2_line([{"op": "set", "field": "title"}]))
    bad("journal-line", "v2: add with neither value nor ref", _v2_line([{"op": "add", "field": "messages", "elem": "m-1"}]))
    bad("journal-line", "v2: remove with a value",
        _v2_line([{"op": "remove", "field": "messages", "elem": "m-1", "value": MSG}]))
    bad("journal-line", "v2: delete with a field", _v2_line([{"op": "delete", "field": "deleted"}]))
    bad("journal-line", "v2: restore with a value", _v2_line([{"op": "restore", "value": True}]))
    bad("journal-line", "v2: extra key in an op", _v2_line([{"op": "set", "field": "title", "value": "x", "why": "y"}]))
    bad("journal-line", "v2: set without field", _v2_line([{"op": "set", "value": "x"}]))
    bad("journal-line", "v2: set of the deleted register", _v2_line([{"op": "set", "field": "deleted", "value": True}]))
    bad("journal-line", "v2: set of updated (not a register)", _v2_line([{"op": "set", "field": "updated", "value": T0}]))
    bad("journal-line", "v2: set of messages (a collection)", _v2_line([{"op": "set", "field": "messages", "value": []}]))
    bad("journal-line", "v2: chat has no moral", _v2_line([{"op": "set", "field": "moral", "value": "x"}]))
    bad("journal-line", "v2: title as a number", _v2_line([{"op": "set", "field": "title", "value": 3}]))
    bad("journal-line", "v2: title of 1001 characters", _v2_line([{"op": "set", "field": "title", "value": "x" * 1001}]))
    bad("journal-line", "v2: title null", _v2_line([{"op": "set", "field": "title", "value": None}]))
    bad("journal-line", "v2: favorite as string", _v2_line([{"op": "set", "field": "favorite", "value": "yes"}]))
    bad("journal-line", "v2: created not a time", _v2_line([{"op": "set", "field": "created", "value": "today"}]))
    bad("journal-line", "v2: model as a number", _v2_line([{"op": "set", "field": "model", "value": 4}]))
    bad("journal-line", "v2: ref not a sha256", _v2_line([{"op": "set", "field": "title", "ref": SHA_A.upper()}]))
    bad("journal-line", "v2: add to pages in a chat", _v2_line([{"op": "add", "field": "pages", "elem": "p-1", "value": PAGE}]))
    bad("journal-line", "v2: add to messages in a story",
        _v2_line([{"op": "add", "field": "messages", "elem": "m-1", "value": MSG}], kind="story"))
    bad("journal-line", "v2: add to an image", _v2_line([{"op": "add", "field": "messages", "elem": "m-1", "value": MSG}], kind="image"))
    bad("journal-line", "v2: remove in an image", _v2_line([{"op": "remove", "field": "imgur", "elem": "x"}], kind="image"))
    bad("journal-line", "v2: element id with uppercase", _v2_line([{"op": "add", "field": "messages", "elem": "M-1", "value": MSG}]))
    bad("journal-line", "v2: element id with trailing newline",
        _v2_line([{"op": "remove", "field": "messages", "elem": "m-1\n"}]))
    bad("journal-line", "v2: message value with its id", _v2_line([{"op": "add", "field": "messages", "elem": "m-1",
                                                                  "value": dict(MSG, id="m-1")}]))
    bad("journal-line", "v2: message value with role bot", _v2_line([{"op": "add", "field": "messages", "elem": "m-1",
                                                                    "value": dict(MSG, role="bot")}]))
    bad("journal-line", "v2: message value without time", _v2_line([{"op": "edit", "field": "messages", "elem": "m-1",
                                                                    "value": _without(MSG, "time")}]))
    bad("journal-line", "v2: message value null", _v2_line([{"op": "add", "field": "messages", "elem": "m-1", "value": None}]))
    bad("journal-line", "v2: page value without n", _v2_line([{"op": "add", "field": "pages", "elem": "page-1",
                                                             "value": _without(PAGE, "n")}], kind="story"))
    bad("journal-line", "v2: page value with n as string", _v2_line([{"op": "add", "field": "pages", "elem": "page-1",
                                                                    "value": dict(PAGE, n="1")}], kind="story"))
    bad("journal-line", "v2: page image as URL", _v2_line([{"op": "add", "field": "pages", "elem": "page-1",
                                                          "value": dict(PAGE, image="https://x/y.png")}], kind="story"))
    bad("journal-line", "v2: prompts with a number", _v2_line([{"op": "set", "field": "prompts", "value": ["a", 1]}], kind="story"))
    bad("journal-line", "v2: image size negative", _v2_line([{"op": "set", "field": "size", "value": -1}], kind="image"))
    bad("journal-line", "v2: image sha256 null", _v2_line([{"op": "set", "field": "sha256", "value": None}], kind="image"))
    bad("journal-line", "v2: image width as string", _v2_line([{"op": "set", "field": "width", "value": "512"}], kind="image"))
    bad("journal-line", "v2: image imgur without link",
        _v2_line([{"op": "set", "field": "imgur", "value": _without(IMGUR, "link")}], kind="image"))
    bad("journal-line", "v2: image has no messages", _v2_line([{"op": "set", "field": "messages", "value": []}], kind="image"))
    bad("journal-line", "v2: with body", _v2_line([{"op": "delete"}], body=None))
    bad("journal-line", "v2: with deleted", _v2_line([{"op": "delete"}], deleted=True))
    bad("journal-line", "v2: unknown key", _v2_line([{"op": "delete"}], extra=1))
    bad("journal-line", "v2: empty clock", _v2_line([{"op": "delete"}], clock={}))
    bad("journal-line", "v2: kind note", _v2_line([{"op": "delete"}], kind="note"))
    bad("journal-line", "v2: ops not an array", _v2_line({"op": "delete"}))
    bad("journal-line", "id with trailing newline", _journal_line(id=SHA_A + "\n"))
    bad("journal-line", "uppercase id", _journal_line(id=SHA_A.upper()))
    bad("journal-line", "short body sha", _journal_line(body=SHA_A[:63]))
    bad("journal-line", "record id starting with -", _journal_line(record="-chat"))
    bad("journal-line", "record id too long", _journal_line(record="a" * 65))
    bad("journal-line", "record id with trailing newline", _journal_line(record="chat-1\n"))
    bad("journal-line", "unknown key", _journal_line(extra=1))
    bad("journal-line", "deleted missing", _without(_journal_line(), "deleted"))

    good("chat", "chat", _chat())
    good("chat", "empty chat, empty title", _chat(messages=[], title=""))
    good("chat", "title of 1000 characters", _chat(title="x" * 1000))
    good("chat", "system message", _chat_bad_message(role="system"))
    bad("chat", "unknown role", _chat_bad_message(role="bot"))
    bad("chat", "uppercase message id", _chat_bad_message(id="M-1"))
    bad("chat", "message without time", _chat_bad_message(time=None))
    bad("chat", "message with extra key", _chat_bad_message(tokens=3))
    good("chat", "without model", _without(_chat(), "model"))
    bad("chat", "missing favorite", _without(_chat(), "favorite"))
    bad("chat", "title of 1001 characters", _chat(title="x" * 1001))
    bad("chat", "time without Z", _chat(updated="2026-11-29T12:00:00.000+00:00"))
    bad("chat", "Arabic-Indic digits in time", _chat(updated="\u0662026-11-29T12:00:00.000Z"))
    bad("chat", "kind story", _chat(kind="story"))
    bad("chat", "unknown key", _chat(path="/tmp/x"))
    bad("chat", "favorite as string", _chat(favorite="no"))
    if "date-time" in format_checker.checkers:
        bad("chat", "month 13 (date-time format)", _chat(created="2026-13-01T00:00:00.000Z"))

    good("story", "story", _story())
    good("story", "story without moral, empty prompts and pages",
         _without(_story(prompts=[], pages=[]), "moral"))
    good("story", "v2 story: every page has its id", _story(pages=[
        {"id": "page-1a2b3c4d5e6f7081", "image": SHA_A, "text": "Once upon a time"},
        {"id": "page-2", "text": "The end."}]))
    bad("story", "some pages with ids, some without", _story(pages=[
        {"id": "page-1", "text": "a"}, {"text": "b"}]))
    bad("story", "page id with uppercase", _story(pages=[{"id": "Page-1", "text": "a"}]))
    bad("story", "page with n (an element value, not a body page)", _story(pages=[{"n": 1, "text": "a"}]))
    bad("story", "page image as URL", _story(pages=[{"image": "https://x/y.png", "text": "a"}]))
    bad("story", "page image as path", _story(pages=[{"image": "objects/ab/cd", "text": "a"}]))
    bad("story", "page without text", _story(pages=[{"image": SHA_A}]))
    bad("story", "non-string prompt", _story(prompts=[1]))
    bad("story", "missing prompts", _without(_story(), "prompts"))
    bad("story", "moral null", _story(moral=None))

    good("image", "minimal image", _image())
    good("image", "full image", _image(width=512, height=512, prompt="a fox", model="dall-e-3",
                                       imgur=IMGUR, mediaType="image/svg+xml"))
    good("image", "imgur with only id and link",
         _image(imgur={"id": "abcde", "link": "https://i.imgur.com/abcde.jpeg"}))
    bad("image", "negative size", _image(size=-1))
    bad("image", "fractional size", _image(size=1.5))
    bad("image", "width 0", _image(width=0))
    bad("image", "height as string", _image(height="512"))
    bad("image", "text media type", _image(mediaType="text/plain"))
    bad("image", "uppercase media type", _image(mediaType="image/PNG"))
    bad("image", "missing sha256", _without(_image(), "sha256"))
    bad("image", "imgur link over http", _image(imgur=dict(IMGUR, link="http://i.imgur.com/a.png")))
    bad("image", "imgur link with a space (uri format)",
        _image(imgur=dict(IMGUR, link="https://i.imgur.com/a b.png")))
    bad("image", "imgur link with empty host", _image(imgur=dict(IMGUR, link="https:///a.png")))
    bad("image", "imgur without link", _image(imgur=_without(IMGUR, "link")))
    bad("image", "imgur id too short", _image(imgur=dict(IMGUR, id="abcd")))
    bad("image", "imgur id with dash", _image(imgur=dict(IMGUR, id="abc-de")))
    bad("image", "imgur servedSHA256 uppercase", _image(imgur=dict(IMGUR, servedSHA256=SHA_B.upper())))
    bad("image", "imgur negative servedSize", _image(imgur=dict(IMGUR, servedSize=-1)))
    bad("image", "imgur unknown key", _image(imgur=dict(IMGUR, token="secret")))

    good("record", "record: chat", _chat())
    good("record", "record: story", _story())
    good("record", "record: image", _image(imgur=IMGUR))
    bad("record", "record: chat with unknown role", _chat_bad_message(role="bot"))
    bad("record", "record: kind note", _chat(kind="note"))
    bad("record", "record: story missing pages", _without(_story(), "pages"))
    bad("record", "record: not an object", ["chat"])
    bad("record", "record: journal line", _journal_line())

    checkpoint = {"format": 1, "remote": "origin", "remoteId": DEV_B,
                  "pushed": {"seq": 0, "journalOffset": 0},
                  "pulled": {DEV_A: {"seq": 3, "etag": "\"abc\""}}}
    good("checkpoint", "README checkpoint", checkpoint)
    good("checkpoint", "registered on the remote",
         dict(checkpoint, pushed={"seq": 1, "journalOffset": 2080, "headETag": "\"e\"", "registered": True}))
    bad("checkpoint", "registered false", dict(checkpoint, pushed={"seq": 1, "journalOffset": 0, "registered": False}))
    good("checkpoint", "minimal checkpoint", {"format": 1, "remote": "origin", "pushed": {"seq": 0, "journalOffset": 0}})
    good("checkpoint", "unfinished uploads seen", dict(checkpoint, unfinishedUploads={"2~abc/def+x=": 1764806400000}))
    bad("checkpoint", "unfinished upload seen at a fractional time", dict(checkpoint, unfinishedUploads={"u1": 1.5}))
    bad("checkpoint", "pushed without seq", {"format": 1, "remote": "origin", "pushed": {}})
    good("head", "head", {"format": 1, "device": "a" * 32, "name": "laptop", "seq": 3, "updated": "2026-11-29T12:00:00.000Z",
                          "remote": "b" * 32, "devices": ["a" * 32]})
    bad("head", "head with a bad device in devices", {"format": 1, "device": "a" * 32, "name": "x", "seq": 3,
                                                      "updated": "2026-11-29T12:00:00.000Z", "remote": "b" * 32, "devices": ["../x"]})
    good("remote-manifest", "manifest", {"format": 2, "remote": "b" * 32, "created": "2026-11-29T12:00:00.000Z"})
    good("remote-manifest", "manifest of format 1 (aisync 1)", {"format": 1, "remote": "b" * 32, "created": T0})
    bad("remote-manifest", "manifest of format 5", {"format": 5, "remote": "b" * 32, "created": T0})
    good("remote-manifest", "encrypted manifest", {"format": 4, "remote": "b" * 32, "created": T0, "encrypted": True})
    bad("remote-manifest", "format 4 without encrypted", {"format": 4, "remote": "b" * 32, "created": T0})
    bad("remote-manifest", "encrypted at format 3", {"format": 3, "remote": "b" * 32, "created": T0, "encrypted": True})
    slot = {"id": "0a1b2c3d", "created": T0, "kdf": "scrypt", "n": 65536, "r": 8, "p": 2, "salt": "00" * 32, "nonce": "11" * 24, "wrapped": "22" * 48}
    good("keys", "key file", {"format": 1, "remote": "b" * 32, "slots": [slot]})
    bad("keys", "key file without slots", {"format": 1, "remote": "b" * 32, "slots": []})
    bad("keys", "key slot with a short wrapped key", {"format": 1, "remote": "b" * 32, "slots": [dict(slot, wrapped="22" * 32)]})
    bad("keys", "key slot of another kdf", {"format": 1, "remote": "b" * 32, "slots": [dict(slot, kdf="argon2id")]})
    good("remote-manifest", "manifest of a remote with snapshots", {"format": 3, "remote": "b" * 32, "created": T0})
    snap = {"seq": 2, "parts": 3, "covers": {"a" * 32: 7, "b" * 32: 0}, "created": T0}
    good("head", "head naming a snapshot", {"format": 1, "device": "a" * 32, "name": "x", "seq": 7, "updated": T0,
                                             "remote": "b" * 32, "devices": ["a" * 32], "snapshot": snap})
    bad("head", "snapshot with no parts", {"format": 1, "device": "a" * 32, "name": "x", "seq": 7, "updated": T0,
                                           "remote": "b" * 32, "devices": ["a" * 32], "snapshot": dict(snap, parts=0)})
    bad("head", "snapshot covering a bad device id", {"format": 1, "device": "a" * 32, "name": "x", "seq": 7, "updated": T0,
                                                      "remote": "b" * 32, "devices": [], "snapshot": dict(snap, covers={"../x": 1})})
    good("checkpoint", "with snapshots and removed segments",
         {"format": 1, "remote": "origin", "pushed": {"seq": 7, "journalOffset": 9}, "snapshots": [snap], "removedThrough": 5})
    bad("checkpoint", "snapshot without covers",
         {"format": 1, "remote": "origin", "pushed": {"seq": 7, "journalOffset": 9}, "snapshots": [{"seq": 1, "parts": 1, "created": T0}]})
    good("missing-images", "nothing missing", {"format": 1, "images": []})
    good("missing-images", "one picture, with its Imgur copy",
         {"format": 1, "images": [{"sha256": "a" * 64, "imgur": {"id": "abc", "link": "https://i.imgur.com/abc.png",
                                                                 "servedSHA256": "a" * 64, "servedSize": 3}}]})
    bad("missing-images", "a deletehash kept", {"format": 1, "images": [{"sha256": "a" * 64, "imgur": {
        "id": "abc", "link": "https://i.imgur.com/abc.png", "deletehash": "secret"}}]})
    bad("missing-images", "not a sha256", {"format": 1, "images": [{"sha256": "../x"}]})
    good("devices", "device index", {"format": 1, "devices": {"a" * 32: "laptop"}})
    bad("devices", "device index with a bad id", {"format": 1, "devices": {"laptop": "laptop"}})
    good("devices", "store device names (devices.json)", {"format": 1, "devices": {DEV_A: "laptop", DEV_B: "phone"}})
    bad("devices", "device name not a string", {"format": 1, "devices": {DEV_A: 1}})
    good("segment-header", "segment header", {"format": 2, "device": "a" * 32, "seq": 1, "remote": "b" * 32, "count": 0})
    good("segment-header", "segment header of format 1 (aisync 1)",
         {"format": 1, "device": "a" * 32, "seq": 1, "remote": "b" * 32, "count": 3})
    bad("segment-header", "segment header of format 3", {"format": 3, "device": "a" * 32, "seq": 1, "remote": "b" * 32, "count": 0})

    add_big = _v2_line([{"op": "add", "field": "messages", "elem": "m-2", "ref": SHA_BIG}])
    good("segment-entry", "format 2: v2 version with an object", {"objects": {SHA_BIG: BIG}, "version": add_big})
    good("segment-entry", "format 2: v2 version without objects", {"objects": {}, "version": _v2_line(create_chat)})
    good("segment-entry", "format 2: object of any JSON value", {"objects": {SHA_A: ["a", 1, None]}, "version": add_big})
    good("segment-entry", "format 2: v1 version with its body", {"objects": {SHA_A: _chat()}, "version": _journal_line()})
    good("segment-entry", "format 2: v1 tombstone", {"objects": {}, "version": _journal_line(deleted=True, body=None)})
    good("segment-entry", "format 1: v1 version with its body", {"body": _chat(), "version": _journal_line()})
    good("segment-entry", "format 1: v1 tombstone", {"body": None, "version": _journal_line(deleted=True, body=None)})
    bad("segment-entry", "format 2: invalid op",
        {"objects": {}, "version": _v2_line([{"op": "set", "field": "title", "value": "x", "ref": SHA_A}])})
    bad("segment-entry", "format 2: object key not a sha256", {"objects": {"big": BIG}, "version": add_big})
    bad("segment-entry", "format 2: objects as array", {"objects": [BIG], "version": add_big})
    bad("segment-entry", "format 2: without version", {"objects": {}})
    bad("segment-entry", "format 2: with body too", {"objects": {}, "body": None, "version": add_big})
    bad("segment-entry", "format 2: extra key", {"objects": {}, "version": add_big, "seq": 1})
    bad("segment-entry", "format 2: v1 body object that is no body", {"objects": {SHA_A: BIG}, "version": _journal_line()})
    bad("segment-entry", "format 2: v1 version without its body", {"objects": {}, "version": _journal_line()})
    bad("segment-entry", "format 2: v1 version with two objects",
        {"objects": {SHA_A: _chat(), SHA_B: _chat()}, "version": _journal_line()})
    bad("segment-entry", "format 2: v1 tombstone with an object",
        {"objects": {SHA_A: _chat()}, "version": _journal_line(deleted=True, body=None)})
    bad("segment-entry", "format 1: v2 version", {"body": None, "version": _v2_line([{"op": "delete"}])})
    bad("segment-entry", "format 1: live version with null body", {"body": None, "version": _journal_line()})
    bad("segment-entry", "format 1: tombstone with a body", {"body": _chat(), "version": _journal_line(deleted=True, body=None)})
    bad("segment-entry", "format 1: invalid body", {"body": _chat(kind="note"), "version": _journal_line()})
    bad("segment-entry", "format 1: extra key", {"body": _chat(), "version": _journal_line(), "x": 1})
    bad("segment-entry", "neither objects nor body", {"version": _journal_line()})
    bad("segment-header", "segment seq 0", {"format": 1, "device": "a" * 32, "seq": 0, "remote": "b" * 32, "count": 0})
    good("checkpoint", "future field under pulled",
         dict(checkpoint, pulled={DEV_A: {"seq": 3, "etag": "\"abc\"", "segment": "s1"}}))
    bad("checkpoint", "format 2", dict(checkpoint, format=2))
    bad("checkpoint", "missing pushed", _without(checkpoint, "pushed"))
    bad("checkpoint", "missing remote", _without(checkpoint, "remote"))
    bad("checkpoint", "pulled key not a device id", dict(checkpoint, pulled={"x": {"seq": 1}}))
    bad("checkpoint", "negative pushed.seq", dict(checkpoint, pushed={"seq": -1, "journalOffset": 0}))
    bad("checkpoint", "unknown top-level key", dict(checkpoint, password="x"))

    listing = [{"id": "chat-3f9a1c2b4d5e6f70", "kind": "chat", "title": "Trip ideas",
                "updated": T1, "conflict": False, "favorite": True, "deleted": False},
               {"id": "image-0011223344556677", "kind": "image", "title": "",
                "updated": T0, "conflict": True, "extra": [1, 2]}]
    sync = {"pushed": 2, "pulled": 0, "conflicts": 0, "bytes": 1620, "segments": 1, "blobs": 1,
            "missingImages": [], "dryRun": False, "massDelete": 0,
            "imgur": {"uploaded": 0, "pending": 0, "failed": 0, "deleted": 0}}
    good("sync-output", "sync output", sync)
    good("sync-output", "a missing image", dict(sync, missingImages=["ab" * 32]))
    bad("sync-output", "missing imgur", _without(sync, "imgur"))
    bad("sync-output", "negative bytes", dict(sync, bytes=-1))
    bad("sync-output", "image digest not hex", dict(sync, missingImages=["xyz"]))
    bad("sync-output", "imgur without pending", dict(sync, imgur={"uploaded": 0, "failed": 0, "deleted": 0}))
    gc = {"objects": ["cd" * 32], "bytes": 10, "leftovers": ["objects/ab/tmp.1"], "dryRun": True}
    good("gc-output", "gc output", gc)
    bad("gc-output", "dryRun as text", dict(gc, dryRun="yes"))
    bad("gc-output", "missing leftovers", _without(gc, "leftovers"))
    remotes = [{"name": "origin", "url": "https://dav.example.com/aisync/", "type": "webdav", "encrypted": False},
               {"name": "usb", "url": "file:///media/usb/aisync", "type": "folder", "encrypted": True}]
    good("remote-list-output", "remote list", remotes)
    good("remote-list-output", "no remotes", [])
    bad("remote-list-output", "unknown type", [dict(remotes[0], type="sftp")])
    good("remote-list-output", "s3 remote", [dict(remotes[0], type="s3", url="s3://bucket/aisync",
                                                  endpoint="http://127.0.0.1:8333", region="us-east-1")])
    bad("remote-list-output", "missing encrypted", [_without(remotes[0], "encrypted")])
    compact = {"snapshot": 3, "parts": 1, "versions": 40, "dropped": 2, "bytes": 9000, "removedSegments": 1,
               "removedSnapshotParts": 0, "sweptOrphans": True, "removedOrphans": 0, "waitingOrphans": 1,
               "endedUploads": 1, "waitingUploads": 0}
    good("compact-output", "compact output", compact)
    bad("compact-output", "missing sweptOrphans", _without(compact, "sweptOrphans"))
    bad("compact-output", "fractional parts", dict(compact, parts=1.5))
    imgur = {"enabled": True, "images": "imgur", "uploads": 3, "deletes": 0, "pending": 1,
             "failed": [{"sha256": "ef" * 32, "message": "File type invalid"}], "retryAt": T1,
             "rateLimit": {"userRemaining": 10}}
    good("imgur-status-output", "imgur status", imgur)
    good("imgur-status-output", "imgur off", {"enabled": False, "images": "remote", "uploads": 0, "deletes": 0,
                                               "pending": 0, "failed": []})
    bad("imgur-status-output", "images elsewhere", dict(imgur, images="s3"))
    bad("imgur-status-output", "retryAt not a time", dict(imgur, retryAt="soon"))
    bad("imgur-status-output", "failure without message", dict(imgur, failed=[{"sha256": "ef" * 32}]))

    good("list-output", "list output", listing)
    good("list-output", "empty list", [])
    bad("list-output", "list item without conflict", [_without(listing[0], "conflict")])
    bad("list-output", "list item with bad time", [dict(listing[0], updated="yesterday")])
    bad("list-output", "list item with kind note", [dict(listing[0], kind="note")])
    bad("list-output", "list output as object", {"items": listing})

    good("conflicts-output", "conflicts output", _conflict(
        [_version(True), _version(False, version=SHA_B, device=DEV_B, deleted=True, time=T1)]))
    good("conflicts-output", "no conflicts", [])
    bad("conflicts-output", "two winners", _conflict([_version(True), _version(True)]))
    bad("conflicts-output", "no winner", _conflict([_version(False), _version(False)]))
    bad("conflicts-output", "single version", _conflict([_version(True)]))
    bad("conflicts-output", "version id of 11 characters",
        _conflict([_version(True, version="0123456789a"), _version(False)]))
    bad("conflicts-output", "version id too long",
        _conflict([_version(True, version=SHA_A + "0"), _version(False)]))
    bad("conflicts-output", "bad device id",
        _conflict([_version(True, device="laptop"), _version(False)]))
    bad("conflicts-output", "missing deleted",
        _conflict([_without(_version(True), "deleted"), _version(False)]))
    good("conflicts-output", "device names", _conflict(
        [_version(True, deviceName="laptop"), _version(False, version=SHA_B, device=DEV_B)],
        [{"field": "title", "values": [_value(True, value="A", deviceName="laptop"),
                                       _value(False, version=SHA_B, device=DEV_B, value="B")]}]))
    good("conflicts-output", "edit against remove of a message, and edit against delete", _conflict(
        [_version(True), _version(False, version=SHA_B, device=DEV_B, deleted=True)],
        [{"field": "deleted", "values": [_value(True, value=False),
                                         _value(False, version=SHA_B, device=DEV_B, value=True)]},
         {"field": "messages/m-1a2b3c4d5e6f7081",
          "values": [_value(True, value=MSG), _value(False, version=SHA_B, device=DEV_B, removed=True)]}]))
    good("conflicts-output", "story page and image register conflicts", [
        dict(_conflict([_version(True), _version(False)])[0], id="story-1", kind="story", fields=[
            {"field": "pages/page-2", "values": [_value(True, value=PAGE), _value(False, value=dict(PAGE, n=3))]},
            {"field": "moral", "values": [_value(True, value=None), _value(False, value="Be kind")]}]),
        dict(_conflict([_version(True), _version(False)])[0], id="image-1", kind="image", fields=[
            {"field": "imgur", "values": [_value(True, value=IMGUR), _value(False, value=None)]}])])
    bad("conflicts-output", "missing fields", [_without(_conflict([_version(True), _version(False)])[0], "fields")])
    bad("conflicts-output", "no fields", _conflict([_version(True), _version(False)], []))
    bad("conflicts-output", "field with one value", _conflict(
        [_version(True), _version(False)], [{"field": "title", "values": [_value(True, value="A")]}]))
    bad("conflicts-output", "field values with two winners", _conflict(
        [_version(True), _version(False)], [{"field": "title", "values": [_value(True, value="A"), _value(True, value="B")]}]))
    bad("conflicts-output", "field values without winner", _conflict(
        [_version(True), _version(False)], [{"field": "title", "values": [_value(False, value="A"), _value(False, value="B")]}]))
    bad("conflicts-output", "value missing although not removed", _conflict(
        [_version(True), _version(False)], [{"field": "title", "values": [_value(True, value="A"), _value(False)]}]))
    bad("conflicts-output", "removed with a value", _conflict(
        [_version(True), _version(False)],
        [{"field": "messages/m-1", "values": [_value(True, value=MSG), _value(False, removed=True, value=MSG)]}]))
    bad("conflicts-output", "value without removed", _conflict(
        [_version(True), _version(False)], [{"field": "title", "values": [_value(True, value="A"),
                                                                          _without(_value(False, value="B"), "removed")]}]))
    bad("conflicts-output", "deleted value not a boolean", _conflict(
        [_version(True), _version(False)], [{"field": "deleted", "values": [_value(True, value="no"), _value(False, value=True)]}]))
    bad("conflicts-output", "message value not a message", _conflict(
        [_version(True), _version(False)], [{"field": "messages/m-1", "values": [_value(True, value="hi"), _value(False, removed=True)]}]))
    bad("conflicts-output", "chat field pages/...", _conflict(
        [_version(True), _version(False)], [{"field": "pages/p-1", "values": [_value(True, value=PAGE), _value(False, removed=True)]}]))
    bad("conflicts-output", "chat field moral", _conflict(
        [_version(True), _version(False)], [{"field": "moral", "values": [_value(True, value="a"), _value(False, value="b")]}]))
    bad("conflicts-output", "field with a bad element id", _conflict(
        [_version(True), _version(False)], [{"field": "messages/M 1", "values": [_value(True, value=MSG), _value(False, removed=True)]}]))
    bad("conflicts-output", "deviceName not a string", _conflict([_version(True, deviceName=1), _version(False)]))
    bad("conflicts-output", "unknown key in a value", _conflict(
        [_version(True), _version(False)], [{"field": "title", "values": [_value(True, value="A", old="B"), _value(False, value="B")]}]))

    good("log-output", "log output", [_log(), _log(version=SHA_B, action="create", summary="created", deviceName="laptop"),
                                      _log(action="delete", deleted=True, summary="deleted", kind="image",
                                           record="image-0011223344556677")])
    good("log-output", "empty log", [])
    good("log-output", "aisync 1 version", [_log(summary="edited (aisync 1)")])
    bad("log-output", "short version id", [_log(version=SHA_A[:12])])
    bad("log-output", "unknown action", [_log(action="rename")])
    bad("log-output", "missing summary", [_without(_log(), "summary")])
    bad("log-output", "summary not a string", [_log(summary=["renamed"])])
    bad("log-output", "deviceName null", [_log(deviceName=None)])
    bad("log-output", "unknown key", [_log(ops=[])])
    bad("log-output", "bad time", [_log(time="2026-11-29 12:00")])
    bad("log-output", "log output as object", {"versions": [_log()]})

    good("status-output", "status output", STATUS)
    good("status-output", "status output with extra keys", dict(STATUS, remotes=["origin"]))
    bad("status-output", "records with kind note", dict(STATUS, records={"note": 1}))
    bad("status-output", "missing journal.lines", dict(STATUS, journal={}))
    bad("status-output", "negative bytes", dict(STATUS, bytes=-1))
    bad("status-output", "missing device name", dict(STATUS, device={"id": DEV_A}))
    bad("status-output", "conflicts as string", dict(STATUS, conflicts="0"))
    good("status-output", "no remotes", dict(STATUS, sync=[]))
    bad("status-output", "missing sync", _without(STATUS, "sync"))
    remote = STATUS["sync"][0]
    bad("status-output", "inSync as text", dict(STATUS, sync=[dict(remote, inSync="no")]))
    bad("status-output", "unknown operation",
        dict(STATUS, sync=[dict(remote, lastSuccess=dict(remote["lastSuccess"], operation="rsync"))]))
    bad("status-output", "error without its line",
        dict(STATUS, sync=[dict(remote, lastAttempt=dict(remote["lastAttempt"], error={"code": "io"}))]))
    synced = {"time": "2026-11-29T12:00:00.000Z", "remote": "origin", "event": "synced", "reason": "change",
              "report": {"pushed": 1, "pulled": 0, "conflicts": 0, "bytes": 810, "segments": 1, "blobs": 0,
                         "missingImages": [], "dryRun": False, "massDelete": 0,
                         "imgur": {"uploaded": 0, "pending": 0, "failed": 0, "deleted": 0}}}
    failed = {"time": "2026-11-29T12:00:00.000Z", "remote": "origin", "event": "offline",
              "error": {"code": "unavailable", "line": "cannot reach dav.example.com"},
              "retryAt": "2026-11-29T12:05:00.000Z"}
    good("watch-output", "a sync", synced)
    good("watch-output", "offline", failed)
    good("watch-output", "failed", dict(failed, event="failed"))
    bad("watch-output", "synced without its report", _without(synced, "report"))
    bad("watch-output", "offline without retryAt", _without(failed, "retryAt"))
    bad("watch-output", "unknown event", dict(synced, event="idle"))
    bad("watch-output", "unknown reason", dict(synced, reason="cron"))
    return ex


def self_test(schemas_dir, verbose=False):
    results = []  # (ok, label, detail)

    def record(ok, label, detail=""):
        results.append((ok, label, detail))
        if verbose or not ok:
            print("%s %s%s" % ("ok  " if ok else "FAIL", label, (": " + detail) if detail else ""))

    try:
        schemas = load_schemas(schemas_dir)
    except UsageError as e:
        print("FAIL %s" % e)
        return 1

    for name in EXPECTED_SCHEMAS:
        record(name in schemas, "schema %s%s present" % (name, SCHEMA_SUFFIX))

    for name, schema in sorted(schemas.items()):
        label = "%s%s" % (name, SCHEMA_SUFFIX)
        try:
            Draft202012Validator.check_schema(schema)
            record(True, "%s is valid against the 2020-12 metaschema" % label)
        except jsonschema.SchemaError as e:
            record(False, "%s is valid against the 2020-12 metaschema" % label,
                   "%s: %s" % (json_path(e.absolute_path), _clip(e.message)))
            continue
        record(schema.get("$schema") == METASCHEMA, "%s has $schema %s" % (label, METASCHEMA),
               repr(schema.get("$schema")))
        record(schema.get("$id") == SCHEMA_BASE + label, "%s has $id %s%s" % (label, SCHEMA_BASE, label),
               repr(schema.get("$id")))
        for key in ("title", "description"):
            record(isinstance(schema.get(key), str) and schema[key].strip() != "",
                   "%s has a %s" % (label, key))
        for pattern in _patterns(schema):
            try:
                _compiled(pattern)
                record(True, "%s pattern %r compiles" % (label, pattern))
            except re.error as e:
                record(False, "%s pattern %r compiles" % (label, pattern), str(e))

    format_checker = make_format_checker()
    validators = {}
    for schema_name, label, value, expected in examples(format_checker):
        try:
            if schema_name not in validators:
                validators[schema_name] = make_validator(schema_name, schemas, format_checker)
            problems = instance_problems(validators[schema_name], value)
        except Exception as e:  # unresolvable $ref, bad schema, ...
            record(False, "%s: %s" % (schema_name, label), "%s: %s" % (type(e).__name__, e))
            continue
        ok = (not problems) == expected
        detail = ""
        if not ok:
            detail = ("unexpected: " + "; ".join(problems)) if problems else "accepted, expected rejection"
        elif verbose and problems:
            detail = "rejected: " + problems[0]
        record(ok, "%s: %s (%s)" % (schema_name, label, "valid" if expected else "invalid"), detail)

    # error explanation through record.schema.json's oneOf
    try:
        problems = instance_problems(make_validator("record", schemas, format_checker),
                                     _chat_bad_message(role="bot"))
        ok = any(p.startswith("$.messages[0].role:") and "'bot'" in p for p in problems)
        record(ok, "record oneOf errors name the failing field", "; ".join(problems))
    except Exception as e:
        record(False, "record oneOf errors name the failing field", repr(e))

    # file handling: JSON Lines, parse errors, canonical form, version ids
    try:
        jv = make_validator("journal-line", schemas, format_checker)
        l1 = canonical_bytes(_journal_line())
        l2 = canonical_bytes(_journal_line(deleted=True, body=None, clock={DEV_A: 4},
                                           hlc={"c": 1, "t": 1764417600000}))
        tampered = _journal_line()
        tampered["hlc"] = {"c": 5, "t": 1764417600000}  # id no longer matches
        l3 = canonical_bytes(tampered)
        out, invalid = check_bytes("j.jsonl", l1 + b"\n" + l2 + b"\n", jv, "journal-line",
                                   jsonl=True, canonical=True)
        record(out == [] and invalid == 0, "canonical journal.jsonl passes --canonical", "; ".join(out))
        out, invalid = check_bytes("j.jsonl", l1 + b"\n" + l3 + b"\n", jv, "journal-line",
                                   jsonl=True)
        record(out == [] and invalid == 0, "a wrong version id passes without --canonical",
               "; ".join(out))
        out, invalid = check_bytes("j.jsonl", l1 + b"\n" + l3 + b"\n", jv, "journal-line",
                                   jsonl=True, canonical=True)
        record(invalid == 1 and len(out) == 1 and out[0].startswith("j.jsonl:2: $.id:"),
               "--canonical rejects a wrong version id", "; ".join(out))
        spaced = json.dumps(_journal_line(), indent=1).encode()
        out, invalid = check_bytes("j.jsonl", l1 + b"\n" + spaced.replace(b"\n", b"") + b"\n",
                                   jv, "journal-line", jsonl=True, canonical=True)
        record(invalid == 1 and all(o.startswith("j.jsonl:2: not canonical") for o in out),
               "--canonical rejects whitespace", "; ".join(out))
        unsorted = json.dumps(_journal_line(), separators=(",", ":"), sort_keys=False)
        unsorted = ('{"v":1,' + unsorted[1:].replace(',"v":1', "")).encode()
        out, invalid = check_bytes("j.jsonl", unsorted, jv, "journal-line", jsonl=True,
                                   canonical=True)
        record(invalid == 1 and any("not canonical" in o for o in out)
               and any("not \"\\n\"-terminated" in o for o in out),
               "--canonical rejects unsorted keys and a missing final newline", "; ".join(out))
        out, invalid = check_bytes("j.jsonl", l1 + b"\n\n{oops\n" + l1 + b"\n", jv,
                                   "journal-line", jsonl=True)
        record(invalid == 2 and out[0].startswith("j.jsonl:2: empty line")
               and out[1].startswith("j.jsonl:3: invalid JSON"),
               "JSON Lines: empty and broken lines are reported with their line numbers",
               "; ".join(out))
        cv = make_validator("chat", schemas, format_checker)
        out, invalid = check_bytes("c.json", b'{"kind":"chat","kind":"chat"}', cv, "chat")
        record(invalid == 1 and "duplicate key" in out[0], "duplicate keys are rejected",
               "; ".join(out))
        out, invalid = check_bytes("c.json", canonical_bytes(_chat()) + b"\n", cv, "chat",
                                   canonical=True)
        record(out == [], "canonical chat body with non-ASCII text passes --canonical",
               "; ".join(out))
        ctl = canonical_bytes(_chat(title="a\u001fb\tc"))
        out, _ = check_bytes("c.json", ctl, cv, "chat", canonical=True)
        out += check_bytes("c.json", ctl.replace(b"\\u001f", b"\\u001F"), cv, "chat",
                           canonical=True)[0]
        record(b"\\u001f" in ctl and out == [],
               "control characters as \\u00xx or \\u00XX pass --canonical", "; ".join(out))
        out, _ = check_bytes("c.json", ctl.replace(b"\\t", b"\\u0009"), cv, "chat",
                             canonical=True)
        record(len(out) == 1 and "not canonical" in out[0],
               "--canonical rejects \\u0009 for a tab", "; ".join(out))
        out, _ = check_bytes("c.json", canonical_bytes(_chat(title="\u00e9")).replace(
            "\u00e9".encode(), b"\\u00e9"), cv, "chat", canonical=True)
        record(len(out) == 1 and "not canonical" in out[0],
               "--canonical rejects needless \\u escapes", "; ".join(out))
        out, _ = check_bytes("c.json", canonical_bytes(_image()).replace(b"12345", b"12345.0"),
                             make_validator("image", schemas, format_checker), "image",
                             canonical=True)
        record(len(out) == 1 and "non-integer" in out[0], "--canonical rejects floats",
               "; ".join(out))

        # records v2 lines in the journal; segments
        v2 = canonical_bytes(_v2_line([{"op": "set", "field": "title", "value": "Trip"}]))
        out, invalid = check_bytes("j.jsonl", l1 + b"\n" + v2 + b"\n", jv, "journal-line",
                                   jsonl=True, canonical=True)
        record(out == [] and invalid == 0, "a journal of v1 and v2 lines passes --canonical", "; ".join(out))
        tampered = _v2_line([{"op": "set", "field": "title", "value": "Trip"}])
        tampered["ops"][0]["value"] = "Tri"
        out, invalid = check_bytes("j.jsonl", canonical_bytes(tampered) + b"\n", jv, "journal-line",
                                   jsonl=True, canonical=True)
        record(invalid == 1 and len(out) == 1 and out[0].startswith("j.jsonl:1: $.id:"),
               "--canonical rejects a v2 line whose ops were altered", "; ".join(out))

        hv = make_validator("segment-header", schemas, format_checker)
        ev = make_validator("segment-entry", schemas, format_checker)

        def seg(fmt, entries, count=None):
            head = {"count": len(entries) if count is None else count, "device": DEV_A, "format": fmt,
                    "remote": DEV_B, "seq": 1}
            return b"".join(canonical_bytes(x) + b"\n" for x in [head] + entries)

        add_big = _v2_line([{"op": "add", "field": "messages", "elem": "m-2", "ref": SHA_BIG}])
        chat = _chat()
        legacy = _journal_line(body=hashlib.sha256(canonical_bytes(chat)).hexdigest())
        tomb = _journal_line(deleted=True, body=None, clock={DEV_A: 4})
        seg2 = seg(2, [{"objects": {SHA_BIG: BIG}, "version": add_big},
                       {"objects": {legacy["body"]: chat}, "version": legacy},
                       {"objects": {}, "version": tomb}])
        out, invalid = check_segment("2.seg", seg2, hv, ev, canonical=True)
        record(out == [] and invalid == 0, "a format 2 segment (v2 and v1 versions) passes --canonical",
               "; ".join(out))
        seg1 = seg(1, [{"body": chat, "version": legacy}, {"body": None, "version": tomb}])
        out, invalid = check_segment("1.seg", seg1, hv, ev, canonical=True)
        record(out == [] and invalid == 0, "a format 1 segment (aisync 1) passes --canonical", "; ".join(out))
        out, invalid = check_segment("1.seg", seg(1, [{"objects": {}, "version": tomb}]), hv, ev)
        record(invalid == 1 and len(out) == 1 and out[0].startswith("1.seg:2: a format 1 segment's entries"),
               "segment: a format 2 entry in a format 1 segment is rejected", "; ".join(out))
        out, invalid = check_segment("2.seg", seg(2, [{"body": None, "version": tomb}]), hv, ev)
        record(invalid == 1 and len(out) == 1 and out[0].startswith("2.seg:2: a format 2 segment's entries"),
               "segment: a format 1 entry in a format 2 segment is rejected", "; ".join(out))
        out, invalid = check_segment("2.seg", seg(2, [{"objects": {}, "version": tomb}], count=2), hv, ev)
        record(invalid == 1 and len(out) == 1 and out[0].startswith("2.seg:1: $.count:"),
               "segment: a wrong header count is rejected", "; ".join(out))
        out, invalid = check_segment("2.seg", seg2[:-1], hv, ev)
        record(invalid == 1 and len(out) == 1 and "newline" in out[0],
               "segment: a missing final newline is rejected", "; ".join(out))
        out, invalid = check_segment("2.seg", seg(2, [{"objects": {}, "version": _v2_line([{"op": "jump"}])}]), hv, ev)
        record(invalid == 1 and len(out) == 1 and out[0].startswith("2.seg:2: $.version.ops[0].op:"),
               "segment: an unknown op is reported with its line and path", "; ".join(out))
        missing = seg(2, [{"objects": {}, "version": add_big}])
        out, invalid = check_segment("2.seg", missing, hv, ev)
        record(out == [], "segment: objects that do not match the version pass without --canonical",
               "; ".join(out))
        out, invalid = check_segment("2.seg", missing, hv, ev, canonical=True)
        record(invalid == 1 and len(out) == 1 and out[0].startswith("2.seg:2: $.objects: holds nothing"),
               "--canonical rejects a segment entry without the object its version names", "; ".join(out))
        wrong = canonical_bytes({"objects": {SHA_BIG: dict(BIG, text="y")}, "version": add_big})
        out, invalid = check_bytes("e.json", wrong, ev, "segment-entry", canonical=True)
        record(invalid == 1 and len(out) == 1 and "is not the sha256 of its canonical JSON" in out[0],
               "--canonical rejects an object whose key is not its sha256", "; ".join(out))
        wrong = canonical_bytes({"body": _chat(title="other"), "version": legacy})
        out, invalid = check_bytes("e.json", wrong, ev, "segment-entry", canonical=True)
        record(invalid == 1 and len(out) == 1 and out[0].startswith("e.json: $.body: its sha256"),
               "--canonical rejects a format 1 body that is not the version's", "; ".join(out))
        altered = dict(add_big, hlc={"c": 9, "t": 1})
        out, invalid = check_bytes("e.json", canonical_bytes({"objects": {SHA_BIG: BIG}, "version": altered}),
                                   ev, "segment-entry", canonical=True)
        record(invalid == 1 and len(out) == 1 and out[0].startswith("e.json: $.version.id:"),
               "--canonical rejects a segment entry whose version id is wrong", "; ".join(out))
    except Exception as e:
        record(False, "file handling checks", "%s: %s" % (type(e).__name__, e))

    failed = sum(1 for ok, _, _ in results if not ok)
    print("self-test: %d checks, %d failed (jsonschema %s, %s, uri format: %s, date-time format: %s)"
          % (len(results), failed, _jsonschema_version(),
             "referencing Registry" if HAVE_REFERENCING else "RefResolver",
             "jsonschema" if format_checker.checkers["uri"][0] is not _fallback_is_uri else "built-in fallback",
             "checked" if "date-time" in format_checker.checkers else "not checked"))
    return 1 if failed else 0


def _patterns(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                yield value
            else:
                for p in _patterns(value):
                    yield p
    elif isinstance(node, list):
        for item in node:
            for p in _patterns(item):
                yield p


def _jsonschema_version():
    try:
        from importlib.metadata import version
        return version("jsonschema")
    except Exception:  # pragma: no cover
        return "?"


# ---------------------------------------------------------------------------
# Command line

def usage(message=None):
    if message:
        sys.stderr.write("validate_json.py: %s\n" % message)
    sys.stderr.write("usage: validate_json.py [--schemas DIR] [--jsonl] [--canonical] "
                     "SCHEMA_NAME FILE...\n"
                     "       validate_json.py [--schemas DIR] [-v] --self-test\n")
    return 2


def main(argv):
    schemas_dir = default_schemas_dir()
    jsonl = canonical = selftest = verbose = False
    positional = []
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--":
            positional.extend(args)
            break
        if arg in ("-h", "--help"):
            sys.stdout.write(__doc__)
            return 0
        if arg == "--schemas" or arg.startswith("--schemas="):
            if "=" in arg:
                schemas_dir = arg.split("=", 1)[1]
            elif args:
                schemas_dir = args.pop(0)
            else:
                return usage("--schemas needs a folder")
        elif arg == "--jsonl":
            jsonl = True
        elif arg == "--canonical":
            canonical = True
        elif arg == "--self-test":
            selftest = True
        elif arg in ("-v", "--verbose"):
            verbose = True
        elif arg.startswith("-") and arg != "-":
            return usage("unknown option %s" % arg)
        else:
            positional.append(arg)

    if selftest:
        if positional:
            return usage("--self-test takes no SCHEMA_NAME or FILE")
        return self_test(schemas_dir, verbose)
    if len(positional) < 2:
        return usage("need a SCHEMA_NAME and at least one FILE")

    name = positional[0]
    if name.endswith(SCHEMA_SUFFIX):
        name = os.path.basename(name)[:-len(SCHEMA_SUFFIX)]
    try:
        schemas = load_schemas(schemas_dir)
        if name == SEGMENT:
            header_validator = make_validator("segment-header", schemas)
            validator = make_validator("segment-entry", schemas)
        else:
            validator = make_validator(name, schemas)
    except UsageError as e:
        return usage(str(e))

    unreadable = invalid = 0
    stdin_used = False
    for path in positional[1:]:
        if path == "-":
            if stdin_used:
                return usage("`-` given twice")
            stdin_used = True
            data = sys.stdin.buffer.read()
        else:
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError as e:
                sys.stderr.write("%s: cannot read: %s\n" % (path, e.strerror or e))
                unreadable += 1
                continue
        if name == SEGMENT:
            lines, bad = check_segment(path, data, header_validator, validator, canonical=canonical)
        else:
            lines, bad = check_bytes(path, data, validator, name,
                                     jsonl=jsonl or path.endswith(".jsonl"), canonical=canonical)
        for line in lines:
            sys.stdout.write(line + "\n")
        invalid += bad
    sys.stdout.flush()
    if unreadable:
        return 2
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
