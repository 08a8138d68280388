"""erf_aten with its square held at 80 against erf_aten without the hold, over all 2^32 floats.

    .venv/bin/python scripts/erf_hold_check.py

Takes erf_aten from the kernels' preamble (codegen/cpp.py), builds a second copy with the hold
taken out, and compares the two bit for bit on every float (NaN against NaN counts as equal),
in a scalar loop (about 40 s). Prints how many differ: 0 is what the preamble's comment says.
"""
from __future__ import annotations

import os
import re
import subprocess
import tempfile

from bessemer.compiler.codegen import cpp


def main() -> None:
    src = cpp.preamble()
    m = re.search(r"static inline float erf_aten\(float x\) \{.*?\n\}\n", src, re.S)
    if m is None:
        raise SystemExit("this machine's preamble has no erf_aten (eager's erf is not ATen's formula here)")
    held = m.group(0)
    hold = "  q = q > 80.0f ? 80.0f : q;\n"
    assert hold in held, held
    plain = held.replace(hold, "").replace("erf_aten", "erf_plain")
    prog = ("#include <cmath>\n#include <cstdint>\n#include <cstdio>\n#include <cstring>\n" + held + plain + r'''
int main() {
  uint64_t diff = 0;
  for (uint64_t u = 0; u < (1ull << 32); ++u) {
    uint32_t b = (uint32_t)u, ba, bc;
    float x, a, c;
    memcpy(&x, &b, 4);
    a = erf_aten(x);
    c = erf_plain(x);
    memcpy(&ba, &a, 4);
    memcpy(&bc, &c, 4);
    if (ba != bc && !(a != a && c != c)) ++diff;
  }
  printf("%llu of 4294967296 floats differ\n", (unsigned long long)diff);
  return diff != 0;
}
''')
    with tempfile.TemporaryDirectory() as d:
        path, exe = os.path.join(d, "check.cpp"), os.path.join(d, "check")
        with open(path, "w") as f:
            f.write(prog)
        subprocess.run(["g++", "-O2", "-march=native", "-ffp-contract=off", "-fno-math-errno", path, "-o", exe],
                       check=True)
        raise SystemExit(subprocess.run([exe]).returncode)


if __name__ == "__main__":
    main()
