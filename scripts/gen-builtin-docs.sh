#!/usr/bin/env bash
# Rewrites the builtin list of docs/kernel-language.md from the compiler's table
# (`weft builtins --markdown`). The test BuiltinDocs.ReferenceHoldsTheGeneratedList fails until
# this has been run after a change to the table.
set -euo pipefail
cd "$(dirname "$0")/.."
WEFT="${1:-build/apps/weft}"
/usr/bin/python3 - "$WEFT" <<'PY'
import subprocess, sys
md = subprocess.run([sys.argv[1], "builtins", "--markdown"], capture_output=True, text=True, check=True).stdout
path = "docs/kernel-language.md"
doc = open(path).read()
b, e = "<!-- BEGIN BUILTINS -->\n", "<!-- END BUILTINS -->"
i, j = doc.index(b) + len(b), doc.index(e)
open(path, "w").write(doc[:i] + md + doc[j:])
PY
