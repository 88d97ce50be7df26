"""``workbench dashboard``: run the Streamlit app on localhost against a store."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "streamlit_app.py"


def launch(db: Path, port: int) -> int:
    env = {**os.environ, "WORKBENCH_DB": str(Path(db).resolve())}
    cmd = [sys.executable, "-m", "streamlit", "run", str(APP), "--server.address", "127.0.0.1",
           "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    print(f"dashboard on http://127.0.0.1:{port} for {db} (Ctrl-C to stop)", file=sys.stderr)
    try:
        return subprocess.call(cmd, env=env, cwd=APP.parent)
    except KeyboardInterrupt:
        return 0
