# Sourced by bench/run.sh and bench/recovery.sh: install_npm DIR lays out DIR's npm packages from its lock file.
# shellcheck shell=bash
install_npm() { # dir: npm ci when the lock file is newer than the last install
  local dir=$1 stamp=$1/node_modules/.installed-from-lock err
  if [ ! -f "$stamp" ] || [ "$dir/package-lock.json" -nt "$stamp" ]; then
    err=$(mktemp)
    if ! (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error 2>"$err"); then
      # npm 11 refuses a lock file that leaves out an optional dependency the registry does not have
      # (vite's napi-windows-process-start-time, Windows only); npm install then lays out the same
      # locked versions, checked below.
      echo "bench: npm ci refused $dir/package-lock.json ($(grep -m1 'Missing:' "$err" || grep -m1 'error' "$err" || true));" \
        "npm install --no-save from the same lock file" >&2
      (cd "$dir" && npm install --no-save --no-audit --no-fund --loglevel=error)
      (cd "$dir" && node -e '
        const lock = require("./package-lock.json"), fs = require("fs");
        const off = Object.entries(lock.packages).filter(([p, v]) => p && !v.optional
            && (!fs.existsSync(p + "/package.json") || JSON.parse(fs.readFileSync(p + "/package.json")).version !== v.version));
        if (off.length) { console.error("bench: installed versions differ from the lock file:", off.map(([p]) => p).join(", ")); process.exit(1); }')
    fi
    rm -f "$err"
    touch "$stamp"
  fi
}
