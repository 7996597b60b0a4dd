#!/usr/bin/env python3
"""Source checks run by CI (Python 3 stdlib only).

Usage:
    check-sources.py [--root DIR] [--max-lines N] [--report] [--docs SYMBOLGRAPH_DIR]
    check-sources.py --self-test

Every problem is printed as `path:line: message`; the exit status is 1 if any
check fails, 0 otherwise.

1. Function length (Sources/**/*.swift, Examples/**/*.swift): the body of every
   func, init, deinit, subscript, computed `var` (the whole accessor block,
   get/set included), `var` with willSet/didSet observers, and closure-bodied
   `var`/`let` (`lazy var x: T = { ... }()`) may span at most --max-lines (60)
   lines. Counted: from the line holding the body's opening `{` to the line
   holding its matching `}`, inclusive (a one-line body is 1). Braces inside
   string literals ("...", multi-line \"\"\"...\"\"\", raw #"..."#, including
   interpolations with nested strings), `#/regex/#` literals and comments (//,
   nested /* */) are ignored. Closures passed as arguments are not measured on
   their own; they count towards the enclosing function. --report prints the
   10 longest bodies.
2. No `@unchecked Sendable` in Sources (code only; comments and strings ignored).
3. Layer imports: every `import X` (with @_exported / @testable / @preconcurrency
   / access-level modifiers, or `import struct X.Y`) in Sources/<Target>/ must
   name a module that LAYERS allows for <Target>. A folder under Sources/ that
   LAYERS does not know is an error: add it to the table.
4. Doc comments (--docs DIR): reads every *.symbols.json in DIR and reports
   each public/open symbol of an AISync* module without a doc comment, grouped
   by module. Produce DIR with (tested with Swift 6.3.1; ~24 s cold, 2 CPUs):

       rm -rf .build/symbol-graphs
       swift build -Xswiftc -emit-symbol-graph \\
           -Xswiftc -emit-symbol-graph-dir -Xswiftc .build/symbol-graphs
       python3 scripts/check-sources.py --docs .build/symbol-graphs

   (`swift package dump-symbol-graph --minimum-access-level public` writes the
   same public graphs to .build/<triple>/symbolgraph/ but exits 1 on Swift
   6.3.1: it also tries the never-built aisyncPackage*Tests modules.)
   Rule for skipping implicit/synthesized symbols, read off the graphs:
     - identifier.precise contains "::SYNTHESIZED::": a copy of a protocol
       extension member (stdlib defaults like Equatable.!=, Comparable.<=, the
       range operators, Actor.assumeIsolated, or our own protocol extensions,
       which are checked once at their declaration) made for a conforming type;
     - no "location": the compiler synthesized it (RawRepresentable
       init(rawValue:), Codable init(from:)/encode(to:), Hashable
       hash(into:)/hashValue, CaseIterable allCases);
     - kind "swift.extension" (extension blocks, if the graphs were emitted
       with extension block symbols).
   Enum cases need docs like everything else. Any docComment with non-blank
   text counts, whichever module it came from.
5. Front-end-neutral library text: a string literal in a library target
   (Sources/AISync*/, not the CLI's Sources/AISyncCLI/) may not name a CLI command
   (a backquoted `aisync ...`, or `aisync <command>` such as "aisync init") nor a
   `--flag`: errors carry an AISyncError.Remedy, and the CLI alone turns it into
   a command to type (Sources/aisync/ErrorText.swift). Comments are not checked.
--self-test runs every check on temporary files with and without violations.
"""
import argparse, bisect, json, os, re, sys, tempfile, urllib.parse
from pathlib import Path

MAX_LINES = 60

# ---- Layer table: target folder under Sources/ -> modules it may import. ----
# Each target lists only what its files import (a new import is a decision: add it here).
# The C libraries come in threes, one per libc behind #if canImport: Glibc, Musl, Darwin.
LIBC = {"Glibc", "Musl", "Darwin"}
LIBRARIES = {"AISyncCore", "AISyncFiles", "AISyncStore", "AISyncHTTP", "AISyncImport", "AISyncExport",
             "AISyncRemote", "AISyncImgur", "AISyncSync"}
LAYERS = {
    # Pure: no libc, so no files, sockets or dlsym (those live in AISyncFiles and above).
    "AISyncCore": {"Foundation", "FoundationEssentials", "Synchronization"},
    # Security: SecRandomCopyBytes, the CSPRNG on Apple platforms (behind #if canImport).
    "AISyncFiles": {"Foundation", "Dispatch", "Synchronization", "Security", "AISyncCore"} | LIBC,
    "AISyncStore": {"Foundation", "Dispatch", "Synchronization", "AISyncCore", "AISyncFiles"} | LIBC,
    # The socket transport is Linux-only (Glibc/Musl); URLSession needs FoundationNetworking there;
    # Security: a remote's own certificates in URLSession's trust evaluation on Apple platforms.
    "AISyncHTTP": {"Foundation", "FoundationNetworking", "Synchronization", "Security", "Glibc", "Musl",
                   "AISyncCore", "AISyncFiles"},
    "AISyncRemote": {"Synchronization", "AISyncCore", "AISyncFiles", "AISyncHTTP"} | LIBC,
    "AISyncImgur": {"Foundation", "AISyncCore", "AISyncFiles", "AISyncHTTP"},
    "AISyncImport": {"Foundation", "Synchronization", "AISyncCore", "AISyncFiles", "AISyncStore", "AISyncHTTP"},
    "AISyncExport": {"Foundation", "AISyncCore", "AISyncFiles", "AISyncStore"},
    "AISyncSync": {"AISyncCore", "AISyncFiles", "AISyncStore", "AISyncHTTP", "AISyncRemote", "AISyncImgur"},
    "AISync": LIBRARIES,                               # the umbrella module
    "AISyncTesting": {"Synchronization", "AISync", "AISyncFiles"},
    # The CLI: the library, plus what a terminal program needs (signals, isatty, a lock).
    "AISyncCLI": {"AISync", "AISyncFiles", "Foundation", "Synchronization"} | LIBC,
    "aisync": {"AISyncCLI"},
    # Benchmark helpers: the library and Foundation's timing and formatting.
    "aisync-bench": {"AISync", "AISyncFiles", "Foundation"},
}

# ---- Lexing: blank out comments and literals so only code braces remain. ----
OPEN_LITERAL = re.compile(r'(#*)("""|")|(#+)/')


def strip_swift(src, literals=None):
    """Returns src with comments, string and regex literals (interpolations
    included) replaced by spaces; newlines and offsets are kept. With a list as
    `literals`, appends (start, end) of each outermost string literal to it."""
    out, i, n = list(src), 0, len(src)
    stack = []  # ['s', closer, escape, start] for literals, ['i', paren depth] for \( ... )

    def blank(a, b):  # (slicing keeps the length, even past the end)
        out[a:b] = [c if c == "\n" else " " for c in src[a:b]]
    while i < n:
        if stack and stack[-1][0] == "s":           # inside a literal
            _, closer, esc, _ = stack[-1]
            if esc and src.startswith(esc, i):      # \x, \", \\ or \( (with #s if raw)
                j = i + len(esc)
                if src.startswith("(", j):
                    stack.append(["i", 1])
                blank(i, j + 1); i = j + 1; continue
            if src.startswith(closer, i):
                start = stack.pop()[3]
                if literals is not None and not stack: literals.append((start, i + len(closer)))
                blank(i, i + len(closer)); i += len(closer); continue
            if src[i] == "\n" and closer.startswith('"') and not closer.startswith('"""'):
                stack.pop(); i += 1; continue       # unterminated one-line string
            blank(i, i + 1); i += 1; continue
        inner = bool(stack)                          # code inside an interpolation
        if src.startswith("//", i):
            j = src.find("\n", i); j = n if j < 0 else j
            blank(i, j); i = j; continue
        if src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j): depth += 1; j += 2
                elif src.startswith("*/", j): depth -= 1; j += 2
                else: j += 1
            blank(i, j); i = j; continue
        m = OPEN_LITERAL.match(src, i)
        if m:
            if m.group(3):                           # #/regex/#: no escapes needed here
                stack.append(["s", "/" + m.group(3), None, i])
            else:
                h = m.group(1)
                stack.append(["s", m.group(2) + h, "\\" + h, i])
            blank(i, m.end()); i = m.end(); continue
        if inner:
            if src[i] == "(": stack[-1][1] += 1
            elif src[i] == ")":
                stack[-1][1] -= 1
                if stack[-1][1] == 0: stack.pop()
            blank(i, i + 1)
        i += 1
    return "".join(out)


# ---- Function bodies ----
KEYWORD = re.compile(r"(?<![.\w$])(func|init|deinit|subscript|var|let|class|struct|enum|"
                     r"extension|protocol|actor|if|guard|while|for|switch|do|catch|else|"
                     r"repeat|defer|return|case|get|set|willSet|didSet)\b")
TYPE_DECL = re.compile(r"(?:class|struct|enum|extension|protocol|actor)\s+([\w.]+)")
FUNC_DECL = re.compile(r"func\s+(\w+|[^\w\s(\x01]+)|init[?!]?|deinit|subscript")
COMPUTED_VAR = re.compile(r"var\s+(\w+)\s*:[^=\n]+$")
CLOSURE_VAR = re.compile(r"(?:var|let)\s+(\w+)\s*(?::[^=\n]*)?=\s*$")
OBSERVED_VAR = re.compile(r"var\s+(\w+)\b[^\n]*=")


def classify(code, i):
    """What does the `{` at code[i] open? (kind, label, offset of the declaring
    keyword) with kind 'type' or 'func', e.g. ('func', 'func load', 120); or None."""
    depth, j = 0, i - 1
    while j >= 0:                       # back to the start of the declaration
        c = code[j]
        if c in ")]": depth += 1
        elif c in "([":
            if depth == 0: return None  # a closure argument or literal element
            depth -= 1
        elif c in "{};" and depth == 0: break
        j -= 1
    head, prev = code[j + 1:i], None
    while head != prev:                 # fill (...) and [...] groups with \x01, keeping offsets
        prev, head = head, re.sub(r"\([^()]*\)|\[[^\[\]]*\]", lambda g: "\x01" * len(g[0]), head)
    kws = [k for k in KEYWORD.finditer(head)  # `func set(`: a name, not a keyword
           if not re.search(r"\b(?:func|var|let)\s+$", head[:k.start()])]
    if not kws: return None
    at = j + 1 + kws[-1].start()
    decl = head[kws[-1].start():].strip()
    if m := TYPE_DECL.match(decl): return ("type", m[1], at)
    if m := FUNC_DECL.match(decl): return ("func", "func " + m[1] if m[1] else m[0], at)
    if m := COMPUTED_VAR.match(decl) or CLOSURE_VAR.match(decl): return ("func", "var " + m[1], at)
    if (m := OBSERVED_VAR.match(decl)) and re.match(r"\s*(willSet|didSet)\b", code[i + 1:i + 200]):
        return ("func", "var " + m[1], at)
    return None


def function_bodies(src):
    """Yields (name, line of its declaration, body length in lines) per body in src."""
    code = strip_swift(src)
    newlines = [k for k, c in enumerate(code) if c == "\n"]
    line = lambda pos: bisect.bisect_left(newlines, pos) + 1
    stack = []
    for i, c in enumerate(code):
        if c == "{":
            stack.append((i, classify(code, i)))
        elif c == "}" and stack:
            start, what = stack.pop()
            if what and what[0] == "func":    # qualify with the enclosing types
                *kind, name = what[1].split()
                name = ".".join([w[1] for _, w in stack if w and w[0] == "type"] + [name])
                yield (" ".join(kind + [name]), line(what[2]), line(i) - line(start) + 1)


def swift_files(root, *dirs):
    for d in dirs:
        yield from sorted((root / d).rglob("*.swift"))


def check_lengths(root, limit):
    problems, bodies = [], []
    for f in swift_files(root, "Sources", "Examples"):
        rel = f.relative_to(root)
        for name, start, length in function_bodies(f.read_text(encoding="utf-8")):
            bodies.append((length, f"{rel}:{start}", name))
            if length > limit:
                problems.append(f"{rel}:{start}: {name} is {length} lines long (limit {limit})")
    return problems, sorted(bodies, key=lambda b: -b[0])


def check_unchecked(root):
    problems = []
    for f in swift_files(root, "Sources"):
        code = strip_swift(f.read_text(encoding="utf-8"))
        for m in re.finditer(r"@unchecked\s+Sendable\b", code):
            problems.append(f"{f.relative_to(root)}:{code.count(chr(10), 0, m.start()) + 1}: "
                            "@unchecked Sendable is not allowed; use Mutex/actors or real Sendable types")
    return problems


IMPORT = re.compile(r"^[ \t]*(?:(?:@\w+(?:\([^)\n]*\))?|public|package|internal|fileprivate|private)\s+)*"
                    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?(\w+)",
                    re.MULTILINE)


def check_imports(root, layers=LAYERS):
    problems, sources = [], root / "Sources"
    for folder in sorted(p for p in sources.iterdir() if p.is_dir()) if sources.is_dir() else []:
        allowed = layers.get(folder.name)
        if allowed is None:
            problems.append(f"{folder.relative_to(root)}:1: unknown target folder "
                            f"'{folder.name}'; add it to the layer table (LAYERS) in {Path(__file__).name}")
            continue
        for f in swift_files(root, folder.relative_to(root)):
            code = strip_swift(f.read_text(encoding="utf-8"))
            for m in IMPORT.finditer(code):
                if m.group(1) not in allowed:
                    problems.append(f"{f.relative_to(root)}:{code.count(chr(10), 0, m.start()) + 1}: "
                                    f"{folder.name} may not import {m.group(1)} (see LAYERS)")
    return problems


# ---- Front-end-neutral library text ----
CLI_COMMANDS = ("compact|completion|conflicts|encrypt|export|favorite|fsck|gc|import|init|list|log|pull|push|"
                "rename|resolve|restore|rm|show|status|sync|chat (?:edit|new|rm|say)|image (?:add|save)|"
                "imgur (?:disable|enable|status)|passphrase (?:change|forget)|remote (?:add|list|remove)|story new")
CLI_WORDS = re.compile(r"`aisync\b|\baisync (?:" + CLI_COMMANDS + r")(?=[\s`|.,;:)]|$)|(?<![\w-])--[a-z][a-z-]*")


# Targets that are a front end: they alone word remedies as commands to type.
FRONT_ENDS = {"AISyncCLI"}


def check_cli_words(root):
    """Library string literals naming an aisync command or a --flag."""
    problems, sources = [], root / "Sources"
    for folder in sorted(p for p in sources.iterdir() if p.is_dir() and p.name.startswith("AISync")
                         and p.name not in FRONT_ENDS) if sources.is_dir() else []:
        for f in swift_files(root, folder.relative_to(root)):
            src, spans = f.read_text(encoding="utf-8"), []
            strip_swift(src, spans)
            for a, b in spans:
                for m in CLI_WORDS.finditer(src, a, b):
                    problems.append(f"{f.relative_to(root)}:{src.count(chr(10), 0, m.start()) + 1}: "
                                    f"'{m[0]}' in library text: say it front-end neutral and give an "
                                    "AISyncError.Remedy (the CLI's ErrorText names the command)")
    return problems


# ---- Doc comments from symbol graphs ----
def undocumented(graph_dir, root):
    """{module: [problem lines]} for public AISync* symbols without a doc comment."""
    seen, found = set(), {}
    for path in sorted(Path(graph_dir).glob("*.symbols.json")):
        graph = json.loads(path.read_text(encoding="utf-8"))
        module = graph["module"]["name"]
        if not module.startswith("AISync"):
            continue
        for s in graph["symbols"]:
            ident = s["identifier"]["precise"]
            if (s.get("accessLevel") not in ("public", "open") or ident in seen
                    or "::SYNTHESIZED::" in ident or "location" not in s
                    or s["kind"]["identifier"] == "swift.extension"):
                continue
            seen.add(ident)
            if any(l.get("text", "").strip() for l in s.get("docComment", {}).get("lines", [])):
                continue
            loc = s["location"]
            file = urllib.parse.unquote(urllib.parse.urlparse(loc["uri"]).path)
            if file.startswith(str(root) + os.sep):
                file = os.path.relpath(file, root)
            found.setdefault(module, []).append(
                f"{file}:{loc['position']['line'] + 1}: {s['kind']['displayName'].lower()} "
                f"{'.'.join(s['pathComponents'])} has no doc comment")
    return found


# ---- Self-test ----
TRICKY = r'''
struct Tricky {
    func strings() -> [String] {
        let a = "}}}", b = "\"}", c = "\\", d = #"}"\"#, e = #"\#("}")"#
        let f = """
            } "quoted" \""" }
            """
        let g = #"""
            }"""  "#
            """#
        let h = "\(["}": "{"].count) \("a" + "}")"
        let r = #/[}]+/#
        // } a comment with a brace
        /* outer /* nested } */ still a comment } */
        return [a, b, c, d, e, f, g, h, "\(r)"]
    }
    var computed: Int {
        get { 1 }
        set { }
    }
    lazy var made: [Int] = {
        [1]
    }()
    var watched = 0 {
        didSet { }
    }
    subscript(i: Int) -> Int { i }
    init?(x: Int) { if x > 0 { return nil } }
    static func ==(l: Tricky, r: Tricky) -> Bool { true }
    mutating func set(_ v: Int) { watched = v }
    var list: [Int] { [1] }
    func closures() -> [Int] {
        let v = Array<Int>(unsafeUninitializedCapacity: 1) { b, n in n = 0 }
        return v }
    func after() {
        let s = [1].map { $0 }
        _ = s
    }
}
'''


def self_test():
    failures = []

    def expect(what, got, want):
        if got != want:
            failures.append(f"{what}: got {got!r}, want {want!r}")
    got = sorted((n, l) for n, _, l in function_bodies(TRICKY))
    expect("tricky bodies", got, sorted([
        ("func Tricky.strings", 14), ("var Tricky.computed", 4), ("var Tricky.made", 3),
        ("var Tricky.watched", 3), ("Tricky.subscript", 1), ("Tricky.init?", 1),
        ("func Tricky.==", 1), ("func Tricky.set", 1), ("var Tricky.list", 1),
        ("func Tricky.closures", 3), ("func Tricky.after", 4)]))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)

        def write(rel, text):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        body = lambda n: "\n".join(["    let x = 0"] * (n - 2))
        write("Sources/AISyncCore/Ok.swift", "import Foundation\n#if canImport(Synchronization)\nimport Synchronization\n"
              "#endif\n// import AISyncStore\nlet s = \"import AISyncSync\"\n"
              f"func sixty() {{\n{body(60)}\n}}\n/* @unchecked Sendable */\n" + TRICKY)
        write("Examples/Demo/main.swift", "import AISync\n")
        expect("clean lengths", check_lengths(root, MAX_LINES)[0], [])
        expect("clean unchecked", check_unchecked(root), [])
        expect("clean imports", check_imports(root), [])
        write("Examples/Demo/main.swift", f"struct A {{\n  init() {{\n{body(61)}\n  }}\n}}\n")
        write("Sources/AISyncCore/Bad.swift", "@testable import AISyncStore\n"
              "@_exported import AISyncSync\npublic import struct AISyncRemote.Foo\n"
              "#if canImport(Glibc)\n@preconcurrency import Glibc\n#endif\n"
              "final class Box: @unchecked Sendable {}\n")
        write("Sources/Mystery/M.swift", "")
        write("Sources/AISyncStore/Ok.swift", '// Run `aisync init`, pass --store\nlet a = "aisync-io", b = "no aisync store"\n'
              'let c = "<title>aisync export</title>", d = "--\\(boundary)", e = x--y\n'
              'let r = "not an aisync remote (no aisync.json)"\n')
        write("Sources/aisync/CLI.swift", 'let hint = "Run `aisync init` or pass --store DIR"\n')
        expect("clean cli words", check_cli_words(root), [])
        write("Sources/AISyncStore/Bad.swift", 'let h = "Run `aisync init` first"\nlet f = """\n  pass --force\n  """\n'
              'let g = "try aisync pull \\(name)"\n')
        expect("cli words", [p.split(" in library")[0] for p in check_cli_words(root)],
               ["Sources/AISyncStore/Bad.swift:1: '`aisync'", "Sources/AISyncStore/Bad.swift:3: '--force'",
                "Sources/AISyncStore/Bad.swift:5: 'aisync pull'"])
        expect("long body", check_lengths(root, MAX_LINES)[0],
               ["Examples/Demo/main.swift:2: A.init is 61 lines long (limit 60)"])
        expect("unchecked", [p.split(":")[:2] for p in check_unchecked(root)],
               [["Sources/AISyncCore/Bad.swift", "7"]])
        expect("imports", [p.split(" (")[0] for p in check_imports(root)],
               ["Sources/AISyncCore/Bad.swift:1: AISyncCore may not import AISyncStore",
                "Sources/AISyncCore/Bad.swift:2: AISyncCore may not import AISyncSync",
                "Sources/AISyncCore/Bad.swift:3: AISyncCore may not import AISyncRemote",
                "Sources/AISyncCore/Bad.swift:5: AISyncCore may not import Glibc",
                "Sources/Mystery:1: unknown target folder 'Mystery'; add it to the layer table"])
        loc = {"uri": (root / "Sources/AISyncCore/Ok.swift").as_uri(), "position": {"line": 4}}
        sym = lambda ident, name, access="public", doc=True, where=loc: dict(
            identifier={"precise": ident}, pathComponents=["T", name], accessLevel=access,
            kind={"identifier": "swift.property", "displayName": "Instance Property"},
            **({"docComment": {"lines": [{"text": "Docs."}]}} if doc else {}),
            **({"location": where} if where else {}))
        graph = lambda module, symbols: {"module": {"name": module}, "symbols": symbols}
        write("graphs/AISyncCore.symbols.json", json.dumps(graph("AISyncCore", [
            sym("s:a", "documented"), sym("s:b", "missing", doc=False),
            sym("s:c", "hidden", "internal", False), sym("s:g", "blank", doc=False) | {
                "docComment": {"lines": [{"text": " "}]}},
            sym("s:SQsE2neoiySbx_xtFZ::SYNTHESIZED::s:d", "!=", doc=False),
            sym("s:e", "hashValue", doc=False, where=None)])))
        write("graphs/aisync.symbols.json", json.dumps(graph("aisync", [sym("s:f", "cli", doc=False)])))
        expect("docs", undocumented(root / "graphs", root),
               {"AISyncCore": [f"Sources/AISyncCore/Ok.swift:5: instance property T.{n} has no doc comment"
                                for n in ("missing", "blank")]})
    for f in failures:
        print("self-test FAILED:", f)
    print("self-test:", "FAILED" if failures else "ok")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description="Source checks (see the module docstring).")
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--max-lines", type=int, default=MAX_LINES)
    ap.add_argument("--report", action="store_true", help="print the 10 longest bodies")
    ap.add_argument("--docs", metavar="SYMBOLGRAPH_DIR", help="check doc comments of public API")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    root = args.root.resolve()
    problems, bodies = check_lengths(root, args.max_lines)
    if args.report:
        print(f"== {len(bodies)} bodies; the 10 longest:")
        for length, where, name in bodies[:10]:
            print(f"{where}: {name}: {length} lines")
    problems += check_unchecked(root) + check_imports(root) + check_cli_words(root)
    for p in problems:
        print(p)
    if args.docs:
        if not list(Path(args.docs).glob("*.symbols.json")):
            sys.exit(f"check-sources: no *.symbols.json in {args.docs} (see --help)")
        found = undocumented(args.docs, root)
        for module in sorted(found):
            print(f"== {module}: {len(found[module])} public symbols without a doc comment")
            print("\n".join(sorted(found[module])))
            problems += found[module]
    print(f"check-sources: {len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
