"""The ctypes mirror equals include/sinpe.h.

C programs compiled against the header check, at compile time, that every
function has the prototype the package declares (_Static_assert on
_Generic, so nothing is linked), and print sizeof and offsetof of every
struct field and the value of every constant, which must equal ctypes'.
Skipped only when no C compiler (CC, else cc) or no header is found.
"""

import ctypes
import os
import re
import shutil
import subprocess

import pytest

from sinpe import _api, _types

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HEADER = os.path.join(ROOT, "include", "sinpe.h")


def build(tmp_path, name, source):
    """Compiles source against the header; returns the executable."""
    cc = os.environ.get("CC") or "cc"
    if not shutil.which(cc):
        pytest.skip(f"no C compiler ({cc})")
    if not os.path.exists(HEADER):
        pytest.skip(f"the header is not at {HEADER}")
    src, exe = tmp_path / f"{name}.c", tmp_path / name
    src.write_text(source)
    cmd = [cc, "-std=c11", "-Wall", "-Werror", "-I", os.path.dirname(HEADER), str(src),
           "-o", str(exe)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, f"{' '.join(cmd)} failed:\n{r.stderr}"
    return exe


def prototypes_program():
    lines = ['#include "sinpe.h"', ""]
    for name, ret, args in _api.FUNCTIONS:
        ptr = f"{ret} (*)({', '.join(args) or 'void'})"
        lines.append(f'_Static_assert(_Generic(&{name}, {ptr}: 1, default: 0), '
                     f'"{name} is not {ptr}");')
    lines += ["", "int main(void) { return 0; }", ""]
    return "\n".join(lines)


def layout_program():
    lines = ["#include <stddef.h>", "#include <stdio.h>", '#include "sinpe.h"', "",
             "int main(void)", "{"]
    for s in _types.STRUCTS:
        lines.append(f'    printf("sizeof {s.c_name} %zu\\n", sizeof({s.c_name}));')
        for field, _ in s._fields_:
            lines.append(f'    printf("offsetof {s.c_name}.{field} %zu\\n", '
                         f"offsetof({s.c_name}, {field}));")
    for name in _types.CONSTANTS:
        lines.append(f'    printf("value {name} %lld\\n", (long long){name});')
    lines += ["    return 0;", "}", ""]
    return "\n".join(lines)


def python_facts():
    facts = {}
    for s in _types.STRUCTS:
        facts[f"sizeof {s.c_name}"] = ctypes.sizeof(s)
        for field, _ in s._fields_:
            facts[f"offsetof {s.c_name}.{field}"] = getattr(s, field).offset
    for name, value in _types.CONSTANTS.items():
        facts[f"value {name}"] = value
    return facts


def test_prototypes(tmp_path):
    build(tmp_path, "prototypes", prototypes_program())


def test_layouts_and_constants(tmp_path):
    exe = build(tmp_path, "layout", layout_program())
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    got = {}
    for line in out.splitlines():
        key, value = line.rsplit(" ", 1)
        got[key] = int(value)
    want = python_facts()
    assert len(want) > 180
    diff = {k: (want[k], got.get(k)) for k in want if want[k] != got.get(k)}
    assert not diff, f"ctypes vs C, as (python, C): {diff}"


def test_every_public_function_is_mirrored():
    if not os.path.exists(HEADER):
        pytest.skip(f"the header is not at {HEADER}")
    with open(HEADER) as f:
        text = f.read()
    # The 0.1 entry points, "(name)(...)", are there for 0.1 binaries only.
    text = re.sub(r"^SINPE_API[^;(]*\(sinpe_\w+\)\s*\([^;]*;", "", text, flags=re.M)
    declared = set(re.findall(r"^SINPE_API[^(;]*?\b(sinpe_\w+)\s*\(", text, re.M))
    mirrored = {name for name, _, _ in _api.FUNCTIONS}
    assert len(declared) > 30
    assert declared == mirrored, (f"in the header only: {sorted(declared - mirrored)}; "
                                  f"in the package only: {sorted(mirrored - declared)}")


def test_every_enumerator_is_mirrored():
    """Every enumerator of the header's enums (the rotary rule, pairing,
    layout and presets among them) has its value in CONSTANTS, so that the
    layout program above prints and compares it."""
    if not os.path.exists(HEADER):
        pytest.skip(f"the header is not at {HEADER}")
    with open(HEADER) as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    enumerators = set(re.findall(r"^\s+(SINPE_[A-Z0-9_]+)\s*=", text, re.M))
    enumerators.discard("SINPE_STATUS_FORCE_INT_")  # the enum's width, not a value
    assert {"SINPE_ROPE_LONGROPE", "SINPE_ROPE_SIN_TWICE",
            "SINPE_ROPE_PRESET_PHI3_LONGROPE"} <= enumerators
    missing = sorted(enumerators - set(_types.CONSTANTS))
    assert not missing, f"enumerators not in _types.CONSTANTS: {missing}"


def test_rope_structs_are_compared():
    names = {s.c_name for s in _types.STRUCTS}
    assert {"sinpe_rope_spec", "sinpe_rope_args"} <= names


def test_struct_fields_in_header_order():
    """Every field the header's structs declare is mirrored, in order (the
    offsets above catch a wrong type; this catches a field added where
    padding hides it)."""
    if not os.path.exists(HEADER):
        pytest.skip(f"the header is not at {HEADER}")
    with open(HEADER) as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    for s in _types.STRUCTS:
        m = re.search(r"typedef struct %s \{(.*?)\} %s;" % (s.c_name, s.c_name), text, re.S)
        assert m, f"struct {s.c_name} not found in the header"
        fields = []
        for decl in m.group(1).split(";"):
            decl = decl.strip()
            if not decl:
                continue
            # "size_t n_seqs, seq_len" or "const char *device": names after the type.
            # An array ("size_t sections[4]") by its name.
            parts = [re.sub(r"\[\w*\]", "", p).strip() for p in decl.split(",")]
            first = re.findall(r"\w+", parts[0])[-1]
            fields.append(first)
            fields += [re.findall(r"\w+", p)[-1] for p in parts[1:]]
        assert fields == [f for f, _ in s._fields_], s.c_name
