"""Functions, classes and methods taken from a framework's own source file
(transformers, diffusers) by its syntax tree and executed in a namespace of
the test's, optionally in the float64 transform: the frameworks hard-code
float32 (`.float()`, `torch.float32`), which would make them the less exact
side of a comparison, so `.float()` becomes `.double()` and
`torch.float32` / `torch.float` become `torch.float64`; nothing else
changes.  Files are read, never imported: their packages import what this
machine may lack."""

import ast
import re
import textwrap


def float64_source(text):
    """A framework's source with its float32 hard-coding turned into float64."""
    text = text.replace(".float()", ".double()")
    return re.sub(r"torch\.float(?:32)?(?![\w])", "torch.float64", text)


def load_source(path, names, ns, f64=True):
    """The named top-level functions and classes of the file at path, and
    methods named "Class.method" (as plain functions, self first), executed
    into ns; returns ns."""
    with open(path) as f:
        text = f.read()
    found = {}
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in names:
            found[node.name] = ast.get_source_segment(text, node)
        for fn in node.body if isinstance(node, ast.ClassDef) else []:
            key = f"{node.name}.{fn.name}" if isinstance(fn, ast.FunctionDef) else None
            if key in names:
                found[key] = textwrap.dedent(" " * fn.col_offset +
                                             ast.get_source_segment(text, fn))
    missing = set(names) - set(found)
    assert not missing, f"{path} has no {sorted(missing)}"
    src = "\n\n".join(found[n] for n in names)
    exec(compile(float64_source(src) if f64 else src, path, "exec"), ns)
    return ns
