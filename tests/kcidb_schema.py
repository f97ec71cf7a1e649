# SPDX-License-Identifier: GPL-2.0-or-later
"""The schemas the KCIDB documents of tests/kcidb.t and tests/lava.t are
validated with (Debian's python3-jsonschema, Draft 7, format checking):

  own:      this project's KCIDB v5.3 schema
            (test-vectors/kcidb/memmapcheck-kcidb.schema.json), written from
            KCIDB's documentation: always there, never skipped with
            python3-jsonschema installed;
  upstream: kcidb-io's own v5.3 schema file, not committed
            (test-vectors/kcidb/README.md, test-vectors/kcidb/SOURCE): extra
            checks when the file is present, a '# ' note when it is not, a
            failure when its sha256 is not SOURCE's.

Imported like taplib, with tests/ on sys.path.
"""
import hashlib
import json
import os

from taplib import CACHE, TOP

KCIDB_VECTORS = os.path.join(TOP, "test-vectors", "kcidb")
OWN_SCHEMA = os.path.join(KCIDB_VECTORS, "memmapcheck-kcidb.schema.json")


def source():
    """test-vectors/kcidb/SOURCE: the kcidb-io schema file's name, version
    and sha256."""
    with open(os.path.join(KCIDB_VECTORS, "SOURCE")) as f:
        return dict(l.rstrip("\n").split("\t", 1) for l in f if l.strip() and not l.startswith("#"))


class Schemas:
    """The two validators of a KCIDB document.

    own is None only without python3-jsonschema (own_why says so, and its
    checks skip).  upstream is None when kcidb-io's file is absent
    (upstream_note says where it was looked for) or is not SOURCE's
    (upstream_bad says so)."""

    def __init__(self):
        self.own = self.upstream = None
        self.own_why = self.upstream_note = self.upstream_bad = None
        try:
            import jsonschema
        except ImportError:
            self.own_why = "python3-jsonschema not installed (scripts/setup-deps.sh installs it)"
            return
        src = source()
        with open(OWN_SCHEMA) as f:
            own = json.load(f)
        jsonschema.Draft7Validator.check_schema(own)
        self.own = jsonschema.Draft7Validator(own, format_checker=jsonschema.FormatChecker())
        path = os.environ.get("MMC_KCIDB_SCHEMA") or os.path.join(CACHE, "kcidb", src["file"])
        if not os.path.isfile(path):
            self.upstream_note = ("no kcidb-io schema at %s: the extra checks against kcidb-io's own v%s "
                                  "schema were not made (test-vectors/kcidb/README.md says how to make "
                                  "the file, or set MMC_KCIDB_SCHEMA)" % (path, src["version"]))
            return
        with open(path, "rb") as f:
            raw = f.read()
        if hashlib.sha256(raw).hexdigest() != src["sha256"]:
            self.upstream_bad = "%s is not the kcidb-io schema of test-vectors/kcidb/SOURCE (sha256 differs)" % path
            return
        up = json.loads(raw)
        up.setdefault("$schema", "http://json-schema.org/draft-07/schema#")
        self.upstream = jsonschema.Draft7Validator(up, format_checker=jsonschema.FormatChecker())
        self.upstream_note = "kcidb-io's v%s schema: %s (sha256 as SOURCE)" % (src["version"], path)

    def announce(self, tap):
        """The '# ' note on kcidb-io's file, and a failure when it is not
        the one SOURCE names."""
        if self.upstream_note:
            print("# " + self.upstream_note)
        if self.upstream_bad:
            tap(False, "[proof] the kcidb-io schema file is the one test-vectors/kcidb/SOURCE names",
                self.upstream_bad)


def errors_of(validator, doc):
    """Each place doc breaks validator's schema: 'path/in/doc: message'."""
    return ["%s: %s" % ("/".join(map(str, e.absolute_path)), e.message) for e in validator.iter_errors(doc)]


def schema_check(tap, sch, doc, what):
    """doc against the own schema (never skipped with python3-jsonschema),
    then against kcidb-io's when its file is there."""
    if sch.own is None:
        tap.skip(sch.own_why, what + ": memmapcheck's KCIDB schema")
    else:
        errs = errors_of(sch.own, doc)
        tap(not errs, what + ": valid against memmapcheck's KCIDB v5.3 schema", "\n".join(errs[:10]))
    if sch.upstream is not None:
        errs = errors_of(sch.upstream, doc)
        tap(not errs, what + ": valid against kcidb-io's v5.3 schema (extra)", "\n".join(errs[:10]))
