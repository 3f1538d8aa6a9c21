#!/bin/sh
# An agent-like session in a fresh directory below $1: the short tools an
# agent starts one after another, each a process of its own. bench/run
# times the whole script. Everything stays below $1; nothing reaches the
# network. Python is the system's (/usr/bin/python3): a PATH's own Python
# (pyenv's shims, say) may lie outside what the policy lets run.
set -eu
top=$1
rm -rf "$top"
mkdir -p "$top"
cd "$top"
git init -q repo
cd repo
git config user.name bench
git config user.email bench@example.invalid
mkdir -p src tests
for i in 1 2 3 4 5 6 7 8; do
  printf 'def f%d(x):\n    return x + %d\n' "$i" "$i" > "src/m$i.py"
  printf 'int g%d(int x) { return x * %d; }\n' "$i" "$i" > "src/c$i.c"
done
printf 'int main(void) { return 0; }\n' > src/main.c
cat > tests/test_m.py <<'PY'
import sys, unittest
sys.path.insert(0, "src")
import m1, m2, m3

class T(unittest.TestCase):
    def test_adds(self):
        self.assertEqual(m1.f1(1) + m2.f2(1) + m3.f3(1), 9)

unittest.main(argv=["t"], exit=True)
PY
git add -A
git commit -qm "first"
grep -rn "return" src > /dev/null
find . -name "*.py" -newer src/main.c > /dev/null || true
find . -type f | wc -l > /dev/null
cc -O1 -o prog src/*.c
./prog
/usr/bin/python3 tests/test_m.py 2> /dev/null
/usr/bin/python3 -m venv --without-pip ../venv
../venv/bin/python -c "import sys; sys.exit(0)"
echo "# changed" >> src/m1.py
git diff --stat > /dev/null
git add -A
git commit -qm "second"
git log --oneline > /dev/null
tar czf ../repo.tar.gz .
mkdir ../unpacked
tar xzf ../repo.tar.gz -C ../unpacked
cd ..
rm -rf repo unpacked venv repo.tar.gz
