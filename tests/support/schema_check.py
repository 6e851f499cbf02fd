#!/usr/bin/env python3
# schema_check.py SCHEMA JSON... - check each JSON document against a schema of
# (schema_check.py --pairs SCHEMA JSON SCHEMA JSON ...: each document against its own)
# src/app/schemas/ (the JSON Schema subset those files use: type, properties, required,
# additionalProperties, items, enum, minimum, $defs/$ref, anyOf; Debian 12 ships no JSON
# Schema validator for C, and python3-jsonschema is not among the test dependencies).
# Exit 1 with every violation's path; an unknown keyword in the schema is an error too,
# so a schema cannot say more than is checked.
import json
import sys

KNOWN = {"$schema", "$id", "$defs", "$ref", "title", "description", "type", "properties",
         "required", "additionalProperties", "items", "enum", "minimum", "anyOf", "unit"}
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def is_type(v, t):
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if t == "integer":
        return (isinstance(v, int) and not isinstance(v, bool)) or (
            isinstance(v, float) and v.is_integer())
    return isinstance(v, TYPES[t])


def check(v, s, root, path, errs):
    bad = set(s) - KNOWN
    if bad:
        errs.append("%s: schema keywords not checked here: %s" % (path, sorted(bad)))
    if "$ref" in s:
        ref = s["$ref"]
        assert ref.startswith("#/$defs/"), ref
        check(v, root["$defs"][ref[8:]], root, path, errs)
    if "anyOf" in s:
        tries = []
        for alt in s["anyOf"]:
            e = []
            check(v, alt, root, path, e)
            tries.append(e)
        if all(tries):
            errs.append("%s: matches no alternative (%s)" % (path, tries[0][0]))
    if "type" in s:
        ts = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(is_type(v, t) for t in ts):
            errs.append("%s: %r is not %s" % (path, v if not isinstance(v, (dict, list))
                                              else type(v).__name__, "|".join(ts)))
            return
    if "enum" in s and v not in s["enum"]:
        errs.append("%s: %r not in %s" % (path, v, s["enum"]))
    if "minimum" in s and is_type(v, "number") and v < s["minimum"]:
        errs.append("%s: %r below %r" % (path, v, s["minimum"]))
    if isinstance(v, dict):
        props = s.get("properties", {})
        for k in s.get("required", []):
            if k not in v:
                errs.append("%s: member %r missing" % (path, k))
        extra = s.get("additionalProperties", True)
        for k, x in v.items():
            if k in props:
                check(x, props[k], root, path + "." + k, errs)
            elif extra is False:
                errs.append("%s: member %r is not in the schema" % (path, k))
            elif isinstance(extra, dict):
                check(x, extra, root, path + "." + k, errs)
    if isinstance(v, list) and "items" in s:
        for i, x in enumerate(v):
            check(x, s["items"], root, "%s[%d]" % (path, i), errs)


if sys.argv[1] == "--pairs":
    pairs = list(zip(sys.argv[2::2], sys.argv[3::2]))
else:
    pairs = [(sys.argv[1], f) for f in sys.argv[2:]]
failed = 0
for sf, f in pairs:
    schema = json.load(open(sf))
    errs = []
    check(json.load(open(f)), schema, schema, "$", errs)
    for e in errs[:20]:
        print("%s (%s): %s" % (f, sf.rsplit("/", 1)[-1], e), file=sys.stderr)
    failed += bool(errs)
sys.exit(1 if failed else 0)
