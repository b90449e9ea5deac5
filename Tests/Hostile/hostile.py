#!/usr/bin/env python3
"""The hostile corpus (issue 30): files made to hurt, opened as an examiner opens them.

Every case is built here, from code, in a scratch folder: damaged and hostile SQLite
containers, rollback journals and write-ahead logs, model caches and compiled models
(keyed archives), metadata plists, Xcode models, XML stores, names, row data and
external data. Each is then opened with the built `mrq` as an examiner would
(`.entities`, `count`, `limit 3`, `--format json`, `--read-only`, `--immutable`,
`--model` for model files), and each run is checked for:

- its exit status (success, or the clear refusal the case calls for: never a crash,
  never "internal failure"), and its error text (one short message, naming the
  reference where the case says which);
- time and peak memory under the case's bounds;
- the case's folder, and the folder mrq ran in, byte for byte, name for name and mode
  for mode the same afterwards (mrq may read; it never writes, removes or creates);
- nothing from outside the store's folder in its output, and no raw control character
  (a terminal escape) in what it prints.

    python3 Tests/Hostile/hostile.py --mrq .build/debug/mrq          # all cases
    python3 Tests/Hostile/hostile.py --mrq .build/debug/mrq -k wal   # names containing 'wal'
    python3 Tests/Hostile/hostile.py --list                           # the cases, by class

It ends with the line 'hostile corpus: N passed, N failed' and exits 1 when any failed.
"""

import argparse
import hashlib
import os
import plistlib
import shutil
import signal
import sqlite3
import stat
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
SECRET = "SECRET-OUTSIDE-THE-STORE-7f3a"


def leaked(*texts):
    """Whether the secret, or the secret as a blob is shown (base64, hex), is in texts."""
    import base64
    forms = [SECRET, base64.b64encode(SECRET.encode()).decode()[:24], SECRET.encode().hex()[:24],
             SECRET.encode().hex().upper()[:24]]
    return any(form in text for text in texts for form in forms)

# ---------------------------------------------------------------------------
# The model every store case starts from: a hierarchy (Person > Employee), a
# to-one and to-many to itself, a many-to-many (Person.tags <-> Tag.people),
# an external-storage binary attribute, and an entity of another hierarchy.
MODEL_XML = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
    <entity name="Person" representedClassName="Person" syncable="YES">
        <attribute name="name" optional="YES" attributeType="String"/>
        <attribute name="age" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
        <attribute name="born" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
        <attribute name="active" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
        <attribute name="photo" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
        <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="people" inverseEntity="Tag"/>
        <relationship name="boss" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="reports" inverseEntity="Person"/>
        <relationship name="reports" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="boss" inverseEntity="Person"/>
    </entity>
    <entity name="Employee" representedClassName="Employee" parentEntity="Person" syncable="YES">
        <attribute name="title" optional="YES" attributeType="String"/>
    </entity>
    <entity name="Tag" representedClassName="Tag" syncable="YES">
        <attribute name="label" optional="YES" attributeType="String"/>
        <relationship name="people" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="tags" inverseEntity="Person"/>
    </entity>
    <entity name="Note" representedClassName="Note" syncable="YES">
        <attribute name="body" optional="YES" attributeType="String"/>
        <attribute name="weight" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
    </entity>
</model>
"""

POPULATE = [
    'insert Person { name: "Ada", age: 36 }',
    'insert Employee { name: "Bob", age: 40, title: "boss" }',
    'insert Tag { label: "red" }',
    'insert Tag { label: "blue" }',
    'insert Note { body: "hello", weight: 1.5 }',
    'save',
]

# Names no Core Data model can hold, each reaching SQL or a terminal if let through.
HOSTILE_NAMES = {
    "attach": 'x"; ATTACH DATABASE \'pwned.db\' AS p; CREATE TABLE p.t(x); --',
    "or1": 'x" OR 1=1 OR "',
    "function": 'x" || INJECTED_MARKER_FN() || "',
    "recursive": 'x" IN (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c) SELECT n FROM c) OR "',
    "newline": "x\n.output pwned.txt\n",
    "dotshell": "x\n.shell touch pwned\n",
    "escape": "x\x1b[31mRED\x1b[0m",
    "bell": "x\x07\x08\x7f",
    "c1": "x\u009b31m",
    "bidi": "x\u202eevil",
    "quote": 'x"y',
    "space": "x y",
    "empty": "",
    "digit": "9lives",
    "nul": "x\x00y",
    "long": "A" * 70000,
}


# ---------------------------------------------------------------------------
# Small helpers

def run_mrq(mrq, args, cwd, timeout=60):
    proc = subprocess.run([mrq] + args, cwd=cwd, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError("building the corpus: mrq %s failed (%d): %s" % (args, proc.returncode, proc.stderr.decode(errors="replace")))
    return proc


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def connect(path):
    return sqlite3.connect(path, isolation_level=None)


def inflate(blob):
    return zlib.decompress(blob, -15)


def deflate(data):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def read_cache(path):
    with connect(path) as db:
        blob = db.execute("SELECT Z_CONTENT FROM Z_MODELCACHE").fetchone()[0]
    return plistlib.loads(inflate(blob))


def write_cache(path, archive=None, raw=None):
    data = raw if raw is not None else plistlib.dumps(archive, fmt=plistlib.FMT_BINARY)
    db = connect(path)
    db.execute("UPDATE Z_MODELCACHE SET Z_CONTENT = ?", (deflate(data) if raw is None or not isinstance(raw, tuple) else raw[0],))
    db.close()


def string_index(archive, text):
    for i, o in enumerate(archive["$objects"]):
        if o == text:
            return i
    raise KeyError(text)


def rename_in_archive(archive, old, new):
    archive["$objects"][string_index(archive, old)] = new
    return archive


def class_index(archive, name):
    for i, o in enumerate(archive["$objects"]):
        if isinstance(o, dict) and o.get("$classname") == name:
            return i
    archive["$objects"].append({"$classes": [name, "NSObject"], "$classname": name})
    return len(archive["$objects"]) - 1


def add(archive, obj):
    archive["$objects"].append(obj)
    return plistlib.UID(len(archive["$objects"]) - 1)


def attribute_object(archive, entity, name):
    """The NSAttributeDescription object of `entity`'s attribute `name`."""
    objs = archive["$objects"]
    ent = next(o for o in objs if isinstance(o, dict) and o.get("NSEntityName") is not None
               and objs[o["NSEntityName"].data] == entity)
    props = objs[ent["NSProperties"].data]
    for k, v in zip(props["NS.keys"], props["NS.objects"]):
        if objs[k.data] == name:
            return objs[v.data]
    raise KeyError(name)


def dag_array(archive, depth, leaf="x"):
    """An NSArray whose elements are the same array twice, `depth` times over:
    2**depth leaves reached through `depth` objects."""
    array_class = plistlib.UID(class_index(archive, "NSArray"))
    node = add(archive, leaf)
    for _ in range(depth):
        node = add(archive, {"$class": array_class, "NS.objects": [node, node]})
    return node


def dag_predicate(archive, depth):
    """An NSCompoundPredicate (AND) of the same subpredicate twice, `depth` times over."""
    compound = plistlib.UID(class_index(archive, "NSCompoundPredicate"))
    array_class = plistlib.UID(class_index(archive, "NSArray"))
    true_pred = add(archive, {"$class": plistlib.UID(class_index(archive, "NSTruePredicate"))})
    node = true_pred
    for _ in range(depth):
        subs = add(archive, {"$class": array_class, "NS.objects": [node, node]})
        node = add(archive, {"$class": compound, "NSCompoundPredicateType": 1, "NSSubpredicates": subs})
    return node


def bplist_dag(depth):
    """A binary plist (no keyed archive) of arrays that each hold the next one
    twice: 2**depth leaves in depth+1 objects. plistlib cannot write shared
    references, so this writes the format itself."""
    objects = []
    # object 0: the leaf string "x"; object i (1..depth): array [i-1, i-1]
    objects.append(b"\x51x")
    for i in range(1, depth + 1):
        objects.append(bytes([0xA2, i - 1, i - 1]))
    objects.reverse()  # top first: index 0 is the outermost array
    n = len(objects)
    # after reversing, array at index k refers to index k+1
    fixed = []
    for k, o in enumerate(objects):
        if o[0] == 0xA2:
            fixed.append(bytes([0xA2, k + 1, k + 1]))
        else:
            fixed.append(o)
    body = b"bplist00"
    offsets = []
    for o in fixed:
        offsets.append(len(body))
        body += o
    table_offset = len(body)
    offset_size = 2 if table_offset < 65536 else 4
    for off in offsets:
        body += off.to_bytes(offset_size, "big")
    body += b"\x00" * 6 + bytes([offset_size, 1]) + struct.pack(">QQQ", n, 0, table_offset)
    return body


def snapshot(root):
    """Every entry below root, not following links: type, mode, size, and the
    bytes' hash (or, past 64 MiB, size and times) of regular files."""
    result = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            kind = stat.S_IFMT(st.st_mode)
            entry = [kind, stat.S_IMODE(st.st_mode)]
            if stat.S_ISREG(st.st_mode):
                entry.append(st.st_size)
                if st.st_size <= 64 << 20:
                    h = hashlib.sha256()
                    with open(path, "rb") as f:
                        for chunk in iter(lambda: f.read(1 << 20), b""):
                            h.update(chunk)
                    entry.append(h.hexdigest())
                else:
                    entry += [st.st_mtime_ns, st.st_ctime_ns]
            elif stat.S_ISLNK(st.st_mode):
                entry.append(os.readlink(path))
            result[rel] = tuple(entry)
    return result


def describe_difference(before, after):
    lines = []
    for name in sorted(set(before) | set(after)):
        if name not in after:
            lines.append("removed " + name)
        elif name not in before:
            lines.append("created " + name)
        elif before[name] != after[name]:
            lines.append("changed " + name)
    return "; ".join(lines[:6])


# ---------------------------------------------------------------------------
# The cases

class Case:
    """One hostile input and the runs that open it.

    expect: 'ok' (exit 0), 'refuse' (a clear error: exit 65 or 66, stderr naming
    `needle` when given) or 'safe' (either, but never a crash). runs: lists of
    mrq arguments ({S} is the store path, {M} the model path). checks: extra
    callables (stdout, stderr) -> message or None."""

    def __init__(self, cls, name, build, runs, expect="safe", needle=None, seconds=30,
                 megabytes=400, checks=(), check_last=False):
        self.cls, self.name, self.build, self.runs = cls, name, build, runs
        self.expect, self.needle, self.seconds, self.megabytes = expect, needle, seconds, megabytes
        self.checks, self.check_last = list(checks), check_last


EXAMINER = [
    ["--store", "{S}", "-c", ".entities"],
    ["--store", "{S}", "-c", "count Person", "-c", "Person limit 3"],
    ["--store", "{S}", "--read-only", "--format", "json", "-c", "Person limit 3"],
    ["--store", "{S}", "--immutable", "-c", "count Person"],
]
EXAMINER_READONLY = [r for r in EXAMINER if "--read-only" in r or "--immutable" in r] + [
    ["--store", "{S}", "--read-only", "-c", ".entities"],
]


class Corpus:
    def __init__(self, mrq, scratch):
        self.mrq = os.path.abspath(mrq)
        self.scratch = scratch
        self.templates = os.path.join(scratch, "templates")
        self.cases = []

    # -- templates, built once with mrq itself ---------------------------------
    def build_templates(self):
        t = self.templates
        os.makedirs(t, exist_ok=True)
        write(os.path.join(t, "Hostile.xcdatamodeld", "Hostile.xcdatamodel", "contents"), MODEL_XML)
        args = ["--model", "Hostile.xcdatamodeld", "--store", "coredata.sqlite", "--layout", "coredata"]
        for s in POPULATE:
            args += ["-c", s]
        run_mrq(self.mrq, args, t)
        args = ["--model", "Hostile.xcdatamodeld", "--store", "mrq.sqlite"]
        for s in POPULATE:
            args += ["-c", s]
        run_mrq(self.mrq, args, t)
        run_mrq(self.mrq, ["--model", "Hostile.xcdatamodeld", "--store", "coredata.sqlite",
                           "-c", ".save-as store.xml xml"], t)
        db = connect(os.path.join(t, "coredata.sqlite"))
        # Link Ada to both tags, Bob reports to Ada: rows the join table and the to-one hold.
        ents = dict(db.execute("SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY"))
        self.ents = ents
        join = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'Z\\_%TAGS' ESCAPE '\\'")][0]
        cols = [r[1] for r in db.execute("SELECT * FROM pragma_table_info(?)", (join,))]
        self.join, self.join_cols = join, cols
        db.execute("INSERT INTO %s (%s, %s) VALUES (1, 1), (1, 2)" % (join, cols[0], cols[1]))
        db.execute("UPDATE ZPERSON SET ZBOSS = 1, Z2_BOSS = %d WHERE Z_PK = 2" % ents["Person"])
        db.close()
        with open(os.path.join(t, "coredata.sqlite"), "rb") as f:
            header = f.read(100)
        assert header.startswith(b"SQLite format 3\x00")
        self.archive_bytes = inflate(connect(os.path.join(t, "coredata.sqlite")).execute(
            "SELECT Z_CONTENT FROM Z_MODELCACHE").fetchone()[0])

    def archive(self):
        return plistlib.loads(self.archive_bytes)

    def store_copy(self, d, layout="coredata", name="Store.sqlite"):
        shutil.copy(os.path.join(self.templates, layout + ".sqlite"), os.path.join(d, name))
        return os.path.join(d, name)

    def model_copy(self, d):
        shutil.copytree(os.path.join(self.templates, "Hostile.xcdatamodeld"), os.path.join(d, "Hostile.xcdatamodeld"))
        return os.path.join(d, "Hostile.xcdatamodeld")

    def add(self, *args, **kw):
        self.cases.append(Case(*args, **kw))

    # -- 1. SQLite containers ---------------------------------------------------
    def containers(self):
        def zero(d):
            write(os.path.join(d, "Store.sqlite"), b"")
        self.add("container", "zero-byte-file", zero, EXAMINER, expect="refuse", needle="Store.sqlite")

        def zero_with_wal(d):
            write(os.path.join(d, "Store.sqlite"), b"")
            write(os.path.join(d, "Store.sqlite-wal"), os.urandom(4096))
        self.add("container", "zero-byte-file-with-wal", zero_with_wal, EXAMINER, expect="refuse", needle="Store.sqlite")

        def empty_db(d):
            db = connect(os.path.join(d, "Store.sqlite"))
            db.execute("PRAGMA user_version = 1")
            db.close()
        self.add("container", "empty-sqlite-database", empty_db, EXAMINER, expect="refuse", needle="Store.sqlite")

        def unrelated_db(d):
            db = connect(os.path.join(d, "Store.sqlite"))
            db.execute("CREATE TABLE accounts (id INTEGER PRIMARY KEY, secret TEXT)")
            db.execute("INSERT INTO accounts VALUES (1, 'x')")
            db.close()
        self.add("container", "sqlite-database-of-another-program", unrelated_db, EXAMINER, expect="refuse",
                 needle="Store.sqlite")

        for size in (1, 99, 100, 512, 4096, 65536):
            def garbage(d, size=size):
                write(os.path.join(d, "Store.sqlite"), os.urandom(size))
            self.add("container", "random-bytes-%d" % size, garbage, EXAMINER, expect="refuse", needle="Store.sqlite")

        def header_only(d):
            write(os.path.join(d, "Store.sqlite"), b"SQLite format 3\x00" + b"\xff" * 84)
        self.add("container", "header-only", header_only, EXAMINER, expect="refuse", needle="Store.sqlite")

        for cut in (100, 1024, 4096, 8192):
            def truncated(d, cut=cut):
                p = self.store_copy(d)
                with open(p, "r+b") as f:
                    f.truncate(cut)
            self.add("container", "truncated-at-%d" % cut, truncated, EXAMINER, expect="safe")

        for seed in range(8):
            def corrupt(d, seed=seed):
                import random
                rng = random.Random(seed)
                p = self.store_copy(d)
                data = bytearray(open(p, "rb").read())
                for _ in range(40):
                    i = rng.randrange(100, len(data))
                    data[i] = rng.randrange(256)
                write(p, bytes(data))
            self.add("container", "corrupt-pages-%d" % seed, corrupt, EXAMINER, expect="safe")

        def huge_page_count(d):
            p = self.store_copy(d)
            with open(p, "r+b") as f:
                f.seek(28)
                f.write(struct.pack(">I", 0x7fffffff))
        self.add("container", "header-claims-2g-pages", huge_page_count, EXAMINER, expect="safe")

        def bad_page_size(d):
            p = self.store_copy(d)
            with open(p, "r+b") as f:
                f.seek(16)
                f.write(struct.pack(">H", 3))
        self.add("container", "page-size-3", bad_page_size, EXAMINER, expect="refuse", needle="Store.sqlite")

        def directory(d):
            os.mkdir(os.path.join(d, "Store.sqlite"))
        self.add("container", "store-is-a-directory", directory, EXAMINER, expect="refuse", needle="Store.sqlite")

        def fifo(d):
            os.mkfifo(os.path.join(d, "Store.sqlite"))
        self.add("container", "store-is-a-fifo", fifo, EXAMINER, expect="refuse", needle="Store.sqlite", seconds=20)

        def devzero(d):
            os.symlink("/dev/zero", os.path.join(d, "Store.sqlite"))
        self.add("container", "store-is-a-link-to-dev-zero", devzero, EXAMINER, expect="refuse", needle="Store.sqlite",
                 seconds=20)

        def view_table(d):
            p = self.store_copy(d)
            db = connect(p)
            db.execute("ALTER TABLE ZNOTE RENAME TO ZNOTE_REAL")
            db.execute("CREATE VIEW ZNOTE AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) "
                       "SELECT n AS Z_PK, 1 AS Z_ENT, 1 AS Z_OPT, 0.0 AS ZWEIGHT, 'x' AS ZBODY FROM c")
            db.close()
        self.add("container", "entity-table-is-an-endless-view", view_table,
                 [["--store", "{S}", "-c", "count Note"], ["--store", "{S}", "--read-only", "-c", "Note limit 3"],
                  ["--store", "{S}", "-c", ".entities"]], expect="refuse", needle="ZNOTE", seconds=20)

        def trigger_store(d):
            p = self.store_copy(d)
            db = connect(p)
            db.execute("CREATE TABLE log (x)")
            db.execute("CREATE TRIGGER t AFTER UPDATE ON ZNOTE BEGIN INSERT INTO log VALUES (load_extension('x')); END")
            db.close()
        self.add("container", "store-with-a-trigger-calling-load-extension", trigger_store, EXAMINER, expect="safe")

        def schema_function(d):
            p = self.store_copy(d)
            db = connect(p)
            db.execute("CREATE INDEX evil ON ZNOTE (abs(ZWEIGHT))")
            db.close()
        self.add("container", "store-with-an-expression-index", schema_function, EXAMINER, expect="safe")

    # -- 2. journals and logs ---------------------------------------------------
    def journals(self):
        def hot_journal(d):
            p = self.store_copy(d)
            db = connect(p)
            db.execute("PRAGMA journal_mode = DELETE")
            db.execute("BEGIN")
            for i in range(3000):
                db.execute("INSERT INTO ZNOTE (Z_ENT, Z_OPT, ZBODY, ZWEIGHT) VALUES (?, 1, ?, 0.5)",
                           (self.ents["Note"], "note %d " % i + "x" * 200))
            db.execute("COMMIT")
            db.close()
            # A writer killed in the middle of a transaction that deletes everything.
            code = ("import sqlite3, os\n"
                    "db = sqlite3.connect(%r, isolation_level=None)\n"
                    "db.execute('PRAGMA cache_size = 1')\n"
                    "db.execute('BEGIN')\n"
                    "db.execute('DELETE FROM ZNOTE')\n"
                    "db.execute('UPDATE ZPERSON SET ZNAME = \"overwritten\"')\n"
                    "os._exit(0)\n") % p
            subprocess.run([sys.executable, "-c", code], check=True)
            assert os.path.getsize(p + "-journal") > 0, "no hot journal was left"
        count_is = lambda out, err: None if "3001" in out else "the store did not read as it was before the interrupted transaction (no 3001 notes)"
        self.add("journal", "hot-rollback-journal", hot_journal,
                 [["--store", "{S}", "-c", "count Note"], ["--store", "{S}", "--read-only", "-c", "count Note"],
                  ["--store", "{S}", "--immutable", "-c", ".entities"], ["--store", "{S}", "-c", ".entities"]],
                 expect="safe", checks=[])
        self.add("journal", "hot-rollback-journal-reads-as-before", hot_journal,
                 [["--store", "{S}", "--read-only", "-c", "count Note"]], expect="ok", checks=[count_is])

        for label, data in (("garbage", os.urandom(8192)), ("zeros", b"\x00" * 8192),
                            ("header-only", b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7" + os.urandom(20))):
            def journal(d, data=data):
                p = self.store_copy(d)
                db = connect(p)
                db.execute("PRAGMA journal_mode = DELETE")
                db.close()
                write(p + "-journal", data)
            self.add("journal", "journal-of-%s" % label, journal, EXAMINER, expect="safe")

        def wal_garbage(d):
            p = self.store_copy(d)
            write(p + "-wal", os.urandom(20000))
        self.add("journal", "wal-of-garbage", wal_garbage, EXAMINER, expect="safe")

        def wal_with_data(d):
            p = self.store_copy(d)
            db = connect(p)
            db.execute("PRAGMA journal_mode = WAL")
            db.close()
            code = ("import sqlite3, os\n"
                    "db = sqlite3.connect(%r, isolation_level=None)\n"
                    "db.execute('PRAGMA wal_autocheckpoint = 0')\n"
                    "db.execute(\"INSERT INTO ZNOTE (Z_ENT, Z_OPT, ZBODY) VALUES (%d, 1, 'only in the log')\")\n"
                    "os._exit(0)\n") % (p, self.ents["Note"])
            subprocess.run([sys.executable, "-c", code], check=True)
            os.remove(p + "-shm")
        in_log = lambda out, err: None if "only in the log" in out else "the row only the log holds was not read"
        self.add("journal", "wal-copied-without-shm", wal_with_data,
                 [["--store", "{S}", "-c", "Note where body == 'only in the log'"],
                  ["--store", "{S}", "--read-only", "-c", "Note where body == 'only in the log'"]],
                 expect="ok", checks=[in_log])
        self.add("journal", "wal-copied-without-shm-immutable", wal_with_data,
                 [["--store", "{S}", "--immutable", "-c", "count Note"]], expect="refuse", needle="wal")

        def wal_with_garbage_shm(d):
            wal_with_data(d)
            write(os.path.join(d, "Store.sqlite-shm"), os.urandom(32768))
        self.add("journal", "wal-with-a-garbage-shm", wal_with_garbage_shm, EXAMINER, expect="safe")

        for side in ("-wal", "-journal", "-shm"):
            def fifo(d, side=side):
                p = self.store_copy(d)
                os.mkfifo(p + side)
            self.add("journal", "fifo%s" % side, fifo, EXAMINER, expect="safe", seconds=20)

            def directory(d, side=side):
                p = self.store_copy(d)
                os.mkdir(p + side)
            self.add("journal", "directory%s" % side, directory, EXAMINER, expect="safe")

            def link_outside(d, side=side):
                p = self.store_copy(d)
                outside = os.path.join(os.path.dirname(d), os.path.basename(d) + "-outside" + side)
                write(outside, SECRET.encode() * 100)
                os.symlink(outside, p + side)
            self.add("journal", "symlink%s-to-outside" % side, link_outside, EXAMINER, expect="safe",
                     checks=[self.outside_unchanged(side)])

            def link_dangling(d, side=side):
                p = self.store_copy(d)
                os.symlink(os.path.join(d, "nowhere", "x"), p + side)
            self.add("journal", "dangling-symlink%s" % side, link_dangling, EXAMINER, expect="safe")

        def zero_wal(d):
            p = self.store_copy(d)
            write(p + "-wal", b"")
        self.add("journal", "empty-wal", zero_wal, EXAMINER, expect="ok")

    def outside_unchanged(self, side):
        def check(out, err):
            return None if not leaked(out, err) else "bytes from outside the folder reached the output"
        return check

    # -- 3. the model cache and compiled models (keyed archives) ----------------
    def archives(self):
        def cache_case(name, mutate, expect="refuse", needle=None, raw=False, seconds=30):
            def build(d):
                p = self.store_copy(d)
                if raw:
                    db = connect(p)
                    db.execute("UPDATE Z_MODELCACHE SET Z_CONTENT = ?", (mutate(),))
                    db.close()
                else:
                    a = self.archive()
                    mutate(a)
                    write_cache(p, a)
            self.add("model-cache", name, build, EXAMINER, expect=expect, needle=needle, seconds=seconds)

            def build_mom(d):
                if raw:
                    data = mutate()
                    try:
                        data = inflate(data)
                    except zlib.error:
                        pass
                else:
                    a = self.archive()
                    mutate(a)
                    data = plistlib.dumps(a, fmt=plistlib.FMT_BINARY)
                write(os.path.join(d, "Model.mom"), data)
                self.store_copy(d)
            self.add("mom", name, build_mom,
                     [["--model", "{D}/Model.mom", "--store", "{S}", "--read-only", "-c", ".entities"],
                      ["--model", "{D}/Model.mom", "-c", ".schema"]],
                     expect=expect, needle=None, seconds=seconds)

        for key, text in HOSTILE_NAMES.items():
            if key == "nul":
                # plistlib cannot write NUL inside a string object of its own: done by bytes below
                continue
            cache_case("entity-name-%s" % key, lambda a, t=text: rename_in_archive(a, "Note", t))
            cache_case("attribute-name-%s" % key, lambda a, t=text: rename_in_archive(a, "body", t))
            cache_case("relationship-name-%s" % key, lambda a, t=text: rename_in_archive(a, "tags", t))
            cache_case("parent-entity-name-%s" % key, lambda a, t=text: rename_in_archive(a, "Person", t))

        def nul_name():
            a = self.archive()
            rename_in_archive(a, "Note", "NoteZZ")
            data = plistlib.dumps(a, fmt=plistlib.FMT_BINARY).replace(b"NoteZZ", b"No\x00eZZ")
            return deflate(data)
        cache_case("entity-name-nul", nul_name, raw=True)

        for label, blob in (("garbage", os.urandom(3000)), ("empty", b""),
                            ("not-deflate-plist", plistlib.dumps({"a": 1}, fmt=plistlib.FMT_BINARY)),
                            ("xml-plist", deflate(plistlib.dumps({"$archiver": "NSKeyedArchiver"})))):
            cache_case("cache-%s" % label, lambda b=blob: b, raw=True)

        def bomb():
            # A kilobyte or so of DEFLATE that inflates to 2 GiB.
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            chunk = b"\x00" * (1 << 20)
            out = b"".join(c.compress(chunk) for _ in range(2048))
            return out + c.flush()
        cache_case("deflate-bomb", bomb, raw=True)

        def dag_default(a, depth=40):
            attribute_object(a, "Note", "body")["NSDefaultValue"] = dag_array(a, depth)
        cache_case("dag-40-in-a-default-value", dag_default, expect="refuse", seconds=30)

        def dag_userinfo(a):
            node = dag_array(a, 40)
            dict_class = plistlib.UID(class_index(a, "NSDictionary"))
            key = add(a, "evil")
            info = add(a, {"$class": dict_class, "NS.keys": [key], "NS.objects": [node]})
            ent = next(o for o in a["$objects"] if isinstance(o, dict) and o.get("NSEntityName") is not None
                       and a["$objects"][o["NSEntityName"].data] == "Note")
            ent["NSUserInfo"] = info
        cache_case("dag-40-in-user-info", dag_userinfo, expect="refuse")

        def dag_validation(a):
            node = dag_predicate(a, 40)
            array_class = plistlib.UID(class_index(a, "NSArray"))
            attr = attribute_object(a, "Note", "body")
            attr["NSValidationPredicates"] = add(a, {"$class": array_class, "NS.objects": [node]})
            attr["NSValidationWarnings"] = add(a, {"$class": array_class, "NS.objects": [add(a, "w")]})
            # _P's 0x10 and 0x20 say "no validation predicates or warnings":
            # Core Data clears them when it writes the keys.
            if isinstance(attr.get("_P"), int):
                attr["_P"] &= ~0x30
        cache_case("dag-40-validation-predicate", dag_validation, expect="refuse")

        def dag_template(a):
            node = dag_predicate(a, 40)
            fr_class = plistlib.UID(class_index(a, "NSFetchRequest"))
            ent = next(plistlib.UID(i) for i, o in enumerate(a["$objects"]) if isinstance(o, dict)
                       and o.get("NSEntityName") is not None and a["$objects"][o["NSEntityName"].data] == "Note")
            request = add(a, {"$class": fr_class, "NSEntity": ent, "NSPredicate": node})
            dict_class = plistlib.UID(class_index(a, "NSDictionary"))
            a["$objects"][1]["NSFetchRequestTemplates"] = add(a, {"$class": dict_class, "NS.keys": [add(a, "evil")],
                                                                  "NS.objects": [request]})
        # A model reads its templates when one is first used: the store
        # opens, and using the template is refused, as bounded as before.
        cache_case("dag-40-fetch-template-predicate", dag_template, expect="safe")

        def dag_template_used(d):
            a = self.archive()
            dag_template(a)
            write_cache(self.store_copy(d), a)
        self.add("model-cache", "dag-40-fetch-template-predicate-used", dag_template_used,
                 [["--store", "{S}", "--read-only", "-c", "fetch evil"]], expect="refuse", needle="visits more than")

        def cycle(a):
            array_class = plistlib.UID(class_index(a, "NSArray"))
            n = len(a["$objects"])
            a["$objects"].append({"$class": array_class, "NS.objects": [plistlib.UID(n)]})
            attribute_object(a, "Note", "body")["NSDefaultValue"] = plistlib.UID(n)
        cache_case("self-containing-array", cycle, expect="refuse")

        def entity_cycle(a):
            objs = a["$objects"]
            person = next(i for i, o in enumerate(objs) if isinstance(o, dict) and o.get("NSEntityName") is not None
                          and objs[o["NSEntityName"].data] == "Person")
            objs[person]["NSSuperentity"] = plistlib.UID(person)
        cache_case("entity-is-its-own-parent", entity_cycle, expect="refuse")

        def deep(a, depth=100000):
            array_class = plistlib.UID(class_index(a, "NSArray"))
            node = add(a, "x")
            for _ in range(depth):
                node = add(a, {"$class": array_class, "NS.objects": [node]})
            attribute_object(a, "Note", "body")["NSDefaultValue"] = node
        cache_case("nesting-100000-deep", deep, expect="refuse", seconds=40)

        def bad_uid(a):
            attribute_object(a, "Note", "body")["NSPropertyName"] = plistlib.UID(10 ** 9)
        cache_case("reference-past-the-end", bad_uid, expect="refuse")

        def wrong_type(a):
            attribute_object(a, "Note", "body")["NSAttributeType"] = "not a number"
        cache_case("attribute-type-of-the-wrong-kind", wrong_type, expect="safe")

        def unknown_type(a):
            attribute_object(a, "Note", "body")["NSAttributeType"] = 123456
        cache_case("attribute-type-unknown", unknown_type, expect="safe")

        def missing_class(a):
            attribute_object(a, "Note", "body")["$class"] = plistlib.UID(0)
        cache_case("object-without-class", missing_class, expect="safe")

        def many_entities(a):
            # 200,000 entity names in the mapping: a count far past any model's
            keys = a["$objects"][a["$objects"][a["$objects"][2]["searchMapping"].data]["keys"].data]
            keys["NS.objects"] = keys["NS.objects"] * 50000
        cache_case("entity-list-200000-long", many_entities, expect="safe", seconds=40)

    # -- metadata plist ---------------------------------------------------------
    def metadata(self):
        def meta(name, blob_fn, expect="safe"):
            def build(d):
                p = self.store_copy(d)
                db = connect(p)
                db.execute("UPDATE Z_METADATA SET Z_PLIST = ?", (blob_fn(),))
                db.close()
            self.add("metadata", name, build, EXAMINER, expect=expect)
        meta("metadata-garbage", lambda: os.urandom(500))
        meta("metadata-empty", lambda: b"")
        meta("metadata-dag-40", lambda: bplist_dag(40))
        meta("metadata-deep", lambda: deep_bplist(100000))
        meta("metadata-huge-count", lambda: b"bplist00" + b"\xaf\x13\x7f\xff\xff\xff\xff\xff\xff\xff"
             + b"\x00" * 6 + bytes([1, 1]) + struct.pack(">QQQ", 1, 0, 8))
        meta("metadata-offset-table-loop", lambda: b"bplist00\xa1\x00" + b"\x08"
             + b"\x00" * 6 + bytes([1, 1]) + struct.pack(">QQQ", 1, 0, 10))

        def altered(*statements):
            """A store copy with `statements` run on it."""
            def build(d):
                db = connect(self.store_copy(d))
                for statement in statements:
                    db.execute(statement)
                db.close()
            return build
        self.add("metadata", "no-model-cache", altered("DELETE FROM Z_MODELCACHE"), EXAMINER, expect="refuse",
                 needle="Z_MODELCACHE|model")
        self.add("metadata", "no-model-cache-table", altered("DROP TABLE Z_MODELCACHE"), EXAMINER, expect="refuse")
        self.add("metadata", "two-model-cache-rows", altered("INSERT INTO Z_MODELCACHE SELECT * FROM Z_MODELCACHE"),
                 EXAMINER, expect="safe")
        self.add("metadata", "primary-key-table-nonsense",
                 altered("UPDATE Z_PRIMARYKEY SET Z_SUPER = Z_ENT, Z_MAX = -5",
                         "INSERT INTO Z_PRIMARYKEY VALUES (99, 'Ghost', 99, 9223372036854775807)"), EXAMINER, expect="safe")

    # -- 4. row data ------------------------------------------------------------
    def rows(self):
        def rowcase(name, sql, runs=None, expect="safe", megabytes=400, seconds=30, checks=()):
            def build(d):
                p = self.store_copy(d)
                db = connect(p)
                for s in (sql if isinstance(sql, (list, tuple)) else [sql]):
                    if callable(s):
                        s(db)
                    else:
                        db.execute(s % self.ents if "%(" in s else s)
                db.close()
            self.add("rows", name, build, runs or EXAMINER + [["--store", "{S}", "-c", "Employee limit 3"],
                                                          ["--store", "{S}", "-c", "Tag where people.@count > 0"],
                                                          ["--store", "{S}", "-c", "Person where ANY tags.label == 'red'"]],
                     expect=expect, megabytes=megabytes, seconds=seconds, checks=checks)

        rowcase("z-ent-of-another-hierarchy", "UPDATE ZPERSON SET Z_ENT = %(Note)d WHERE Z_PK = 1")
        rowcase("z-ent-of-no-entity", "UPDATE ZPERSON SET Z_ENT = 99 WHERE Z_PK = 1")
        rowcase("z-ent-null", "UPDATE ZPERSON SET Z_ENT = NULL")
        rowcase("z-ent-text", "UPDATE ZPERSON SET Z_ENT = 'Person'")
        rowcase("z-ent-negative", "UPDATE ZPERSON SET Z_ENT = -1")
        rowcase("z-ent-sub-entity-in-parent-row-without-columns", "UPDATE ZPERSON SET Z_ENT = %(Employee)d, ZTITLE = x'00ff'")
        rowcase("z-ent-of-tag-in-person-table", "UPDATE ZPERSON SET Z_ENT = %(Tag)d")
        rowcase("text-in-integer-column", "UPDATE ZPERSON SET ZAGE = 'forty'")
        rowcase("blob-in-integer-column", "UPDATE ZPERSON SET ZAGE = x'deadbeef'")
        rowcase("float-in-integer-column", "UPDATE ZPERSON SET ZAGE = 1e300")
        rowcase("huge-integer", "UPDATE ZPERSON SET ZAGE = 9223372036854775807")
        rowcase("text-in-date-column", "UPDATE ZPERSON SET ZBORN = 'yesterday'")
        rowcase("huge-date", "UPDATE ZPERSON SET ZBORN = 1e308")
        rowcase("nan-like-date", "UPDATE ZPERSON SET ZBORN = -1e308")
        rowcase("blob-in-string-column", "UPDATE ZPERSON SET ZNAME = x'00fffe80c0'")
        rowcase("invalid-utf8-text", "UPDATE ZPERSON SET ZNAME = CAST(x'41ff42c3' AS TEXT)")
        rowcase("text-in-boolean-column", "UPDATE ZPERSON SET ZACTIVE = 'yes'")
        rowcase("float-in-boolean-column", "UPDATE ZPERSON SET ZACTIVE = 0.5")
        rowcase("integer-in-binary-column", "UPDATE ZPERSON SET ZPHOTO = 12")
        rowcase("to-one-key-to-nothing", "UPDATE ZPERSON SET ZBOSS = 999, Z2_BOSS = %(Person)d WHERE Z_PK = 2")
        rowcase("to-one-entity-of-another-hierarchy", "UPDATE ZPERSON SET ZBOSS = 1, Z2_BOSS = %(Note)d WHERE Z_PK = 2")
        rowcase("to-one-entity-column-names-the-parent-of-a-sub-entity-row",
                "UPDATE ZPERSON SET ZBOSS = 2, Z2_BOSS = %(Person)d WHERE Z_PK = 1")
        rowcase("to-one-entity-column-names-a-sub-entity-for-a-parent-row",
                "UPDATE ZPERSON SET ZBOSS = 1, Z2_BOSS = %(Employee)d WHERE Z_PK = 2")
        rowcase("note-row-claims-to-be-an-employee", "UPDATE ZNOTE SET Z_ENT = %(Employee)d")
        rowcase("tag-row-claims-to-be-a-person", "UPDATE ZTAG SET Z_ENT = %(Person)d")
        rowcase("to-one-text-key", "UPDATE ZPERSON SET ZBOSS = 'one' WHERE Z_PK = 2")
        rowcase("to-one-to-itself", "UPDATE ZPERSON SET ZBOSS = 2 WHERE Z_PK = 2")
        rowcase("join-row-to-nothing", lambda db: db.execute(
            "INSERT INTO %s VALUES (777, 888)" % self.join))
        rowcase("join-row-text-keys", lambda db: db.execute("INSERT INTO %s VALUES ('one', x'00')" % self.join))
        rowcase("negative-primary-key", "UPDATE ZPERSON SET Z_PK = -5 WHERE Z_PK = 1")
        rowcase("zero-primary-key", "UPDATE ZNOTE SET Z_PK = 0")
        rowcase("max-primary-key", "UPDATE ZNOTE SET Z_PK = 9223372036854775807")
        rowcase("z-opt-text", "UPDATE ZPERSON SET Z_OPT = 'v'")
        rowcase("missing-column", ["ALTER TABLE ZNOTE DROP COLUMN ZBODY"], expect="safe")
        rowcase("missing-entity-table", ["DROP TABLE ZTAG"], expect="safe")
        rowcase("missing-join-table", lambda db: db.execute("DROP TABLE %s" % self.join), expect="safe")
        rowcase("extra-columns-and-tables", ["ALTER TABLE ZPERSON ADD COLUMN ZEXTRA TEXT",
                                             "CREATE TABLE ZUNKNOWN (Z_PK INTEGER PRIMARY KEY)"], expect="ok")
        rowcase("control-characters-in-values", "UPDATE ZPERSON SET ZNAME = 'a' || char(27) || '[2J' || char(7) || char(155) || 'b'",
                expect="ok")
        rowcase("ten-thousand-rows", lambda db: db.executemany(
            "INSERT INTO ZNOTE (Z_ENT, Z_OPT, ZBODY) VALUES (%d, 1, ?)" % self.ents["Note"],
            [("n%d" % i,) for i in range(10000)]), expect="ok")

        mib = 1 << 20

        def big_text(size):
            return lambda db: db.execute("UPDATE ZPERSON SET ZNAME = ?", ("x" * size,))
        rowcase("text-value-10-mib", big_text(10 * mib), runs=[
            ["--store", "{S}", "-c", "Person limit 3"],
            ["--store", "{S}", "--read-only", "--format", "json", "-c", "Person limit 3"]],
            expect="ok", megabytes=300, checks=[bounded_output(6 * 10 * mib)])
        rowcase("text-value-100-mib", big_text(100 * mib), runs=[
            ["--store", "{S}", "-c", "Person limit 3"]],
            expect="ok", megabytes=700, seconds=40, checks=[table_output_bounded(mib)])
        rowcase("text-value-100-mib-json", big_text(100 * mib), runs=[
            ["--store", "{S}", "--read-only", "--format", "json", "-c", "Person limit 1"]],
            expect="ok", megabytes=700, seconds=40)
        rowcase("blob-value-50-mib", lambda db: db.execute(
            "UPDATE ZPERSON SET ZPHOTO = zeroblob(?)", (50 * mib,)), runs=[
            ["--store", "{S}", "-c", "Person limit 3"],
            ["--store", "{S}", "--read-only", "--format", "json", "-c", "Person limit 1"]],
            expect="ok", megabytes=700, seconds=40)

    # -- 5. external data ---------------------------------------------------------
    def external(self):
        def ext(name, make, expect="safe", megabytes=400, seconds=30):
            def build(d):
                p = self.store_copy(d)
                folder = os.path.join(d, ".Store_SUPPORT", "_EXTERNAL_DATA")
                reference = make(d, folder)
                db = connect(p)
                db.execute("UPDATE ZPERSON SET ZPHOTO = ? WHERE Z_PK = 1", (b"\x02" + reference.encode() + b"\x00",))
                db.close()
            leak = lambda out, err: None if not leaked(out, err) else "bytes from outside the store's folder were shown"
            self.add("external-data", name, build,
                     [["--store", "{S}", "-c", "Person limit 3"],
                      ["--store", "{S}", "--read-only", "--format", "json", "-c", "Person limit 3"],
                      ["--store", "{S}", "-c", "count Person where photo != nil"]],
                     expect=expect, megabytes=megabytes, seconds=seconds, checks=[leak])

        def outside_file(d):
            path = os.path.join(os.path.dirname(d), os.path.basename(d) + "-secret")
            write(path, SECRET)
            return path

        def plain(d, folder):
            write(os.path.join(folder, "A1B2"), b"\x89PNG real bytes")
            return "A1B2"
        ext("plain-external-file", plain, expect="ok")

        def link_file(d, folder):
            os.makedirs(folder)
            os.symlink(outside_file(d), os.path.join(folder, "LINK"))
            return "LINK"
        ext("external-file-is-a-symlink-outside", link_file)

        def link_relative(d, folder):
            os.makedirs(folder)
            outside_file(d)
            os.symlink("../../../" + os.path.basename(d) + "-secret", os.path.join(folder, "REL"))
            return "REL"
        ext("external-file-is-a-relative-symlink-outside", link_relative)

        def link_inside(d, folder):
            write(os.path.join(d, "inside.bin"), b"inside but not external data")
            os.makedirs(folder)
            os.symlink(os.path.join(d, "inside.bin"), os.path.join(folder, "IN"))
            return "IN"
        ext("external-file-is-a-symlink-within-the-folder", link_inside)

        def link_folder(d, folder):
            target = os.path.join(os.path.dirname(d), os.path.basename(d) + "-secretdir")
            write(os.path.join(target, "F"), SECRET)
            os.makedirs(os.path.dirname(folder))
            os.symlink(target, folder)
            return "F"
        ext("external-data-folder-is-a-symlink", link_folder)

        def link_support(d, folder):
            target = os.path.join(os.path.dirname(d), os.path.basename(d) + "-secretsupport")
            write(os.path.join(target, "_EXTERNAL_DATA", "F"), SECRET)
            os.symlink(target, os.path.dirname(folder))
            return "F"
        ext("support-folder-is-a-symlink", link_support)

        for label, ref in (("dotdot", ".."), ("dot", "."), ("parent-path", "../../x"), ("absolute", "/etc/passwd"),
                           ("empty", ""), ("long", "A" * 5000), ("control", "a\x1b[2Jb"), ("slash-end", "F/")):
            def refcase(d, folder, ref=ref):
                write(os.path.join(folder, "F"), b"data")
                outside_file(d)
                return ref
            ext("reference-%s" % label, refcase)

        def missing(d, folder):
            os.makedirs(folder)
            return "NOT-THERE"
        ext("external-file-missing", missing)

        def fifo(d, folder):
            os.makedirs(folder)
            os.mkfifo(os.path.join(folder, "FIFO"))
            return "FIFO"
        ext("external-file-is-a-fifo", fifo, seconds=20)

        def directory(d, folder):
            os.makedirs(os.path.join(folder, "DIR"))
            return "DIR"
        ext("external-file-is-a-directory", directory)

        def device(d, folder):
            os.makedirs(folder)
            os.symlink("/dev/zero", os.path.join(folder, "ZERO"))
            return "ZERO"
        ext("external-file-links-to-dev-zero", device, seconds=20)

        def sparse(d, folder):
            os.makedirs(folder)
            with open(os.path.join(folder, "HUGE"), "wb") as f:
                f.truncate(2_500_000_000)
            return "HUGE"
        ext("external-file-sparse-2.5-gb", sparse, megabytes=700, seconds=40)

    # -- 6. model files -----------------------------------------------------------
    def model_files(self):
        def xcode(name, contents, expect="refuse", needle=None, extra=None, seconds=30):
            def build(d):
                write(os.path.join(d, "Evil.xcdatamodeld", "Evil.xcdatamodel", "contents"), contents)
                if extra:
                    extra(d)
            self.add("xcode-model", name, build,
                     [["--model", "{D}/Evil.xcdatamodeld", "-c", ".schema"],
                      ["--model", "{D}/Evil.xcdatamodeld", "--store", "{D}/new.sqlite", "--read-only", "-c", ".entities"]],
                     expect=expect, needle=needle, seconds=seconds)

        def model_with(entity="Thing", attribute="value", relationship=None):
            esc = lambda s: s.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace("\n", "&#10;").replace("\x1b", "&#27;")
            rel = ""
            if relationship is not None:
                rel = '<relationship name="%s" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="%s"/>' % (esc(relationship), esc(entity))
            return ('<?xml version="1.0" encoding="UTF-8"?><model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">'
                    '<entity name="%s" representedClassName="X"><attribute name="%s" optional="YES" attributeType="String"/>%s</entity></model>'
                    % (esc(entity), esc(attribute), rel))

        for key, text in HOSTILE_NAMES.items():
            if key in ("nul",):
                continue
            xcode("entity-name-%s" % key, model_with(entity=text))
            xcode("attribute-name-%s" % key, model_with(attribute=text))
            xcode("relationship-name-%s" % key, model_with(relationship=text))

        lol = '<?xml version="1.0"?><!DOCTYPE m [<!ENTITY a "aaaaaaaaaa">' + "".join(
            '<!ENTITY %s "%s">' % (chr(98 + i), ("&%s;" % chr(97 + i)) * 10) for i in range(9)) + \
            ']><model><entity name="T"><attribute name="v" attributeType="String" defaultValueString="&j;"/></entity></model>'
        xcode("billion-laughs", lol, expect="refuse")

        def secret_file(d):
            write(os.path.join(os.path.dirname(d), os.path.basename(d) + "-xxe"), SECRET)
        xxe = lambda d: ('<?xml version="1.0"?><!DOCTYPE m [<!ENTITY x SYSTEM "file://%s-xxe">]>'
                         '<model><entity name="T"><attribute name="v" attributeType="String" defaultValueString="&x;"/></entity></model>' % d)

        def build_xxe(d):
            secret_file(d)
            write(os.path.join(d, "Evil.xcdatamodeld", "Evil.xcdatamodel", "contents"), xxe(d))
        leak = lambda out, err: None if not leaked(out, err) else "an external entity was read"
        self.add("xcode-model", "external-entity", build_xxe,
                 [["--model", "{D}/Evil.xcdatamodeld", "-c", ".schema"]], expect="safe", checks=[leak])

        deep = '<?xml version="1.0"?><model>' + "<entity>" * 200000 + "</entity>" * 200000 + "</model>"
        xcode("nesting-200000-deep", deep, expect="refuse")
        xcode("not-xml", "\x00\x01garbage", expect="refuse")
        xcode("empty-contents", "", expect="refuse")

        def current_version(name, marker):
            def build(d):
                bundle = os.path.join(d, "Evil.xcdatamodeld")
                write(os.path.join(bundle, "Evil.xcdatamodel", "contents"), model_with())
                outside = os.path.join(d, "..", os.path.basename(d) + "-outside.xcdatamodel")
                write(os.path.join(outside, "contents"), model_with(entity="OutsideSecret"))
                write(os.path.join(bundle, ".xccurrentversion"),
                      plistlib.dumps({"_XCCurrentVersionName": marker}))
            leak = lambda out, err: None if "OutsideSecret" not in out else "a model outside the bundle was loaded"
            self.add("xcode-model", name, build, [["--model", "{D}/Evil.xcdatamodeld", "-c", ".schema"]],
                     expect="refuse", checks=[leak])
        current_version("current-version-dotdot", "../%s-outside.xcdatamodel")
        current_version("current-version-absolute", "/tmp/x.xcdatamodel")

        def version_link(d):
            bundle = os.path.join(d, "Evil.xcdatamodeld")
            outside = os.path.join(os.path.dirname(d), os.path.basename(d) + "-linked.xcdatamodel")
            write(os.path.join(outside, "contents"), model_with(entity="OutsideSecret"))
            os.makedirs(bundle)
            os.symlink(outside, os.path.join(bundle, "Evil.xcdatamodel"))
        leak2 = lambda out, err: None if "OutsideSecret" not in out else "a model outside the bundle was loaded"
        self.add("xcode-model", "version-is-a-symlink-outside", version_link,
                 [["--model", "{D}/Evil.xcdatamodeld", "-c", ".schema"]], expect="refuse", checks=[leak2])

        def contents_link(d):
            outside = os.path.join(os.path.dirname(d), os.path.basename(d) + "-contents")
            write(outside, model_with(entity="OutsideSecret"))
            os.makedirs(os.path.join(d, "Evil.xcdatamodeld", "Evil.xcdatamodel"))
            os.symlink(outside, os.path.join(d, "Evil.xcdatamodeld", "Evil.xcdatamodel", "contents"))
        self.add("xcode-model", "contents-is-a-symlink-outside", contents_link,
                 [["--model", "{D}/Evil.xcdatamodeld", "-c", ".schema"]], expect="refuse", checks=[leak2])

        # compiled bundles (.momd)
        def momd(name, version_info, link=False, expect="refuse"):
            def build(d):
                bundle = os.path.join(d, "Evil.momd")
                write(os.path.join(bundle, "Hostile.mom"), self.archive_bytes)
                outside = os.path.join(os.path.dirname(d), os.path.basename(d) + "-outside.mom")
                a = self.archive()
                rename_in_archive(a, "Note", "OutsideSecret")
                write(outside, plistlib.dumps(a, fmt=plistlib.FMT_BINARY))
                if link:
                    os.symlink(outside, os.path.join(bundle, "Linked.mom"))
                write(os.path.join(bundle, "VersionInfo.plist"), plistlib.dumps(version_info(d)))
            leak = lambda out, err: None if "OutsideSecret" not in out else "a model outside the bundle was loaded"
            self.add("momd", name, build, [["--model", "{D}/Evil.momd", "-c", ".schema"]], expect=expect, checks=[leak])
        momd("version-info-dotdot", lambda d: {"NSManagedObjectModel_CurrentVersionName": "../%s-outside" % os.path.basename(d)})
        momd("version-info-absolute", lambda d: {"NSManagedObjectModel_CurrentVersionName": os.path.join(os.path.dirname(d), os.path.basename(d) + "-outside")})
        momd("version-is-a-symlink", lambda d: {"NSManagedObjectModel_CurrentVersionName": "Linked"}, link=True)
        # A current version that is no name: the bundle's one .mom is taken, as with none named.
        momd("version-info-garbage", lambda d: {"NSManagedObjectModel_CurrentVersionName": 12}, expect="safe")

    # -- 7. XML stores ------------------------------------------------------------------
    def xml_stores(self):
        def xml(name, contents, expect="safe", checks=()):
            def build(d):
                write(os.path.join(d, "Store.xml"), contents(d) if callable(contents) else contents)
            self.add("xml-store", name, build,
                     [["--store", "{D}/Store.xml", "-c", ".entities"],
                      ["--store", "{D}/Store.xml", "--read-only", "--format", "json", "-c", "Person limit 3"]],
                     expect=expect, checks=checks)
        template = open(os.path.join(self.templates, "store.xml"), encoding="utf-8").read()
        xml("real-xml-store", template, expect="ok")
        xml("billion-laughs", '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">' + "".join(
            '<!ENTITY %s "%s">' % (chr(98 + i), ("&%s;" % chr(97 + i)) * 10) for i in range(9))
            + ']><database><databaseInfo><version>134481920</version></databaseInfo><object type="NOTE" id="z1"><attribute name="body" type="string">&j;</attribute></object></database>',
            expect="refuse")
        leak = lambda out, err: None if not leaked(out, err) else "an external entity was read"

        def xxe(d):
            write(os.path.join(os.path.dirname(d), os.path.basename(d) + "-xmlsecret"), SECRET)
            return ('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY s SYSTEM "file://%s-xmlsecret">]>'
                    '<database><databaseInfo><version>134481920</version></databaseInfo>'
                    '<object type="NOTE" id="z1"><attribute name="body" type="string">&s;</attribute></object></database>') % d
        xml("external-entity", xxe, checks=[leak])
        xml("nesting-100000-deep", "<database>" + "<object>" * 100000 + "</object>" * 100000 + "</database>", expect="refuse")
        xml("garbage", "\x00\xff garbage", expect="refuse")
        for key in ("attach", "or1", "newline", "escape", "quote"):
            text = HOSTILE_NAMES[key]
            esc = text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace("\n", "&#10;").replace("\x1b", "&#27;")
            xml("type-name-%s" % key, template.replace('type="NOTE"', 'type="%s"' % esc), expect="safe")
            xml("attribute-name-%s" % key, template.replace('name="body"', 'name="%s"' % esc), expect="safe")

    # -- 8. writing: .save-as and .dump of hostile data never write elsewhere ---------------
    def writes(self):
        def values(d):
            p = self.store_copy(d)
            db = connect(p)
            db.execute("UPDATE ZNOTE SET ZBODY = ?", ("line\n.output pwned.txt\n.shell touch pwned\n.read /etc/passwd\n\"; DROP TABLE ZNOTE; --",))
            db.close()
            write(os.path.join(d, "query.mrq"), "Note where body CONTAINS '.shell'\n")
        self.add("writes", "dump-of-values-with-dot-commands", values,
                 # read back as the dump's first line says
                 [["--store", "{S}", "-c", ".output {W}/dump.mrq", "-c", ".dump"],
                  ["-c", ".read {W}/dump.mrq", "-c", ".save-as {W}/rebuilt.sqlite"],
                  ["--store", "{W}/rebuilt.sqlite", "{D}/query.mrq"]],
                 expect="ok", check_last=True,
                 checks=[lambda out, err: None if ".shell" in out else "the dump did not rebuild the value"])
        for key in ("attach", "or1", "newline", "quote"):
            def named(d, key=key):
                p = self.store_copy(d)
                a = self.archive()
                rename_in_archive(a, "Note", HOSTILE_NAMES[key])
                write_cache(p, a)
            self.add("writes", "save-as-coredata-of-entity-name-%s" % key, named,
                     [["--store", "{S}", "-c", ".save-as {W}/copy.sqlite coredata"],
                      ["--store", "{S}", "-c", ".dump"]], expect="refuse")

    def all(self):
        self.build_templates()
        for part in (self.containers, self.journals, self.archives, self.metadata, self.rows, self.external,
                     self.model_files, self.xml_stores, self.writes):
            part()
        return self.cases


def deep_bplist(depth):
    """A binary plist of `depth` arrays, each holding the next."""
    body = b"bplist00"
    offsets = []
    ref = 4  # 4-byte object references
    for i in range(depth):
        offsets.append(len(body))
        body += b"\xa1" + (i + 1).to_bytes(ref, "big")
    offsets.append(len(body))
    body += b"\x51x"
    table = len(body)
    for off in offsets:
        body += off.to_bytes(4, "big")
    body += b"\x00" * 6 + bytes([4, ref]) + struct.pack(">QQQ", depth + 1, 0, table)
    return body


def bounded_output(limit):
    def check(out, err, length):
        return None if length <= limit else "the output is %d bytes, past %d" % (length, limit)
    check.wants_length = True
    return check


def table_output_bounded(limit):
    def check(out, err):
        widest = max((len(line) for line in out.splitlines()), default=0)
        return None if widest <= limit else "a table line is %d characters wide" % widest
    return check


# ---------------------------------------------------------------------------
# Running

def run_case(mrq, case, root):
    d = os.path.join(root, "cases", case.cls + "-" + case.name)
    w = os.path.join(root, "work", case.cls + "-" + case.name)
    os.makedirs(d)
    os.makedirs(w)
    try:
        case.build(d)
    except Exception as e:  # a case that cannot be built is a failure of the corpus, said plainly
        return ["could not build the case: %r" % e]
    failures = []
    for index, argv in enumerate(case.runs):
        args = [a.replace("{S}", os.path.join(d, "Store.sqlite")).replace("{D}", d).replace("{W}", w) for a in argv]
        writes_into_work = any("{W}" in a for a in argv)
        before, before_work = snapshot(d), snapshot(w)
        rc, out, out_length, err, rss, elapsed, timed_out = execute([mrq] + args, w, case.seconds)
        out_text = out.decode("utf-8", "replace")
        err_text = err.decode("utf-8", "replace")
        label = " ".join(a if len(a) < 60 else a[:57] + "..." for a in argv)
        fail = lambda why: failures.append("%s: %s" % (label, why))
        if timed_out:
            fail("no exit within %d s" % case.seconds)
            continue
        if rc < 0:
            fail("killed by signal %d; stderr: %s" % (-rc, err_text.strip()[-300:]))
        elif rc == 70 or "Fatal error" in err_text:
            fail("internal failure (%d): %s" % (rc, err_text.strip()[-300:]))
        elif case.expect == "ok" and rc != 0:
            fail("expected success, got %d: %s" % (rc, err_text.strip()[:300]))
        elif case.expect == "refuse" and rc not in (65, 66, 74):
            fail("expected a refusal, got %d (stdout %r)" % (rc, out_text[:200]))
        elif case.expect == "safe" and rc not in (0, 65, 66):
            fail("exit %d: %s" % (rc, err_text.strip()[:300]))
        if case.expect == "refuse" and rc != 0:
            import re
            if not err_text.strip():
                fail("refused without a word")
            elif len(err_text.strip().splitlines()) > 8:
                fail("the error is %d lines long" % len(err_text.strip().splitlines()))
            if case.needle and not re.search(case.needle, err_text, re.I):
                fail("the error does not name %r: %s" % (case.needle, err_text.strip()[:300]))
        for stream, text in (("stdout", out), ("stderr", err)):
            raw = [c for c in set(text[:1 << 20] + text[-(1 << 16):]) if (c < 0x20 and c not in (9, 10)) or c == 0x7f]
            if raw:
                fail("raw control characters %s in %s" % (sorted(raw)[:5], stream))
        if rss > case.megabytes:
            fail("peak memory %.0f MB, past %d MB" % (rss, case.megabytes))
        after = snapshot(d)
        if after != before:
            fail("the case's folder changed: " + describe_difference(before, after))
        after_work = snapshot(w)
        if not writes_into_work and after_work != before_work:
            fail("files appeared where mrq ran: " + describe_difference(before_work, after_work))
        if writes_into_work:
            unexpected = [n for n in after_work if n not in before_work and not n.startswith(("dump.mrq", "rebuilt.sqlite", "copy.sqlite"))]
            if unexpected:
                fail("files appeared where mrq ran: " + ", ".join(unexpected[:5]))
        for check in (case.checks if not case.check_last or index == len(case.runs) - 1 else []):
            why = check(out_text, err_text, out_length) if getattr(check, "wants_length", False) else check(out_text, err_text)
            if why:
                fail(why)
        if elapsed > case.seconds:
            fail("took %.1f s, past %d s" % (elapsed, case.seconds))
    for leftover in ("pwned.db", "pwned.txt", "pwned"):
        for base in (w, d, os.getcwd()):
            if os.path.lexists(os.path.join(base, leftover)):
                failures.append("a file the input chose was written: %s" % os.path.join(base, leftover))
    return failures


# The child that runs mrq: a small process of its own, so that the peak memory the
# kernel reports for mrq is mrq's (a child's figure starts from its parent's at
# fork, and this script's own can be large while it builds a case). It prints
# the status and peak (kB) of what it ran on the descriptor its first argument names.
SPAWNER = """
import os, sys
report = int(sys.argv[1])
pid = os.fork()
if pid == 0:
    os.close(report)
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
os.write(report, ("%d %d" % (status, usage.ru_maxrss)).encode())
"""

KEEP = 4 << 20  # bytes of each stream kept for the checks (the rest is counted)


def execute(argv, cwd, seconds):
    """Runs argv in its own session; returns (status, stdout kept, its whole
    length, stderr kept, peak MB, seconds, timed out). The status is negative
    for a signal, as Popen's."""
    import threading
    start = time.monotonic()
    report_r, report_w = os.pipe()
    proc = subprocess.Popen([sys.executable, "-S", "-c", SPAWNER, str(report_w)] + argv, cwd=cwd,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, pass_fds=(report_w,),
                            env=dict(os.environ, MRQ_HISTORY="/dev/null", NO_COLOR="1", COLUMNS="200"))
    os.close(report_w)
    kept = {1: [], 2: []}
    total = {1: 0, 2: 0}

    def drain(stream, key):
        for block in iter(lambda: stream.read(1 << 16), b""):
            if total[key] < KEEP:
                kept[key].append(block)
            total[key] += len(block)
    readers = [threading.Thread(target=drain, args=(proc.stdout, 1)),
               threading.Thread(target=drain, args=(proc.stderr, 2))]
    for t in readers:
        t.start()
    timed_out = False
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    elapsed = time.monotonic() - start
    report = os.read(report_r, 100).decode().split()
    os.close(report_r)
    for t in readers:
        t.join(10)
    if len(report) != 2:  # the spawner itself failed: say so as a failure of the run
        return 127, b"", 0, b"could not run mrq: " + b"".join(kept[2]), 0, elapsed, timed_out
    status, peak = int(report[0]), int(report[1])
    rc = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    if timed_out:
        rc = -signal.SIGKILL
    return rc, b"".join(kept[1]), total[1], b"".join(kept[2]), peak / 1024, elapsed, timed_out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mrq", default=".build/debug/mrq")
    parser.add_argument("-k", dest="pattern", help="only the cases whose class-name contains this")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("-j", type=int, default=2, help="cases run at once")
    options = parser.parse_args()
    root = tempfile.mkdtemp(prefix="mrq-hostile-")
    try:
        corpus = Corpus(options.mrq, root)
        cases = corpus.all()
        if options.pattern:
            cases = [c for c in cases if options.pattern in c.cls + "-" + c.name]
        if options.list:
            by_class = {}
            for c in cases:
                by_class.setdefault(c.cls, []).append(c.name)
            for cls, names in by_class.items():
                print("%s (%d): %s" % (cls, len(names), ", ".join(names)))
            print("%d cases" % len(cases))
            return 0
        mrq = os.path.abspath(options.mrq)
        results = []
        with ThreadPoolExecutor(max_workers=options.j) as pool:
            futures = [(c, pool.submit(run_case, mrq, c, root)) for c in cases]
            for c, f in futures:
                failures = f.result()
                results.append((c, failures))
                if failures:
                    print("FAIL %s/%s" % (c.cls, c.name))
                    for line in failures:
                        print("    " + line.replace("\n", "\\n")[:400])
        passed = sum(1 for _, f in results if not f)
        failed = len(results) - passed
        by_class = {}
        for c, f in results:
            p, n = by_class.get(c.cls, (0, 0))
            by_class[c.cls] = (p + (0 if f else 1), n + 1)
        print("by class: " + ", ".join("%s %d/%d" % (k, p, n) for k, (p, n) in by_class.items()))
        print("hostile corpus: %d passed, %d failed" % (passed, failed))
        return 1 if failed else 0
    finally:
        if not options.keep:
            for dirpath, dirnames, _ in os.walk(root):
                for name in dirnames:
                    try:
                        os.chmod(os.path.join(dirpath, name), 0o755)
                    except OSError:
                        pass
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
